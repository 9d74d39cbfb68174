// Watch: newline-delimited JSON events (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR) from the
// change log, in order; length-prefixed protobuf WatchEvents when the client asks for protobuf. Without a resourceVersion (or with "0") the current state comes
// first as ADDED events; a compacted version is answered in-stream with a 410 Expired
// Status; selectors turn objects leaving the selection into DELETED events; bookmarks
// when asked; otherwise a blank line now and then keeps idle connections alive.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../domain/authorization';
import { parseLabelSelector } from '../domain/label-selector';
import type { KubeObject, Strategy } from '../resources/types';
import type { ObjectService } from '../services/objects';
import { compileFieldSelector, matchesListOptions } from '../resources/selection';
import type { Output, ListQuery } from './query';
import { encodeWatchEvent, PROTOBUF_WATCH_MEDIA_TYPE, Unrepresentable } from './protobuf-codec';
import { HttpStatusError, statusFromError } from './status';
import { toTable } from './table';
import { annInitialEventsEnd } from '../domain/well-known/annotations';

const MAX_TIMER_MS = 2 ** 31 - 1;

export interface WatchTiming {
  /** How often an idle watch gets a keep-alive (or a bookmark, when asked for). */
  keepAliveMs: number;
}

export interface WatchRequest {
  req: IncomingMessage;
  res: ServerResponse;
  principal: Principal;
  objects: ObjectService;
  strategy: Strategy;
  namespace?: string;
  name?: string;
  query: ListQuery;
  out: Output;
  timing: WatchTiming;
}

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/**
 * A change's object as JSON text, made once for every watch that sends it as it is: the
 * change feed hands all its watches the same object (never changed once read from the log),
 * so the watches of a kind serialise each change once between them, not once each.
 */
const sharedJson = new WeakMap<object, string>();
function jsonOfShared(object: object): string {
  let text = sharedJson.get(object);
  if (text === undefined) sharedJson.set(object, (text = JSON.stringify(object)));
  return text;
}

function keyOf(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

export async function serveWatch(w: WatchRequest): Promise<void> {
  const { req, res, strategy: s, query: q, out } = w;
  const fieldText = [q.fieldSelector, w.name !== undefined ? `metadata.name=${w.name}` : undefined].filter(Boolean).join(',');
  const selector = parseLabelSelector(q.labelSelector ?? '');
  const fields = compileFieldSelector(s, fieldText || undefined);
  const filtered = selector.requirements.length > 0 || fields.length > 0;
  const matches = (o: KubeObject) => matchesListOptions(s, o, selector, fields);

  const abort = new AbortController();
  const onClose = () => abort.abort();
  req.on('close', onClose);
  res.on('close', onClose);

  // Authorization for `watch` first (creating the stream checks it; it is not started here).
  w.objects.watch(w.principal, { kinds: [s.kind], namespace: w.namespace });

  // Upstream: without a resourceVersion (or "0") the current state comes first, unless
  // sendInitialEvents=false; sendInitialEvents=true asks for it whatever the version.
  const initial = q.sendInitialEvents ?? (!q.resourceVersion || q.resourceVersion === '0');
  const fromNow = !initial && (!q.resourceVersion || q.resourceVersion === '0');
  let startRv = q.resourceVersion;
  let initialItems: KubeObject[] = [];
  if (initial) {
    const list = await w.objects.list(w.principal, s.kind, {
      namespace: w.namespace,
      labelSelector: q.labelSelector,
      fieldSelector: fieldText || undefined,
    });
    initialItems = list.items;
    startRv = list.resourceVersion;
  }
  if (fromNow) {
    // "From now" is the version current before the stream starts, so nothing committed
    // after the client sees the response headers can be missed.
    startRv = (await w.objects.list(w.principal, s.kind, { namespace: w.namespace, limit: 1 })).resourceVersion;
  }
  let lastRv = startRv ?? '0';
  const events = w.objects.watch(w.principal, {
    kinds: [s.kind],
    namespace: w.namespace,
    resourceVersion: startRv,
    signal: abort.signal,
    filter: (e) => {
      lastRv = e.rv.toString();
      return true;
    },
  });

  // A stream cannot change format midway, and one object protobuf cannot carry would end
  // it: protobuf only for a client that accepts nothing else; JSON when it also does.
  const protobuf = out.protobuf === true && out.fallback === undefined;
  res.writeHead(200, { 'Content-Type': protobuf ? PROTOBUF_WATCH_MEDIA_TYPE : 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
  res.socket?.setNoDelay(true);

  let first = true;
  let lastWrite = Date.now();
  /** `shared`: the feed's own object, sent as it is (its JSON is made once for every watch). */
  const write = (type: EventType, object: unknown, shared = false): boolean => {
    lastWrite = Date.now();
    if (!protobuf) {
      if (shared && object !== null && typeof object === 'object') return res.write(`{"type":"${type}","object":${jsonOfShared(object)}}\n`);
      return res.write(`${JSON.stringify({ type, object })}\n`);
    }
    try {
      return res.write(encodeWatchEvent(type, object));
    } catch (e) {
      if (!(e instanceof Unrepresentable)) throw e;
      // The stream cannot switch to JSON now: end it with an error rather than drop data.
      const message = `the object cannot be sent as protobuf (${e.message}); watch it as application/json`;
      res.write(encodeWatchEvent('ERROR', statusFromError(new HttpStatusError(406, 'NotAcceptable', message)).status));
      abort.abort();
      return true;
    }
  };
  const shape = (o: KubeObject): unknown => {
    if (out.as !== 'table') return o;
    const t = toTable(s, [o], out, { resourceVersion: o.metadata.resourceVersion }, { noHeaders: !first });
    first = false;
    return t;
  };
  const bookmark = (annotations?: Record<string, string>) => {
    const metadata: Record<string, unknown> = { resourceVersion: lastRv };
    if (annotations) metadata.annotations = annotations;
    const obj =
      out.as === 'table'
        ? { kind: 'Table', apiVersion: `meta.k8s.io/${out.metaVersion}`, metadata, rows: [] }
        : { kind: s.kind, apiVersion: s.apiVersion, metadata };
    write('BOOKMARK', obj);
  };
  const drain = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        abort.signal.removeEventListener('abort', done);
        resolve();
      };
      res.on('drain', done);
      abort.signal.addEventListener('abort', done);
    });

  const keepAlive = setInterval(() => {
    if (Date.now() - lastWrite < w.timing.keepAliveMs - 5) return;
    if (q.allowWatchBookmarks) bookmark();
    else if (!protobuf) {
      lastWrite = Date.now();
      res.write('\n');
    }
  }, Math.max(50, Math.floor(w.timing.keepAliveMs / 2)));
  // setTimeout fires at once for delays past 2^31-1 ms; a longer timeout is as good as that one.
  const timeoutMs = Math.min((q.timeoutSeconds ?? 1800 * (1 + Math.random())) * 1000, MAX_TIMER_MS);
  const timeout = setTimeout(() => abort.abort(), timeoutMs);

  const known = new Set<string>();
  try {
    for (const o of initialItems) {
      if (filtered) known.add(keyOf(o));
      if (!write('ADDED', shape(o))) await drain();
    }
    if (q.sendInitialEvents) bookmark({ [annInitialEventsEnd]: 'true' });
    for await (const e of events) {
      const o = e.object;
      let type: EventType | undefined = e.type;
      if (filtered) {
        const key = keyOf(o);
        const was = known.has(key);
        const now = matches(o);
        if (e.type === 'DELETED') type = now || was ? 'DELETED' : undefined;
        else if (now) type = was ? 'MODIFIED' : initial ? 'ADDED' : e.type;
        else type = was ? 'DELETED' : undefined;
        if (now && e.type !== 'DELETED') known.add(key);
        else known.delete(key);
      }
      if (type && !write(type, shape(o), out.as !== 'table')) await drain();
      if (abort.signal.aborted) break;
    }
  } catch (e) {
    if (!abort.signal.aborted) write('ERROR', statusFromError(e).status);
  } finally {
    clearInterval(keepAlive);
    clearTimeout(timeout);
    req.off('close', onClose);
    abort.abort();
    if (!res.writableEnded) res.end();
  }
}
