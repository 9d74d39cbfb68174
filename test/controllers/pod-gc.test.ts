// Placement's pod garbage collection (upstream PodGC, the part storage needs) on a real
// Postgres: a pod Terminating past its grace period on a node that is not Ready (or gone) is
// deleted through the runtime's write, which declares the deletion as the reconcile's own;
// since that echo is not handed back, the reconcile queues what it would have queued itself.
// A pod on a Ready node, or still within its grace period, is left to its kubelet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placementSpec } from '../../server/controllers/placement/placement';
import type { ReconcileContext } from '../../server/controllers/runtime/controller';
import { EventRecorder } from '../../server/services/event-recorder';
import { logger } from '../../server/services/logger';
import { schedulerComponent } from '../../server/domain/well-known/components';
import type { AppContext } from '../../server/wiring/context';
import { ensureNamespaces, openApp, waitFor } from './fixtures';

let ctx: { url: string; app: AppContext };
const NS = 'podgc';
const store = () => ctx.app.store;

beforeAll(async () => {
  ctx = await openApp();
  await ensureNamespaces(ctx.app, NS);
});
afterAll(async () => {
  await ctx?.app.close();
});

const node = (name: string, ready: boolean) =>
  store().create({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    ...(ready ? { status: { conditions: [{ type: 'Ready', status: 'True' }] } } : {}),
  });

/** A pod Running on `nodeName`, then deleted with a grace period (Terminating until its kubelet finishes it). */
async function terminating(name: string, nodeName: string, graceSeconds: number) {
  const pod = await store().create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS }, spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }] } });
  // Running: its agent published it, so a delete waits for the agent (graceful).
  await store().update({ ...pod, status: { phase: 'Running' } }, { subresource: 'status' });
  const { object } = await store().delete('Pod', NS, name, { gracePeriodSeconds: graceSeconds });
  expect(object.metadata.deletionTimestamp).toBeTruthy();
}

/** A reconcile context that records what the reconcile queued and declared written. */
function recording() {
  const queued: string[] = [];
  const wrote: string[] = [];
  const c: ReconcileContext = {
    controller: 'placement',
    signal: new AbortController().signal,
    log: logger,
    enqueue: (k) => void queued.push(k),
    isQueued: () => false,
    wrote: (rv) => void (rv && wrote.push(rv)),
  };
  return { c, queued, wrote };
}

describe('pod garbage collection', () => {
  it("deletes a pod Terminating past its grace on a node that is not Ready, declares the write and queues the pod; leaves a Ready node's pod and one within its grace", async () => {
    await node('podgc-silent', false);
    await node('podgc-ready', true);
    await terminating('orphan', 'podgc-silent', 1);
    await terminating('kubelet-finishes', 'podgc-ready', 1);
    await terminating('in-grace', 'podgc-silent', 3600);
    const spec = placementSpec({ store: store(), log: logger, events: new EventRecorder(store(), schedulerComponent, logger) });

    // Polled until the orphan's grace period has passed (no sleep as synchronisation).
    const r = await waitFor('the orphan collected', async () => {
      const rec = recording();
      await spec.reconcile('gc', rec.c);
      return (await store().tryGet('Pod', NS, 'orphan')) ? undefined : rec;
    });
    expect(r.wrote.length).toBeGreaterThan(0);
    expect(r.queued).toContain(`pod/${NS}/orphan`);
    expect(await store().tryGet('Pod', NS, 'kubelet-finishes')).toBeDefined();
    expect(await store().tryGet('Pod', NS, 'in-grace')).toBeDefined();
  });
});
