import { describe, expect, test } from 'vitest';
import { HOME_PAGE, isActive, kindsOf, menuPages, navTestId, PAGES, pagesFor } from './navigation';

const routes = (admin: boolean, kinds: string[]) => pagesFor({ admin, canList: (k) => kinds.includes(k.kind) }).map((p) => p.route);

describe('pagesFor', () => {
  test('an admin who may list everything sees every page, home first and the tools last', () => {
    expect(routes(true, PAGES.flatMap((p) => (p.kind ? [p.kind.kind] : [])))).toEqual([
      '/',
      '/volumes',
      '/claims',
      '/pods',
      '/storage-classes',
      '/nodes',
      '/namespaces',
      '/events',
      '/quotas',
      '/pools',
      '/snapshots',
      '/snapshot-schedules',
      '/backups',
      '/backup-targets',
      '/snapshot-classes',
      '/snapshot-contents',
      '/capacity',
      '/audit',
      '/reclaim',
      '/tokens',
      '/users',
      '/settings',
    ]);
  });

  test('others see the lists they may read and their tokens, and no Reclaim or Users', () => {
    expect(routes(false, ['PersistentVolumeClaim', 'Event'])).toEqual(['/', '/claims', '/events', '/capacity', '/audit', '/tokens']);
  });

  test('a developer who may list backups sees Backups, never the targets (admins only)', () => {
    expect(routes(false, ['PersistentVolumeClaim', 'VolumeBackup'])).toEqual(['/', '/claims', '/backups', '/capacity', '/audit', '/tokens']);
  });
});

test('the menu leaves out home; the palette searches the kinds', () => {
  const pages = pagesFor({ admin: false, canList: (k) => k.kind === 'Pod' });
  expect(menuPages(pages).map(navTestId)).toEqual(['nav-pods', 'nav-capacity', 'nav-audit', 'nav-tokens']);
  expect(kindsOf(pages).map((k) => k.kind)).toEqual(['Pod']);
  expect(pages[0]).toBe(HOME_PAGE);
});

test.each<[string, string, boolean]>([
  ['/volumes', '/volumes', true],
  ['/volumes', '/volumes/pv-1', true],
  ['/volumes', '/volumesx', false],
  ['/capacity', '/capacity', true],
  ['/audit', '/audit/x', false],
  ['/backups', '/backups/team-a/b1', true],
  ['/backup-targets', '/backup-targets/x', true],
])('isActive(%s) on %s = %s', (route, pathname, want) => {
  expect(isActive(PAGES.find((p) => p.route === route)!, pathname)).toBe(want);
});
