// The dashboard's keyboard shortcuts as a pure state machine: "g" then a letter goes to a
// page, "/" focuses the list filter, "?" lists the shortcuts. Nothing fires while the
// user types in a field or holds Ctrl, Alt or Meta (Ctrl/Cmd+K is the palette's own).

/** "g" then one of these keys goes to the page (offered only when the user may list it). */
export const GO_KEYS: Record<string, { label: string; route: string }> = {
  h: { label: 'Home', route: '/' },
  v: { label: 'Volumes', route: '/volumes' },
  c: { label: 'Claims', route: '/claims' },
  p: { label: 'Pods', route: '/pods' },
  s: { label: 'Storage classes', route: '/storage-classes' },
  n: { label: 'Nodes', route: '/nodes' },
  e: { label: 'Events', route: '/events' },
  m: { label: 'Namespaces', route: '/namespaces' },
};

/** How long after "g" the second key still counts. */
export const GO_WINDOW_MS = 1500;

export interface KeyInput {
  key: string;
  ctrl?: boolean;
  meta?: boolean;
  alt?: boolean;
  /** The key went to a text field, a select or an editor. */
  typing?: boolean;
  /** Milliseconds (any clock, as long as it is the same one every time). */
  now: number;
}

export type ShortcutAction = { type: 'none' } | { type: 'go'; route: string } | { type: 'focus-filter' } | { type: 'help' };

export interface ShortcutState {
  /** When "g" was pressed, or 0. */
  goAt: number;
}

export const INITIAL_SHORTCUT_STATE: ShortcutState = { goAt: 0 };

/**
 * The action a key press asks for and the next state. `routes`: the pages the user may
 * open (a "g" key for any other page does nothing). `preventDefault` says whether the
 * key is used (and so must not also type or scroll).
 */
export function interpretKey(
  state: ShortcutState,
  input: KeyInput,
  routes: ReadonlySet<string>,
): { state: ShortcutState; action: ShortcutAction; preventDefault: boolean } {
  const none = { state: INITIAL_SHORTCUT_STATE, action: { type: 'none' } as const, preventDefault: false };
  if (input.ctrl || input.meta || input.alt || input.typing) return none;
  if (state.goAt && input.now - state.goAt <= GO_WINDOW_MS) {
    const target = GO_KEYS[input.key.toLowerCase()];
    if (target && routes.has(target.route)) return { state: INITIAL_SHORTCUT_STATE, action: { type: 'go', route: target.route }, preventDefault: true };
    if (input.key === 'Shift') return { state, action: { type: 'none' }, preventDefault: false };
    return none;
  }
  if (input.key === 'g') return { state: { goAt: input.now }, action: { type: 'none' }, preventDefault: false };
  if (input.key === '/') return { state: INITIAL_SHORTCUT_STATE, action: { type: 'focus-filter' }, preventDefault: true };
  if (input.key === '?') return { state: INITIAL_SHORTCUT_STATE, action: { type: 'help' }, preventDefault: true };
  return none;
}

/** The "g" shortcuts this user has (the routes they may open), for the help list. */
export function goKeysFor(routes: ReadonlySet<string>): { key: string; label: string; route: string }[] {
  return Object.entries(GO_KEYS)
    .filter(([, g]) => routes.has(g.route))
    .map(([key, g]) => ({ key, ...g }));
}

interface ElementLike {
  tagName?: unknown;
  isContentEditable?: boolean;
  type?: string;
  getAttribute?(name: string): string | null;
  closest?(selector: string): unknown;
}

const NON_TEXT_INPUTS = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file', 'image']);

/** Whether a key press goes to something the user types in (shortcuts then stay out of the way). */
export function isTyping(target: unknown): boolean {
  const el = target as ElementLike | null;
  if (!el || typeof el.tagName !== 'string') return false;
  const tag = el.tagName.toUpperCase();
  if (tag === 'INPUT') return !NON_TEXT_INPUTS.has((el.type ?? 'text').toLowerCase());
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (el.isContentEditable) return true;
  const role = el.getAttribute?.('role');
  if (role === 'textbox' || role === 'combobox' || role === 'searchbox') return true;
  return Boolean(el.closest?.('.cm-editor'));
}
