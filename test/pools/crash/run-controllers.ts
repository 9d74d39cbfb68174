// The controllers in a process of their own, for the pool, snapshot and replication crash
// tests: arg the database URL, and optionally `all`. Without it: the binder, the
// provisioning controllers (provisioner with crash recovery, deleter, expander,
// snapshotter) and the snapshot controller. With `all`: every controller as
// `stowage controllers` runs them (placement, node lifecycle with a 4 s grace, the backup
// and replication controllers…), timed as the local harness times them.
// Prints {"ready":true} once running; runs until killed.
import pino from 'pino';
import { createAppContext } from '../../../server/wiring/context';
import { binderSpec } from '../../../server/controllers/binder/binder';
import { provisioningDeps, provisioningSpecs } from '../../../server/controllers/provisioning-start';
import { Manager } from '../../../server/controllers/runtime/manager';
import { snapshotControllerSpec } from '../../../server/controllers/snapshot/snapshot';
import { startControllers } from '../../../server/controllers/start';
import { inTreeProvisionerNames } from '../../../server/domain/provisioner-capabilities';
import { EventRecorder } from '../../../server/services/event-recorder';
import { snapshotControllerComponent } from '../../../server/domain/well-known/components';

const [url, mode] = process.argv.slice(2);
if (mode === 'all') {
  const app = await createAppContext(url, { leaseMs: 3_000, retryBaseMs: 300, retryMaxMs: 2_000 });
  await startControllers({
    app,
    connectionString: url,
    leaderElection: false,
    pendingGraceMs: 0,
    localVolumes: { pollMs: 200, baseDelayMs: 100, maxDelayMs: 1000 },
    nodeLifecycle: { graceMs: 4_000, resyncMs: 500 },
  });
} else {
  const app = await createAppContext(url);
  const log = pino({ level: 'warn' });
  const d = provisioningDeps({ app, nodeName: 'controllers', log, sweepGraceMs: 2_000, saveIntervalMs: 100 });
  const manager = new Manager({
    store: app.store,
    log,
    leaderElection: false,
    specs: () => [
      binderSpec({ store: app.store, log, events: d.events, pendingGraceMs: 0, resyncMs: 1_000, inTreeProvisioners: inTreeProvisionerNames }),
      ...provisioningSpecs(d, { retryBaseMs: 100, retryMaxMs: 1_000, resyncMs: 1_000 }),
      snapshotControllerSpec({ store: app.store, log, events: new EventRecorder(app.store, snapshotControllerComponent, log) }, { resyncMs: 1_000 }),
    ],
    shutdownTimeoutMs: 5_000,
  });
  await manager.start();
}
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
setInterval(() => {}, 1 << 30);
