'use client';
// The command palette (Ctrl/Cmd+K) and the keyboard shortcuts. The palette goes to a
// page, runs an action (create a claim or a volume, switch the theme, sign out) and finds
// objects by name: the server searches each kind the user may list with the same paged
// lists the tables use, as the signed-in user, so it stays fast at 10,000 objects and
// finds only what the user may read. It is a dialog with a combobox and a listbox
// (arrow keys move, Enter runs, Escape closes and focus goes back where it was).
// Shortcuts: "g" then a letter goes to a page, "/" focuses the list filter, "?" lists them.
import { Box, Kbd, Modal, Text, TextInput, UnstyledButton, useComputedColorScheme, useMantineColorScheme } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQueries } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { detailHref, type KindUi } from '../objects/kinds';
import { kindsOf, type NavPage } from '../shell/navigation';
import { useTRPC } from '../data/trpc';
import { filterItems, groupRows, moveActive, paletteItems, rankHits, type PaletteItem, type PaletteRun } from './palette-items';
import { useSignOut } from '../session/use-sign-out';
import { ShortcutList } from './shortcut-list';
import { INITIAL_SHORTCUT_STATE, interpretKey, isTyping } from './shortcuts';

const SEARCH_PER_KIND = 5;
const SEARCH_DEBOUNCE_MS = 120;
const OPEN_EVENT = 'stowage:open-palette';

/** Opens the palette (for the header button). */
export function openPalette(): void {
  window.dispatchEvent(new Event(OPEN_EVENT));
}

/** Notes the focused element as where to return, unless it is inside a dialog. */
function noteFocus(returnTo: { current: Element | null }): void {
  const active = document.activeElement;
  if (!active?.closest('[role="dialog"]')) returnTo.current = active;
}

/** The element, or the one rendered in its place since (same id, else same aria-label in the page's main). */
function stillThere(el: Element | null): HTMLElement | null {
  if (!(el instanceof HTMLElement)) return null;
  if (el.isConnected) return el;
  const byId = el.id ? document.getElementById(el.id) : null;
  if (byId) return byId;
  const label = el.getAttribute('aria-label');
  return label ? document.querySelector<HTMLElement>(`main [aria-label="${CSS.escape(label)}"]`) : null;
}

export function CommandPalette({
  pages,
  mayCreateClaim,
  mayCreateVolume,
  mayCreateAny,
  admin = false,
}: {
  /** The pages the user may open (shell/navigation.ts). */
  pages: NavPage[];
  mayCreateClaim: boolean;
  mayCreateVolume: boolean;
  mayCreateAny: boolean;
  admin?: boolean;
}) {
  const router = useRouter();
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme('light');
  const [opened, setOpened] = useState(false);
  const [help, setHelp] = useState(false);
  // Where the focus was when the palette opened: it goes back there once the palette has
  // closed, on the end of its closing transition (Mantine's returnFocus tries once, 10 ms
  // after closing, and sometimes left the focus on the page body; a wait bounded by time
  // failed on a loaded machine). If that control was rendered anew meanwhile, the one now
  // in its place (same id, else same label) takes the focus. A palette action that
  // navigates forgets it: the new page starts at its top.
  const returnTo = useRef<Element | null>(null);
  const restoreFocus = useCallback(() => {
    requestAnimationFrame(() => {
      const target = stillThere(returnTo.current);
      returnTo.current = null;
      const active = document.activeElement;
      if (target && (!active || active === document.body)) target.focus();
    });
  }, []);
  const shortcutState = useRef(INITIAL_SHORTCUT_STATE);
  const signOutMutate = useSignOut().mutate;
  const signOut = useCallback(() => signOutMutate(), [signOutMutate]);

  const kinds = useMemo(() => kindsOf(pages), [pages]);
  const routes = useMemo(() => new Set(pages.map((p) => p.route)), [pages]);

  const run = useCallback(
    (r: PaletteRun) => {
      setOpened(false);
      if (r.type === 'navigate') {
        returnTo.current = null;
        router.push(r.href);
      }
      else if (r.type === 'theme') setColorScheme(r.scheme);
      else if (r.type === 'help') setHelp(true);
      else signOut();
    },
    [router, setColorScheme, signOut],
  );

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        setHelp(false);
        noteFocus(returnTo);
        setOpened((o) => !o);
        return;
      }
      if (e.defaultPrevented) return;
      // Inside a dialog (the palette, a confirmation) only Ctrl/Cmd+K counts.
      const inDialog = Boolean((e.target as HTMLElement | null)?.closest?.('[role="dialog"]'));
      const r = interpretKey(shortcutState.current, { key: e.key, ctrl: e.ctrlKey, meta: e.metaKey, alt: e.altKey, typing: inDialog || isTyping(e.target), now: Date.now() }, routes);
      shortcutState.current = r.state;
      if (r.preventDefault) e.preventDefault();
      if (r.action.type === 'go') router.push(r.action.route);
      else if (r.action.type === 'help') setHelp(true);
      else if (r.action.type === 'focus-filter') {
        const filter = document.querySelector<HTMLInputElement>('main input[aria-label="Filter by text"]');
        filter?.focus();
        filter?.select();
      }
    };
    const onOpen = () => {
      noteFocus(returnTo);
      setOpened(true);
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener(OPEN_EVENT, onOpen);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener(OPEN_EVENT, onOpen);
    };
  }, [router, routes]);

  return (
    <>
      <Modal opened={opened} onClose={() => setOpened(false)} title="Command palette" size="lg" yOffset="10vh" returnFocus={false} onExitTransitionEnd={restoreFocus} closeButtonProps={{ 'aria-label': 'Close the command palette' }}>
        {opened && <PaletteBody kinds={kinds} items={paletteItems({ pages, mayCreateClaim, mayCreateVolume, mayCreateClass: admin, mayCreateAny, scheme })} run={run} />}
      </Modal>
      <Modal opened={help} onClose={() => setHelp(false)} title="Keyboard shortcuts" size="md" closeButtonProps={{ 'aria-label': 'Close the shortcuts' }}>
        <ShortcutList routes={routes} />
      </Modal>
    </>
  );
}

interface Row {
  id: string;
  group: string;
  label: string;
  description: string;
  run: PaletteRun;
}

function PaletteBody({ kinds, items, run }: { kinds: KindUi[]; items: PaletteItem[]; run: (r: PaletteRun) => void }) {
  const trpc = useTRPC();
  const ids = useId();
  const [query, setQuery] = useState('');
  const [debounced] = useDebouncedValue(query.trim(), SEARCH_DEBOUNCE_MS);
  const [active, setActive] = useState(0);
  const listRef = useRef<HTMLDivElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  // Focus in the next frame, not after the opening transition, so no typed key is lost
  // (not in this effect: the dialog notes what had the focus, to return it, after it).
  useEffect(() => {
    const id = requestAnimationFrame(() => inputRef.current?.focus());
    return () => cancelAnimationFrame(id);
  }, []);

  // Events are many and short-lived: they are not offered as jump targets.
  const searchable = useMemo(() => kinds.filter((k) => k.kind !== 'Event'), [kinds]);
  const found = useQueries({
    queries: searchable.map((k) => ({
      ...trpc.lists.page.queryOptions({ kind: k.kind, text: debounced, limit: SEARCH_PER_KIND }),
      enabled: debounced.length > 0,
      staleTime: 5_000,
    })),
  });
  const searching = debounced.length > 0 && found.some((f) => f.isFetching);
  const foundKey = found.map((f) => f.dataUpdatedAt).join(',');

  const rows = useMemo<Row[]>(() => {
    const hits = searchable.flatMap((k, i) =>
      (found[i]?.data?.items ?? []).map((o) => ({ kind: k.kind, kindOrder: i, name: o.metadata.name ?? '', namespace: o.metadata.namespace })),
    );
    const objects: Row[] = [];
    if (debounced) {
      for (const h of rankHits(debounced, hits)) {
        const href = detailHref(h.kind, h.namespace, h.name);
        const k = searchable[h.kindOrder];
        if (!href || !k) continue;
        objects.push({ id: `obj-${h.kind}-${h.namespace ?? ''}-${h.name}`, group: 'Objects', label: h.namespace ? `${h.namespace}/${h.name}` : h.name, description: k.singular, run: { type: 'navigate', href } });
      }
    }
    const matched = filterItems(query, items);
    const rest = matched.map((i) => ({ id: i.id, group: i.group, label: i.label, description: i.description, run: i.run }));
    // Pages and actions are known at once, objects arrive later: objects go below, so the
    // option under the cursor does not move when the search answers.
    // Grouped (each heading once) and flattened again: the arrow keys follow the screen.
    return groupRows([...rest, ...objects]).flatMap((g) => g.rows);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- foundKey stands for the query results
  }, [foundKey, searchable, debounced, query, items]);

  useEffect(() => setActive(0), [query]);
  const activeRow = rows[Math.min(active, rows.length - 1)];
  const optionId = (r: Row) => `${ids}-${r.id.replace(/[^A-Za-z0-9_-]/g, '_')}`;

  useEffect(() => {
    if (!activeRow) return;
    document.getElementById(optionId(activeRow))?.scrollIntoView({ block: 'nearest' });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- optionId is stable for a row
  }, [activeRow]);

  const onKeyDown = (e: React.KeyboardEvent<HTMLInputElement>) => {
    if (e.nativeEvent.isComposing) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((a) => moveActive(Math.min(a, rows.length - 1), e.key === 'ArrowDown' ? 1 : -1, rows.length));
    } else if (e.key === 'Home' && e.ctrlKey) {
      e.preventDefault();
      setActive(rows.length ? 0 : -1);
    } else if (e.key === 'End' && e.ctrlKey) {
      e.preventDefault();
      setActive(rows.length - 1);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (activeRow) run(activeRow.run);
    }
  };

  const groups = groupRows(rows);
  const listId = `${ids}-list`;
  const status = searching ? 'Searching…' : rows.length === 0 ? 'Nothing found' : `${rows.length} result${rows.length === 1 ? '' : 's'}`;

  return (
    <Box>
      <TextInput
        ref={inputRef}
        data-autofocus
        aria-label="Command palette search"
        placeholder="Go to a page, run an action, or find an object by name…"
        value={query}
        onChange={(e) => setQuery(e.currentTarget.value)}
        onKeyDown={onKeyDown}
        role="combobox"
        aria-expanded
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={activeRow ? optionId(activeRow) : undefined}
        autoComplete="off"
        spellCheck={false}
        data-testid="palette-search"
      />
      <Text size="xs" mt={6} role="status" aria-live="polite" data-testid="palette-status">
        {status}
      </Text>
      <Box ref={listRef} role="listbox" id={listId} aria-label="Results" mt="xs" mah={380} style={{ overflowY: 'auto' }} data-testid="palette-results">
        {groups.map((g) => (
          <div key={g.name} role="group" aria-label={g.name}>
            <Text size="xs" fw={700} tt="uppercase" px="xs" pt="xs" pb={2} aria-hidden="true">
              {g.name}
            </Text>
            {g.rows.map((r) => {
              const selected = r === activeRow;
              return (
                <UnstyledButton
                  component="div"
                  key={r.id}
                  id={optionId(r)}
                  role="option"
                  aria-selected={selected}
                  data-testid="palette-option"
                  tabIndex={-1}
                  onMouseDown={(e) => e.preventDefault()}
                  onMouseMove={() => !selected && setActive(rows.indexOf(r))}
                  onClick={() => run(r.run)}
                  px="xs"
                  py={6}
                  display="flex"
                  w="100%"
                  style={{
                    justifyContent: 'space-between',
                    gap: 12,
                    borderRadius: 4,
                    background: selected ? 'var(--mantine-primary-color-light)' : undefined,
                    outline: selected ? '2px solid var(--mantine-primary-color-filled)' : undefined,
                    outlineOffset: -2,
                  }}
                >
                  <Text size="sm" fw={500} component="span" style={{ overflowWrap: 'anywhere' }}>
                    {r.label}
                  </Text>
                  <Text size="xs" component="span" style={{ flexShrink: 0 }}>
                    {r.description}
                  </Text>
                </UnstyledButton>
              );
            })}
          </div>
        ))}
      </Box>
      <Text size="xs" mt="xs">
        <Kbd>↑</Kbd> <Kbd>↓</Kbd> to move, <Kbd>Enter</Kbd> to run, <Kbd>Esc</Kbd> to close
      </Text>
    </Box>
  );
}
