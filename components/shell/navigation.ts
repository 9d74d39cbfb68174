// The dashboard's pages, defined once: the shell's menu and the command palette both read
// this list (home, each kind's list, then the other pages). Pure.
import { KINDS, type KindUi } from '../objects/kinds';

export interface NavPage {
  route: string;
  title: string;
  /** One line for the palette. */
  description: string;
  /** More words the palette's filter matches. */
  keywords?: string[];
  /** The kind the page lists; the user sees it when they may list that kind somewhere. */
  kind?: KindUi;
  /** Only admins see it. */
  adminOnly?: boolean;
}

/** What a page lists, for the permission check. */
export type ListedKind = Pick<KindUi, 'kind' | 'namespaced'>;

export const HOME_PAGE: NavPage = { route: '/', title: 'Home', description: 'What needs attention', keywords: ['overview', 'health', 'dashboard'] };

/** Pages beyond the kinds' lists. */
const TOOL_PAGES: NavPage[] = [
  { route: '/capacity', title: 'Capacity', description: 'Provisioned, bound and free, and days until full' },
  { route: '/audit', title: 'Audit', description: 'Who did what, when' },
  { route: '/reclaim', title: 'Reclaim', description: 'Released, failed and unused storage', adminOnly: true },
  { route: '/tokens', title: 'API tokens', description: 'Your API tokens and a kubeconfig for kubectl', keywords: ['kubeconfig', 'kubectl', 'token'] },
  { route: '/users', title: 'Users', description: 'Who may sign in: roles, namespaces, passwords, tokens', keywords: ['accounts', 'password', 'roles'], adminOnly: true },
  { route: '/settings', title: 'Settings', description: 'The "claim nearly full" threshold', keywords: ['threshold', 'nearly full', 'usage'], adminOnly: true },
];

/** Every page, in menu order. */
export const PAGES: NavPage[] = [
  HOME_PAGE,
  ...KINDS.map((k) => ({ route: k.route, title: k.title, description: `All ${k.noun}`, kind: k })),
  ...TOOL_PAGES,
];

export interface NavAccess {
  /** Whether the user may list the kind in some namespace (or cluster-wide). */
  canList(kind: ListedKind): boolean;
  admin: boolean;
}

/** The pages this user may open, in menu order. */
export function pagesFor(access: NavAccess): NavPage[] {
  return PAGES.filter((p) => (p.kind ? access.canList(p.kind) : !p.adminOnly || access.admin));
}

/** The menu: the pages less home (the logo goes there). */
export function menuPages(pages: NavPage[]): NavPage[] {
  return pages.filter((p) => p.route !== HOME_PAGE.route);
}

/** The kinds among the pages (the palette searches their objects). */
export function kindsOf(pages: NavPage[]): KindUi[] {
  return pages.flatMap((p) => (p.kind ? [p.kind] : []));
}

/** A list (of a kind, or a page listing one) is also active on its objects' pages; the other pages only on themselves. */
export function isActive(page: NavPage, pathname: string): boolean {
  return pathname === page.route || (page.kind !== undefined && pathname.startsWith(`${page.route}/`));
}

/** The test id of the page's menu entry: "nav-volumes", "nav-capacity". */
export function navTestId(page: NavPage): string {
  return `nav-${page.route.slice(1)}`;
}
