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
