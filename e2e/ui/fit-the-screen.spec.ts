// Every list page fits the screen: at the commonest laptop (1280x800) and a phone
// (390x844), in the light and the dark theme, the page never scrolls sideways and no list
// cell cuts its content (a cell's element whose content is wider than itself). Volumes,
// claims and a quota are made first so the lists have real rows: a long name, a Pending
// claim with its reason, a quota with several limits.
import os from 'node:os';
import type { Page } from '@playwright/test';
import { createObject } from '../api';
import { DEV_USER } from '../env';
import { expect, pvcManifest, pvManifest, signInAsAdmin, test, uniqueName } from '../helpers';

const SIZES = [
  { name: 'laptop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const THEMES = ['light', 'dark'] as const;

const LIST_PAGES = [
  '/volumes',
  '/claims',
  '/storage-classes',
  '/quotas',
  '/snapshots',
  '/snapshot-schedules',
  '/snapshot-classes',
  '/snapshot-contents',
  '/backups',
  '/backup-targets',
  '/pools',
  '/events',
  '/namespaces',
  '/nodes',
  '/pods',
  '/audit',
  '/reclaim',
  '/users',
  '/claims/new',
];

/** The pages of one object and the forms, given this run's objects (made in beforeAll). */
function detailPages(run: string, ns: string, cls: string): string[] {
  const node = process.env.STOWAGE_NODE_NAME || os.hostname();
  return [
    '/',
    '/capacity',
    '/settings',
    '/tokens',
    `/nodes/${node}`,
    `/nodes/${node}/disks`,
    `/namespaces/${ns}`,
    `/volumes/${run}-volume-with-a-rather-long-name-0`,
    `/claims/${ns}/${run}-claim-with-a-rather-long-name-0`,
    `/storage-classes/${cls}`,
    `/storage-classes/${cls}/edit`,
    `/quotas/${ns}/${run}-room`,
    `/quotas/${ns}/${run}-room/edit`,
    '/new',
    '/new/storage-class',
    '/new/volume',
    '/new/quota',
  ];
}

interface Fit {
  scrollWidth: number;
  clientWidth: number;
  clipped: string[];
}

/** The page's sideways overflow and every list cell (or element in one) whose content is wider than itself. */
function measure(page: Page): Promise<Fit> {
  return page.evaluate(() => {
    const doc = document.scrollingElement ?? document.documentElement;
    const clipped: string[] = [];
    for (const el of document.querySelectorAll('[role="cell"], [role="cell"] *')) {
      if (!(el instanceof HTMLElement) || el.clientWidth === 0) continue;
      if (el.scrollWidth > el.clientWidth + 1) {
        const id = el.dataset.testid ? `[data-testid=${el.dataset.testid}]` : '';
        clipped.push(`${el.tagName.toLowerCase()}${id} "${(el.textContent ?? '').trim().slice(0, 60)}" ${el.scrollWidth} > ${el.clientWidth}`);
      }
    }
    return { scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth, clipped };
  });
}

/** The page has drawn what it shows: its heading, no loader, and a list table measured for its width. */
async function settled(page: Page, route: string): Promise<void> {
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
  await expect(page.locator('[role="status"][aria-label^="Loading"]')).toHaveCount(0);
  const frame = page.getByTestId('object-table-frame');
  if ((await frame.count()) > 0) {
    const width = page.viewportSize()?.width ?? 1280;
    await expect(frame.first()).toHaveAttribute('data-layout', width < 768 ? 'cards' : 'table');
  }
  if (route === '/volumes' || route === '/claims' || route === '/quotas') await expect(page.getByTestId('object-row').first()).toBeVisible();
}

test.describe('every list page fits the screen', () => {
  const run = uniqueName('fit');
  const ns = DEV_USER.namespace;
  const cls = `${run}-class`;

  test.beforeAll(async () => {
    await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'kubernetes.io/no-provisioner' });
    for (const [i, size] of ['1Gi', '5Gi', '20Gi'].entries()) {
      await createObject(pvManifest(`${run}-volume-with-a-rather-long-name-${i}`, { storage: size, storageClassName: cls }));
      await createObject(pvcManifest(`${run}-claim-with-a-rather-long-name-${i}`, ns, size, cls), ns);
    }
    // Nothing matches it: Pending, with the binder's reason in the badge's tooltip.
    await createObject(pvcManifest(`${run}-waiting`, ns, '300Gi', cls), ns);
    await createObject(
      {
        apiVersion: 'v1',
        kind: 'ResourceQuota',
        metadata: { name: `${run}-room`, namespace: ns },
        spec: {
          hard: {
            [`${cls}.storageclass.storage.k8s.io/requests.storage`]: '500Gi',
            [`${cls}.storageclass.storage.k8s.io/persistentvolumeclaims`]: '10',
            'count/volumesnapshots.snapshot.storage.k8s.io': '20',
          },
        },
      },
      ns,
    );
  });

  const check = async (page: Page, route: string) => {
    await signInAsAdmin(page, '/');
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      for (const theme of THEMES) {
        await page.emulateMedia({ colorScheme: theme });
        await page.goto(route);
        await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', theme);
        await settled(page, route);
        const where = `${route} at ${size.width}x${size.height} (${theme})`;
        // Measured until it holds or the deadline passes: rows are measured and placed after the first paint.
        await expect
          .poll(
            async () => {
              const m = await measure(page);
              return m.scrollWidth - m.clientWidth;
            },
            { message: `${where}: the page scrolls sideways` },
          )
          .toBeLessThanOrEqual(0);
        await expect.poll(async () => (await measure(page)).clipped, { message: `${where}: list cells cut their content` }).toEqual([]);
      }
    }
  };

  for (const route of LIST_PAGES) {
    test(`${route} at 1280x800 and 390x844, light and dark`, async ({ page }) => {
      await check(page, route);
    });
  }

  for (const route of detailPages(run, ns, cls)) {
    test(`${route.replaceAll(run, '<run>')} at 1280x800 and 390x844, light and dark`, async ({ page }) => {
      await check(page, route);
    });
  }

  test('on a phone the lists are cards and the header keeps search, theme and the user reachable', async ({ page }) => {
    // Filtered to this run's claims: the namespace holds every journey's, and a card list draws only those in view.
    await signInAsAdmin(page, `/claims?namespace=${ns}&q=${run}`);
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.getByTestId('object-table-frame')).toHaveAttribute('data-layout', 'cards');
    const card = page.getByTestId('object-row').filter({ hasText: `${run}-waiting` });
    await expect(card).toHaveAttribute('data-layout', 'card');
    await expect(card.getByTestId('pending-hint')).toHaveAttribute('aria-label', /^Pending: /);

    // Search: the palette opens by touch.
    await page.getByTestId('palette-button-compact').click();
    await expect(page.getByRole('dialog')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog')).toHaveCount(0);

    // One menu: the user, the theme switch and sign-out.
    await page.getByTestId('header-menu').click();
    const menu = page.getByTestId('header-menu-dropdown');
    await expect(menu).toContainText('admin');
    await menu.getByText('Dark', { exact: true }).click();
    await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', 'dark');
    await expect(menu.getByTestId('menu-sign-out')).toBeVisible();
  });

  test('at 1280x800 the volumes list hides its least important column rather than overflow', async ({ page }) => {
    await signInAsAdmin(page, `/volumes?q=${run}`);
    const frame = page.getByTestId('object-table-frame');
    await expect(frame).toHaveAttribute('data-layout', 'table');
    await expect(frame).toHaveAttribute('data-hidden-columns', /RECLAIM POLICY/);
    await expect(page.getByRole('columnheader', { name: /NAME/ })).toBeVisible();
    await expect(page.getByRole('columnheader', { name: /STATUS/ })).toBeVisible();
    await expect(page.getByTestId('object-row')).toHaveCount(3);
  });

  // The walk found rows whose cells wrap (a long class name on three lines) drawn over the
  // next row: their height was the estimate, not what they hold.
  test('a row whose cells wrap is as tall as what it holds: rows never overlap', async ({ page }) => {
    const wrap = uniqueName('wrap');
    for (const n of ['a', 'b', 'c']) await createObject(pvManifest(`${wrap}-${n}`, { storage: '1Gi', storageClassName: `static-${wrap}-a-rather-long-class-name` }));
    await signInAsAdmin(page, `/volumes?q=${wrap}`);
    const rows = page.getByTestId('object-row');
    await expect(rows).toHaveCount(3);
    await expect
      .poll(async () => {
        const boxes = await rows.evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => ({ top: Math.round(r.top), bottom: Math.round(r.bottom) })).sort((x, y) => x.top - y.top));
        const cells = await rows.locator('[role="cell"]').evaluateAll((els) => els.every((c) => c.scrollHeight <= (c.parentElement?.getBoundingClientRect().height ?? 0) + 1));
        return { overlap: boxes.some((b, i) => i > 0 && boxes[i - 1].bottom > b.top + 1), tall: boxes.some((b) => b.bottom - b.top > 45), cellsInside: cells };
      })
      .toEqual({ overlap: false, tall: true, cellsInside: true });
  });
});
