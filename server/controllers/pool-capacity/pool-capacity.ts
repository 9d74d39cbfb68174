// The pools' capacity objects of a node that went silent (upstream's external provisioner
// drops the CSIStorageCapacity of a topology segment it can no longer reach): when a node
// is not Ready (its agent stopped reporting and the node lifecycle controller said so) its
// pools offer no room, with the reason; when the node is deleted they are deleted. Its
// agent's next report, once the node is Ready again, publishes the pools' room again.
// Keys: node/<name>, from Node changes and from changes of that node's capacity objects.
import type { Logger } from 'pino';
import { silencedCapacity } from '../../domain/pool-capacity';
import { labelPoolNode } from '../../domain/well-known/labels';
import { CAPACITY_NAMESPACE } from '../../services/node-pools';
import type { ObjectStore } from '../../store/object-store';
import type { ControllerSpec } from '../runtime/controller';
import { write } from '../runtime/write';

export const poolCapacityName = 'pool-capacity';

export function poolCapacitySpec(d: { store: ObjectStore; log: Logger }, opts: { resyncMs?: number } = {}): ControllerSpec {
  const keys = async () => {
    const caps = (await d.store.list('CSIStorageCapacity', { namespace: CAPACITY_NAMESPACE, labelSelector: labelPoolNode })).items;
    return [...new Set(caps.map((c) => c.metadata.labels?.[labelPoolNode]).filter((n): n is string => !!n))].map((n) => `node/${n}`);
  };
  return {
    name: poolCapacityName,
    concurrency: 1,
    watch: {
      kinds: ['Node', 'CSIStorageCapacity'],
      keysFor: (e) => {
        if (e.kind === 'Node') return [`node/${e.name}`];
        const node = e.type === 'DELETED' || e.kind !== 'CSIStorageCapacity' ? undefined : e.object.metadata.labels?.[labelPoolNode];
        return node ? [`node/${node}`] : [];
      },
    },
    listKeys: keys,
    resync: { everyMs: opts.resyncMs ?? 30_000, listKeys: keys },
    reconcile: async (key, ctx) => {
      if (!key.startsWith('node/')) return;
      const name = key.slice(5);
      const caps = (await d.store.list('CSIStorageCapacity', { namespace: CAPACITY_NAMESPACE, labelSelector: `${labelPoolNode}=${name}` })).items;
      if (caps.length === 0) return;
      const node = await d.store.tryGet('Node', undefined, name);
      for (const c of caps) {
        const next = silencedCapacity(c, node);
        if (next === undefined) continue;
        if (next === 'delete') {
          const deleted = await write(d, ctx, async (tx) => {
            // Gone already (or replaced by a new report): nothing to delete. Any error is retried.
            const cur = await tx.get('CSIStorageCapacity', CAPACITY_NAMESPACE, c.metadata.name!);
            if (!cur || cur.metadata.uid !== c.metadata.uid) return false;
            await tx.delete('CSIStorageCapacity', CAPACITY_NAMESPACE, c.metadata.name!, { preconditions: { uid: c.metadata.uid } });
            return true;
          });
          if (deleted) d.log.info({ node: name, capacity: c.metadata.name }, 'the node is gone: its pool capacity is removed');
          continue;
        }
        await write(d, ctx, (tx) => tx.update(next)); // a conflict is retried with the fresh object
        d.log.info({ node: name, capacity: c.metadata.name }, 'the node is not ready: its pools offer no room');
      }
    },
  };
}
