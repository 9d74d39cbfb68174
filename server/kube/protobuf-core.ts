// core/v1 (k8s.io/api): the tables of its kinds but the Pod (protobuf-pod.ts), and the
// references, conditions and node selectors they share.
import { str, bool, int32, int64, strs, time, microTime, msg, msgs, inline, map, quantities, type Field, type Schema } from './protobuf-fields';
import { labelSelector, objectMeta } from './protobuf-meta';

export const objectReference: Schema = [
  str(1, 'kind'),
  str(2, 'namespace'),
  str(3, 'name'),
  str(4, 'uid'),
  str(5, 'apiVersion'),
  str(6, 'resourceVersion'),
  str(7, 'fieldPath'),
];

export const condition = (extra: Field[]): Schema => [str(1, 'type', true), str(2, 'status', true), time(4, 'lastTransitionTime', true), str(5, 'reason'), str(6, 'message'), ...extra];

const nodeSelectorRequirement: Schema = [str(1, 'key', true), str(2, 'operator', true), strs(3, 'values')];
export const nodeSelectorTerm: Schema = [msgs(1, 'matchExpressions', nodeSelectorRequirement), msgs(2, 'matchFields', nodeSelectorRequirement)];
export const nodeSelector: Schema = [msgs(1, 'nodeSelectorTerms', nodeSelectorTerm)];


export const secretReference: Schema = [str(1, 'name'), str(2, 'namespace')];

// --- PersistentVolume ----------------------------------------------------------------------

/**
 * PersistentVolumeSource (inline in the spec). Of the old in-tree sources, which Stowage
 * keeps as sent, only the required fields are marked `keep`; a zero value of an optional
 * pointer among them makes the volume JSON only (never lost).
 */
const persistentVolumeSource: Schema = [
  msg(1, 'gcePersistentDisk', [str(1, 'pdName', true), str(2, 'fsType'), int32(3, 'partition'), bool(4, 'readOnly')]),
  msg(2, 'awsElasticBlockStore', [str(1, 'volumeID', true), str(2, 'fsType'), int32(3, 'partition'), bool(4, 'readOnly')]),
  msg(4, 'glusterfs', [str(1, 'endpoints', true), str(2, 'path', true), bool(3, 'readOnly'), str(4, 'endpointsNamespace')]),
  msg(6, 'rbd', [strs(1, 'monitors'), str(2, 'image', true), str(3, 'fsType'), str(4, 'pool'), str(5, 'user'), str(6, 'keyring'), msg(7, 'secretRef', secretReference), bool(8, 'readOnly')]),
  msg(7, 'iscsi', [str(1, 'targetPortal', true), str(2, 'iqn', true), int32(3, 'lun', true), str(4, 'iscsiInterface'), str(5, 'fsType'), bool(6, 'readOnly'), strs(7, 'portals'), bool(8, 'chapAuthDiscovery'), bool(11, 'chapAuthSession'), msg(10, 'secretRef', secretReference), str(12, 'initiatorName')]),
  msg(8, 'cinder', [str(1, 'volumeID', true), str(2, 'fsType'), bool(3, 'readOnly'), msg(4, 'secretRef', secretReference)]),
  msg(9, 'cephfs', [strs(1, 'monitors'), str(2, 'path'), str(3, 'user'), str(4, 'secretFile'), msg(5, 'secretRef', secretReference), bool(6, 'readOnly')]),
  msg(10, 'fc', [strs(1, 'targetWWNs'), int32(2, 'lun', true), str(3, 'fsType'), bool(4, 'readOnly'), strs(5, 'wwids')]),
  msg(11, 'flocker', [str(1, 'datasetName'), str(2, 'datasetUUID')]),
  msg(12, 'flexVolume', [str(1, 'driver', true), str(2, 'fsType'), msg(3, 'secretRef', secretReference), bool(4, 'readOnly'), map(5, 'options')]),
  msg(13, 'azureFile', [str(1, 'secretName', true), str(2, 'shareName', true), bool(3, 'readOnly'), str(4, 'secretNamespace')]),
  msg(14, 'vsphereVolume', [str(1, 'volumePath', true), str(2, 'fsType'), str(3, 'storagePolicyName'), str(4, 'storagePolicyID')]),
  msg(15, 'quobyte', [str(1, 'registry', true), str(2, 'volume', true), bool(3, 'readOnly'), str(4, 'user'), str(5, 'group'), str(6, 'tenant')]),
  msg(16, 'azureDisk', [str(1, 'diskName', true), str(2, 'diskURI', true), str(3, 'cachingMode'), str(4, 'fsType'), bool(5, 'readOnly'), str(6, 'kind')]),
  msg(17, 'photonPersistentDisk', [str(1, 'pdID', true), str(2, 'fsType')]),
  msg(18, 'portworxVolume', [str(1, 'volumeID', true), str(2, 'fsType'), bool(3, 'readOnly')]),
  msg(19, 'scaleIO', [str(1, 'gateway', true), str(2, 'system', true), msg(3, 'secretRef', secretReference), bool(4, 'sslEnabled'), str(5, 'protectionDomain'), str(6, 'storagePool'), str(7, 'storageMode'), str(8, 'volumeName'), str(9, 'fsType'), bool(10, 'readOnly')]),
  msg(21, 'storageos', [str(1, 'volumeName'), str(2, 'volumeNamespace'), str(3, 'fsType'), bool(4, 'readOnly'), msg(5, 'secretRef', objectReference)]),
  msg(3, 'hostPath', [str(1, 'path', true), str(2, 'type', true)]),
  msg(5, 'nfs', [str(1, 'server', true), str(2, 'path', true), bool(3, 'readOnly')]),
  msg(20, 'local', [str(1, 'path', true), str(2, 'fsType', true)]),
  msg(22, 'csi', [
    str(1, 'driver', true),
    str(2, 'volumeHandle', true),
    bool(3, 'readOnly'),
    str(4, 'fsType'),
    map(5, 'volumeAttributes'),
    msg(6, 'controllerPublishSecretRef', secretReference),
    msg(7, 'nodeStageSecretRef', secretReference),
    msg(8, 'nodePublishSecretRef', secretReference),
    msg(9, 'controllerExpandSecretRef', secretReference),
    msg(10, 'nodeExpandSecretRef', secretReference),
  ]),
];

export const persistentVolume: Schema = [
  msg(1, 'metadata', objectMeta),
  msg(2, 'spec', [
    quantities(1, 'capacity'),
    inline(2, persistentVolumeSource),
    strs(3, 'accessModes'),
    msg(4, 'claimRef', objectReference),
    str(5, 'persistentVolumeReclaimPolicy'),
    str(6, 'storageClassName'),
    strs(7, 'mountOptions'),
    str(8, 'volumeMode', true),
    msg(9, 'nodeAffinity', [msg(1, 'required', nodeSelector)]),
    str(10, 'volumeAttributesClassName', true),
  ]),
  msg(3, 'status', [str(1, 'phase'), str(2, 'message'), str(3, 'reason'), time(4, 'lastPhaseTransitionTime')]),
];

// --- PersistentVolumeClaim -------------------------------------------------------------------

export const persistentVolumeClaim: Schema = [
  msg(1, 'metadata', objectMeta),
  msg(2, 'spec', [
    strs(1, 'accessModes'),
    msg(2, 'resources', [quantities(1, 'limits'), quantities(2, 'requests')]),
    str(3, 'volumeName'),
    msg(4, 'selector', labelSelector),
    str(5, 'storageClassName', true),
    str(6, 'volumeMode', true),
    msg(7, 'dataSource', [str(1, 'apiGroup', true), str(2, 'kind', true), str(3, 'name', true)]),
    msg(8, 'dataSourceRef', [str(1, 'apiGroup', true), str(2, 'kind', true), str(3, 'name', true), str(4, 'namespace', true)]),
    str(9, 'volumeAttributesClassName', true),
  ]),
  msg(3, 'status', [
    str(1, 'phase'),
    strs(2, 'accessModes'),
    quantities(3, 'capacity'),
    msgs(4, 'conditions', condition([time(3, 'lastProbeTime', true)])),
    quantities(5, 'allocatedResources'),
    map(7, 'allocatedResourceStatuses'),
    str(8, 'currentVolumeAttributesClassName', true),
    msg(9, 'modifyVolumeStatus', [str(1, 'targetVolumeAttributesClassName'), str(2, 'status', true)]),
  ]),
];

// --- Namespace, Node, Event, ConfigMap, Secret ------------------------------------------------

export const namespace: Schema = [
  msg(1, 'metadata', objectMeta),
  msg(2, 'spec', [strs(1, 'finalizers')]),
  msg(3, 'status', [str(1, 'phase'), msgs(2, 'conditions', condition([]))]),
];

export const node: Schema = [
  msg(1, 'metadata', objectMeta),
  msg(2, 'spec', [
    str(1, 'podCIDR'),
    str(2, 'externalID'),
    str(3, 'providerID'),
    bool(4, 'unschedulable'),
    msgs(5, 'taints', [str(1, 'key', true), str(2, 'value'), str(3, 'effect', true), time(4, 'timeAdded')]),
    strs(7, 'podCIDRs'),
  ]),
  msg(3, 'status', [
    quantities(1, 'capacity'),
    quantities(2, 'allocatable'),
    str(3, 'phase'),
    msgs(4, 'conditions', [str(1, 'type', true), str(2, 'status', true), time(3, 'lastHeartbeatTime', true), time(4, 'lastTransitionTime', true), str(5, 'reason'), str(6, 'message')]),
    msgs(5, 'addresses', [str(1, 'type', true), str(2, 'address', true)]),
    msg(6, 'daemonEndpoints', [msg(1, 'kubeletEndpoint', [int32(1, 'Port', true)])]),
    msg(7, 'nodeInfo', [
      str(1, 'machineID', true),
      str(2, 'systemUUID', true),
      str(3, 'bootID', true),
      str(4, 'kernelVersion', true),
      str(5, 'osImage', true),
      str(6, 'containerRuntimeVersion', true),
      str(7, 'kubeletVersion', true),
      str(8, 'kubeProxyVersion', true),
      str(9, 'operatingSystem', true),
      str(10, 'architecture', true),
    ]),
    msgs(8, 'images', [strs(1, 'names'), int64(2, 'sizeBytes')]),
    strs(9, 'volumesInUse'),
    msgs(10, 'volumesAttached', [str(1, 'name', true), str(2, 'devicePath', true)]),
    strs(14, 'declaredFeatures'),
  ]),
];

export const event: Schema = [
  msg(1, 'metadata', objectMeta),
  msg(2, 'involvedObject', objectReference),
  str(3, 'reason'),
  str(4, 'message'),
  msg(5, 'source', [str(1, 'component'), str(2, 'host')]),
  time(6, 'firstTimestamp', true),
  time(7, 'lastTimestamp', true),
  int32(8, 'count'),
  str(9, 'type'),
  microTime(10, 'eventTime', true),
  msg(11, 'series', [int32(1, 'count'), microTime(2, 'lastObservedTime', true)]),
  str(12, 'action'),
  msg(13, 'related', objectReference),
  str(14, 'reportingComponent', true),
  str(15, 'reportingInstance', true),
];

export const configMap: Schema = [msg(1, 'metadata', objectMeta), map(2, 'data'), map(3, 'binaryData', 'bytes'), bool(4, 'immutable', true)];

export const secret: Schema = [msg(1, 'metadata', objectMeta), map(2, 'data', 'bytes'), str(3, 'type'), map(4, 'stringData'), bool(5, 'immutable', true)];


// --- ResourceQuota (`kubectl create quota`) --------------------------------------------------
export const resourceQuota: Schema = [
  msg(1, 'metadata', objectMeta),
  msg(2, 'spec', [
    quantities(1, 'hard'),
    strs(2, 'scopes'),
    msg(3, 'scopeSelector', [msgs(1, 'matchExpressions', [str(1, 'scopeName', true), str(2, 'operator', true), strs(3, 'values')])]),
  ]),
  msg(3, 'status', [quantities(1, 'hard'), quantities(2, 'used')]),
];
