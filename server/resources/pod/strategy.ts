// The Pod strategy (pkg/registry/core/pod/strategy.go, the storage-relevant part):
// defaults, what create and update reset, indexed columns and the table kubectl prints
// (NAME READY STATUS RESTARTS AGE, and IP NODE with -o wide).
import { ageOf } from '../../domain/duration';
import { ageColumn, column, nameColumn, noColumns } from '../columns';
import { keepAllButStatus, keepSystemMetadata, shapeErrors, stripNulls, keepStatus } from '../metadata';
import type { Strategy } from '../types';
import { podSchema, type Pod } from './schema';
import { validatePod, validatePodUpdate } from './validation';
import { schedulerComponent } from '../../domain/well-known/components';

export { podSchema } from './schema';

/** What `kubectl get pods` prints as STATUS (the printer's reason, phase or Terminating). */
export function podStatusText(pod: Pod): string {
  if (pod.metadata?.deletionTimestamp) return 'Terminating';
  return pod.status?.reason || pod.status?.phase || 'Pending';
}

function readyText(pod: Pod): string {
  const total = Array.isArray(pod.spec?.containers) ? pod.spec.containers.length : 0;
  const statuses = pod.status?.containerStatuses ?? [];
  const ready = statuses.filter((s) => s?.ready === true).length;
  return `${ready}/${total}`;
}

function restarts(pod: Pod): number {
  // Container statuses are kept as sent (the schema does not describe them).
  const statuses = pod.status?.containerStatuses ?? [];
  return statuses.reduce((n, s) => n + (typeof s?.restartCount === 'number' && Number.isInteger(s.restartCount) ? s.restartCount : 0), 0);
}

export const podStrategy: Strategy<Pod> = {
  kind: 'Pod',
  group: '',
  version: 'v1',
  apiVersion: 'v1',
  plural: 'pods',
  singular: 'pod',
  shortNames: ['po'],
  namespaced: true,
  hasStatus: true,
  fieldSelectors: {
    'spec.nodeName': (pod) => pod.spec?.nodeName ?? '',
    'spec.restartPolicy': (pod) => pod.spec?.restartPolicy ?? '',
    'spec.schedulerName': (pod) => pod.spec?.schedulerName ?? '',
    'status.phase': (pod) => pod.status?.phase ?? '',
    'status.nominatedNodeName': (pod) => pod.status?.nominatedNodeName ?? '',
  },

  validateShape: (obj) => shapeErrors(podSchema, obj),
  schema: podSchema,

  applyDefaults(pod) {
    stripNulls(pod);
    pod.spec ??= {};
    pod.spec.restartPolicy ??= 'Always';
    pod.spec.schedulerName ??= schedulerComponent;
    pod.status ??= {};
    if (!pod.status.phase) pod.status.phase = 'Pending';
  },

  prepareForCreate(pod) {
    pod.status = { phase: 'Pending', qosClass: 'BestEffort' };
  },

  prepareForUpdate(next, prev) {
    keepSystemMetadata(next, prev);
    keepStatus(next, prev);
  },

  prepareForStatusUpdate(next, prev) {
    keepAllButStatus(next, prev);
  },

  // Upstream deletes a pod on a node gracefully: it stays Terminating until the kubelet has
  // stopped it. Here a node agent that published the pod's volumes (phase Running) must
  // unpublish them first; pods no agent started go at once.
  gracefulDeletionSeconds(pod) {
    if (!pod.spec?.nodeName || pod.status?.phase !== 'Running') return 0;
    const g = pod.spec?.terminationGracePeriodSeconds; // kept as sent: not in the schema
    return typeof g === 'number' && Number.isInteger(g) && g >= 0 ? g : 30;
  },

  validate: validatePod,
  validateUpdate: validatePodUpdate,

  columns(pod) {
    return { ...noColumns(), phase: pod.status?.phase ?? null, nodeName: pod.spec?.nodeName || null };
  },

  table: {
    columns: [
      nameColumn,
      column('Ready', 'The aggregate readiness state of this pod for accepting traffic.'),
      column('Status', 'The aggregate status of the containers in this pod.'),
      { ...column('Restarts', 'The number of times the containers in this pod have been restarted.'), type: 'string' },
      ageColumn,
      column('IP', 'The IP address assigned to the pod', 1),
      column('Node', 'The name of the node the pod is assigned to', 1),
    ],
    row(pod, now) {
      return [
        pod.metadata?.name ?? '',
        readyText(pod),
        podStatusText(pod),
        String(restarts(pod)),
        ageOf(pod.metadata?.creationTimestamp, now),
        pod.status?.podIP || '<none>',
        pod.spec?.nodeName || '<none>',
      ];
    },
  },
};
