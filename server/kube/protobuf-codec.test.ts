import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { StowageError } from '../domain/errors';
import { localPV, nfsPV, hostPathPV } from '../resources/persistent-volume/fixtures';
import { decodeKubeProtobuf, encodeKubeProtobuf, encodeWatchEvent, Unrepresentable } from './protobuf-codec';
import { readFields } from './protobuf-wire';

// A minimal encoder for the test: length-delimited fields and varints only.
function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}
const ld = (field: number, b: Buffer | string) => {
  const body = typeof b === 'string' ? Buffer.from(b) : b;
  return Buffer.concat([varint(field * 8 + 2), varint(body.length), body]);
};
const vi = (field: number, n: number) => Buffer.concat([varint(field * 8), varint(n)]);
const msg = (...parts: Buffer[]) => Buffer.concat(parts);
const entry = (field: number, k: string, v: Buffer | string) => ld(field, msg(ld(1, k), ld(2, v)));
const envelope = (apiVersion: string, kind: string, raw: Buffer) =>
  Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0]), ld(1, msg(ld(1, apiVersion), ld(2, kind))), ld(2, raw)]);

describe('decodeKubeProtobuf: what kubectl sends', () => {
  it('a Namespace as kubectl create namespace sends it', () => {
    const meta = msg(ld(1, 'team-x'), entry(11, 'env', 'prod'), entry(11, '__proto__', 'data'), ld(14, 'a'), ld(14, 'b'));
    const o = decodeKubeProtobuf(envelope('v1', 'Namespace', msg(ld(1, meta), ld(2, Buffer.alloc(0)))));
    expect(o).toEqual({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-x', labels: JSON.parse('{"env":"prod","__proto__":"data"}'), finalizers: ['a', 'b'] }, spec: {} });
    expect(Object.getPrototypeOf((o.metadata as { labels: object }).labels)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).data).toBeUndefined();
  });

  it('a Secret keeps its bytes as base64 and its type', () => {
    const o = decodeKubeProtobuf(envelope('v1', 'Secret', msg(ld(1, ld(1, 's')), entry(2, 'password', Buffer.from([0, 255, 1])), ld(3, 'Opaque'))));
    expect(o).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { password: Buffer.from([0, 255, 1]).toString('base64') }, type: 'Opaque' });
  });

  it('a SelfSubjectAccessReview as kubectl auth can-i sends it', () => {
    const attrs = msg(ld(1, 'team-a'), ld(2, 'create'), ld(5, 'persistentvolumeclaims'));
    const o = decodeKubeProtobuf(envelope('authorization.k8s.io/v1', 'SelfSubjectAccessReview', msg(ld(1, Buffer.alloc(0)), ld(2, ld(1, attrs)))));
    expect(o.spec).toEqual({ resourceAttributes: { namespace: 'team-a', verb: 'create', resource: 'persistentvolumeclaims' } });
  });

  it('skips unknown fields and reads booleans and integers', () => {
    const o = decodeKubeProtobuf(envelope('v1', 'ConfigMap', msg(ld(1, msg(ld(1, 'c'), vi(7, 3))), ld(99, 'ignored'), vi(4, 1))));
    expect(o).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', generation: 3 }, immutable: true });
  });

  it('drops the zero values Go leaves out of JSON, keeps those of pointers and non-omitempty fields', () => {
    // As kubectl's generated code writes a new Namespace: every string, the zero time as an empty message.
    const meta = msg(ld(1, 'n'), ld(2, ''), ld(3, ''), ld(5, ''), vi(7, 0), ld(8, Buffer.alloc(0)));
    const ns = decodeKubeProtobuf(envelope('v1', 'Namespace', msg(ld(1, meta), ld(2, Buffer.alloc(0)), ld(3, ld(1, '')))));
    expect(ns).toStrictEqual({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n', creationTimestamp: null }, spec: {}, status: {} });
    // PVC storageClassName is a *string: "" is data (no class), unlike volumeName.
    const pvc = decodeKubeProtobuf(envelope('v1', 'PersistentVolumeClaim', msg(ld(2, msg(ld(3, ''), ld(5, ''))))));
    expect(pvc.spec).toStrictEqual({ storageClassName: '' });
  });

  it.each([
    { what: 'no magic', body: Buffer.from('{}'), error: /magic/ },
    { what: 'a truncated field', body: Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0]), Buffer.from([0x0a, 0x7f, 0x01])]), error: /truncated/ },
    { what: 'a kind not accepted as protobuf', body: envelope('v1', 'Binding', Buffer.alloc(0)), error: /send v1\/Binding as application\/json/ },
    { what: 'a kind named like an Object.prototype key', body: envelope('v1', 'constructor', Buffer.alloc(0)), error: /protobuf bodies are accepted/ },
    { what: 'invalid UTF-8 in a name', body: envelope('v1', 'Namespace', ld(1, ld(1, Buffer.from([0xff, 0xfe])))), error: /UTF-8/ },
    { what: 'a varint where a string belongs', body: envelope('v1', 'Namespace', ld(1, vi(1, 5))), error: /length-delimited/ },
    { what: 'a time beyond year 9999', body: envelope('v1', 'Namespace', ld(1, ld(8, vi(1, 2 ** 40)))), error: /years/ },
    { what: 'managedFields that are not JSON', body: envelope('v1', 'Namespace', ld(1, ld(17, ld(7, ld(1, '{'))))), error: /not JSON/ },
    { what: 'an int64 beyond 2^53', body: envelope('v1', 'Namespace', ld(1, Buffer.concat([varint(7 * 8), Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f])]))), error: /out of range/ },
    { what: 'a compressed body', body: Buffer.concat([envelope('v1', 'Namespace', Buffer.alloc(0)), ld(3, 'gzip')]), error: /content encoding/ },
  ])('refuses $what', ({ body, error }) => {
    expect(() => decodeKubeProtobuf(body)).toThrow(error);
  });
});

const manifest = (f: string) => parse(readFileSync(path.join(import.meta.dirname, '../../test/kube/manifests', f), 'utf8'));

const meta = (name: string, namespace?: string) => ({
  name,
  ...(namespace ? { namespace } : {}),
  uid: '6f1c2a8e-2f0b-4a57-9a39-0d3b8a1c9e21',
  resourceVersion: '42',
  generation: 1,
  creationTimestamp: '2026-11-24T19:58:46Z',
  labels: { 'kubernetes.io/metadata.name': name, constructor: 'data' },
  annotations: { 'pv.kubernetes.io/bound-by-controller': 'yes', __proto__: 'x' } as Record<string, string>,
  finalizers: ['kubernetes.io/pv-protection'],
  managedFields: [
    { manager: 'kubectl-create', operation: 'Update', apiVersion: 'v1', time: '2026-11-24T19:58:46Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:tier': {} } } } },
  ],
});
// `__proto__` in a literal sets the prototype: make it an own key, as JSON.parse does.
const withProtoKey = <T extends { metadata: { annotations: Record<string, string> } }>(o: T): T => {
  Object.defineProperty(o.metadata.annotations, '__proto__', { value: 'x', enumerable: true, writable: true, configurable: true });
  return o;
};

/** Objects as the API answers them (server-shaped), and the manifests tests send. */
const objects: Record<string, unknown> = {
  'PersistentVolume (nfs manifest)': manifest('nfs-pv.yaml'),
  'PersistentVolume (local manifest)': manifest('local-pv.yaml'),
  'PersistentVolume (fixtures)': localPV,
  'PersistentVolume (nfs fixture)': nfsPV,
  'PersistentVolume (hostPath fixture)': hostPathPV,
  'PersistentVolume (bound, released by the binder)': withProtoKey({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { ...meta('pv-1'), deletionTimestamp: '2026-11-24T20:00:00Z', deletionGracePeriodSeconds: 0 },
    spec: {
      capacity: { storage: '1e6' },
      csi: { driver: 'csi.example.com', volumeHandle: 'vol-1', fsType: 'ext4', volumeAttributes: { a: 'b' }, nodeStageSecretRef: { name: 's', namespace: 'kube-system' } },
      accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
      claimRef: { kind: 'PersistentVolumeClaim', namespace: 'team-a', name: 'c', uid: 'u-1', apiVersion: 'v1', resourceVersion: '7' },
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: 'fast',
      volumeMode: 'Block',
    },
    status: { phase: 'Failed', message: 'error getting deleter volume plugin for volume "pv-1": no deletable volume plugin matched', lastPhaseTransitionTime: '2026-11-24T19:59:00Z' },
  }),
  'PersistentVolume (iSCSI with CHAP, an old in-tree source)': {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'iscsi' },
    spec: {
      capacity: { storage: '10Gi' },
      accessModes: ['ReadWriteOnce'],
      iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage.disk1', lun: 0, portals: ['10.0.0.2:3260'], chapAuthSession: true, secretRef: { name: 'chap', namespace: 'kube-system' }, fsType: 'ext4' },
    },
  },
  'PersistentVolumeClaim (manifest)': manifest('claim.yaml'),
  'PersistentVolumeClaim (bound, resizing)': {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'c', namespace: 'team-a', uid: 'u-1', resourceVersion: '9', creationTimestamp: '2026-11-24T19:58:46Z', annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '2Gi' }, limits: { storage: '4Gi' } },
      volumeName: 'pv-1',
      storageClassName: '',
      volumeMode: 'Filesystem',
      dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap' },
      dataSourceRef: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap', namespace: 'team-a' },
    },
    status: {
      phase: 'Bound',
      accessModes: ['ReadWriteOnce'],
      capacity: { storage: '1Gi' },
      allocatedResources: { storage: '2Gi' },
      allocatedResourceStatuses: { storage: 'ControllerResizeInProgress' },
      conditions: [{ type: 'Resizing', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-11-24T19:59:00Z' }],
    },
  },
  'StorageClass (manifest)': manifest('storage-class.yaml'),
  'StorageClass (topologies, no expansion)': {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'local', resourceVersion: '3', creationTimestamp: '2026-11-24T19:58:46Z' },
    provisioner: 'kubernetes.io/no-provisioner',
    reclaimPolicy: 'Delete',
    allowVolumeExpansion: false,
    volumeBindingMode: 'WaitForFirstConsumer',
    allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['a', 'b'] }] }],
  },
  Namespace: withProtoKey({ apiVersion: 'v1', kind: 'Namespace', metadata: meta('team-a'), spec: { finalizers: ['kubernetes'] }, status: { phase: 'Terminating', conditions: [{ type: 'NamespaceDeletionContentFailure', status: 'False', lastTransitionTime: '2026-11-24T19:59:00Z', reason: 'ContentDeleted', message: 'All content successfully deleted' }] } }),
  Node: {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1' }, resourceVersion: '5', creationTimestamp: '2026-11-24T19:58:46Z' },
    spec: { unschedulable: true, taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule', timeAdded: '2026-11-24T19:58:47Z' }], podCIDRs: ['10.0.0.0/24'] },
    status: {
      capacity: { cpu: '4', memory: '16Gi', 'ephemeral-storage': '100Gi' },
      allocatable: { cpu: '3800m', memory: '15Gi' },
      conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2026-11-24T19:58:50Z', lastTransitionTime: '2026-11-24T19:58:46Z', reason: 'AgentReady', message: 'stowage agent is posting status' }],
      addresses: [{ type: 'Hostname', address: 'node-1' }, { type: 'InternalIP', address: '10.0.0.7' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
      nodeInfo: { operatingSystem: 'linux', architecture: 'x64', kernelVersion: '6.1.0', osImage: '', kubeletVersion: 'stowage-agent' },
      volumesInUse: ['kubernetes.io/csi/x^y'],
      volumesAttached: [{ name: 'kubernetes.io/csi/x^y', devicePath: '' }],
    },
  },
  Event: {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'pv-1.17a', namespace: 'default', uid: 'e', resourceVersion: '11', creationTimestamp: '2026-11-24T19:58:46Z' },
    involvedObject: { kind: 'PersistentVolume', name: 'pv-1', uid: 'u', apiVersion: 'v1', resourceVersion: '10' },
    reason: 'VolumeFailedDelete',
    message: 'error getting deleter volume plugin for volume "pv-1"',
    source: { component: 'persistentvolume-controller' },
    firstTimestamp: '2026-11-24T19:58:46Z',
    lastTimestamp: '2026-11-24T19:59:46Z',
    count: 3,
    type: 'Warning',
    eventTime: null,
    reportingComponent: 'persistentvolume-controller',
    reportingInstance: '',
  },
  'Event (events.k8s.io style, with a series)': {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'x', namespace: 'default' },
    involvedObject: {},
    source: {},
    firstTimestamp: null,
    lastTimestamp: null,
    eventTime: '2026-11-24T19:58:46.123456Z',
    series: { count: 2, lastObservedTime: '2026-11-24T19:58:47.000001Z' },
    action: 'Binding',
    related: { kind: 'Node', name: 'node-1' },
    reportingComponent: 'stowage',
    reportingInstance: 'stowage-1',
  },
  ConfigMap: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'zz' }, data: { 'a.txt': 'b', empty: '' }, binaryData: { bin: Buffer.from([0, 1, 255]).toString('base64') }, immutable: false },
  Secret: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'zz' }, data: { a: 'Yg==', empty: '' }, type: 'Opaque', immutable: true },
  'Pod (storage subset)': {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-0', namespace: 'team-a' },
    spec: {
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'web-data', readOnly: true } }],
      initContainers: [{ name: 'init', image: 'busybox:1.36', command: ['sh', '-c', 'true'], volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
      containers: [{ name: 'nginx', image: 'nginx:1.27', args: ['-g'], volumeMounts: [{ name: 'data', mountPath: '/d', readOnly: true, subPath: 'x' }], volumeDevices: [{ name: 'raw', devicePath: '/dev/xvda' }] }],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 0,
      nodeName: 'node-1',
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, preference: { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-1'] }] } }] } },
      schedulerName: 'default-scheduler',
    },
    status: { phase: 'Running', conditions: [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-11-24T19:58:46Z' }], hostIP: '10.0.0.7', startTime: '2026-11-24T19:58:46Z' },
  },
  'Pod (the typical workload manifest: ports, env, probes, resources, securityContext ...)': manifest('pod.yaml'),
  'Pod (more volume sources and references)': {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'team-a' },
    spec: {
      volumes: [
        { name: 'cfg', configMap: { name: 'cm', items: [{ key: 'a', path: 'a.txt', mode: 0 }], defaultMode: 420, optional: false } },
        { name: 'sec', secret: { secretName: 's' } },
        { name: 'host', hostPath: { path: '/var/log', type: '' } },
      ],
      containers: [
        {
          name: 'c',
          envFrom: [{ configMapRef: { name: 'cm' } }, { prefix: 'S_', secretRef: { name: 's', optional: true } }],
          env: [{ name: 'K', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }, { name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } }],
          livenessProbe: { tcpSocket: { port: 5432 }, failureThreshold: 3 },
          startupProbe: { exec: { command: ['pg_isready'] } },
          securityContext: { capabilities: { drop: ['ALL'] }, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true },
        },
      ],
      imagePullSecrets: [{ name: 'registry' }],
      automountServiceAccountToken: false,
    },
  },
  'PersistentVolumeList (items without kind)': { apiVersion: 'v1', kind: 'PersistentVolumeList', metadata: { resourceVersion: '99', continue: 'abc', remainingItemCount: 0 }, items: [{ metadata: { name: 'a' }, spec: { capacity: { storage: '1Gi' }, hostPath: { path: '/x', type: '' } } }] },
  'StorageClassList (empty)': { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClassList', metadata: { resourceVersion: '1' }, items: [] },
  'Status (an error with causes)': {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'PersistentVolume "x" is invalid: spec.capacity: Required value',
    reason: 'Invalid',
    details: { name: 'x', kind: 'PersistentVolume', causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.capacity' }], retryAfterSeconds: 1 },
    code: 422,
  },
  DeleteOptions: { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: { uid: 'u', resourceVersion: '7' }, propagationPolicy: 'Foreground', dryRun: ['All'], orphanDependents: false },
  SelfSubjectAccessReview: { kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: { creationTimestamp: null }, spec: { resourceAttributes: { namespace: 'team-a', verb: 'get', resource: 'persistentvolumes' } }, status: { allowed: false, reason: 'role developer does not allow it' } },
  SelfSubjectReview: { kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1', metadata: { creationTimestamp: null }, status: { userInfo: { username: 'dev', uid: '1', groups: ['stowage:developers', 'system:authenticated'] } } },
};

describe('protobuf round trip: JSON object -> protobuf -> decode is the same object', () => {
  it.each(Object.entries(objects))('%s', (_, o) => {
    const bytes = encodeKubeProtobuf(o);
    expect(bytes.subarray(0, 4)).toEqual(Buffer.from('k8s\0'));
    const back = decodeKubeProtobuf(bytes);
    // Key order aside, the very same JSON.
    expect(back).toStrictEqual(JSON.parse(JSON.stringify(o)));
  });

  it('covers every kind and list the table has', () => {
    const covered = new Set(Object.values(objects).map((o) => (o as { kind: string }).kind));
    for (const k of ['PersistentVolume', 'PersistentVolumeClaim', 'StorageClass', 'Namespace', 'Node', 'Event', 'ConfigMap', 'Secret', 'Pod', 'Status']) expect(covered).toContain(k);
  });

  it('a watch event is a length-prefixed WatchEvent holding the object as its own protobuf body', () => {
    const frame = encodeWatchEvent('ADDED', objects.Namespace);
    expect(frame.readUInt32BE(0)).toBe(frame.length - 4);
    const fields = [...readFields(frame.subarray(4))];
    expect(fields[0]).toEqual([1, Buffer.from('ADDED')]);
    const raw = [...readFields(fields[1][1] as Buffer)][0][1] as Buffer;
    expect(decodeKubeProtobuf(raw)).toStrictEqual(JSON.parse(JSON.stringify(objects.Namespace)));
  });
});

describe('what protobuf cannot carry is refused, never dropped', () => {
  const pv = (spec: object, metadata: object = { name: 'x' }) => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata, spec });
  it.each([
    { what: 'a pod with lifecycle hooks', o: { ...manifest('pod.yaml'), spec: { containers: [{ name: 'c', lifecycle: { preStop: { exec: { command: ['true'] } } } }] } }, at: /^Pod\.spec\.containers\[0\]\.lifecycle$/ },
    { what: 'a field a loosely kept volume source does not have upstream', o: pv({ rbd: { monitors: ['m'], image: 'i', surprise: true } }), at: /spec\.rbd\.surprise/ },
    { what: 'an unknown field', o: pv({ hostPath: { path: '/x' }, surprise: 1 }), at: /spec\.surprise/ },
    { what: 'a zero value Go omits', o: pv({ volumeName: 'x' }, { name: '' }), at: /metadata\.name/ },
    { what: 'an empty map', o: pv({}, { name: 'x', labels: {} }), at: /metadata\.labels/ },
    { what: 'an empty list', o: pv({ accessModes: [] }), at: /spec\.accessModes/ },
    { what: 'a null', o: pv({ claimRef: null }), at: /spec\.claimRef/ },
    { what: 'a number as a quantity', o: pv({ capacity: { storage: 5 } }), at: /capacity/ },
    { what: 'a timestamp with fractions', o: pv({}, { name: 'x', creationTimestamp: '2026-11-24T19:58:46.5Z' }), at: /creationTimestamp/ },
    { what: 'a timestamp with an offset', o: pv({}, { name: 'x', creationTimestamp: '2026-11-24T19:58:46+01:00' }), at: /creationTimestamp/ },
    { what: 'base64 that is not canonical', o: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { a: 'Yg' } }, at: /data/ },
    { what: 'a kind without a table', o: { apiVersion: 'v1', kind: 'Binding' }, at: /^$/ },
    { what: 'a Table', o: { apiVersion: 'meta.k8s.io/v1', kind: 'Table', rows: [] }, at: /^$/ },
  ])('$what', ({ o, at }) => {
    let err: unknown;
    try {
      encodeKubeProtobuf(o);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(Unrepresentable);
    expect((err as Unrepresentable).path).toMatch(at);
  });
});

describe('hostile protobuf is a 400, never a crash', () => {
  it('every truncation and every flipped byte of a real body decodes or is a BadRequest', () => {
    const body = encodeKubeProtobuf(objects['PersistentVolume (bound, released by the binder)']);
    const tries: Buffer[] = [];
    for (let n = 4; n < body.length; n++) tries.push(body.subarray(0, n));
    for (let i = 4; i < body.length; i++) {
      const b = Buffer.from(body);
      b[i] ^= 0xff;
      tries.push(b);
    }
    let refused = 0;
    for (const t of tries) {
      try {
        decodeKubeProtobuf(t);
      } catch (e) {
        expect(e).toBeInstanceOf(StowageError);
        expect(['BadRequest', 'UnsupportedMediaType']).toContain((e as StowageError).code);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(0);
  });
});
