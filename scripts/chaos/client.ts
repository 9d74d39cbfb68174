// The chaos run's API clients: requests through the load balancer with one retry (as
// client-go does on a broken connection or a 5xx/429 with Retry-After), counted per outcome,
// and watches that resume from their last resourceVersion and relist after a 410.
import https from 'node:https';
import { kubeRequest, type KubeResponse, type KubeTarget } from '../cluster/kube';
import type { WatchSegment } from './invariants';

export const retryable = (status: number) => status === 429 || status === 502 || status === 503 || status === 504;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Outcome {
  ok: boolean;
  retried: boolean;
  response?: KubeResponse;
  error?: string;
}

/** One request and, when it failed in a retryable way, one retry after Retry-After (at most 2 s). */
export async function withOneRetry(k: KubeTarget, method: string, path: string, body?: unknown, timeoutMs = 10_000): Promise<Outcome> {
  let retried = false;
  for (let attempt = 0; ; attempt++) {
    try {
      const r = await kubeRequest(k, method, path, body, timeoutMs);
      if (!retryable(r.status) || attempt === 1) return { ok: !retryable(r.status) && r.status < 500, retried, response: r };
      const after = Number(r.headers['retry-after']);
      await sleep(Math.min(2000, Number.isFinite(after) && after > 0 ? after * 1000 : 500));
    } catch (e) {
      if (attempt === 1) return { ok: false, retried, error: (e as Error).message };
      await sleep(300);
    }
    retried = true;
  }
}

/** Retries until `deadline` (ms since epoch): the workload's own steps, which must eventually land. */
export async function untilDone(k: KubeTarget, method: string, path: string, body: unknown, deadline: number, accept: (status: number) => boolean): Promise<KubeResponse | undefined> {
  while (Date.now() < deadline) {
    try {
      const r = await kubeRequest(k, method, path, body, 10_000);
      if (accept(r.status)) return r;
      if (!retryable(r.status) && r.status < 500) return r;
    } catch {
      // connection broken: try again
    }
    await sleep(500);
  }
  return undefined;
}

export interface WatchEvent {
  type: string;
  object: any;
}

/**
 * A watch of `listPath` that never gives up: lists, watches from the list's
 * resourceVersion, resumes from the last one it saw after a broken connection, and
 * relists after 410 Gone. Records each connection as a segment for the gap check.
 */
export class ResumingWatch {
  readonly segments: WatchSegment[] = [];
  expiredCount = 0;
  resumes = 0;
  private stopped = false;
  private req: ReturnType<typeof https.request> | undefined;

  constructor(
    private readonly k: KubeTarget,
    readonly name: string,
    readonly kind: string,
    private readonly listPath: string,
    private readonly onEvent: (e: WatchEvent) => void,
  ) {}

  async run(): Promise<void> {
    let rv: string | undefined;
    while (!this.stopped) {
      if (rv === undefined) {
        const list = await kubeRequest(this.k, 'GET', this.listPath, undefined, 15_000).catch(() => undefined);
        if (!list || list.status !== 200) {
          await sleep(500);
          continue;
        }
        for (const item of list.body.items ?? []) this.onEvent({ type: 'LISTED', object: item });
        rv = list.body.metadata.resourceVersion as string;
      }
      const segment: WatchSegment = { watcher: this.name, kind: this.kind, startRv: BigInt(rv), events: [], expired: false };
      this.segments.push(segment);
      const end = await this.watchOnce(rv, segment);
      if (end.expired) {
        segment.expired = true;
        this.expiredCount++;
        rv = undefined;
      } else {
        rv = end.lastRv;
        if (!this.stopped) this.resumes++;
        await sleep(200);
      }
    }
  }

  private watchOnce(rv: string, segment: WatchSegment): Promise<{ lastRv: string; expired: boolean }> {
    return new Promise((resolve) => {
      let lastRv = rv;
      let buf = '';
      let done = false;
      const finish = (expired: boolean) => {
        if (done) return;
        done = true;
        resolve({ lastRv, expired });
      };
      const sep = this.listPath.includes('?') ? '&' : '?';
      const url = new URL(`${this.listPath}${sep}watch=1&allowWatchBookmarks=true&resourceVersion=${rv}&timeoutSeconds=120`, this.k.server);
      const req = https.request(url, { ca: this.k.caPem, headers: { authorization: `Bearer ${this.k.token}`, accept: 'application/json' } }, (res) => {
        if (res.statusCode === 410) {
          res.resume();
          finish(true);
          return;
        }
        if (res.statusCode !== 200) {
          res.resume();
          res.on('end', () => finish(false));
          return;
        }
        // A stalled connection (a stopped replica) is noticed: no bytes for 20 s ends it.
        res.setTimeout(20_000, () => req.destroy());
        res.on('data', (chunk: Buffer) => {
          buf += chunk.toString('utf8');
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            if (!line.trim()) continue;
            let ev: WatchEvent;
            try {
              ev = JSON.parse(line) as WatchEvent;
            } catch {
              continue;
            }
            if (ev.type === 'ERROR') {
              if (ev.object?.code === 410) finish(true);
              req.destroy();
              return;
            }
            const evRv = ev.object?.metadata?.resourceVersion as string | undefined;
            if (!evRv) continue;
            lastRv = evRv;
            if (ev.type === 'BOOKMARK') continue;
            segment.events.push({ type: ev.type, rv: BigInt(evRv), key: `${ev.object.metadata.namespace ?? ''}/${ev.object.metadata.name}` });
            this.onEvent(ev);
          }
        });
        res.on('end', () => finish(false));
        res.on('error', () => finish(false));
      });
      this.req = req;
      req.on('error', () => finish(false));
      req.on('close', () => finish(false));
      req.end();
    });
  }

  stop(): void {
    this.stopped = true;
    this.req?.destroy();
  }
}
