// Node heartbeats and the node lifecycle (after upstream's kubelet status updates and the
// node lifecycle controller's tryUpdateNodeHealth): an agent posts Ready=True with a
// lastHeartbeatTime; when none arrives for the grace period, Ready becomes Unknown
// ("NodeStatusUnknown"), as upstream marks a node whose kubelet stopped posting. Pure.
import type { Node } from '../resources/node/schema';
import { labelArch, labelHostname, labelInstanceType, labelNodeRestrictionPrefix, labelOs, labelRegion, labelZone } from './well-known/labels';

/** A node condition as the Node schema has it (type and status optional: one without them matches no check here). */
export type NodeCondition = NonNullable<NonNullable<Node['status']>['conditions']>[number];

/** What these rules read of a node. */
type NodeStatusView = { status?: { conditions?: NodeCondition[] } };

/** Upstream's node-monitor-grace-period default. */
export const defaultNodeGraceMs = 40_000;

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

export function readyCondition(node: NodeStatusView): NodeCondition | undefined {
  return (node.status?.conditions ?? []).find((c) => c.type === 'Ready');
}

export function isNodeReady(node: NodeStatusView | undefined): boolean {
  return !!node && readyCondition(node)?.status === 'True';
}

/** The node's conditions after a heartbeat at `now`: Ready True, transition time kept when it already was. */
export function heartbeatConditions(conditions: NodeCondition[] | undefined, now: Date): NodeCondition[] {
  const others = (conditions ?? []).filter((c) => c.type !== 'Ready');
  const prev = (conditions ?? []).find((c) => c.type === 'Ready');
  const ready: NodeCondition = {
    type: 'Ready',
    status: 'True',
    lastHeartbeatTime: iso(now),
    lastTransitionTime: prev?.status === 'True' && prev.lastTransitionTime ? prev.lastTransitionTime : iso(now),
    reason: 'AgentReady',
    message: 'the Stowage agent is posting ready status',
  };
  return [...others, ready];
}

export type StaleDecision = { action: 'none'; recheckInMs?: number } | { action: 'markUnknown'; conditions: NodeCondition[] };

/**
 * Whether a node's agent stopped reporting: its last heartbeat (or, without one, the node's
 * creation) is older than `graceMs`. Returns the conditions to write, or when to look again.
 */
export function staleDecision(
  node: NodeStatusView & { metadata?: { creationTimestamp?: string } },
  now: Date,
  graceMs: number,
): StaleDecision {
  const ready = readyCondition(node);
  if (ready?.status === 'Unknown') return { action: 'none' };
  const last = Date.parse(ready?.lastHeartbeatTime ?? node.metadata?.creationTimestamp ?? '');
  if (!Number.isFinite(last)) return { action: 'none' };
  const age = now.getTime() - last;
  if (age < graceMs) return { action: 'none', recheckInMs: graceMs - age + 100 };
  const others = (node.status?.conditions ?? []).filter((c) => c.type !== 'Ready');
  return {
    action: 'markUnknown',
    conditions: [
      ...others,
      {
        type: 'Ready',
        status: 'Unknown',
        lastHeartbeatTime: ready?.lastHeartbeatTime,
        lastTransitionTime: iso(now),
        reason: 'NodeStatusUnknown',
        message: 'the Stowage agent stopped posting node status',
      },
    ],
  };
}

/** The namespace (DNS prefix) of a label key: `a.b/c` → `a.b`, `c` → ''. */
function labelNamespace(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

const inNamespace = (ns: string, domain: string) => ns === domain || ns.endsWith(`.${domain}`);

/** Topology labels: which zone and region a node is in, which placement trusts. */
const TOPOLOGY_LABELS: ReadonlySet<string> = new Set([labelZone, labelRegion, 'failure-domain.beta.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/region']);

/** Labels upstream's kubelet sets on its own Node (k8s.io/kubelet well_known_labels.go kubeletLabels). */
const KUBELET_LABELS: ReadonlySet<string> = new Set([
  labelHostname,
  ...TOPOLOGY_LABELS,
  labelInstanceType,
  'beta.kubernetes.io/instance-type',
  labelOs,
  'beta.kubernetes.io/os',
  labelArch,
  'beta.kubernetes.io/arch',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

/**
 * Why an agent may not set this label on its own node, or undefined. Upstream's
 * NodeRestriction (node-restriction.kubernetes.io/ never; other kubernetes.io and k8s.io
 * labels only when they are kubelet labels, so no node-role.kubernetes.io/ or
 * kubernetes.io/role), and stricter, as a node token "acts only for that node":
 * `kubernetes.io/hostname` only with the node's own name, and a topology label only when
 * the node has none yet or the same value (who placed the node where is an admin's call).
 */
export function forbiddenNodeLabel(node: string, key: string, value: string, current: Readonly<Record<string, string>> = {}): string | undefined {
  const ns = labelNamespace(key);
  if (inNamespace(ns, 'node-restriction.kubernetes.io')) return `${labelNodeRestrictionPrefix} labels are set by admins only`;
  if (key === labelHostname && value !== node) return `${labelHostname} of node "${node}" must be "${node}", not "${value}"`;
  if (TOPOLOGY_LABELS.has(key) && Object.hasOwn(current, key) && current[key] !== value) {
    return `node "${node}" has ${key}=${current[key]}; only an admin may change it (the agent sent "${value}")`;
  }
  const kubeletLabel = KUBELET_LABELS.has(key) || KUBELET_LABEL_NAMESPACES.some((d) => inNamespace(ns, d));
  if ((inNamespace(ns, 'kubernetes.io') || inNamespace(ns, 'k8s.io')) && !kubeletLabel) {
    return `${key} is not a label a node may set on itself (roles and other kubernetes.io and k8s.io labels are set by admins)`;
  }
  return undefined;
}

/**
 * A node's labels as placement and binding read them: `kubernetes.io/hostname` is the
 * node's name whatever the node said about itself, so no node can pass for another.
 */
export function identityLabels(name: string, labels: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return { ...labels, [labelHostname]: name };
}

/** `k=v,k2=v2` (STOWAGE_NODE_LABELS) as a map; malformed items are reported. */
export function parseLabelList(text: string | undefined): { labels: Record<string, string>; errors: string[] } {
  const labels: Record<string, string> = Object.create(null);
  const errors: string[] = [];
  for (const item of (text ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = item.indexOf('=');
    if (eq <= 0) {
      errors.push(`"${item}" is not key=value`);
      continue;
    }
    labels[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
  }
  return { labels: { ...labels }, errors };
}
