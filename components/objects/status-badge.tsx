// Phases and conditions as colored badges.
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

export function StatusBadge({ value, size = 'sm' }: { value: string; size?: 'xs' | 'sm' | 'md' | 'lg' }) {
  if (!value) return null;
  return (
    <Badge color={statusColor(value)} variant="light" size={size} tt="none" fw={600} miw="max-content" data-testid="status-badge" data-status={value}>
      {value}
    </Badge>
  );
}
