import { describe, expect, test } from 'vitest';
import { GO_WINDOW_MS, goKeysFor, INITIAL_SHORTCUT_STATE, interpretKey, isTyping, type KeyInput, type ShortcutState } from './shortcuts';

const ALL = new Set(['/', '/volumes', '/claims', '/pods', '/storage-classes', '/nodes', '/events', '/namespaces']);
const DEVELOPER = new Set(['/', '/claims', '/pods', '/storage-classes', '/events', '/namespaces']);

describe('interpretKey', () => {
  const afterG: ShortcutState = { goAt: 1000 };
  test.each<{ what: string; state: ShortcutState; input: KeyInput; routes?: Set<string>; want: string; prevent: boolean; pending: boolean }>([
    { what: 'g starts a go sequence', state: INITIAL_SHORTCUT_STATE, input: { key: 'g', now: 1000 }, want: 'none', prevent: false, pending: true },
    { what: 'g v goes to Volumes', state: afterG, input: { key: 'v', now: 1200 }, want: 'go:/volumes', prevent: true, pending: false },
    { what: 'g C (caps) goes to Claims', state: afterG, input: { key: 'C', now: 1200 }, want: 'go:/claims', prevent: true, pending: false },
    { what: 'g h goes home', state: afterG, input: { key: 'h', now: 1200 }, want: 'go:/', prevent: true, pending: false },
    { what: 'g v for a developer (no Volumes page) does nothing', state: afterG, input: { key: 'v', now: 1200 }, routes: DEVELOPER, want: 'none', prevent: false, pending: false },
    { what: 'g then a letter too late does nothing', state: afterG, input: { key: 'v', now: 1000 + GO_WINDOW_MS + 1 }, want: 'none', prevent: false, pending: false },
    { what: 'g then an unknown letter ends the sequence', state: afterG, input: { key: 'x', now: 1200 }, want: 'none', prevent: false, pending: false },
    { what: 'Shift between g and the letter keeps the sequence', state: afterG, input: { key: 'Shift', now: 1100 }, want: 'none', prevent: false, pending: true },
    { what: 'v alone does nothing', state: INITIAL_SHORTCUT_STATE, input: { key: 'v', now: 1200 }, want: 'none', prevent: false, pending: false },
    { what: '/ focuses the filter', state: INITIAL_SHORTCUT_STATE, input: { key: '/', now: 1 }, want: 'focus-filter', prevent: true, pending: false },
    { what: '? opens the help', state: INITIAL_SHORTCUT_STATE, input: { key: '?', now: 1 }, want: 'help', prevent: true, pending: false },
    { what: 'typing in a field: g is a letter', state: INITIAL_SHORTCUT_STATE, input: { key: 'g', now: 1, typing: true }, want: 'none', prevent: false, pending: false },
    { what: 'typing in a field: / is a character', state: INITIAL_SHORTCUT_STATE, input: { key: '/', now: 1, typing: true }, want: 'none', prevent: false, pending: false },
    { what: 'typing in a field after g: v is a letter', state: afterG, input: { key: 'v', now: 1200, typing: true }, want: 'none', prevent: false, pending: false },
    { what: 'Ctrl+/ is not ours', state: INITIAL_SHORTCUT_STATE, input: { key: '/', now: 1, ctrl: true }, want: 'none', prevent: false, pending: false },
    { what: 'Cmd+g is not ours', state: INITIAL_SHORTCUT_STATE, input: { key: 'g', now: 1, meta: true }, want: 'none', prevent: false, pending: false },
    { what: 'Alt+? is not ours', state: INITIAL_SHORTCUT_STATE, input: { key: '?', now: 1, alt: true }, want: 'none', prevent: false, pending: false },
  ])('$what', ({ state, input, routes, want, prevent, pending }) => {
    const r = interpretKey(state, input, routes ?? ALL);
    const got = r.action.type === 'go' ? `go:${r.action.route}` : r.action.type;
    expect(got).toBe(want);
    expect(r.preventDefault).toBe(prevent);
    expect(r.state.goAt > 0).toBe(pending);
  });
});

describe('goKeysFor', () => {
  test('lists only the pages the user may open', () => {
    expect(goKeysFor(DEVELOPER).map((g) => g.key)).toEqual(['h', 'c', 'p', 's', 'e', 'm']);
    expect(goKeysFor(ALL).map((g) => g.key)).toEqual(['h', 'v', 'c', 'p', 's', 'n', 'e', 'm']);
  });
});

describe('isTyping', () => {
  const el = (tagName: string, extra: Record<string, unknown> = {}) => ({ tagName, getAttribute: (n: string) => (extra.attrs as Record<string, string> | undefined)?.[n] ?? null, closest: () => (extra.inEditor ? {} : null), ...extra });
  test.each([
    { what: 'nothing', target: null, want: false },
    { what: 'the window', target: {}, want: false },
    { what: 'a text input', target: el('INPUT', { type: 'text' }), want: true },
    { what: 'a search input', target: el('INPUT', { type: 'search' }), want: true },
    { what: 'an input without a type', target: el('INPUT'), want: true },
    { what: 'a checkbox', target: el('INPUT', { type: 'checkbox' }), want: false },
    { what: 'a radio', target: el('INPUT', { type: 'radio' }), want: false },
    { what: 'a textarea', target: el('TEXTAREA'), want: true },
    { what: 'a select', target: el('SELECT'), want: true },
    { what: 'contenteditable', target: el('DIV', { isContentEditable: true }), want: true },
    { what: 'a combobox', target: el('DIV', { attrs: { role: 'combobox' } }), want: true },
    { what: 'inside the YAML editor', target: el('DIV', { inEditor: true }), want: true },
    { what: 'a button', target: el('BUTTON'), want: false },
    { what: 'a link', target: el('A'), want: false },
  ])('$what -> $want', ({ target, want }) => {
    expect(isTyping(target)).toBe(want);
  });
});
