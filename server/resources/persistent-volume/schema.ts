// PersistentVolume (core/v1) in its Kubernetes JSON shape. Unknown fields are rejected,
// except inside opaque maps and inside the volume sources kept loose (see below).
import { z } from 'zod';
import type { KindObject } from '../types';
import { kubeObjectSchema, stringMap } from '../metadata';
import { volumeNodeAffinitySchema } from '../node-selector';
import { resourceListSchema } from '../resource-list';

export const objectReferenceSchema = z.strictObject({
  apiVersion: z.string().nullish(),
  kind: z.string().nullish(),
  name: z.string().nullish(),
  namespace: z.string().nullish(),
  uid: z.string().nullish(),
  resourceVersion: z.string().nullish(),
  fieldPath: z.string().nullish(),
});

export const secretReferenceSchema = z.strictObject({
  name: z.string().nullish(),
  namespace: z.string().nullish(),
});

export const localVolumeSourceSchema = z.strictObject({
  path: z.string().nullish(),
  fsType: z.string().nullish(),
});

export const hostPathVolumeSourceSchema = z.strictObject({
  path: z.string().nullish(),
  type: z.string().nullish(),
});

export const nfsVolumeSourceSchema = z.strictObject({
  server: z.string().nullish(),
  path: z.string().nullish(),
  readOnly: z.boolean().nullish(),
});

export const csiPersistentVolumeSourceSchema = z.strictObject({
  driver: z.string().nullish(),
  volumeHandle: z.string().nullish(),
  readOnly: z.boolean().nullish(),
  fsType: z.string().nullish(),
  volumeAttributes: stringMap.nullish(),
  controllerPublishSecretRef: secretReferenceSchema.nullish(),
  nodeStageSecretRef: secretReferenceSchema.nullish(),
  nodePublishSecretRef: secretReferenceSchema.nullish(),
  controllerExpandSecretRef: secretReferenceSchema.nullish(),
  nodeExpandSecretRef: secretReferenceSchema.nullish(),
});

/** Sources Stowage does not use itself: accepted as any object, checked for their required fields only. */
export const looseVolumeSources = [
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'glusterfs',
  'rbd',
  'quobyte',
  'cephfs',
  'iscsi',
  'cinder',
  'fc',
  'flexVolume',
  'flocker',
  'azureFile',
  'azureDisk',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'storageos',
] as const;

/** Every source, in upstream's order of checking (the first one found is the volume's type). */
export const volumeSources = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'glusterfs',
  'flocker',
  'nfs',
  'rbd',
  'quobyte',
  'cephfs',
  'iscsi',
  'cinder',
  'fc',
  'flexVolume',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'scaleIO',
  'local',
  'storageos',
  'csi',
] as const;

export type VolumeSourceName = (typeof volumeSources)[number];

const looseSource = z.record(z.string(), z.unknown());
const looseSourceFields = Object.fromEntries(looseVolumeSources.map((s) => [s, looseSource.nullish()])) as Record<
  (typeof looseVolumeSources)[number],
  z.ZodOptional<z.ZodNullable<typeof looseSource>>
>;

export const persistentVolumeSpecSchema = z.strictObject({
  capacity: resourceListSchema.nullish(),
  accessModes: z.array(z.string()).nullish(),
  claimRef: objectReferenceSchema.nullish(),
  persistentVolumeReclaimPolicy: z.string().nullish(),
  storageClassName: z.string().nullish(),
  mountOptions: z.array(z.string()).nullish(),
  volumeMode: z.string().nullish(),
  nodeAffinity: volumeNodeAffinitySchema.nullish(),
  volumeAttributesClassName: z.string().nullish(),
  local: localVolumeSourceSchema.nullish(),
  hostPath: hostPathVolumeSourceSchema.nullish(),
  nfs: nfsVolumeSourceSchema.nullish(),
  csi: csiPersistentVolumeSourceSchema.nullish(),
  ...looseSourceFields,
});

export const persistentVolumeStatusSchema = z.strictObject({
  phase: z.string().nullish(),
  message: z.string().nullish(),
  reason: z.string().nullish(),
  lastPhaseTransitionTime: z.string().nullish(),
});

export const persistentVolumeSchema = kubeObjectSchema({
  spec: persistentVolumeSpecSchema.nullish(),
  status: persistentVolumeStatusSchema.nullish(),
});

export type PersistentVolume = KindObject<typeof persistentVolumeSchema>;

// The node-selector shapes a volume's nodeAffinity uses, for code that may name only the kinds' types.
export type { NodeSelectorRequirement, NodeSelectorTerm, VolumeNodeAffinity } from '../node-selector';

export const volumePhases = ['Available', 'Bound', 'Failed', 'Pending', 'Released'] as const;
export const reclaimPolicies = ['Delete', 'Recycle', 'Retain'] as const;
export const hostPathTypes = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'] as const;

/** Sources whose plugins accept the mount-options annotation (upstream pkg/volume/validation checkMountOption, word for word). */
export const mountOptionAnnotationSources: readonly VolumeSourceName[] = [
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'glusterfs',
  'nfs',
  'rbd',
  'quobyte',
  'iscsi',
  'cinder',
  'cephfs',
  'azureFile',
  'vsphereVolume',
  'azureDisk',
  'photonPersistentDisk',
];


/** Required fields of the loosely shaped sources (upstream validate*PersistentVolumeSource). */
export const looseSourceRequiredFields: Record<(typeof looseVolumeSources)[number], string[]> = {
  gcePersistentDisk: ['pdName'],
  awsElasticBlockStore: ['volumeID'],
  glusterfs: ['endpoints', 'path'],
  rbd: ['monitors', 'image'],
  quobyte: ['registry', 'volume'],
  cephfs: ['monitors'],
  iscsi: ['targetPortal', 'iqn'],
  cinder: ['volumeID'],
  fc: [],
  flexVolume: ['driver'],
  flocker: [],
  azureFile: ['secretName', 'shareName'],
  azureDisk: ['diskName', 'diskURI'],
  vsphereVolume: ['volumePath'],
  photonPersistentDisk: ['pdID'],
  portworxVolume: ['volumeID'],
  scaleIO: ['gateway', 'system', 'volumeName'],
  storageos: ['volumeName'],
};
