// ONE table per kind of the protobuf field numbers of its JSON fields, read from upstream's
// generated.proto files (k8s.io/api core/v1, storage/v1, authorization/v1,
// authentication/v1; k8s.io/apimachinery meta/v1, api/resource). The encoder and the
// decoder (protobuf-codec.ts) both walk these tables, so a field is described once.
//
// `keep` marks the fields whose zero value ("", 0, false; null for a time; [] for a List's
// items) is data: Go pointers, fields without `omitempty`, and non-pointer times (null in
// JSON when zero). Other fields' zero values are what Go leaves out of JSON, so the
// decoder drops them (as upstream's JSON does) and the encoder refuses to send them.
// Fields a table does not list cannot be sent as protobuf: such an object is answered as
// JSON when the client accepts it (protobuf-codec.ts, Unrepresentable).

export type FieldType =
  | 'string'
  | 'bool'
  | 'int32'
  | 'int64'
  | 'strings'
  /** meta/v1 Time {seconds = 1, nanos = 2}, RFC 3339 to the second in JSON. */
  | 'time'
  /** meta/v1 MicroTime, RFC 3339 with microseconds in JSON. */
  | 'microTime'
  /** api/resource Quantity {string = 1}. */
  | 'quantity'
  /** meta/v1 FieldsV1 {Raw = 1}: the JSON text of the field set. */
  | 'fieldsV1'
  /** util/intstr IntOrString {type = 1 (0 int, 1 string), intVal = 2, strVal = 3}: a number or a string in JSON. */
  | 'intOrString'
  | 'message'
  | 'messages'
  | 'map'
  /** An embedded struct whose fields sit in the parent's JSON object (`json:",inline"`). */
  | 'inline';

export interface Field {
  no: number;
  /** The JSON name ('' for an inline message). */
  name: string;
  type: FieldType;
  schema?: Schema;
  /** Map values. */
  values?: 'string' | 'bytes' | 'quantity';
  keep?: boolean;
}

export type Schema = readonly Field[];

const f = (type: FieldType) => (no: number, name: string, keep = false): Field => ({ no, name, type, keep });
const str = f('string');
const bool = f('bool');
const int32 = f('int32');
const int64 = f('int64');
const strs = f('strings');
const time = f('time');
const microTime = f('microTime');
const msg = (no: number, name: string, schema: Schema): Field => ({ no, name, type: 'message', schema });
const msgs = (no: number, name: string, schema: Schema): Field => ({ no, name, type: 'messages', schema });
const inline = (no: number, schema: Schema): Field => ({ no, name: '', type: 'inline', schema });
const map = (no: number, name: string, values: Field['values'] = 'string'): Field => ({ no, name, type: 'map', values });

// --- meta/v1 ---------------------------------------------------------------------------

const ownerReference: Schema = [str(1, 'kind', true), str(3, 'name', true), str(4, 'uid', true), str(5, 'apiVersion', true), bool(6, 'controller', true), bool(7, 'blockOwnerDeletion', true)];

const managedFieldsEntry: Schema = [
  str(1, 'manager'),
  str(2, 'operation'),
  str(3, 'apiVersion'),
  time(4, 'time'),
  str(6, 'fieldsType'),
  { no: 7, name: 'fieldsV1', type: 'fieldsV1' },
  str(8, 'subresource'),
];

export const objectMeta: Schema = [
  str(1, 'name'),
  str(2, 'generateName'),
  str(3, 'namespace'),
  str(4, 'selfLink'),
  str(5, 'uid'),
  str(6, 'resourceVersion'),
  int64(7, 'generation'),
  time(8, 'creationTimestamp', true),
  time(9, 'deletionTimestamp'),
  int64(10, 'deletionGracePeriodSeconds', true),
  map(11, 'labels'),
  map(12, 'annotations'),
  msgs(13, 'ownerReferences', ownerReference),
  strs(14, 'finalizers'),
  msgs(17, 'managedFields', managedFieldsEntry),
];

const listMeta: Schema = [str(1, 'selfLink'), str(2, 'resourceVersion'), str(3, 'continue'), int64(4, 'remainingItemCount', true)];

const labelSelector: Schema = [map(1, 'matchLabels'), msgs(2, 'matchExpressions', [str(1, 'key', true), str(2, 'operator', true), strs(3, 'values')])];

const status: Schema = [
  msg(1, 'metadata', listMeta),
  str(2, 'status'),
  str(3, 'message'),
  str(4, 'reason'),
  msg(5, 'details', [
    str(1, 'name'),
    str(2, 'group'),
    str(3, 'kind'),
    str(6, 'uid'),
    msgs(4, 'causes', [str(1, 'reason'), str(2, 'message'), str(3, 'field')]),
    int32(5, 'retryAfterSeconds'),
  ]),
  int32(6, 'code'),
];

// --- core/v1 shared ----------------------------------------------------------------------

const objectReference: Schema = [
  str(1, 'kind'),
  str(2, 'namespace'),
  str(3, 'name'),
  str(4, 'uid'),
  str(5, 'apiVersion'),
  str(6, 'resourceVersion'),
  str(7, 'fieldPath'),
];

const condition = (extra: Field[]): Schema => [str(1, 'type', true), str(2, 'status', true), time(4, 'lastTransitionTime', true), str(5, 'reason'), str(6, 'message'), ...extra];

const nodeSelectorRequirement: Schema = [str(1, 'key', true), str(2, 'operator', true), strs(3, 'values')];
const nodeSelectorTerm: Schema = [msgs(1, 'matchExpressions', nodeSelectorRequirement), msgs(2, 'matchFields', nodeSelectorRequirement)];
const nodeSelector: Schema = [msgs(1, 'nodeSelectorTerms', nodeSelectorTerm)];

const quantities = (no: number, name: string): Field => map(no, name, 'quantity');

const secretReference: Schema = [str(1, 'name'), str(2, 'namespace')];

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

const persistentVolume: Schema = [
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

const persistentVolumeClaim: Schema = [
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

// --- StorageClass (storage/v1) ---------------------------------------------------------------

const storageClass: Schema = [
  msg(1, 'metadata', objectMeta),
  str(2, 'provisioner', true),
  map(3, 'parameters'),
  str(4, 'reclaimPolicy', true),
  strs(5, 'mountOptions'),
  bool(6, 'allowVolumeExpansion', true),
  str(7, 'volumeBindingMode', true),
  msgs(8, 'allowedTopologies', [msgs(1, 'matchLabelExpressions', [str(1, 'key', true), strs(2, 'values')])]),
];

// --- Namespace, Node, Event, ConfigMap, Secret ------------------------------------------------

const namespace: Schema = [
  msg(1, 'metadata', objectMeta),
  msg(2, 'spec', [strs(1, 'finalizers')]),
  msg(3, 'status', [str(1, 'phase'), msgs(2, 'conditions', condition([]))]),
];

const node: Schema = [
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

const event: Schema = [
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

const configMap: Schema = [msg(1, 'metadata', objectMeta), map(2, 'data'), map(3, 'binaryData', 'bytes'), bool(4, 'immutable', true)];

const secret: Schema = [msg(1, 'metadata', objectMeta), map(2, 'data', 'bytes'), str(3, 'type'), map(4, 'stringData'), bool(5, 'immutable', true)];

// --- Pod: the fields a typical workload's pod carries (others make a pod JSON only) ----------

const intOrString = f('intOrString');
const localObjectReference = inline(1, [str(1, 'name')]);
const keySelector: Schema = [localObjectReference, str(2, 'key', true), bool(3, 'optional', true)];
const probe: Schema = [
  inline(1, [
    msg(1, 'exec', [strs(1, 'command')]),
    msg(2, 'httpGet', [str(1, 'path'), intOrString(2, 'port', true), str(3, 'host'), str(4, 'scheme'), msgs(5, 'httpHeaders', [str(1, 'name', true), str(2, 'value', true)])]),
    msg(3, 'tcpSocket', [intOrString(1, 'port', true), str(2, 'host')]),
  ]),
  int32(2, 'initialDelaySeconds'),
  int32(3, 'timeoutSeconds'),
  int32(4, 'periodSeconds'),
  int32(5, 'successThreshold'),
  int32(6, 'failureThreshold'),
  int64(7, 'terminationGracePeriodSeconds', true),
];

const container: Schema = [
  str(1, 'name', true),
  str(2, 'image'),
  strs(3, 'command'),
  strs(4, 'args'),
  str(5, 'workingDir'),
  msgs(6, 'ports', [str(1, 'name'), int32(2, 'hostPort'), int32(3, 'containerPort', true), str(4, 'protocol'), str(5, 'hostIP')]),
  msgs(7, 'env', [
    str(1, 'name', true),
    str(2, 'value'),
    msg(3, 'valueFrom', [
      msg(1, 'fieldRef', [str(1, 'apiVersion'), str(2, 'fieldPath', true)]),
      msg(2, 'resourceFieldRef', [str(1, 'containerName'), str(2, 'resource', true), { no: 3, name: 'divisor', type: 'quantity' }]),
      msg(3, 'configMapKeyRef', keySelector),
      msg(4, 'secretKeyRef', keySelector),
    ]),
  ]),
  msg(8, 'resources', [quantities(1, 'limits'), quantities(2, 'requests')]),
  msgs(9, 'volumeMounts', [str(1, 'name', true), bool(2, 'readOnly'), str(3, 'mountPath', true), str(4, 'subPath'), str(5, 'mountPropagation', true), str(6, 'subPathExpr')]),
  msg(10, 'livenessProbe', probe),
  msg(11, 'readinessProbe', probe),
  str(13, 'terminationMessagePath'),
  str(14, 'imagePullPolicy'),
  msg(15, 'securityContext', [
    msg(1, 'capabilities', [strs(1, 'add'), strs(2, 'drop')]),
    bool(2, 'privileged', true),
    int64(4, 'runAsUser', true),
    bool(5, 'runAsNonRoot', true),
    bool(6, 'readOnlyRootFilesystem', true),
    bool(7, 'allowPrivilegeEscalation', true),
    int64(8, 'runAsGroup', true),
  ]),
  bool(16, 'stdin'),
  bool(18, 'tty'),
  msgs(19, 'envFrom', [str(1, 'prefix'), msg(2, 'configMapRef', [localObjectReference, bool(2, 'optional', true)]), msg(3, 'secretRef', [localObjectReference, bool(2, 'optional', true)])]),
  str(20, 'terminationMessagePolicy'),
  msgs(21, 'volumeDevices', [str(1, 'name', true), str(2, 'devicePath', true)]),
  msg(22, 'startupProbe', probe),
];

const keyToPath: Schema = [str(1, 'key', true), str(2, 'path', true), int32(3, 'mode', true)];

const podVolumeSource: Schema = [
  msg(1, 'hostPath', [str(1, 'path', true), str(2, 'type', true)]),
  msg(2, 'emptyDir', [str(1, 'medium'), { no: 2, name: 'sizeLimit', type: 'quantity' }]),
  msg(6, 'secret', [str(1, 'secretName'), msgs(2, 'items', keyToPath), int32(3, 'defaultMode', true), bool(4, 'optional', true)]),
  msg(10, 'persistentVolumeClaim', [str(1, 'claimName', true), bool(2, 'readOnly')]),
  msg(19, 'configMap', [localObjectReference, msgs(2, 'items', keyToPath), int32(3, 'defaultMode', true), bool(4, 'optional', true)]),
];

const pod: Schema = [
  msg(1, 'metadata', objectMeta),
  msg(2, 'spec', [
    msgs(1, 'volumes', [str(1, 'name', true), inline(2, podVolumeSource)]),
    msgs(2, 'containers', container),
    str(3, 'restartPolicy'),
    int64(4, 'terminationGracePeriodSeconds', true),
    int64(5, 'activeDeadlineSeconds', true),
    str(6, 'dnsPolicy'),
    map(7, 'nodeSelector'),
    str(8, 'serviceAccountName'),
    str(9, 'serviceAccount'),
    str(10, 'nodeName'),
    bool(11, 'hostNetwork'),
    msg(14, 'securityContext', [int64(2, 'runAsUser', true), bool(3, 'runAsNonRoot', true), int64(5, 'fsGroup', true), int64(6, 'runAsGroup', true), str(9, 'fsGroupChangePolicy', true)]),
    msgs(15, 'imagePullSecrets', [localObjectReference]),
    str(16, 'hostname'),
    str(17, 'subdomain'),
    msg(18, 'affinity', [
      msg(1, 'nodeAffinity', [
        msg(1, 'requiredDuringSchedulingIgnoredDuringExecution', nodeSelector),
        msgs(2, 'preferredDuringSchedulingIgnoredDuringExecution', [int32(1, 'weight', true), msg(2, 'preference', nodeSelectorTerm)]),
      ]),
    ]),
    str(19, 'schedulerName'),
    msgs(20, 'initContainers', container),
    bool(21, 'automountServiceAccountToken', true),
    msgs(22, 'tolerations', [str(1, 'key'), str(2, 'operator'), str(3, 'value'), str(4, 'effect'), int64(5, 'tolerationSeconds', true)]),
    str(24, 'priorityClassName'),
    int32(25, 'priority', true),
    bool(30, 'enableServiceLinks', true),
  ]),
  msg(3, 'status', [
    str(1, 'phase'),
    msgs(2, 'conditions', condition([time(3, 'lastProbeTime', true)])),
    str(3, 'message'),
    str(4, 'reason'),
    str(5, 'hostIP'),
    str(6, 'podIP'),
    time(7, 'startTime'),
    str(9, 'qosClass'),
    str(11, 'nominatedNodeName'),
  ]),
];

// --- the reviews kubectl auth sends --------------------------------------------------------------

const selfSubjectAccessReview: Schema = [
  msg(1, 'metadata', objectMeta),
  msg(2, 'spec', [
    msg(1, 'resourceAttributes', [str(1, 'namespace'), str(2, 'verb'), str(3, 'group'), str(4, 'version'), str(5, 'resource'), str(6, 'subresource'), str(7, 'name')]),
    msg(2, 'nonResourceAttributes', [str(1, 'path'), str(2, 'verb')]),
  ]),
  msg(3, 'status', [bool(1, 'allowed', true), str(2, 'reason'), str(3, 'evaluationError'), bool(4, 'denied')]),
];

const selfSubjectReview: Schema = [
  msg(1, 'metadata', objectMeta),
  msg(2, 'status', [msg(1, 'userInfo', [str(1, 'username'), str(2, 'uid'), strs(3, 'groups')])]),
];

// core/v1 ResourceQuota (`kubectl create quota`).
const resourceQuota: Schema = [
  msg(1, 'metadata', objectMeta),
  msg(2, 'spec', [
    quantities(1, 'hard'),
    strs(2, 'scopes'),
    msg(3, 'scopeSelector', [msgs(1, 'matchExpressions', [str(1, 'scopeName', true), str(2, 'operator', true), strs(3, 'values')])]),
  ]),
  msg(3, 'status', [quantities(1, 'hard'), quantities(2, 'used')]),
];

// storage/v1 CSIStorageCapacity (the room of a pool per node and class).
const csiStorageCapacity: Schema = [
  msg(1, 'metadata', objectMeta),
  msg(2, 'nodeTopology', labelSelector),
  str(3, 'storageClassName'),
  { no: 4, name: 'capacity', type: 'quantity' },
  { no: 5, name: 'maximumVolumeSize', type: 'quantity' },
];

/** meta/v1 DeleteOptions, which client-go sends as the body of a delete (in the group-version of the resource). */
const deleteOptions: Schema = [
  int64(1, 'gracePeriodSeconds', true),
  msg(2, 'preconditions', [str(1, 'uid', true), str(2, 'resourceVersion', true)]),
  bool(3, 'orphanDependents', true),
  str(4, 'propagationPolicy', true),
  strs(5, 'dryRun'),
  bool(6, 'ignoreStoreReadErrorWithClusterBreakingPotential', true),
];

/** A List: `items` is always in its JSON, [] when empty. */
const list = (item: Schema): Schema => [msg(1, 'metadata', listMeta), { ...msgs(2, 'items', item), keep: true }];

/**
 * Kinds served as JSON (and YAML) only, by `apiVersion/kind`, with the reason. Upstream
 * serves them from CustomResourceDefinitions, which have no protobuf encoding: clients
 * (kubectl's dynamic client) always send and accept JSON for them, and a protobuf-only
 * request is answered 406 as for any object protobuf cannot carry.
 */
export const JSON_ONLY_KINDS: ReadonlyMap<string, string> = new Map([
  ...['VolumeSnapshotClass', 'VolumeSnapshot', 'VolumeSnapshotContent'].map((k): [string, string] => [
    `snapshot.storage.k8s.io/v1/${k}`,
    'a CRD upstream (external-snapshotter): no protobuf form',
  ]),
  ['snapshot.stowage.io/v1/SnapshotSchedule', "Stowage's own kind, a CRD in a real cluster: no protobuf form"],
  ['stowage.io/v1/BackupTarget', "Stowage's own kind, a CRD in a real cluster: no protobuf form"],
  ['stowage.io/v1/VolumeBackup', "Stowage's own kind, a CRD in a real cluster: no protobuf form"],
]);

/** Every kind (and list) Stowage reads and writes as protobuf, by `apiVersion/kind`. */
export const PROTOBUF_KINDS: ReadonlyMap<string, Schema> = new Map(
  Object.entries({
    'v1/PersistentVolume': persistentVolume,
    'v1/PersistentVolumeClaim': persistentVolumeClaim,
    'v1/Namespace': namespace,
    'v1/Node': node,
    'v1/Event': event,
    'v1/ConfigMap': configMap,
    'v1/Secret': secret,
    'v1/Pod': pod,
    'v1/ResourceQuota': resourceQuota,
    'storage.k8s.io/v1/StorageClass': storageClass,
    'storage.k8s.io/v1/CSIStorageCapacity': csiStorageCapacity,
    'v1/Status': status,
    'v1/DeleteOptions': deleteOptions,
    'storage.k8s.io/v1/DeleteOptions': deleteOptions,
    'meta.k8s.io/v1/DeleteOptions': deleteOptions,
    'authorization.k8s.io/v1/SelfSubjectAccessReview': selfSubjectAccessReview,
    'authentication.k8s.io/v1/SelfSubjectReview': selfSubjectReview,
  }).flatMap(([key, schema]) => {
    const entries: [string, Schema][] = [[key, schema]];
    if (key.endsWith('/Status') || key.endsWith('/DeleteOptions') || key.includes('Review')) return entries;
    return [...entries, [`${key}List`, list(schema)]];
  }),
);
