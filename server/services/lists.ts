// The dashboard's list pages and the bulk actions on them: one sorted, filtered page of
// a kind (authorized like a list), labelling, the one
// default StorageClass, and the health summary of the home page.
import { actorOfPrincipal } from '../domain/actor';
import { isAllowed, visibleNamespaces, type Principal } from '../domain/authorization';
import { StowageError } from '../domain/errors';
import { parseLabelSelector } from '../domain/label-selector';
import { isQualifiedName, isValidLabelValue } from '../domain/names';
import { redactForReader } from '../domain/redaction';
import { isDefaultClass } from '../resources/storage-class/strategy';
import { annBetaIsDefaultClass, annIsDefaultClass } from '../domain/well-known/annotations';
import type { KubeObject } from '../resources/types';
import { z } from 'zod';
import { countByPhaseAndClass, countClaimsWaitingForPod, MAX_PAGE_LIMIT, PAGE_FIELD_FILTERS, PAGE_SORT_KEYS, queryPage, volumeReplication, volumesWithLaggingReplicas, volumeUsage, type PageQuery, type PageResult, type UsedBytes } from '../store/object-page';
import type { ObjectStore } from '../store/object-store';
import { lockStorageClasses } from '../store/storage-class-locks';
import { forbidden, readerOf, strategyOrThrow } from './object-access';
import { isKind } from '../resources/of-kind';
import { PENDING_KINDS } from '../domain/claim-waiting';

const fieldValues = z.array(z.string().max(253)).max(50);
const fields = z
  .object(Object.fromEntries(PAGE_FIELD_FILTERS.map((f) => [f, fieldValues.optional()])) as Record<(typeof PAGE_FIELD_FILTERS)[number], z.ZodOptional<typeof fieldValues>>)
  .strict();

/** What a page asks for, bounded: the transports parse with it, the service takes its type. */
export const pageInput = z.object({
  kind: z.string().min(1).max(100),
  namespace: z.string().max(253).optional(),
  labelSelector: z.string().max(4096).optional(),
  fields: fields.optional(),
  text: z.string().max(200).optional(),
  /** Claims only: Pending ones waiting for a pod, or the stuck others. */
  pending: z.enum(PENDING_KINDS).optional(),
  sort: z.object({ key: z.enum(PAGE_SORT_KEYS), dir: z.enum(['asc', 'desc']) }).optional(),
  offset: z.number().int().min(0).max(1_000_000).optional(),
  limit: z.number().int().min(1).max(MAX_PAGE_LIMIT).optional(),
});
export type PageInput = z.infer<typeof pageInput>;

export interface ObjectRef {
  namespace?: string;
  name: string;
}

export interface BulkResult {
  done: string[];
  /** Objects left alone, each with why. */
  skipped: { name: string; reason: string }[];
}

export { isDefaultClass };

const MAX_BULK = 500;

function refName(r: ObjectRef): string {
  return r.namespace ? `${r.namespace}/${r.name}` : r.name;
}

export class ListService {
  constructor(readonly store: ObjectStore) {}

  /** One page of a kind, as the principal may list it (a developer: their namespaces only). */
  async page(p: Principal, input: PageInput): Promise<PageResult> {
    const s = strategyOrThrow(input.kind);
    const selector = parseLabelSelector(input.labelSelector ?? '');
    let namespaces: string[] | undefined;
    if (s.namespaced && input.namespace) {
      if (!isAllowed(p, 'list', s.kind, input.namespace)) throw forbidden(p, 'list', s, input.namespace);
      namespaces = [input.namespace];
    } else if (s.namespaced || s.kind === 'Namespace') {
      const visible = visibleNamespaces(p, 'list', s.kind);
      if (visible !== 'all') namespaces = visible;
    } else if (!isAllowed(p, 'list', s.kind)) {
      throw forbidden(p, 'list', s);
    }
    const q: PageQuery = {
      kind: s.kind,
      namespaces: s.kind === 'Namespace' ? undefined : namespaces,
      labels: selector.nothing ? undefined : selector.requirements,
      fields: { ...input.fields },
      text: input.text,
      ...(s.kind === 'PersistentVolumeClaim' && input.pending ? { pending: input.pending } : {}),
      sort: input.sort,
      offset: input.offset,
      limit: input.limit,
    };
    // A developer's Namespace list: the namespace objects named like their namespaces.
    if (s.kind === 'Namespace' && namespaces) q.namespaces = undefined;
    const res = await queryPage(this.store, selector.nothing ? { ...q, namespaces: [] } : q);
    // The one redaction every read goes through (secrets, names a reader may not see).
    const reader = p.role === 'admin' ? undefined : readerOf(p);
    let items = reader ? res.items.map((o) => redactForReader(reader, o)) : res.items;
    if (s.kind === 'PersistentVolumeClaim') return { ...res, items, used: await this.usedOfClaims(res.items), replication: await this.replicationOfClaims(res.items) };
    if (s.kind === 'Namespace' && namespaces) {
      const mine = new Set(namespaces);
      items = items.filter((o) => mine.has(o.metadata.name ?? ''));
      return { ...res, items, total: Math.min(res.total, mine.size) };
    }
    return { ...res, items };
  }

  /**
   * The used bytes of a page of claims: each Bound claim's volume's, when that volume is
   * bound back to it (a claim the reader may list may show its own volume's usage).
   */
  private async usedOfClaims(claims: KubeObject[]): Promise<Record<string, UsedBytes>> {
    const byVolume = boundVolumes(claims);
    const out: Record<string, UsedBytes> = {};
    for (const v of await volumeUsage(this.store, [...byVolume.keys()])) {
      const c = byVolume.get(v.name)!;
      if (v.claimNamespace !== c.metadata.namespace || v.claimName !== c.metadata.name) continue;
      out[`${c.metadata.namespace}/${c.metadata.name}`] = v.used;
    }
    return out;
  }

  /**
   * The replication annotations of a page of claims' volumes (the REPLICAS column): each
   * Bound claim's volume's, when that volume is replicated and bound back to it.
   */
  private async replicationOfClaims(claims: KubeObject[]): Promise<Record<string, Record<string, string>>> {
    const byVolume = boundVolumes(claims);
    const out: Record<string, Record<string, string>> = {};
    for (const v of await volumeReplication(this.store, [...byVolume.keys()])) {
      const c = byVolume.get(v.name)!;
      if (v.claimNamespace !== c.metadata.namespace || v.claimName !== c.metadata.name) continue;
      out[`${c.metadata.namespace}/${c.metadata.name}`] = v.annotations;
    }
    return out;
  }

  /** Sets (value) or removes (value null) one label on each object, each write guarded. */
  async label(p: Principal, kind: string, refs: ObjectRef[], key: string, value: string | null): Promise<BulkResult> {
    const s = strategyOrThrow(kind);
    if (refs.length > MAX_BULK) throw new StowageError('BadRequest', `at most ${MAX_BULK} objects at once`);
    const keyErr = isQualifiedName(key);
    if (keyErr.length > 0) throw new StowageError('BadRequest', `invalid label key "${key}": ${keyErr.join('; ')}`);
    if (value !== null) {
      const valErr = isValidLabelValue(value);
      if (valErr.length > 0) throw new StowageError('BadRequest', `invalid label value "${value}": ${valErr.join('; ')}`);
    }
    for (const r of refs) {
      if (!isAllowed(p, 'patch', s.kind, s.namespaced ? r.namespace : undefined)) throw forbidden(p, 'patch', s, r.namespace, r.name);
    }
    const result: BulkResult = { done: [], skipped: [] };
    for (const r of refs) {
      try {
        await this.store.transact(async (tx) => {
          const o = await tx.mustGet(s.kind, r.namespace, r.name);
          const labels: Record<string, string> = Object.create(null);
          Object.assign(labels, o.metadata.labels ?? {});
          if (value === null) delete labels[key];
          else labels[key] = value;
          await tx.update({ ...o, metadata: { ...o.metadata, labels: { ...labels } } });
        }, { actor: actorOfPrincipal(p) });
        result.done.push(refName(r));
      } catch (e) {
        if (!(e instanceof StowageError)) throw e;
        result.skipped.push({ name: refName(r), reason: e.message });
      }
    }
    return result;
  }

  /** Deletes each object; Bound volumes are in use and are left alone. */
  async delete(p: Principal, kind: string, refs: ObjectRef[]): Promise<BulkResult> {
    const s = strategyOrThrow(kind);
    if (refs.length > MAX_BULK) throw new StowageError('BadRequest', `at most ${MAX_BULK} objects at once`);
    for (const r of refs) {
      if (!isAllowed(p, 'delete', s.kind, s.namespaced ? r.namespace : undefined)) throw forbidden(p, 'delete', s, r.namespace, r.name);
    }
    const result: BulkResult = { done: [], skipped: [] };
    for (const r of refs) {
      try {
        await this.store.transact(async (tx) => {
          const o = await tx.mustGet(s.kind, r.namespace, r.name);
          if (isKind(o, 'PersistentVolume') && o.status?.phase === 'Bound') {
            throw new StowageError('Conflict', 'the volume is Bound to a claim (in use); delete the claim first');
          }
          await tx.delete(s.kind, r.namespace, r.name, { preconditions: { uid: o.metadata.uid } });
        }, { actor: actorOfPrincipal(p) });
        result.done.push(refName(r));
      } catch (e) {
        if (!(e instanceof StowageError)) throw e;
        result.skipped.push({ name: refName(r), reason: e.message });
      }
    }
    return result;
  }

  /**
   * `on`: makes `name` the one default StorageClass; in one transaction it is marked
   * default and every other class that says it is default stops saying so.
   * Off: `name` stops being a default (the others are left as they are).
   */
  async setDefaultClass(p: Principal, name: string, on: boolean): Promise<{ defaults: string[] }> {
    const s = strategyOrThrow('StorageClass');
    if (!isAllowed(p, 'update', s.kind)) throw forbidden(p, 'update', s, undefined, name);
    return this.store.transact(async (tx) => {
      const target = await tx.mustGet(s.kind, undefined, name);
      // Lock every class first, in one order, so two moves at once cannot both win.
      const rows = (await lockStorageClasses(tx)).map((name) => ({ name }));
      const defaults: string[] = [];
      for (const r of rows) {
        const sc = r.name === name ? target : await tx.mustGet(s.kind, undefined, r.name);
        const annotations: Record<string, string> = { ...sc.metadata.annotations };
        const wasDefault = isDefaultClass(sc);
        if (r.name === name && on) {
          annotations[annIsDefaultClass] = 'true';
          delete annotations[annBetaIsDefaultClass];
          defaults.push(r.name);
          if (wasDefault && sc.metadata.annotations?.[annIsDefaultClass] === 'true' && !sc.metadata.annotations?.[annBetaIsDefaultClass]) continue;
        } else if (wasDefault && (on || r.name === name)) {
          delete annotations[annIsDefaultClass];
          delete annotations[annBetaIsDefaultClass];
        } else {
          if (wasDefault) defaults.push(r.name);
          continue;
        }
        await tx.update({ ...sc, metadata: { ...sc.metadata, annotations } });
      }
      return { defaults };
    }, { actor: actorOfPrincipal(p) });
  }

  /** The home page: how many claims and volumes in each phase, and capacity per class. */
  async health(p: Principal): Promise<Health> {
    const claimNs = visibleNamespaces(p, 'list', 'PersistentVolumeClaim');
    const seeVolumes = isAllowed(p, 'list', 'PersistentVolume');
    const kinds = seeVolumes ? ['PersistentVolume', 'PersistentVolumeClaim'] : ['PersistentVolumeClaim'];
    const rows = await countByPhaseAndClass(this.store, kinds, claimNs === 'all' ? undefined : claimNs);
    const waitingClaims = await countClaimsWaitingForPod(this.store, claimNs === 'all' ? undefined : claimNs);
    const phases: Health['phases'] = { PersistentVolume: {}, PersistentVolumeClaim: {} };
    const classes = new Map<string, ClassCapacity>();
    for (const r of rows) {
      const k = r.kind as keyof Health['phases'];
      const ph = r.phase ?? 'Unknown';
      phases[k][ph] = (phases[k][ph] ?? 0) + r.count;
      const cls = r.storageClass ?? '';
      const c = classes.get(cls) ?? { storageClass: cls, volumes: 0, capacityBytes: '0', boundBytes: '0', availableBytes: '0', claims: 0, requestedBytes: '0' };
      if (k === 'PersistentVolume') {
        c.volumes += r.count;
        c.capacityBytes = (BigInt(c.capacityBytes) + BigInt(r.bytes)).toString();
        if (ph === 'Bound') c.boundBytes = (BigInt(c.boundBytes) + BigInt(r.bytes)).toString();
        if (ph === 'Available') c.availableBytes = (BigInt(c.availableBytes) + BigInt(r.bytes)).toString();
      } else {
        c.claims += r.count;
        c.requestedBytes = (BigInt(c.requestedBytes) + BigInt(r.bytes)).toString();
      }
      classes.set(cls, c);
    }
    const lagging = seeVolumes ? await volumesWithLaggingReplicas(this.store, LAGGING_VOLUMES_SHOWN) : undefined;
    return {
      seeVolumes,
      phases,
      waitingClaims,
      ...(lagging ? { laggingReplicas: { volumes: lagging.volumes.map((v) => ({ name: v.name, annotations: v.annotations })), more: lagging.more } } : {}),
      classes: [...classes.values()].sort((a, b) => a.storageClass.localeCompare(b.storageClass)),
    };
  }
}

/** The Bound claims of a page by their volume's name. */
function boundVolumes(claims: KubeObject[]): Map<string, KubeObject> {
  const byVolume = new Map<string, KubeObject>();
  for (const c of claims) {
    const volume = isKind(c, 'PersistentVolumeClaim') && c.status?.phase === 'Bound' ? c.spec?.volumeName : undefined;
    if (volume) byVolume.set(volume, c);
  }
  return byVolume;
}

export interface ClassCapacity {
  storageClass: string;
  volumes: number;
  capacityBytes: string;
  boundBytes: string;
  availableBytes: string;
  claims: number;
  requestedBytes: string;
}

export interface Health {
  /** Whether volume figures are included (developers see only their claims). */
  seeVolumes: boolean;
  phases: { PersistentVolume: Record<string, number>; PersistentVolumeClaim: Record<string, number> };
  /** Of the Pending claims, those waiting for a pod (WaitForFirstConsumer): not stuck. */
  waitingClaims: number;
  classes: ClassCapacity[];
  /**
   * Who may list volumes: the replicated volumes with a copy Behind or Unreachable (at most
   * LAGGING_VOLUMES_SHOWN, by name; `more` when there are others), with their replication
   * annotations (the dashboard words them, counting seconds from its own clock).
   */
  laggingReplicas?: { volumes: { name: string; annotations: Record<string, string> }[]; more: boolean };
}

/** How many volumes with lagging replicas the home page is sent at most. */
export const LAGGING_VOLUMES_SHOWN = 20;
