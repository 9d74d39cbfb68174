'use client';
// A list's REPLICAS cell: the summary ("2/2 in sync", "1/2 · behind 95 s", "rebuilding 40 %",
// "—"), coloured by its tone, with one line per copy in its tooltip.
import { Text, Tooltip } from '@mantine/core';
import type { ReplicaSummary, ReplicaTone } from './replica-view';

const COLOR: Record<ReplicaTone, string | undefined> = { none: 'dimmed', ok: 'teal.9', busy: 'indigo.8', warn: 'orange.9' };

export function ReplicasCell({ summary }: { summary: ReplicaSummary | undefined }) {
  if (!summary) return null;
  const text = (
    <Text span fz="xs" lh={1.3} c={COLOR[summary.tone]} fw={summary.tone === 'warn' ? 600 : undefined} data-testid="replicas-cell" data-tone={summary.tone}>
      {summary.text}
    </Text>
  );
  if (summary.lines.length === 0) return text;
  return (
    <Tooltip label={summary.lines.map((l) => <div key={l}>{l}</div>)} multiline maw={360} withinPortal>
      {text}
    </Tooltip>
  );
}
