// What a principal may do with objects: the one place that authorizes reads and
// writes. Both transports (tRPC for the dashboard, the Kubernetes REST API) call it.
// The authorization helpers other services share are in object-access.ts; the checks a
// user's write goes through before the store's own are in object-admission.ts.
import { actorOfPrincipal } from '../domain/actor';
import { isAllowed, visibleNamespaces, type Principal, type Verb } from '../domain/authorization';
import { invalid, StowageError } from '../domain/errors';
import { immortalDeleteRefusal } from '../domain/namespace-lifecycle';
import { redactForReader } from '../domain/redaction';
import { secondDefaultProblem } from '../resources/backup-target/default-target';
import { admitProtection } from '../resources/protection';
import { strategies, strategyForKind } from '../resources/registry';
import { checkShape } from '../resources/shape-check';
import { admitDefaultClass, mayTakeDefaultClass } from '../resources/storage-class/default-class';
import { admitClaimQuota, admitObjectQuota, syncQuotas } from './quota-admission';
import type { Event } from '../resources/event/schema';
import type { ObjectOfName } from '../resources/kinds';
import type { Admission, KubeObject, Strategy } from '../resources/types';
import { isKind, ofKind } from '../resources/of-kind';
import type {
  ChangeEvent,
  DeleteOptions,
  DeleteResult,
  ListOptions,
  ListResult,
  ObjectStore,
  UpdateOptions,
  WriteOptions,
  Written,
} from '../store/object-store';
import { forbidden, readerOf, scopeOf, strategyOrThrow } from './object-access';
import { admitBackups, admitResize, guardWrite } from './object-admission';

// Where the transports found them before object-access.ts held them.
export { forbidden, readerOf, strategyOrThrow } from './object-access';

/** How often a patch without a resourceVersion is retried after losing a race. */
const PATCH_RETRIES = 5;

export interface CreateOptions extends WriteOptions {
  /** A claim's create that takes the place of the claim with this uid (a re-create): quota does not count that one. */
  replacesClaim?: string;
}

export class ObjectService {
  constructor(
    readonly store: ObjectStore,
    private readonly admit: Admission = async () => [],
  ) {}

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

  /**
   * Refuses (403) a verb the principal may not use here, before anything is read or parsed:
   * transports call it before they read a request body; every method checks again.
   */
  authorize(p: Principal, verb: Verb, kind: string, namespace?: string, name?: string): void {
    this.check(p, verb, strategyOrThrow(kind), namespace, name);
  }

  /**
   * Refuses (403) a principal who may not use `verb` on any kind in any namespace (a
   * viewer's create): checked before a manifest naming the kind is even parsed.
   */
  authorizeAny(p: Principal, verb: Verb): void {
    const scopes = [undefined, ...p.namespaces];
    if (strategies.some((s) => scopes.some((ns) => isAllowed(p, verb, s.kind, ns)))) return;
    throw new StowageError('Forbidden', `User "${p.name}" cannot ${verb} any resource`);
  }

  async get<K extends string>(p: Principal, kind: K, namespace: string | undefined, name: string): Promise<ObjectOfName<K>> {
    const s = strategyOrThrow(kind);
    this.check(p, 'get', s, namespace, name);
    // s.kind is `kind` (strategies are found by their exact kind).
    return this.shape(p, await this.store.get(kind, namespace, name));
  }

  async list(p: Principal, kind: string, opts: ListOptions = {}): Promise<ListResult> {
    const res = await this.listUnredacted(p, kind, opts);
    if (p.role === 'admin') return res;
    const reader = readerOf(p);
    return { ...res, items: res.items.map((o) => redactForReader(reader, o)) };
  }

  /**
   * Refuses (403) a list the principal may not make, before anything is read (a list
   * across namespaces is never refused: it shows the namespaces the principal sees).
   */
  authorizeList(p: Principal, kind: string, namespace?: string): void {
    const s = strategyOrThrow(kind);
    if (s.namespaced && namespace) this.check(p, 'list', s, namespace);
    else if (!s.namespaced && s.kind !== 'Namespace') this.check(p, 'list', s);
  }

  private async listUnredacted(p: Principal, kind: string, opts: ListOptions): Promise<ListResult> {
    const s = strategyOrThrow(kind);
    this.authorizeList(p, kind, opts.namespace);
    if ((s.namespaced && opts.namespace) || (!s.namespaced && s.kind !== 'Namespace')) return this.store.list(s.kind, opts);
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

  /** The newest resourceVersion written (no object is read: nothing to authorize). */
  async currentResourceVersion(): Promise<bigint> {
    return this.store.currentResourceVersion();
  }

  /** Answers the object as stored, of the written object's kind. */
  async create<T extends KubeObject>(p: Principal, obj: T, opts?: CreateOptions): Promise<Written<T>>;
  async create(p: Principal, obj: KubeObject, opts: CreateOptions = {}): Promise<KubeObject> {
    const s = strategyOrThrow(obj?.kind);
    this.check(p, 'create', s, obj.metadata?.namespace, obj.metadata?.name);
    // The shape before anything reads the body (admission, role rules): one answer for every role.
    checkShape(s, obj);
    const refused = [...(await admitBackups(this.store, obj)), ...(await this.admit(obj))];
    if (refused.length > 0) throw invalid(s.kind, typeof obj.metadata?.name === 'string' ? obj.metadata.name : undefined, refused, s.group);
    await guardWrite(p, s, obj, 'create');
    admitProtection(obj);
    // Upstream's DefaultStorageClass admission: the create returns the class it got (the
    // classes are read only for a claim that names none).
    if (isKind(obj, 'PersistentVolumeClaim') && obj.spec && typeof obj.spec === 'object' && mayTakeDefaultClass(obj)) {
      admitDefaultClass(obj, await this.store.current('StorageClass'));
    }
    try {
      const actor = actorOfPrincipal(p);
      if (isKind(obj, 'PersistentVolumeClaim')) {
        // Quota admission in the create's own transaction (dry run included).
        const created = await this.store.transact(async (tx) => {
          const o = await tx.create(obj);
          await admitClaimQuota(tx, undefined, o, opts.replacesClaim);
          return o;
        }, { dryRun: opts.dryRun, actor });
        return this.shape(p, created);
      }
      if (s.namespaced) {
        // Object counts (count/<resource>.<group>) and snapshot bytes, checked in the create's own transaction.
        const created = await this.store.transact(async (tx) => {
          const o = await tx.create(obj);
          await admitObjectQuota(tx, o, s);
          return o;
        }, { dryRun: opts.dryRun, actor });
        if (s.kind === 'ResourceQuota' && !opts.dryRun) return this.shape(p, await this.withFreshStatus(created));
        return this.shape(p, created);
      }
      const created = await this.store.create(obj, { ...opts, actor });
      if (s.kind === 'ResourceQuota' && !opts.dryRun) return this.shape(p, await this.withFreshStatus(created));
      return this.shape(p, created);
    } catch (e) {
      throw await this.whileDeleting(e, s, obj);
    }
  }

  /** A quota just written, with its status counted at once (the controller would do it shortly). */
  private async withFreshStatus(q: KubeObject): Promise<KubeObject> {
    const ns = q.metadata.namespace;
    if (!ns) return q;
    await syncQuotas(this.store, ns).catch(() => []);
    return (await this.store.tryGet('ResourceQuota', ns, q.metadata.name!)) ?? q;
  }

  /** Upstream's registry Create: an AlreadyExists about an object on its way out says so. */
  private async whileDeleting(e: unknown, s: Strategy, obj: KubeObject): Promise<unknown> {
    if (!(e instanceof StowageError) || e.code !== 'AlreadyExists' || !obj.metadata?.name) return e;
    const existing = await this.store.tryGet(s.kind, s.namespaced ? obj.metadata.namespace : undefined, obj.metadata.name).catch(() => undefined);
    if (!existing?.metadata.deletionTimestamp) return e;
    return new StowageError('AlreadyExists', `object is being deleted: ${e.message}`, e.details);
  }

  /** Answers the object as stored, of the written object's kind. */
  async update<T extends KubeObject>(p: Principal, obj: T, opts?: UpdateOptions & { verb?: Verb }): Promise<Written<T>>;
  async update(p: Principal, obj: KubeObject, opts: UpdateOptions & { verb?: Verb } = {}): Promise<KubeObject> {
    const s = strategyOrThrow(obj?.kind);
    this.check(p, opts.verb ?? 'update', s, obj.metadata?.namespace, obj.metadata?.name, opts.subresource);
    // The shape before anything reads the body (role rules, resize admission): one answer for every role.
    checkShape(s, obj);
    if (p.role !== 'admin' && obj.metadata?.name) {
      const prev = await this.store.tryGet(s.kind, obj.metadata.namespace, obj.metadata.name);
      if (prev) {
        await guardWrite(p, s, obj, prev);
        // The checks above hold for this version of the object only.
        obj.metadata.resourceVersion ??= prev.metadata.resourceVersion;
      }
    }
    if (isKind(obj, 'BackupTarget') && opts.subresource !== 'status') {
      const refused = secondDefaultProblem(obj, await this.store.current('BackupTarget'));
      if (refused.length > 0) throw invalid(s.kind, obj.metadata?.name, refused, s.group);
    }
    const actor = actorOfPrincipal(p);
    if (isKind(obj, 'PersistentVolumeClaim') && opts.subresource !== 'status') {
      await admitResize(this.store, s, obj);
      // Quota admission in the update's own transaction: a resize is charged its growth.
      const updated = await this.store.transact(async (tx) => {
        const { name, namespace } = obj.metadata ?? {};
        const prev = typeof name === 'string' && name && typeof namespace === 'string' ? await tx.get('PersistentVolumeClaim', namespace, name) : undefined;
        const next = await tx.update(obj, opts);
        if (prev) await admitClaimQuota(tx, prev, next);
        return next;
      }, { ...opts, actor });
      return this.shape(p, updated);
    }
    const updated = await this.store.update(obj, { ...opts, actor });
    if (s.kind === 'ResourceQuota' && opts.subresource !== 'status' && !opts.dryRun) return this.shape(p, await this.withFreshStatus(updated));
    return this.shape(p, updated);
  }

  /**
   * Patches the stored object: authorizes the patch first (nothing is read, parsed or
   * merged for a principal who may not patch), then reads, applies `change` to the
   * object as stored and writes it through `update` (every check of an update, dry run
   * included). Without a resourceVersion in the result, a write that lost a race is
   * retried on a fresh read; with one, it is a precondition and a mismatch is a conflict.
   */
  async patch(
    p: Principal,
    kind: string,
    namespace: string | undefined,
    name: string,
    change: (current: KubeObject, attempt: number) => KubeObject,
    opts: UpdateOptions = {},
  ): Promise<KubeObject> {
    const s = strategyOrThrow(kind);
    this.check(p, 'patch', s, namespace, name);
    for (let attempt = 0; ; attempt++) {
      const current = await this.store.get(s.kind, namespace, name);
      const obj = change(current, attempt);
      const currentRv = current.metadata.resourceVersion;
      obj.metadata.resourceVersion ??= currentRv;
      const precondition = obj.metadata.resourceVersion !== currentRv;
      try {
        return await this.update(p, obj, { ...opts, verb: 'patch' });
      } catch (e) {
        const retry = e instanceof StowageError && e.code === 'Conflict' && !precondition && attempt < PATCH_RETRIES;
        if (!retry) throw e;
      }
    }
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
    refuseImmortal(s, name);
    const res = await this.store.delete(s.kind, namespace, name, { ...opts, actor: actorOfPrincipal(p) });
    return { ...res, object: this.shape(p, res.object) };
  }

  /**
   * Upstream DeleteCollection: deletes, one by one, every object the selectors pick in the
   * namespace (or the cluster), and returns what each delete returned. Needs list and delete.
   */
  async deleteCollection(
    p: Principal,
    kind: string,
    opts: { namespace?: string; labelSelector?: string; fieldSelector?: string; dryRun?: boolean },
  ): Promise<ListResult> {
    const s = strategyOrThrow(kind);
    const ns = s.namespaced ? opts.namespace : undefined;
    // Stowage's roles grant deletecollection with delete (as access reviews answer it).
    if (!isAllowed(p, 'delete', s.kind, scopeOf(s, ns))) throw forbidden(p, 'deletecollection', s, ns);
    if (s.noDeleteCollection) throw new StowageError('MethodNotAllowed', 'the server does not allow this method on the requested resource');
    const listed = await this.list(p, kind, { namespace: opts.namespace, labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector });
    const items: KubeObject[] = [];
    for (const o of listed.items) {
      try {
        const r = await this.store.delete(s.kind, o.metadata.namespace, o.metadata.name!, {
          dryRun: opts.dryRun,
          preconditions: { uid: o.metadata.uid },
          actor: actorOfPrincipal(p),
        });
        items.push(this.shape(p, r.object));
      } catch (e) {
        // Gone (or replaced) meanwhile: someone else deleted it, as upstream skips it.
        if (e instanceof StowageError && (e.code === 'NotFound' || e.code === 'Conflict')) continue;
        throw e;
      }
    }
    return { items, resourceVersion: (await this.store.currentResourceVersion()).toString() };
  }

  /** Events (core/v1 Event) about one object, newest last. */
  async eventsFor(p: Principal, obj: KubeObject): Promise<Event[]> {
    const ns = obj.metadata.namespace || 'default';
    if (!isAllowed(p, 'list', 'Event', ns)) return [];
    const res = await this.store.list('Event', {
      namespace: ns,
      fieldSelector: `involvedObject.kind=${obj.kind},involvedObject.name=${obj.metadata.name}`,
    });
    const reader = readerOf(p);
    return ofKind(res.items, 'Event')
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
    // The same change with its object redacted: still that kind's object.
    for await (const e of events) yield { ...e, object: redactForReader(reader, e.object) } as ChangeEvent;
  } finally {
    await events.return(undefined);
  }
}

/** Upstream's namespace lifecycle admission: default, kube-system and kube-public may not be deleted. */
function refuseImmortal(s: Strategy, name: string): void {
  const refusal = s.kind === 'Namespace' ? immortalDeleteRefusal(name) : undefined;
  if (refusal) throw refusal;
}

function joinSelectors(a: string | undefined, b: string): string {
  return a ? `${a},${b}` : b;
}
