// Records core/v1 Events about objects, as client-go's event recorder and correlator do:
// in the object's namespace ("default" for cluster-scoped objects), with source.component,
// count and first/last timestamps. A repeat of the same event (same object, type, reason and
// message) increments `count` on the existing Event; similar events (same object, type and
// reason, other messages) are aggregated as client-go's correlator does: from the tenth
// distinct message within ten minutes they go to one "(combined from similar events)" Event
// that counts up (domain/event-aggregation.ts decides), so a retry whose message carries a
// changing number does not write a new Event every few seconds.
// Repeats are written at most REPEATS_PER_SECOND a second per recorder (a token bucket);
// more are dropped, as client-go drops the events its rate-limited sink cannot take: a
// resync that finds 500,000 claims still waiting for their first consumer would otherwise
// write 500,000 count updates a round, forever.
// Best effort, like upstream: a failure to record is logged, never thrown.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { isStowageError } from '../domain/errors';
import { correlateSimilar, type SimilarRecord } from '../domain/event-aggregation';
import { maskCredentials } from '../domain/redaction';
import { TokenBucket } from '../domain/token-bucket';
import type { KubeObject } from '../resources/types';
import type { ObjectStore, StoreTx } from '../store/object-store';

/** Runs a write in some transaction (the store's own, or a batcher's). */
export type TxRunner = (fn: (tx: StoreTx) => Promise<void>) => Promise<unknown>;

export type EventType = 'Normal' | 'Warning';

/** Count updates of repeated Events a recorder writes a second at most (and at once). */
export const REPEATS_PER_SECOND = 20;

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export class EventRecorder {
  private readonly run: TxRunner;
  /** Repeats' count updates allowed (REPEATS_PER_SECOND unless told). */
  private readonly repeats: TokenBucket;

  constructor(
    store: ObjectStore,
    private readonly component: string,
    private readonly log: Logger,
    run?: TxRunner,
    repeatsPerSecond = REPEATS_PER_SECOND,
  ) {
    this.run = run ?? ((fn) => store.transact(fn));
    this.repeats = new TokenBucket(repeatsPerSecond, Math.max(1, repeatsPerSecond));
  }

  /** What the correlator remembers per object, type and reason, bounded as client-go's LRU. */
  private readonly similar = new Map<string, SimilarRecord>();
  private static readonly similarCacheSize = 4096;

  /** The Event's name: the object's name and a hash of what makes two events the same (`combined`: the aggregate of similar ones). */
  eventName(obj: KubeObject, type: EventType, reason: string, message: string, combined = false): string {
    const h = createHash('sha256')
      .update([this.similarKey(obj, type, reason), combined ? '\u0001combined' : message].join('\u0000'))
      .digest('hex')
      .slice(0, 16);
    return `${(obj.metadata.name ?? 'object').slice(0, 236)}.${h}`;
  }

  private similarKey(obj: KubeObject, type: EventType, reason: string): string {
    const m = obj.metadata;
    return [this.component, obj.kind, m.namespace ?? '', m.name ?? '', m.uid ?? '', type, reason].join('\u0000');
  }

  /** client-go's EventAggregate: whether this event goes to its own Event or the combined one. */
  private correlate(obj: KubeObject, type: EventType, reason: string, message: string): { name: string; message: string } {
    const key = this.similarKey(obj, type, reason);
    const c = correlateSimilar(this.similar.get(key), message, Date.now());
    this.similar.delete(key);
    this.similar.set(key, c.record);
    if (this.similar.size > EventRecorder.similarCacheSize) this.similar.delete(this.similar.keys().next().value!);
    return { name: this.eventName(obj, type, reason, message, c.combined), message: c.message };
  }

  /** Records still being written by recordInBackground. */
  private readonly inFlight = new Set<Promise<void>>();

  /**
   * Records without the caller waiting, as client-go's broadcaster does: for an event that
   * follows a write on a hot path (a pod placed, a volume provisioned), so the next step is
   * not held up by it. Best effort as record is; `settled()` waits for those in flight.
   */
  recordInBackground(obj: KubeObject, type: EventType, reason: string, message: string): void {
    const p = this.record(obj, type, reason, message).finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  /** Resolves when every event recorded in the background so far is written (or given up). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Queues the Event in `tx`, the transaction of the write it describes, so that it commits
   * with that write instead of in a transaction of its own (for events on hot paths: a pod
   * placed, a volume provisioned). Best effort as `record`: an Event that cannot be queued
   * (its row busy, its namespace going away) is recorded in the background instead, and the
   * caller's write goes on. An error of the database itself is thrown: the transaction is
   * broken, and its caller retries as for any other failed write.
   */
  async recordIn(tx: StoreTx, obj: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    try {
      const { name, message: shown } = this.correlate(obj, type, reason, EventRecorder.shown(message));
      await this.queue(tx, obj, type, reason, name, shown);
    } catch (err) {
      const expected = isStowageError(err) || (err as Error)?.name === 'RowBusyError';
      if (!expected) throw err;
      this.recordInBackground(obj, type, reason, message);
    }
  }

  /** The message as stored: credentials masked, at most 1024 characters. */
  private static shown(message: string): string {
    // Events are read by developers: a credential in a message (a plugin's error quoting a
    // connection string) is masked before it is ever stored.
    const masked = maskCredentials(message);
    return masked.length > 1024 ? `${masked.slice(0, 1021)}...` : masked;
  }

  async record(obj: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    const msg = EventRecorder.shown(message);
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const { name, message: shown } = this.correlate(obj, type, reason, msg);
        await this.run((tx) => this.queue(tx, obj, type, reason, name, shown));
        return;
      } catch (err) {
        const retry = (isStowageError(err) && (err.code === 'AlreadyExists' || err.code === 'Conflict')) || (err as Error)?.name === 'RowBusyError';
        if (retry) {
          await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
          continue;
        }
        this.log.debug({ err, reason, object: obj.metadata.name }, 'could not record event');
        return;
      }
    }
  }

  /** Queues the create of Event `name`, or the update of its count, in `tx`. */
  private async queue(tx: StoreTx, obj: KubeObject, type: EventType, reason: string, name: string, message: string): Promise<void> {
    const namespace = obj.metadata.namespace || 'default';
    const ts = now();
    const existing = await tx.get('Event', namespace, name);
    if (existing) {
      if (!this.repeats.take(Date.now())) return; // dropped: over the repeats' rate
      await tx.update({
        ...existing,
        message,
        count: (existing.count ?? 1) + 1,
        lastTimestamp: ts,
        involvedObject: { ...existing.involvedObject, resourceVersion: obj.metadata.resourceVersion },
      });
      return;
    }
    await tx.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: {
        kind: obj.kind,
        namespace: obj.metadata.namespace,
        name: obj.metadata.name,
        uid: obj.metadata.uid,
        apiVersion: obj.apiVersion,
        resourceVersion: obj.metadata.resourceVersion,
      },
      reason,
      message,
      source: { component: this.component },
      reportingComponent: this.component,
      reportingInstance: '',
      firstTimestamp: ts,
      lastTimestamp: ts,
      count: 1,
      type,
    });
  }
}
