// The keyboard shortcuts, as the "?" help lists them.
import { Kbd, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { DataTable, type DataColumn } from '../table/data-table';
import { goKeysFor } from './shortcuts';

interface ShortcutRow {
  id: string;
  keys: ReactNode;
  does: string;
}

const SHORTCUT_COLUMNS: DataColumn<ShortcutRow>[] = [
  { key: 'keys', header: 'Keys', cell: (r) => r.keys },
  { key: 'does', header: 'Does', width: 'minmax(160px, 2fr)', cell: (r) => r.does },
];

/** The shortcuts the help lists: the palette, a "g" key for each page the user may open, the filter, the help. */
function shortcutRows(goKeys: { key: string; label: string }[]): ShortcutRow[] {
  return [
    {
      id: 'palette',
      keys: (
        <>
          <Kbd>Ctrl</Kbd> / <Kbd>⌘</Kbd> + <Kbd>K</Kbd>
        </>
      ),
      does: 'Command palette: pages, actions, objects by name',
    },
    ...goKeys.map((g) => ({
      id: `go-${g.key}`,
      keys: (
        <>
          <Kbd>g</Kbd> then <Kbd>{g.key}</Kbd>
        </>
      ),
      does: `Go to ${g.label}`,
    })),
    { id: 'filter', keys: <Kbd>/</Kbd>, does: 'Focus the list filter' },
    { id: 'help', keys: <Kbd>?</Kbd>, does: 'This list' },
  ];
}

export function ShortcutList({ routes }: { routes: ReadonlySet<string> }) {
  return (
    <>
      <DataTable label="Keyboard shortcuts" columns={SHORTCUT_COLUMNS} rows={shortcutRows(goKeysFor(routes))} rowKey={(r) => r.id} hideHeader withBorder={false} striped={false} />
      <Text size="sm" mt="sm">
        Shortcuts are off while you type in a field.
      </Text>
    </>
  );
}
