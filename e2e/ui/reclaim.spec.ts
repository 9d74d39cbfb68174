// The reclaim center, as an admin uses it: a Released volume made Available again after a
// preview of exactly what changes, with the Event the action records on it.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { createObject, deleteObject, findObject, getObject, type Obj } from '../api';
import { expect, pvcManifest, pvManifest, screenshot, signInAsAdmin, test, uniqueName } from '../helpers';

async function seriousViolations(page: Page): Promise<string[]> {
  const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  return serious.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.html.slice(0, 100)).join(' | ')}`);
}

const phaseOf = async (kind: string, name: string, namespace?: string) => ((await findObject(kind, name, namespace))?.status as { phase?: string } | undefined)?.phase;

test('an admin makes a Released volume Available again from the reclaim center', async ({ page }) => {
  test.setTimeout(90_000);
  const pv = uniqueName('pv-reclaim');
  const claim = uniqueName('claim-reclaim');
  const manifest = pvManifest(pv);
  await createObject(manifest);
  await createObject(pvcManifest(claim, 'default', '1Gi', manifest.spec.storageClassName), 'default');
  await expect.poll(() => phaseOf('PersistentVolume', pv), { message: 'the volume binds', timeout: 20_000 }).toBe('Bound');

  await deleteObject('PersistentVolumeClaim', claim, 'default');
  await expect.poll(() => phaseOf('PersistentVolume', pv), { message: 'the volume is Released', timeout: 20_000 }).toBe('Released');

  await signInAsAdmin(page);
  await page.getByTestId('nav-reclaim').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Reclaim center' })).toBeVisible();
  const row = page.getByTestId('reclaim-volume').filter({ has: page.getByRole('link', { name: pv, exact: true }) });
  await expect(row).toBeVisible({ timeout: 15_000 });
  await expect(row).toContainText('Released');
  await expect(row).toContainText(`default/${claim}`);
  // With rows and their checkboxes on it, the page still passes axe (the pointer moved off
  // the navigation link it clicked, whose hover state is not what is checked here).
  await page.mouse.move(640, 700);
  expect(await seriousViolations(page)).toEqual([]);

  await row.getByRole('checkbox', { name: `Select volume ${pv}` }).check();
  await page.getByTestId('volume-actions').getByRole('button', { name: 'Make Available…' }).click();
  const preview = page.getByTestId('preview-row').filter({ hasText: pv });
  await expect(preview).toContainText(`claimRef default/${claim} will be cleared`);
  await expect(preview).toContainText('phase Released → Available');
  // The dialog has finished opening before the picture is taken.
  await expect(page.getByRole('dialog')).toHaveCSS('opacity', '1');
  await screenshot(page, 'reclaim-preview');
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByTestId('confirm-reclaim').click();

  await expect(page.getByTestId('reclaim-result')).toContainText('1 done, 0 left alone');
  // No longer Released: it leaves the center, and the volumes list shows it Available.
  await expect(row).toHaveCount(0, { timeout: 15_000 });
  await expect.poll(() => phaseOf('PersistentVolume', pv), { message: 'the volume is Available', timeout: 20_000 }).toBe('Available');
  const after = await getObject<Obj>('PersistentVolume', pv);
  expect((after.spec as { claimRef?: unknown }).claimRef).toBeUndefined();

  await page.goto(`/volumes?q=${pv}`);
  const listRow = page.getByTestId('object-row').filter({ has: page.getByRole('link', { name: pv, exact: true }) });
  await expect(listRow.getByTestId('status-badge')).toHaveAttribute('data-status', 'Available');

  // The action left an Event on the volume, naming who did it.
  await listRow.getByRole('link', { name: pv, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/volumes/${pv}$`));
  await page.getByRole('tab', { name: 'Events' }).click();
  const event = page.getByTestId('event-row').filter({ hasText: 'MadeAvailable' });
  await expect(event).toHaveCount(1);
  await expect(event).toContainText(`user admin made the volume Available from the reclaim center: claimRef default/${claim} cleared`);
  await expect(event.getByTestId('status-badge')).toHaveText('Normal');
});

test('the reclaim center refuses to act on a volume whose claim a pod uses', async ({ page }) => {
  const pv = uniqueName('pv-inuse');
  const claim = uniqueName('claim-inuse');
  const manifest = pvManifest(pv);
  await createObject(manifest);
  await createObject(pvcManifest(claim, 'default', '1Gi', manifest.spec.storageClassName), 'default');
  await createObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: uniqueName('pod-inuse'), namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }] } }, 'default');
  const idle = uniqueName('claim-idle');
  await createObject(pvcManifest(idle, 'default', '1Gi', uniqueName('no-such-class')), 'default');
  await expect.poll(() => phaseOf('PersistentVolume', pv), { message: 'the volume binds', timeout: 20_000 }).toBe('Bound');

  await signInAsAdmin(page, '/reclaim');
  await page.getByRole('textbox', { name: 'Unused for at least (days)' }).fill('0');
  // A claim a pod uses is never listed as unused.
  await expect(page.getByRole('heading', { name: /Claims unused for 0 days/ })).toBeVisible();
  // A claim no pod uses is.
  await expect(page.getByTestId('reclaim-claim').filter({ hasText: idle })).toBeVisible();
  await expect(page.getByTestId('reclaim-claim').filter({ hasText: claim })).toHaveCount(0);
  // Nor is its Bound volume listed for reclaim.
  await expect(page.getByTestId('reclaim-volume').filter({ hasText: pv })).toHaveCount(0);
});

test('an admin pre-binds a Released volume to a waiting claim, which then binds it', async ({ page }) => {
  test.setTimeout(90_000);
  const pv = uniqueName('pv-prebind');
  const first = uniqueName('claim-first');
  const next = uniqueName('claim-next');
  const manifest = pvManifest(pv);
  const cls = manifest.spec.storageClassName;
  await createObject(manifest);
  await createObject(pvcManifest(first, 'default', '1Gi', cls), 'default');
  await expect.poll(() => phaseOf('PersistentVolume', pv), { message: 'the volume binds', timeout: 20_000 }).toBe('Bound');
  await deleteObject('PersistentVolumeClaim', first, 'default');
  await expect.poll(() => phaseOf('PersistentVolume', pv), { message: 'the volume is Released', timeout: 20_000 }).toBe('Released');
  // A claim of the same class waits: a Released volume is not handed out by itself.
  await createObject(pvcManifest(next, 'default', '1Gi', cls), 'default');
  await expect.poll(() => phaseOf('PersistentVolumeClaim', next, 'default'), { timeout: 10_000 }).toBe('Pending');

  await signInAsAdmin(page, '/reclaim');
  const row = page.getByTestId('reclaim-volume').filter({ has: page.getByRole('link', { name: pv, exact: true }) });
  await row.getByRole('checkbox', { name: `Select volume ${pv}` }).check();
  await page.getByTestId('volume-actions').getByRole('button', { name: 'Pre-bind to claim…' }).click();
  await page.getByRole('textbox', { name: 'Claim' }).fill(`default/${next}`);
  await page.getByRole('button', { name: 'Preview' }).click();
  await expect(page.getByTestId('preview-row')).toContainText(`claimRef default/${first} → default/${next}`);
  await page.getByTestId('confirm-reclaim').click();
  await expect(page.getByTestId('reclaim-result')).toContainText('1 done, 0 left alone');

  await expect.poll(() => phaseOf('PersistentVolumeClaim', next, 'default'), { message: 'the waiting claim binds', timeout: 20_000 }).toBe('Bound');
  const claim = await getObject<Obj & { spec: { volumeName?: string } }>('PersistentVolumeClaim', next, 'default');
  expect(claim.spec.volumeName).toBe(pv);
});
