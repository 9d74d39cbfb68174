// A node agent's pod report carries the used bytes it measured on each published volume.
// They land on a local volume's PV; a btrfs pool volume's usage is its qgroup's (from the
// pool reports), so a pod report never overwrites it with its own walk of the files.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { annDynamicallyProvisioned, annUsedBytes } from '../../server/domain/well-known/annotations';
import { labelHostname } from '../../server/domain/well-known/labels';
import { btrfsProvisioner } from '../../server/domain/well-known/provisioners';
import { PodPublishing } from '../../server/services/pod-publishing';
import { logger } from '../../server/services/logger';
import { openTestStore, type TestStore } from '../db';

let t: TestStore;
const NODE = 'usage-node';

beforeAll(async () => {
  t = await openTestStore();
  await t.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
});
afterAll(() => t.close());

/** A claim bound to a local PV on NODE (provisioned by `by`, when given) and a pod on NODE using it. */
async function boundOnNode(name: string, by?: string): Promise<{ uid: string }> {
  const claim = await t.store.create({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { namespace: 'apps', name },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeName: `pv-${name}` },
  });
  await t.store.create({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: `pv-${name}`, ...(by ? { annotations: { [annDynamicallyProvisioned]: by } } : {}) },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      local: { path: `/srv/pool/pv-${name}` },
      claimRef: { kind: 'PersistentVolumeClaim', namespace: 'apps', name, uid: claim.metadata.uid },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: labelHostname, operator: 'In', values: [NODE] }] }] } },
    },
  });
  const pod = await t.store.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: 'apps', name },
    spec: { nodeName: NODE, containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: name } }] },
  });
  return { uid: pod.metadata.uid! };
}

it.each([
  { name: 'plain-local', by: undefined, recorded: '4096' },
  { name: 'pool-volume', by: btrfsProvisioner, recorded: undefined },
])('$name: the reported usage is recorded on the PV: $recorded', async ({ name, by, recorded }) => {
  const { uid } = await boundOnNode(name, by);
  const publishing = new PodPublishing(t.store, logger);
  await publishing.report(NODE, { namespace: 'apps', name, uid, volumes: [{ name: 'data', ready: true, usedBytes: '4096' }] });
  const pv = await t.store.get('PersistentVolume', undefined, `pv-${name}`);
  expect(pv.metadata.annotations?.[annUsedBytes]).toBe(recorded);
});
