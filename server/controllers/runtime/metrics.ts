// Controller metrics in prom-client, named after controller-runtime's
// (controller_runtime_reconcile_*, workqueue_*), labelled by controller. Registered once
// per registry, so several runtimes in one process share them.
import { Counter, Gauge, Histogram, register as defaultRegistry, type Registry } from 'prom-client';

export interface ControllerMetrics {
  queueDepth: Gauge<'controller'>;
  queueAdds: Counter<'controller'>;
  queueWait: Histogram<'controller'>;
  retries: Counter<'controller'>;
  reconcileTotal: Counter<'controller' | 'result'>;
  reconcileErrors: Counter<'controller'>;
  terminalErrors: Counter<'controller'>;
  reconcileDuration: Histogram<'controller'>;
  activeWorkers: Gauge<'controller'>;
  leader: Gauge<'lock'>;
  leaderLost: Counter<'lock'>;
}

const cache = new WeakMap<Registry, ControllerMetrics>();

const buckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

function metric<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

export function controllerMetrics(registry: Registry = defaultRegistry): ControllerMetrics {
  const known = cache.get(registry);
  if (known) return known;
  const registers = [registry];
  const m: ControllerMetrics = {
    queueDepth: metric(registry, 'stowage_workqueue_depth', () =>
      new Gauge({ name: 'stowage_workqueue_depth', help: 'Keys waiting in the work queue', labelNames: ['controller'], registers })),
    queueAdds: metric(registry, 'stowage_workqueue_adds_total', () =>
      new Counter({ name: 'stowage_workqueue_adds_total', help: 'Keys added to the work queue', labelNames: ['controller'], registers })),
    queueWait: metric(registry, 'stowage_workqueue_queue_duration_seconds', () =>
      new Histogram({
        name: 'stowage_workqueue_queue_duration_seconds',
        help: 'How long a key waited in the work queue before a worker took it',
        labelNames: ['controller'],
        buckets,
        registers,
      })),
    retries: metric(registry, 'stowage_workqueue_retries_total', () =>
      new Counter({ name: 'stowage_workqueue_retries_total', help: 'Keys queued again after a failure', labelNames: ['controller'], registers })),
    reconcileTotal: metric(registry, 'stowage_controller_reconcile_total', () =>
      new Counter({
        name: 'stowage_controller_reconcile_total',
        help: 'Reconciles by result (success, error, terminal_error, requeue_after)',
        labelNames: ['controller', 'result'],
        registers,
      })),
    reconcileErrors: metric(registry, 'stowage_controller_reconcile_errors_total', () =>
      new Counter({ name: 'stowage_controller_reconcile_errors_total', help: 'Reconciles that threw', labelNames: ['controller'], registers })),
    terminalErrors: metric(registry, 'stowage_controller_terminal_reconcile_errors_total', () =>
      new Counter({
        name: 'stowage_controller_terminal_reconcile_errors_total',
        help: 'Reconciles that failed with a terminal error (not retried)',
        labelNames: ['controller'],
        registers,
      })),
    reconcileDuration: metric(registry, 'stowage_controller_reconcile_duration_seconds', () =>
      new Histogram({
        name: 'stowage_controller_reconcile_duration_seconds',
        help: 'Time per reconcile',
        labelNames: ['controller'],
        buckets,
        registers,
      })),
    activeWorkers: metric(registry, 'stowage_controller_active_workers', () =>
      new Gauge({ name: 'stowage_controller_active_workers', help: 'Workers currently reconciling', labelNames: ['controller'], registers })),
    leader: metric(registry, 'stowage_leader_election_master_status', () =>
      new Gauge({
        name: 'stowage_leader_election_master_status',
        help: '1 while this process holds the leader lock, else 0',
        labelNames: ['lock'],
        registers,
      })),
    leaderLost: metric(registry, 'stowage_leader_election_lost_total', () =>
      new Counter({
        name: 'stowage_leader_election_lost_total',
        help: 'Times this process stopped leading other than by stopping (its session ended, or the controllers failed to start)',
        labelNames: ['lock'],
        registers,
      })),
  };
  cache.set(registry, m);
  return m;
}
