// What a principal may do with objects: the one place that authorizes reads and
// writes. Both transports (tRPC for the dashboard, the Kubernetes REST API) call it.
import { isAllowed, visibleNamespaces, type Principal, type Verb } from '../domain/authorization';
import { StowageError } from '../domain/errors';
import { controllerOwnedChanges, keepControllerOwned } from '../domain/claim-ownership';
import { redactForReader, restoreRedacted, type Reader } from '../domain/redaction';
import { strategyForKind } from '../resources/registry';
import type { KubeObject, Strategy } from '../resources/types';
import type {
  ChangeEvent,
  DeleteOptions,
  DeleteResult,
  ListOptions,
  ListResult,
  ObjectStore,
  UpdateOptions,
  WriteOptions,
} from '../store/object-store';

export function strategyOrThrow(kind: string): Strategy {
  const s = strategyForKind(kind);
  if (!s) throw new StowageError('NotFound', `the server could not find the requested resource (kind "${kind}")`);
  return s;
}

/** The namespace authorization is checked against: a Namespace object is its own. */
function scopeOf(s: Strategy, namespace: string | undefined, name?: string): string | undefined {
  if (s.kind === 'Namespace') return name;
  return s.namespaced ? namespace : undefined;
}

export function forbidden(p: Principal, verb: Verb, s: Strategy, namespace?: string, name?: string): StowageError {
  const group = s.group;
  const where = s.namespaced && namespace ? `in the namespace "${namespace}"` : 'at the cluster scope';
  const subject = name ? `${s.plural} "${name}"` : s.plural;
  return new StowageError(
    'Forbidden',
    `${subject} is forbidden: User "${p.name}" cannot ${verb} resource "${s.plural}" in API group "${group}" ${where}`,
    { kind: s.plural, name, group },
  );
}

/** What `p` may see of objects: the input of the one redaction every read goes through. */
export function readerOf(p: Principal): Reader {
  const claims = visibleNamespaces(p, 'list', 'PersistentVolumeClaim');
  return { secrets: p.role === 'admin', volumes: isAllowed(p, 'list', 'PersistentVolume'), namespaces: claims };
}

export class ObjectService {
  constructor(readonly store: ObjectStore) {}

  private check(p: Principal, verb: Verb, s: Strategy, namespace?: string, name?: string, subresource?: string): void {
    if (!isAllowed(p, verb, s.kind, scopeOf(s, namespace, name), subresource)) {
      throw forbidden(p, verb, s, namespace, subresource && name ? `${name}/${subresource}` : name);
    }
  }

  /**
   * The output shaping every object goes through on its way to a user, whatever the
   * transport or path (get, list, Table, metadata-only, watch, writes' answers, events).
   */
  shape<T extends KubeObject>(p: Principal, obj: T): T {
    return p.role === 'admin' ? obj : redactForReader(readerOf(p), obj);
  }

  /** Non-admin writes: redactions sent back keep stored values; controller-owned parts stay theirs. */
  private async guardWrite(p: Principal, s: Strategy, obj: KubeObject, prevOrCreate: KubeObject | 'create'): Promise<void> {
    if (p.role === 'admin') return;
    const prev = prevOrCreate === 'create' ? undefined : prevOrCreate;
    if (prev) restoreRedacted(readerOf(p), obj, prev);
    if (s.kind !== 'PersistentVolumeClaim') return;
    if (prev) keepControllerOwned(obj, prev);
    const problems = controllerOwnedChanges(obj, prev);
    if (problems.length > 0) {
      const what = `${s.plural} "${obj.metadata?.name ?? ''}" is forbidden: User "${p.name}" may not change what the controllers own: ${problems.join('; ')}`;
      throw new StowageError('Forbidden', what, { kind: s.plural, name: obj.metadata?.name, group: s.group });
    }
  }

  async get(p: Principal, kind: string, namespace: string | undefined, name: string): Promise<KubeObject> {
    const s = strategyOrThrow(kind);
    this.check(p, 'get', s, namespace, name);
    return this.shape(p, await this.store.get(s.kind, namespace, name));
  }

  async list(p: Principal, kind: string, opts: ListOptions = {}): Promise<ListResult> {
    const res = await this.listUnredacted(p, kind, opts);
    if (p.role === 'admin') return res;
    const reader = readerOf(p);
    return { ...res, items: res.items.map((o) => redactForReader(reader, o)) };
  }

  private async listUnredacted(p: Principal, kind: string, opts: ListOptions): Promise<ListResult> {
    const s = strategyOrThrow(kind);
    if (s.namespaced && opts.namespace) {
      this.check(p, 'list', s, opts.namespace);
      return this.store.list(s.kind, opts);
    }
    if (!s.namespaced && s.kind !== 'Namespace') {
      this.check(p, 'list', s);
      return this.store.list(s.kind, opts);
    }
    const visible = visibleNamespaces(p, 'list', s.kind);
    if (visible === 'all') return this.store.list(s.kind, opts);
    // A developer across namespaces: only their own, never an error.
    const items: KubeObject[] = [];
    let rv = '0';
    for (const ns of visible) {
      const part =
        s.kind === 'Namespace'
          ? await this.store.list(s.kind, { ...opts, fieldSelector: joinSelectors(opts.fieldSelector, `metadata.name=${ns}`) })
          : await this.store.list(s.kind, { ...opts, namespace: ns, limit: undefined, continue: undefined });
      items.push(...part.items);
      if (BigInt(part.resourceVersion) > BigInt(rv)) rv = part.resourceVersion;
    }
    if (visible.length === 0) rv = (await this.store.currentResourceVersion()).toString();
    return { items, resourceVersion: rv };
  }

  async create(p: Principal, obj: KubeObject, opts: WriteOptions = {}): Promise<KubeObject> {
    const s = strategyOrThrow(obj?.kind);
    this.check(p, 'create', s, obj.metadata?.namespace, obj.metadata?.name);
    await this.guardWrite(p, s, obj, 'create');
    return this.shape(p, await this.store.create(obj, opts));
  }

  async update(p: Principal, obj: KubeObject, opts: UpdateOptions & { verb?: Verb } = {}): Promise<KubeObject> {
    const s = strategyOrThrow(obj?.kind);
    this.check(p, opts.verb ?? 'update', s, obj.metadata?.namespace, obj.metadata?.name, opts.subresource);
    if (p.role !== 'admin' && obj.metadata?.name) {
      const prev = await this.store.tryGet(s.kind, obj.metadata.namespace, obj.metadata.name);
      if (prev) {
        await this.guardWrite(p, s, obj, prev);
        // The checks above hold for this version of the object only.
        obj.metadata.resourceVersion ??= prev.metadata.resourceVersion;
      }
    }
    return this.shape(p, await this.store.update(obj, opts));
  }

  async delete(
    p: Principal,
    kind: string,
    namespace: string | undefined,
    name: string,
    opts: DeleteOptions = {},
  ): Promise<DeleteResult> {
    const s = strategyOrThrow(kind);
    this.check(p, 'delete', s, namespace, name);
    const res = await this.store.delete(s.kind, namespace, name, opts);
    return { ...res, object: this.shape(p, res.object) };
  }

  /** Events (core/v1 Event) about one object, newest last. */
  async eventsFor(p: Principal, obj: KubeObject): Promise<KubeObject[]> {
    const ns = obj.metadata.namespace || 'default';
    if (!isAllowed(p, 'list', 'Event', ns)) return [];
    const res = await this.store.list('Event', {
      namespace: ns,
      fieldSelector: `involvedObject.kind=${obj.kind},involvedObject.name=${obj.metadata.name}`,
    });
    const reader = readerOf(p);
    return res.items
      .map((e) => (p.role === 'admin' ? e : redactForReader(reader, e)))
      .filter((e) => !e.involvedObject?.uid || e.involvedObject.uid === obj.metadata.uid)
      .sort((a, b) => String(a.lastTimestamp ?? a.eventTime ?? '').localeCompare(String(b.lastTimestamp ?? b.eventTime ?? '')));
  }

  /** Changes the principal may see, from a resourceVersion on. */
  watch(
    p: Principal,
    opts: { kinds?: string[]; namespace?: string; resourceVersion?: string; signal?: AbortSignal; filter?: (e: ChangeEvent) => boolean },
  ): AsyncGenerator<ChangeEvent> {
    for (const k of opts.kinds ?? []) {
      const s = strategyOrThrow(k);
      if (opts.namespace) this.check(p, 'watch', s, opts.namespace);
      else if (!s.namespaced && s.kind !== 'Namespace') this.check(p, 'watch', s);
    }
    const extra = opts.filter;
    const events = this.store.watch({
      ...opts,
      filter: (e) => {
        const s = strategyForKind(e.kind);
        if (!s || !isAllowed(p, 'watch', e.kind, scopeOf(s, e.namespace, e.name))) return false;
        return extra ? extra(e) : true;
      },
    });
    return redactEvents(p, events);
  }
}

async function* redactEvents(p: Principal, events: AsyncGenerator<ChangeEvent>): AsyncGenerator<ChangeEvent> {
  if (p.role === 'admin') {
    yield* events;
    return;
  }
  const reader = readerOf(p);
  try {
    for await (const e of events) yield { ...e, object: redactForReader(reader, e.object) };
  } finally {
    await events.return(undefined);
  }
}

function joinSelectors(a: string | undefined, b: string): string {
  return a ? `${a},${b}` : b;
}
