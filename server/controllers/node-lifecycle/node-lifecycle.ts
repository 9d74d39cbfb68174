// The node lifecycle controller (after upstream's pkg/controller/nodelifecycle): a node
// whose agent posted no heartbeat for the grace period gets Ready=Unknown
// (NodeStatusUnknown) and a NodeNotReady Event. Nothing is deleted: the local-volume
// manager marks the node's volumes, and the admin decides.
import type { Logger } from 'pino';
import { defaultNodeGraceMs, staleDecision } from '../../domain/node-lifecycle';
import { keyPages } from '../../store/volume-queries';
import type { ObjectStore } from '../../store/object-store';
import { keysByPage, type ControllerSpec } from '../runtime/controller';
import { write } from '../runtime/write';
import type { EventRecorder } from '../../services/event-recorder';
import { event } from '../runtime/event';
import { reasons } from '../../domain/well-known/event-reasons';

export const nodeLifecycleName = 'node-lifecycle-controller';

export interface NodeLifecycleOptions {
  /** No heartbeat for this long: Ready becomes Unknown (ms; default 40 s as upstream). */
  graceMs?: number;
  resyncMs?: number;
}

export interface NodeLifecycleDeps {
  store: ObjectStore;
  log: Logger;
  /** Its Event recorder (runtime/recorders.ts, keyed by its component). */
  events: EventRecorder;
}

export function nodeLifecycleSpec(d: NodeLifecycleDeps, opts: NodeLifecycleOptions = {}): ControllerSpec {
  const graceMs = opts.graceMs ?? defaultNodeGraceMs;
  const keys = () => keysByPage(keyPages(d.store, 'Node'), (r) => `node/${r.name}`);
  return {
    name: nodeLifecycleName,
    concurrency: 2,
    watch: { kinds: ['Node'], keysFor: (e) => (e.type === 'DELETED' ? [] : [`node/${e.name}`]) },
    listKeys: keys,
    resync: { everyMs: opts.resyncMs ?? Math.max(1000, Math.floor(graceMs / 4)), listKeys: keys },
    reconcile: async (key, ctx) => {
      if (!key.startsWith('node/')) return;
      const node = await d.store.tryGet('Node', undefined, key.slice(5));
      if (!node) return;
      // The schema lets a condition's type and status be any string; staleDecision only compares them.
      const decision = staleDecision(node, new Date(), graceMs);
      if (decision.action === 'none') return decision.recheckInMs ? { requeueAfter: decision.recheckInMs } : undefined;
      node.status = { ...(node.status ?? {}), conditions: decision.conditions };
      // Guarded by the version read: a heartbeat meanwhile is a conflict, and the node is looked at again.
      const saved = await write(d, ctx, (tx) => tx.update(node, { subresource: 'status' }));
      await event(d, saved, 'Warning', reasons.nodeNotReady, `node ${node.metadata.name} stopped reporting: its agent posted no status for ${Math.round(graceMs / 1000)} s`);
      return undefined;
    },
  };
}
