// Pure formatting of disks and cleanup progress for the dashboard.

import { formatSize } from '../format/size';

export function formatEta(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '—';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

export interface ProgressLike {
  unit: 'bytes' | 'entries';
  done: string;
  total: string;
  rate: number;
  etaSeconds?: number;
}

/** Percent done (0-100, one decimal), undefined when the total is unknown. */
export function percentOf(p: ProgressLike | null | undefined): number | undefined {
  if (!p) return undefined;
  const done = Number(p.done);
  const total = Number(p.total);
  if (!Number.isFinite(total) || total <= 0) return undefined;
  return Math.min(100, Math.round((done / total) * 1000) / 10);
}

export function formatRate(p: ProgressLike): string {
  return p.unit === 'bytes' ? `${formatSize(p.rate)}/s` : `${Math.round(p.rate).toLocaleString('en')} entries/s`;
}

/** The steps of a disk's life, in order; `stage` says where it is. */
export const STAGES = ['discovered', 'available', 'bound', 'released', 'wiping', 'available again'] as const;

export function stageIndex(stage: string): number {
  switch (stage) {
    case 'discovered':
      return 0;
    case 'available':
      return 1;
    case 'bound':
      return 2;
    case 'released':
      return 3;
    case 'wiping':
    case 'failed':
    case 'quarantined':
      return 4;
    default:
      return -1;
  }
}

/** A cleanup job as its live bar needs it. */
export interface WipeLike {
  state: string;
  progress: ProgressLike | null;
  createdAt: string;
  updatedAt: string;
}

export type WipeBar =
  | { kind: 'none' }
  /** The agent reports how far it is: a percentage, what is done, the rate and the time left. */
  | { kind: 'determinate'; percent: number; text: string }
  /** It reports nothing measurable (yet): a moving bar and how long it has run or waited. */
  | { kind: 'indeterminate'; text: string };

function amount(p: ProgressLike, v: string): string {
  return p.unit === 'bytes' ? formatSize(v) : `${Number(v).toLocaleString('en')} entries`;
}

/**
 * The bar of a wipe: a percentage with what is done, the rate and the ETA when the agent
 * reports them; otherwise an indeterminate bar with the elapsed time, never an empty bar
 * reading "0 B/s · ETA —".
 */
export function wipeBar(j: WipeLike | null | undefined, now: number): WipeBar {
  if (!j || (j.state !== 'running' && j.state !== 'queued')) return { kind: 'none' };
  const since = Date.parse(j.createdAt);
  const elapsed = formatEta(Number.isFinite(since) ? (now - since) / 1000 : undefined);
  if (j.state === 'queued') return { kind: 'indeterminate', text: `queued ${elapsed} ago` };
  const p = j.progress;
  const done = p ? Number(p.done) : 0;
  const rate = p && p.rate > 0 ? formatRate(p) : undefined;
  const pct = percentOf(p);
  if (p && pct !== undefined && (done > 0 || pct > 0)) {
    const eta = p.etaSeconds !== undefined && Number.isFinite(p.etaSeconds) ? `ETA ${formatEta(p.etaSeconds)}` : undefined;
    return { kind: 'determinate', percent: pct, text: [`${pct}%`, `${amount(p, p.done)} of ${amount(p, p.total)}`, rate, eta].filter(Boolean).join(' · ') };
  }
  if (p && done > 0) return { kind: 'indeterminate', text: [`${amount(p, p.done)} done`, rate, `running for ${elapsed}`].filter(Boolean).join(' · ') };
  return { kind: 'indeterminate', text: `running for ${elapsed}` };
}
