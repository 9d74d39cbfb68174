'use client';
// The command palette (Ctrl/Cmd-K) and the keyboard shortcuts. The palette jumps to any
// page, runs an action (create a claim, create from YAML, switch the theme) and finds any
// object by name: the server searches each kind the user may list (the same paged lists
// the tables use, so it stays fast at 10,000 objects and shows only what the user may
// read). Shortcuts: "g" then a letter goes to a page, "/" focuses the list filter, "?"
// lists the shortcuts.
import { Kbd, Modal, Table, Text, useMantineColorScheme } from '@mantine/core';
import { Spotlight, spotlight, type SpotlightActionData, type SpotlightActionGroupData } from '@mantine/spotlight';
import '@mantine/spotlight/styles.css';
import { useQueries } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useEffect, useMemo, useRef, useState } from 'react';
import { detailHref, type KindUi } from '../kinds';
import { useTRPC } from '../trpc';

/** "g" then one of these keys goes to the page. */
export const GO_KEYS: Record<string, { label: string; route: string }> = {
  h: { label: 'Home', route: '/' },
  v: { label: 'Volumes', route: '/volumes' },
  c: { label: 'Claims', route: '/claims' },
  p: { label: 'Pods', route: '/pods' },
  s: { label: 'Storage classes', route: '/storage-classes' },
  n: { label: 'Nodes', route: '/nodes' },
  e: { label: 'Events', route: '/events' },
};

const SEARCH_PER_KIND = 5;

/** Whether a key press is typing in a field (shortcuts then stay out of the way). */
export function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || typeof el.tagName !== 'string') return false;
  return ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName) || el.isContentEditable || Boolean(el.closest?.('.cm-editor'));
}

export function CommandPalette({ kinds, mayCreate }: { kinds: KindUi[]; mayCreate: boolean }) {
  const router = useRouter();
  const trpc = useTRPC();
  const { setColorScheme, colorScheme } = useMantineColorScheme();
  const [query, setQuery] = useState('');
  const [debounced, setDebounced] = useState('');
  const [help, setHelp] = useState(false);
  const pendingGo = useRef<number>(0);

  useEffect(() => {
    const t = setTimeout(() => setDebounced(query.trim()), 150);
    return () => clearTimeout(t);
  }, [query]);

  const searchable = kinds.filter((k) => k.kind !== 'Event');
  const found = useQueries({
    queries: searchable.map((k) => ({
      ...trpc.lists.page.queryOptions({ kind: k.kind, text: debounced, limit: SEARCH_PER_KIND }),
      enabled: debounced.length > 0,
      staleTime: 5_000,
    })),
  });

  const actions = useMemo<(SpotlightActionGroupData | SpotlightActionData)[]>(() => {
    const go = (href: string) => () => router.push(href);
    const pages: SpotlightActionData[] = [
      { id: 'page-home', label: 'Home', description: 'Health overview', onClick: go('/'), keywords: ['overview', 'health'] },
      ...kinds.map((k) => ({ id: `page-${k.route}`, label: k.title, description: `All ${k.noun}`, onClick: go(k.route) })),
    ];
    const commands: SpotlightActionData[] = [
      ...(mayCreate
        ? [
            { id: 'create-claim', label: 'Create a claim', description: 'Request storage with the claim form', onClick: go('/claims/new'), keywords: ['new', 'pvc', 'request'] },
            { id: 'create-yaml', label: 'Create from YAML', description: 'Any object, as a manifest', onClick: go('/new'), keywords: ['new', 'manifest', 'apply'] },
          ]
        : []),
      {
        id: 'theme',
        label: colorScheme === 'dark' ? 'Switch to the light theme' : 'Switch to the dark theme',
        description: 'Colour theme (also in the header)',
        onClick: () => setColorScheme(colorScheme === 'dark' ? 'light' : 'dark'),
        keywords: ['dark', 'light', 'colour', 'color', 'theme'],
      },
      { id: 'shortcuts', label: 'Keyboard shortcuts', description: 'Press ? anywhere', onClick: () => setHelp(true), keywords: ['keys', 'help'] },
    ];
    const objects: SpotlightActionData[] = [];
    searchable.forEach((k, i) => {
      for (const o of found[i]?.data?.items ?? []) {
        const href = detailHref(k.kind, o.metadata.namespace, o.metadata.name ?? '');
        if (!href) continue;
        const label = o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : (o.metadata.name ?? '');
        // Keywords carry the query, so the palette's own filter keeps what the server found.
        objects.push({ id: `obj-${k.kind}-${label}`, label, description: k.singular, onClick: go(href), keywords: [debounced] });
      }
    });
    return [
      ...(objects.length ? [{ group: 'Objects', actions: objects }] : []),
      { group: 'Pages', actions: pages },
      { group: 'Actions', actions: commands },
    ];
  }, [kinds, mayCreate, router, colorScheme, setColorScheme, found, searchable, debounced]);

  // "g" + letter, "/" and "?".
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
      if (pendingGo.current && Date.now() - pendingGo.current < 1500) {
        pendingGo.current = 0;
        const target = GO_KEYS[e.key.toLowerCase()];
        if (target) {
          e.preventDefault();
          router.push(target.route);
        }
        return;
      }
      if (e.key === 'g') {
        pendingGo.current = Date.now();
      } else if (e.key === '/') {
        const filter = document.querySelector<HTMLInputElement>('main input[aria-label="Filter by text"]');
        if (filter) {
          e.preventDefault();
          filter.focus();
        }
      } else if (e.key === '?') {
        e.preventDefault();
        setHelp(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [router]);

  return (
    <>
      <Spotlight
        actions={actions}
        query={query}
        onQueryChange={setQuery}
        shortcut={['mod + K']}
        nothingFound={debounced && found.some((f) => f.isFetching) ? 'Searching…' : 'Nothing found'}
        highlightQuery
        limit={40}
        scrollable
        maxHeight={420}
        searchProps={{ placeholder: 'Go to a page, run an action, or find an object by name…', 'aria-label': 'Command palette search' }}
      />
      <Modal opened={help} onClose={() => setHelp(false)} title="Keyboard shortcuts" size="md">
        <Table>
          <Table.Tbody>
            <Table.Tr>
              <Table.Td>
                <Kbd>Ctrl</Kbd> / <Kbd>⌘</Kbd> + <Kbd>K</Kbd>
              </Table.Td>
              <Table.Td>Command palette: pages, actions, objects by name</Table.Td>
            </Table.Tr>
            {Object.entries(GO_KEYS).map(([key, g]) => (
              <Table.Tr key={key}>
                <Table.Td>
                  <Kbd>g</Kbd> then <Kbd>{key}</Kbd>
                </Table.Td>
                <Table.Td>{g.label}</Table.Td>
              </Table.Tr>
            ))}
            <Table.Tr>
              <Table.Td>
                <Kbd>/</Kbd>
              </Table.Td>
              <Table.Td>Focus the list filter</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Td>
                <Kbd>?</Kbd>
              </Table.Td>
              <Table.Td>This list</Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
        <Text size="sm" c="dimmed" mt="sm">
          Shortcuts are off while you type in a field.
        </Text>
      </Modal>
    </>
  );
}

/** Opens the palette (for a header button). */
export const openPalette = () => spotlight.open();
