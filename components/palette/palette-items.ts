// What the command palette offers, as pure functions: the pages and actions a user may
// use, the filter over them, and the order of the objects the server found by name.

export type PaletteGroup = 'Objects' | 'Pages' | 'Actions';

export type PaletteRun =
  | { type: 'navigate'; href: string }
  | { type: 'theme'; scheme: 'light' | 'dark' }
  | { type: 'sign-out' }
  | { type: 'help' };

export interface PaletteItem {
  id: string;
  group: PaletteGroup;
  label: string;
  description: string;
  keywords?: string[];
  run: PaletteRun;
}

export interface PaletteContext {
  /** The pages the user may open, home first (shell/navigation.ts). */
  pages: { route: string; title: string; description: string; keywords?: string[] }[];
  /** Admins: the StorageClass form. */
  mayCreateClass?: boolean;
  mayCreateClaim: boolean;
  mayCreateVolume: boolean;
  mayCreateAny: boolean;
  /** The theme shown now (the toggle offers the other one). */
  scheme: 'light' | 'dark';
}

/** The pages and actions, in the order the palette shows them when nothing is typed. */
export function paletteItems(c: PaletteContext): PaletteItem[] {
  const pages: PaletteItem[] = [
    ...c.pages.map((p) => ({
      id: p.route === '/' ? 'page-home' : `page-${p.route}`,
      group: 'Pages' as const,
      label: p.title,
      description: p.description,
      ...(p.keywords ? { keywords: p.keywords } : {}),
      run: { type: 'navigate' as const, href: p.route },
    })),
  ];
  const actions: PaletteItem[] = [];
  if (c.mayCreateClaim) {
    actions.push({ id: 'create-claim', group: 'Actions', label: 'Create claim', description: 'Request storage with the claim form', keywords: ['new', 'pvc', 'request', 'storage'], run: { type: 'navigate', href: '/claims/new' } });
  }
  if (c.mayCreateVolume) {
    actions.push({ id: 'create-volume', group: 'Actions', label: 'Create volume', description: 'A PersistentVolume with the volume form', keywords: ['new', 'pv', 'persistentvolume'], run: { type: 'navigate', href: '/new/volume' } });
  }
  if (c.mayCreateClass) {
    actions.push({ id: 'create-class', group: 'Actions', label: 'Create storage class', description: 'A StorageClass with the class form', keywords: ['new', 'sc', 'storageclass', 'provisioner'], run: { type: 'navigate', href: '/new/storage-class' } });
  }
  if (c.mayCreateAny) {
    actions.push({ id: 'create-yaml', group: 'Actions', label: 'Create from YAML', description: 'Any object, as a manifest', keywords: ['new', 'manifest', 'apply'], run: { type: 'navigate', href: '/new' } });
  }
  const other = c.scheme === 'dark' ? 'light' : 'dark';
  actions.push(
    { id: 'theme', group: 'Actions', label: `Switch to the ${other} theme`, description: 'Colour theme (also in the header)', keywords: ['toggle', 'dark', 'light', 'colour', 'color', 'theme'], run: { type: 'theme', scheme: other } },
    { id: 'shortcuts', group: 'Actions', label: 'Keyboard shortcuts', description: 'Press ? anywhere', keywords: ['keys', 'help', 'hotkeys'], run: { type: 'help' } },
    { id: 'sign-out', group: 'Actions', label: 'Sign out', description: 'End this session', keywords: ['log out', 'logout', 'exit'], run: { type: 'sign-out' } },
  );
  return [...pages, ...actions];
}

function words(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}

/** The pages and actions whose label, description or keywords hold every typed word; labels that start with the query first. */
export function filterItems(query: string, items: PaletteItem[]): PaletteItem[] {
  const ws = words(query);
  if (ws.length === 0) return items;
  const q = ws.join(' ');
  const scored: { item: PaletteItem; score: number; i: number }[] = [];
  items.forEach((item, i) => {
    const hay = [item.label, item.description, ...(item.keywords ?? [])].join(' ').toLowerCase();
    if (!ws.every((w) => hay.includes(w))) return;
    const label = item.label.toLowerCase();
    const score = label.startsWith(q) ? 0 : label.includes(q) ? 1 : 2;
    scored.push({ item, score, i });
  });
  return scored.sort((a, b) => a.score - b.score || a.i - b.i).map((s) => s.item);
}

export interface ObjectHit {
  kind: string;
  /** Its place in the palette's kind order (volumes before claims ...). */
  kindOrder: number;
  name: string;
  namespace?: string;
}

/**
 * How well a name matches the query: 0 the same name, 1 starts with it, 2 a word of the
 * name (after - or .) starts with it, 3 contains it, 4 matched elsewhere (namespace,
 * labels, phase: the server's text search looks there too).
 */
export function nameScore(query: string, name: string): number {
  const q = query.trim().toLowerCase();
  const n = name.toLowerCase();
  if (!q) return 4;
  if (n === q) return 0;
  if (n.startsWith(q)) return 1;
  if (n.split(/[-.]/).some((part) => part.startsWith(q))) return 2;
  if (n.includes(q)) return 3;
  return 4;
}

/** The server's hits, best first: by how well the name matches, then kind order, then shorter, then by name. */
export function rankHits(query: string, hits: ObjectHit[]): ObjectHit[] {
  return hits
    .map((h) => ({ h, s: nameScore(query, h.name) }))
    .sort((a, b) => a.s - b.s || a.h.kindOrder - b.h.kindOrder || a.h.name.length - b.h.name.length || (a.h.name < b.h.name ? -1 : a.h.name > b.h.name ? 1 : 0) || ((a.h.namespace ?? '') < (b.h.namespace ?? '') ? -1 : 1))
    .map((x) => x.h);
}

/** Moves the active option by `delta`, wrapping around; -1 when there are none. */
export function moveActive(active: number, delta: number, count: number): number {
  if (count <= 0) return -1;
  if (active < 0) return delta > 0 ? 0 : count - 1;
  return (((active + delta) % count) + count) % count;
}

/**
 * Rows under their group headings, each group once, groups in the order they first
 * appear (a filter may interleave them). The flattened result is the order the arrow
 * keys follow, so it must be the order on screen.
 */
export function groupRows<T extends { group: string }>(rows: T[]): { name: string; rows: T[] }[] {
  const groups = new Map<string, T[]>();
  for (const r of rows) {
    const g = groups.get(r.group);
    if (g) g.push(r);
    else groups.set(r.group, [r]);
  }
  return [...groups].map(([name, rs]) => ({ name, rows: rs }));
}
