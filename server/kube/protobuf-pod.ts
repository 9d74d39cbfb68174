// core/v1 Pod (k8s.io/api): the fields a typical workload's pod carries (others make a pod
// JSON only).
import { str, bool, int32, int64, strs, time, msg, msgs, inline, map, quantities, intOrString, type Schema } from './protobuf-fields';
import { condition, nodeSelector, nodeSelectorTerm } from './protobuf-core';
import { objectMeta } from './protobuf-meta';

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

export const pod: Schema = [
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
