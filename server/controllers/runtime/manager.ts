// Runs a set of controllers: all of them while this process leads (or always, when leader
// election is off), none while it does not; stops them gracefully.
import type { Logger } from 'pino';
import type { ObjectStore } from '../../store/object-store';
import { Controller, type ControllerSpec } from './controller';
import { LeaderElector, type LeaderStatus } from './leader-election';
import type { ControllerMetrics } from './metrics';

export interface ManagerOptions {
  store: ObjectStore;
  log: Logger;
  /** Builds fresh specs each time this process starts leading. */
  specs: () => ControllerSpec[];
  /** Leader election (on unless `false`); needs a connection string for its own session. */
  leaderElection?: false | { connectionString: string; lockName: string; retryPeriodMs?: number; leaseDurationMs?: number };
  metrics?: ControllerMetrics;
  shutdownTimeoutMs?: number;
}

export class Manager {
  private running: Controller[] = [];
  private elector: LeaderElector | undefined;
  private stopping = false;
  private started = false;

  constructor(private readonly opts: ManagerOptions) {}

  /** The controllers running now (empty while standing by). */
  get controllers(): readonly Controller[] {
    return this.running;
  }

  get isLeader(): boolean {
    return this.elector ? this.elector.isLeader : this.running.length > 0;
  }

  /** The election's state (undefined without leader election). */
  get leaderStatus(): LeaderStatus | undefined {
    return this.elector?.status;
  }

  /** Started and not stopping: leading or standing by, both as meant. */
  get isRunning(): boolean {
    return this.started && !this.stopping;
  }

  async start(): Promise<void> {
    const le = this.opts.leaderElection;
    if (le === false || le === undefined) {
      await this.startControllers();
      this.started = true;
      return;
    }
    this.elector = new LeaderElector({
      connectionString: le.connectionString,
      lockName: le.lockName,
      retryPeriodMs: le.retryPeriodMs,
      leaseDurationMs: le.leaseDurationMs,
      log: this.opts.log,
      metrics: this.opts.metrics,
      onStartedLeading: () => this.startControllers(),
      onStoppedLeading: () => this.stopControllers(),
    });
    this.elector.start();
    this.started = true;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.elector) await this.elector.stop();
    await this.stopControllers();
  }

  private async startControllers(): Promise<void> {
    if (this.stopping || this.running.length > 0) return;
    const controllers = this.opts.specs().map(
      (spec) =>
        new Controller(spec, {
          store: this.opts.store,
          log: this.opts.log,
          metrics: this.opts.metrics,
          shutdownTimeoutMs: this.opts.shutdownTimeoutMs,
        }),
    );
    this.running = controllers;
    try {
      for (const c of controllers) await c.start();
    } catch (err) {
      await this.stopControllers();
      throw err;
    }
  }

  private async stopControllers(): Promise<void> {
    const controllers = this.running;
    this.running = [];
    await Promise.all(controllers.map((c) => c.stop()));
  }
}
