// The StorageClass form's model: a draft of the fields a person edits, built from and
// back into a StorageClass, checked by the kind's own strategy (its zod shape, defaults,
// validation with the in-tree plugins' parameter rules, and which fields may change), so
// the form and the API refuse the same things with the same messages. Pure.
import type { FieldError } from '@/server/domain/errors';
import { LOOP_FS_TYPES } from '@/server/resources/storage-class/in-tree-parameters';
import { storageClassStrategy } from '@/server/resources/storage-class/strategy';
import type { StorageClass } from '@/server/resources/storage-class/schema';
import { annClassDescription, annIsDefaultClass } from '@/server/domain/well-known/annotations';
import { btrfsProvisioner, hostPathProvisioner, loopProvisioner, noProvisioner } from '@/server/domain/well-known/provisioners';
import { REPLICAS_MAX, REPLICAS_MIN } from '@/server/domain/replication';

export interface ParameterField {
  key: string;
  label: string;
  description: string;
  required?: boolean;
  options?: readonly string[];
  placeholder?: string;
}

export interface ProvisionerChoice {
  value: string;
  label: string;
  /** Known parameters; undefined: free key/values (an external provisioner). */
  fields?: ParameterField[];
  hint?: string;
}

export const PROVISIONERS: ProvisionerChoice[] = [
  {
    value: hostPathProvisioner,
    label: `Host path (${hostPathProvisioner})`,
    fields: [
      { key: 'basePath', label: 'Base path', description: 'Directory each volume gets a subdirectory of, on the node', required: true, placeholder: '/srv/stowage/volumes' },
      { key: 'mode', label: 'Mode', description: 'Octal permissions of each volume directory; never world-writable', placeholder: '0750' },
    ],
  },
  {
    value: loopProvisioner,
    label: `Loop device (${loopProvisioner})`,
    fields: [
      { key: 'basePath', label: 'Base path', description: 'Directory the image files are created in', required: true, placeholder: '/srv/stowage/images' },
      { key: 'fsType', label: 'Filesystem', description: 'Filesystem made on each image', options: LOOP_FS_TYPES },
    ],
  },
  {
    value: btrfsProvisioner,
    label: `Btrfs pool (${btrfsProvisioner})`,
    fields: [
      { key: 'pool', label: 'Pool', description: "The btrfs pool's mount point on each node (stowage pool create makes one)", required: true, placeholder: '/srv/pool' },
      {
        key: 'replicas',
        label: 'Replicas',
        description: 'Copies of each volume in all, each on another node (1: not replicated)',
        options: Array.from({ length: REPLICAS_MAX - REPLICAS_MIN + 1 }, (_, i) => String(REPLICAS_MIN + i)),
      },
      { key: 'replicationInterval', label: 'Replication interval', description: 'How often the replicas catch up: 5s to 60m (default 30s)', placeholder: '30s' },
    ],
    hint: 'Use the WaitForFirstConsumer binding mode, so each volume is made where its pod goes.',
  },
  {
    value: noProvisioner,
    label: `Local volumes, no provisioning (${noProvisioner})`,
    fields: [],
    hint: 'Volumes of this class are made by the local-volume manager from disks the nodes report, or by hand. Use the WaitForFirstConsumer binding mode, so a claim binds on the node its pod runs on.',
  },
];

export function provisionerChoice(provisioner: string): ProvisionerChoice | undefined {
  return PROVISIONERS.find((p) => p.value === provisioner);
}

export interface ClassDraft {
  name: string;
  provisioner: string;
  /** In-tree provisioners: by field key; external ones: free rows. */
  parameters: { key: string; value: string }[];
  reclaimPolicy: string;
  volumeBindingMode: string;
  allowVolumeExpansion: boolean;
  /** One per line. */
  mountOptions: string;
  description: string;
}

export function emptyDraft(): ClassDraft {
  return { name: '', provisioner: hostPathProvisioner, parameters: [], reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate', allowVolumeExpansion: false, mountOptions: '', description: '' };
}

export function draftFromClass(sc: StorageClass): ClassDraft {
  return {
    name: sc.metadata.name ?? '',
    provisioner: sc.provisioner ?? '',
    parameters: Object.entries((sc.parameters ?? {}) as Record<string, string>).map(([key, value]) => ({ key, value: String(value) })),
    reclaimPolicy: sc.reclaimPolicy ?? 'Delete',
    volumeBindingMode: sc.volumeBindingMode ?? 'Immediate',
    allowVolumeExpansion: sc.allowVolumeExpansion === true,
    mountOptions: ((sc.mountOptions ?? [])).join('\n'),
    description: sc.metadata.annotations?.[annClassDescription] ?? '',
  };
}

/** The parameter value of `key` in the draft ('' when absent). */
export function parameterValue(d: ClassDraft, key: string): string {
  return d.parameters.find((p) => p.key === key)?.value ?? '';
}

/** The draft with parameter `key` set (an empty value removes it). */
export function withParameter(d: ClassDraft, key: string, value: string): ClassDraft {
  const rest = d.parameters.filter((p) => p.key !== key);
  return { ...d, parameters: value === '' ? rest : [...rest, { key, value }] };
}

/**
 * The StorageClass the draft describes. `base`: the stored class being edited, whose other
 * metadata (labels, annotations, resourceVersion) and allowedTopologies are kept. The
 * default mark is never set here: the default switch moves it in one step of its own.
 */
export function classFromDraft(d: ClassDraft, base?: StorageClass): StorageClass {
  const annotations: Record<string, string> = { ...(base?.metadata.annotations ?? {}) };
  if (d.description.trim()) annotations[annClassDescription] = d.description.trim();
  else delete annotations[annClassDescription];
  if (!base) delete annotations[annIsDefaultClass];
  const parameters = Object.fromEntries(d.parameters.filter((p) => p.key.trim() !== '').map((p) => [p.key.trim(), p.value]));
  const mountOptions = d.mountOptions
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);
  const metadata: StorageClass['metadata'] = { ...(base ? structuredClone(base.metadata) : {}), name: d.name.trim() };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  const sc: StorageClass = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata,
    provisioner: d.provisioner.trim(),
    reclaimPolicy: d.reclaimPolicy,
    volumeBindingMode: d.volumeBindingMode,
    allowVolumeExpansion: d.allowVolumeExpansion,
  };
  if (Object.keys(parameters).length > 0) sc.parameters = parameters;
  if (mountOptions.length > 0) sc.mountOptions = mountOptions;
  if (base?.allowedTopologies) sc.allowedTopologies = structuredClone(base.allowedTopologies);
  return sc;
}

/**
 * What the API would refuse in the draft, by field path, from the kind's own checks
 * (shape, validation, and on an edit the fields that may not change). The node's
 * filesystem checks of in-tree classes run on the server only.
 */
export function draftErrors(d: ClassDraft, base?: StorageClass): FieldError[] {
  const sc = classFromDraft(d, base);
  const s = storageClassStrategy;
  const shape = s.validateShape(sc);
  if (shape.length > 0) return shape;
  const obj = structuredClone(sc);
  s.applyDefaults(obj);
  const errs = s.validate(obj);
  if (base) {
    const prev = structuredClone(base);
    s.applyDefaults(prev);
    errs.push(...s.validateUpdate(obj, prev));
  }
  for (const [i, p] of d.parameters.entries()) {
    if (p.key.trim() === '' && p.value !== '') errs.push({ field: `parameters[${i}]`, reason: 'FieldValueRequired', message: 'Required value: a parameter needs a key' });
  }
  const seen = new Set<string>();
  for (const p of d.parameters) {
    const k = p.key.trim();
    if (k && seen.has(k)) errs.push({ field: `parameters.${k}`, reason: 'FieldValueDuplicate', message: `Duplicate value: parameter "${k}" is given twice` });
    seen.add(k);
  }
  return errs;
}

/** The errors of one field (and its children), for showing beside it. */
export function errorFor(errs: FieldError[], field: string): string | undefined {
  const hit = errs.filter((e) => e.field === field || e.field.startsWith(`${field}.`) || e.field.startsWith(`${field}[`));
  return hit.length > 0 ? hit.map((e) => e.message).join('; ') : undefined;
}

/** Fields upstream forbids changing once a class exists. */
export const IMMUTABLE_FIELDS = ['provisioner', 'parameters', 'reclaimPolicy', 'volumeBindingMode'] as const;

export interface FieldChange {
  field: string;
  before: string;
  after: string;
}

function show(sc: StorageClass, field: string): string {
  switch (field) {
    case 'name':
      return sc.metadata.name ?? '';
    case 'parameters':
      return Object.entries((sc.parameters ?? {}) as Record<string, string>)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => `${k}=${v}`)
        .join(', ');
    case 'mountOptions':
      return ((sc.mountOptions ?? [])).join(', ');
    case 'description':
      return sc.metadata.annotations?.[annClassDescription] ?? '';
    case 'reclaimPolicy':
      return sc.reclaimPolicy ?? 'Delete';
    case 'volumeBindingMode':
      return sc.volumeBindingMode ?? 'Immediate';
    case 'allowVolumeExpansion':
      return String(sc.allowVolumeExpansion === true);
    default: {
      const fields: Record<string, unknown> = sc;
      return String(fields[field] ?? '');
    }
  }
}

const COMPARED = ['name', 'provisioner', 'parameters', 'reclaimPolicy', 'volumeBindingMode', 'allowVolumeExpansion', 'mountOptions', 'description'];

/** Every field that differs between two classes, as text (the clone preview). */
export function classChanges(before: StorageClass, after: StorageClass): FieldChange[] {
  return COMPARED.map((field) => ({ field, before: show(before, field), after: show(after, field) })).filter((c) => c.before !== c.after);
}

/** The fields of an edit that upstream forbids changing in place. */
export function immutableChanges(before: StorageClass, draft: ClassDraft): FieldChange[] {
  const after = classFromDraft(draft, before);
  return classChanges(before, after).filter((c) => (IMMUTABLE_FIELDS as readonly string[]).includes(c.field));
}
