// Phases and conditions as colored badges; in lists all of one width.
import { Badge } from '@mantine/core';

const COLORS: Record<string, string> = {
  Available: 'teal',
  Bound: 'blue',
  Pending: 'yellow',
  Released: 'orange',
  Failed: 'red',
  Lost: 'red',
  Terminating: 'gray',
  Active: 'teal',
  Running: 'teal',
  Succeeded: 'gray',
  Missing: 'red',
  Ready: 'teal',
  NotReady: 'red',
  Unknown: 'gray',
  Normal: 'gray',
  Warning: 'orange',
};

export function statusColor(value: string): string {
  const first = value.split(/[,\s]/)[0];
  return COLORS[value] ?? COLORS[first] ?? 'gray';
}

/** A list's state badges share one width, so a column of them lines up (a longer state still fits: the width is a minimum). */
export const LIST_BADGE_WIDTH = 84;

export function StatusBadge({ value, size = 'sm', fixed, hinted }: { value: string; size?: 'xs' | 'sm' | 'md' | 'lg'; fixed?: boolean; hinted?: boolean }) {
  if (!value) return null;
  return (
    <Badge
      color={statusColor(value)}
      variant="light"
      size={size}
      tt="none"
      fw={600}
      miw="max-content"
      style={fixed ? { width: LIST_BADGE_WIDTH } : undefined}
      rightSection={hinted ? <span aria-hidden>?</span> : undefined}
      data-testid="status-badge"
      data-status={value}
    >
      {value}
    </Badge>
  );
}
