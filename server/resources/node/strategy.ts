// The Node strategy (core/v1): shape (strict at the top, loose where Stowage does not
// look), defaults, validation (ValidateNode / ValidateNodeUpdate), and the table.
import type { FieldError } from '../../domain/errors';
import { ageOf } from '../../domain/duration';
import { isQualifiedName, isValidLabelValue } from '../../domain/names';
import { ageColumn, column, nameColumn, noColumns } from '../columns';
import { child, duplicate, forbidden, invalid, notSupported, required } from '../field-errors';
import { keepAllButStatus, keepSystemMetadata, shapeErrors, stripNulls, validateObjectMeta, validateObjectMetaUpdate, validateTypeMeta, keepStatus } from '../metadata';
import { canonicalizeResourceList, validateResourceList } from '../resource-list';
import type { Strategy } from '../types';
import { labelNodeRolePrefix, labelRole } from '../../domain/well-known/labels';
import { nodeSchema, type Node } from './schema';

export const taintEffects = ['NoExecute', 'NoSchedule', 'PreferNoSchedule'] as const;

const cidrMessage = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

/** An IPv4 or IPv6 network in CIDR notation (lexical check). */
export function isCIDR(value: string): boolean {
  const [ip, bits, extra] = value.split('/');
  if (extra !== undefined || bits === undefined || !/^\d{1,3}$/.test(bits)) return false;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) {
    return Number(bits) <= 32 && ip.split('.').every((o) => Number(o) <= 255 && (o === '0' || !o.startsWith('0')));
  }
  if (!ip.includes(':') || Number(bits) > 128 || !/^[0-9a-fA-F:]+$/.test(ip)) return false;
  const groups = ip.split('::');
  if (groups.length > 2) return false;
  const parts = groups.flatMap((g) => (g ? g.split(':') : []));
  if (parts.some((p) => p.length === 0 || p.length > 4)) return false;
  return groups.length === 2 ? parts.length < 8 : parts.length === 8;
}

type Taint = NonNullable<NonNullable<Node['spec']>['taints']>[number];

function validateTaints(taints: Taint[]): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  taints.forEach((t, i) => {
    const at = child('spec.taints', i);
    const key: string = t.key ?? '';
    for (const msg of isQualifiedName(key)) errs.push(invalid(child(at, 'key'), key, msg));
    const valueErrs = isValidLabelValue(t.value ?? '');
    if (valueErrs.length > 0) errs.push(invalid(child(at, 'value'), t.value, valueErrs.join(';')));
    if (!t.effect) errs.push(required(child(at, 'effect')));
    else if (!(taintEffects as readonly string[]).includes(t.effect)) errs.push(notSupported(child(at, 'effect'), t.effect, taintEffects));
    const id = `${t.effect ?? ''}\u0000${key}`;
    if (seen.has(id)) {
      errs.push({ ...duplicate(at, t), message: `Duplicate value: ${JSON.stringify(t)}: taints must be unique by key and effect pair` });
    }
    seen.add(id);
  });
  return errs;
}

function validateNode(node: Node): FieldError[] {
  const errs = [
    ...validateTypeMeta(node, 'v1', 'Node'),
    ...validateObjectMeta(node.metadata, { namespaced: false, name: 'dns-subdomain' }),
  ];
  const spec = node.spec ?? {};
  errs.push(...validateTaints(spec.taints ?? []));
  const cidrs: string[] = spec.podCIDRs ?? [];
  cidrs.forEach((c, i) => {
    if (!isCIDR(c)) errs.push(invalid(child('spec.podCIDRs', i), c, cidrMessage));
  });
  const sameFamily = cidrs.length === 2 && cidrs[0].includes(':') === cidrs[1].includes(':');
  if (cidrs.length > 2 || sameFamily) errs.push(invalid('spec.podCIDRs', cidrs, 'may specify no more than one CIDR for each IP family'));
  cidrs.forEach((c, i) => {
    if (cidrs.indexOf(c) !== i) errs.push(duplicate(child('spec.podCIDRs', i), c));
  });
  errs.push(...validateResourceList(node.status?.capacity, 'status.capacity'));
  errs.push(...validateResourceList(node.status?.allocatable, 'status.allocatable'));
  const addresses: { type?: string; address?: string }[] = node.status?.addresses ?? [];
  addresses.forEach((a, i) => {
    if (addresses.findIndex((b) => b.type === a.type && b.address === a.address) !== i) {
      errs.push(duplicate(child('status.addresses', i), a));
    }
  });
  return errs;
}

const podCIDRMessage = 'node updates may not change podCIDR except from "" to valid';

function validateNodeUpdate(next: Node, prev: Node): FieldError[] {
  const errs = validateObjectMetaUpdate(next.metadata, prev.metadata);
  const oldCIDRs: string[] = prev.spec?.podCIDRs ?? [];
  const newCIDRs: string[] = next.spec?.podCIDRs ?? [];
  if (oldCIDRs.length > 0 && (oldCIDRs.length !== newCIDRs.length || oldCIDRs.some((c, i) => c !== newCIDRs[i]))) {
    errs.push(forbidden('spec.podCIDRs', podCIDRMessage));
  }
  const oldProvider = prev.spec?.providerID ?? '';
  if (oldProvider && oldProvider !== (next.spec?.providerID ?? '')) {
    errs.push(forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }
  if ((next.spec?.externalID ?? '') !== (prev.spec?.externalID ?? '')) errs.push(forbidden('spec.externalID', 'may not be updated'));
  return errs;
}

/** `Ready`, `NotReady` or `Unknown`, then `SchedulingDisabled` when cordoned (kubectl's STATUS). */
function nodeStatus(node: Node): string {
  const ready = (node.status?.conditions ?? []).find((c) => c.type === 'Ready');
  const status = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node.spec?.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}


/** Roles from `node-role.kubernetes.io/<role>` keys and `kubernetes.io/role` values, sorted. */
function nodeRoles(node: Node): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries<string>(node.metadata?.labels ?? {})) {
    if (k.startsWith(labelNodeRolePrefix) && k.length > labelNodeRolePrefix.length) roles.add(k.slice(labelNodeRolePrefix.length));
    else if (k === labelRole && v) roles.add(v);
  }
  return [...roles].sort().join(',') || '<none>';
}

function address(node: Node, type: string): string {
  return (node.status?.addresses ?? []).find((a) => a.type === type)?.address ?? '<none>';
}

export const nodeStrategy: Strategy<Node> = {
  kind: 'Node',
  group: '',
  version: 'v1',
  apiVersion: 'v1',
  plural: 'nodes',
  singular: 'node',
  shortNames: ['no'],
  namespaced: false,
  hasStatus: true,
  fieldSelectors: {
    'spec.unschedulable': (node) => String(node.spec?.unschedulable === true),
  },

  validateShape: (obj) => shapeErrors(nodeSchema, obj),
  schema: nodeSchema,

  applyDefaults(node) {
    stripNulls(node);
    canonicalizeResourceList(node.status?.capacity);
    canonicalizeResourceList(node.status?.allocatable);
    if (node.status?.capacity && node.status.allocatable === undefined) {
      node.status.allocatable = structuredClone(node.status.capacity);
    }
  },

  // A node registers itself with its status, so create keeps it (as upstream).
  prepareForCreate() {},

  prepareForUpdate(next, prev) {
    keepSystemMetadata(next, prev);
    keepStatus(next, prev);
  },

  prepareForStatusUpdate: keepAllButStatus,

  validate: validateNode,
  validateUpdate: validateNodeUpdate,

  columns: (node) => ({ ...noColumns(), nodeName: node.metadata?.name ?? null }),

  table: {
    columns: [
      nameColumn,
      column('Status', 'The status of the node'),
      column('Roles', 'The roles of the node'),
      ageColumn,
      column('Version', 'Kubelet Version reported by the node.'),
      column('Internal-IP', 'List of addresses reachable to the node.', 1),
      column('External-IP', 'List of addresses reachable to the node.', 1),
      column('OS-Image', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', 1),
      column('Kernel-Version', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
      column('Container-Runtime', 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', 1),
    ],
    row(node, now) {
      const info = node.status?.nodeInfo ?? {};
      return [
        node.metadata?.name ?? '',
        nodeStatus(node),
        nodeRoles(node),
        ageOf(node.metadata?.creationTimestamp, now),
        info.kubeletVersion ?? '',
        address(node, 'InternalIP'),
        address(node, 'ExternalIP'),
        info.osImage || '<unknown>',
        info.kernelVersion || '<unknown>',
        info.containerRuntimeVersion || '<unknown>',
      ];
    },
  },
};
