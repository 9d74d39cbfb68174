// How the dashboard words a replicated volume's copies: the short text of the lists'
// REPLICAS column ("2/2 in sync", "1/2 · behind 95 s", "rebuilding 40 %", "—"), one line
// per replica for its tooltip and the volume page, a rebuild's share done, and the
// replicas that need an administrator's attention (Behind, Unreachable). Reads the PV's
// annotations only through readReplication (hostile-input safe). Pure.
import { behindSeconds, readReplication, type ReplicaView, type ReplicationView } from '@/server/domain/replication';

export type ReplicaTone = 'none' | 'ok' | 'busy' | 'warn';

export interface ReplicaSummary {
  /** The column's text: short, about the same width whatever the state. */
  text: string;
  tone: ReplicaTone;
  /** One line per replica (the tooltip). */
  lines: string[];
}

export const NOT_REPLICATED = '—';

/** Percent (0..100, whole) of a transfer done; undefined when the numbers are missing or garbled. */
export function progressPercent(p: ReplicaView['progress']): number | undefined {
  if (!p || !/^\d{1,20}$/.test(p.doneBytes) || !/^\d{1,20}$/.test(p.totalBytes)) return undefined;
  const total = BigInt(p.totalBytes);
  if (total === 0n) return undefined;
  const done = BigInt(p.doneBytes);
  return Number(((done > total ? total : done) * 100n) / total);
}

/** "node-b: behind 95 s" and the like, for a tooltip or a list. */
export function replicaLine(r: ReplicaView, now: Date): string {
  const behind = behindSeconds(r, now);
  const node = r.node.slice(0, 63);
  switch (r.state) {
    case 'InSync':
      return `${node}: in sync${behind !== undefined ? ` (${behind} s behind)` : ''}`;
    case 'Behind':
      return `${node}: behind${behind !== undefined ? ` ${behind} s` : ''}`;
    case 'Rebuilding': {
      const pct = progressPercent(r.progress);
      return `${node}: rebuilding${pct !== undefined ? ` ${pct} %` : ''}`;
    }
    case 'Unreachable':
      return `${node}: unreachable${behind !== undefined ? `, last sync ${behind} s ago` : ''}`;
    case 'Fenced':
      return `${node}: fenced (stale copy, never served)`;
  }
}

/** The REPLICAS column of one volume, from what its annotations say (undefined: not replicated). */
export function replicaSummary(view: ReplicationView | undefined, now: Date): ReplicaSummary {
  if (!view) return { text: NOT_REPLICATED, tone: 'none', lines: [] };
  const live = view.replicas.filter((r) => r.state !== 'Fenced');
  const lines = [`${view.activeNode.slice(0, 63)}: active (epoch ${view.epoch})`, ...view.replicas.map((r) => replicaLine(r, now))];
  const copies = 1 + live.length;
  const inSync = 1 + live.filter((r) => r.state === 'InSync').length;
  if (live.length === 0) return { text: '1/1 · no replica', tone: 'warn', lines };
  const lagging = live.filter((r) => r.state === 'Behind' || r.state === 'Unreachable');
  if (lagging.length > 0) {
    const behind = lagging.map((r) => behindSeconds(r, now)).filter((s): s is number => s !== undefined);
    const worst = behind.length > 0 ? Math.max(...behind) : undefined;
    const what = lagging.some((r) => r.state === 'Behind') ? `behind${worst !== undefined ? ` ${worst} s` : ''}` : 'unreachable';
    return { text: `${inSync}/${copies} · ${what}`, tone: 'warn', lines };
  }
  const rebuilding = live.filter((r) => r.state === 'Rebuilding');
  if (rebuilding.length > 0) {
    const pcts = rebuilding.map((r) => progressPercent(r.progress)).filter((p): p is number => p !== undefined);
    return { text: pcts.length > 0 ? `rebuilding ${Math.min(...pcts)} %` : 'rebuilding', tone: 'busy', lines };
  }
  return { text: `${inSync}/${copies} in sync`, tone: 'ok', lines };
}

/** The REPLICAS column of a volume from its annotations. */
export function replicaSummaryOf(annotations: Record<string, string> | undefined | null, now: Date): ReplicaSummary {
  return replicaSummary(readReplication(annotations), now);
}

export interface ReplicaAttention {
  volume: string;
  node: string;
  state: 'Behind' | 'Unreachable';
  behindSeconds?: number;
}

/** The replicas of these volumes that are Behind or Unreachable (the home page lists them), worst first. */
export function replicasNeedingAttention(volumes: { metadata?: { name?: string; annotations?: Record<string, string> } }[], now: Date, limit = 20): ReplicaAttention[] {
  const out: ReplicaAttention[] = [];
  for (const v of volumes) {
    const view = readReplication(v.metadata?.annotations);
    if (!view || !v.metadata?.name) continue;
    for (const r of view.replicas) {
      if (r.state !== 'Behind' && r.state !== 'Unreachable') continue;
      const behind = behindSeconds(r, now);
      out.push({ volume: v.metadata.name, node: r.node, state: r.state, ...(behind !== undefined ? { behindSeconds: behind } : {}) });
    }
  }
  out.sort((a, b) => (b.behindSeconds ?? Infinity) - (a.behindSeconds ?? Infinity) || a.volume.localeCompare(b.volume) || a.node.localeCompare(b.node));
  return out.slice(0, limit);
}

/** One copy as the "Replicas" card of the volume and claim pages shows it. */
export interface ReplicaCardRow {
  node: string;
  state: ReplicaView['state'];
  /** The badge's words: "in sync", "behind", "rebuilding", "unreachable", "fenced". */
  badge: string;
  tone: ReplicaTone;
  /** Seconds of writes a failover to it now would lose (not for a fenced copy, nor one that holds nothing yet). */
  behindSeconds?: number;
  /** A rebuild's share done (0..100), while it rebuilds. */
  percent?: number;
  error?: string;
}

/** The help beside "behind N s". */
export const DATA_LOSS_HELP = 'The data-loss window: if the active node died now, a failover to this copy would lose the writes of about the last N seconds.';

const BADGE: Record<ReplicaView['state'], [string, ReplicaTone]> = {
  InSync: ['in sync', 'ok'],
  Behind: ['behind', 'warn'],
  Rebuilding: ['rebuilding', 'busy'],
  Unreachable: ['unreachable', 'warn'],
  Fenced: ['fenced', 'none'],
};

/** The card's rows: every copy the annotations name, in their order, node names bounded. */
export function replicaCardRows(view: ReplicationView, now: Date): ReplicaCardRow[] {
  return view.replicas.map((r) => {
    const [badge, tone] = BADGE[r.state];
    const behind = r.state === 'Fenced' ? undefined : behindSeconds(r, now);
    const percent = r.state === 'Rebuilding' ? progressPercent(r.progress) : undefined;
    return {
      node: r.node.slice(0, 63),
      state: r.state,
      badge,
      tone,
      ...(behind !== undefined ? { behindSeconds: behind } : {}),
      ...(percent !== undefined ? { percent } : {}),
      ...(r.error ? { error: r.error.slice(0, 300) } : {}),
    };
  });
}
