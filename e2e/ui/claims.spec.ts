import { createObject, getObject } from '../api';
import { DEV_USER } from '../env';
import { expect, pvcManifest, pvManifest, screenshot, setEditorText, signInAsAdmin, signInAsDeveloper, test, toYaml, uniqueName } from '../helpers';

test('a developer sees only the claims of their namespace, and no volumes', async ({ page }) => {
  const mine = uniqueName('claim-mine');
  const theirs = uniqueName('claim-theirs');
  await createObject(pvcManifest(mine, DEV_USER.namespace));
  await createObject(pvcManifest(theirs, DEV_USER.otherNamespace));

  await signInAsDeveloper(page);
  await expect(page.getByTestId('user-role')).toHaveText('developer');
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Claims' })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Storage classes' })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Volumes' })).toHaveCount(0);
  await expect(nav.getByRole('link', { name: 'Nodes' })).toHaveCount(0);

  await nav.getByRole('link', { name: 'Claims' }).click();
  await expect(page.getByRole('link', { name: mine, exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: theirs, exact: true })).toHaveCount(0);
  for (const ns of await page.getByTestId('object-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-namespace')))) {
    expect(ns).toBe(DEV_USER.namespace);
  }

  // Self-service: a claim in their own namespace, from YAML.
  const requested = uniqueName('claim-new');
  await page.getByRole('link', { name: 'Create claim', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Request storage' })).toBeVisible();
  await page.getByRole('tab', { name: 'YAML' }).click();
  await page.getByRole('link', { name: 'Open the YAML editor' }).click();
  await expect(page.getByRole('combobox', { name: 'Kind' })).toHaveValue('PersistentVolumeClaim');
  await expect(page.getByRole('textbox', { name: 'Namespace' }).or(page.getByRole('combobox', { name: 'Namespace' }))).toHaveValue(DEV_USER.namespace);
  await setEditorText(page, toYaml({ ...pvcManifest(requested, DEV_USER.namespace), metadata: { name: requested } }));
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/claims/${DEV_USER.namespace}/${requested}$`));
  await expect(page.getByTestId('summary')).toContainText(/Pending|Bound/);

  await page.goto('/volumes');
  await expect(page.getByTestId('forbidden')).toBeVisible();
  await expect(page.getByTestId('object-table')).toHaveCount(0);
  await page.goto(`/claims/${DEV_USER.otherNamespace}/${theirs}`);
  await expect(page.getByTestId('detail-error')).toBeVisible();
  await expect(page.getByText(theirs, { exact: true }).first()).toBeVisible(); // the title only
  await expect(page.getByTestId('summary')).toHaveCount(0);
});

test('a claim links to its volume and its class; its page shows YAML and events', async ({ page }) => {
  const pv = uniqueName('pv-for-claim');
  const claim = uniqueName('data');
  // A class of their own: no other test's Pending claim can take the volume first.
  const cls = uniqueName('manual');
  await createObject(pvManifest(pv, { storage: '10Gi', storageClassName: cls }));
  await createObject({ ...pvcManifest(claim, 'default', '10Gi', cls), spec: { ...pvcManifest(claim, 'default', '10Gi', cls).spec, volumeName: pv } });

  await signInAsAdmin(page, '/claims');
  const row = page.getByTestId('object-row').filter({ has: page.getByRole('link', { name: claim, exact: true }) });
  await expect(row.getByRole('link', { name: pv })).toBeVisible();
  await row.getByRole('link', { name: claim, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/claims/default/${claim}$`));
  await expect(page.getByTestId('summary')).toContainText('10 GiB');
  await expect(page.getByTestId('summary').getByRole('link', { name: cls })).toHaveAttribute('href', `/storage-classes/${cls}`);
  await expect(page.getByRole('tab', { name: 'Events' })).toBeVisible();
  await expect(page.getByTestId('no-events')).toBeVisible();

  // An event about the claim, recorded elsewhere (as a controller would), shows up live.
  const created = await getObject('PersistentVolumeClaim', claim, 'default');
  const now = new Date().toISOString();
  await createObject({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${claim}.e2e`, namespace: 'default' },
    involvedObject: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'default', name: claim, uid: created.metadata.uid },
    type: 'Warning',
    reason: 'VolumeMismatch',
    message: `Cannot bind to requested volume "${pv}": e2e says so`,
    source: { component: 'e2e' },
    firstTimestamp: now,
    lastTimestamp: now,
    count: 2,
  });
  const event = page.getByTestId('event-row');
  await expect(event).toHaveCount(1);
  await expect(event).toContainText('VolumeMismatch');
  await expect(event).toContainText('e2e says so');
  await expect(event.getByTestId('status-badge')).toHaveText('Warning');
  await screenshot(page, 'claim-detail');

  await page.getByRole('tab', { name: 'YAML' }).click();
  await expect(page.getByTestId('object-yaml')).toContainText(`name: ${claim}`);
  await page.getByTestId('summary').getByRole('link', { name: pv }).click();
  await expect(page).toHaveURL(new RegExp(`/volumes/${pv}$`));

  // The Events page lists it, and links to the object it is about.
  await page.goto('/events');
  const eventRow = page.getByTestId('object-row').filter({ hasText: 'e2e says so' });
  await expect(eventRow).toBeVisible();
  await eventRow.getByRole('link', { name: `persistentvolumeclaim/${claim}` }).click();
  await expect(page).toHaveURL(new RegExp(`/claims/default/${claim}$`));
});

test('storage classes show the default marker and their columns', async ({ page }) => {
  const fast = uniqueName('fast');
  const standard = uniqueName('standard');
  await createObject({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: standard, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: 'kubernetes.io/no-provisioner',
    volumeBindingMode: 'WaitForFirstConsumer',
  });
  await createObject({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: fast },
    provisioner: 'example.com/fast',
    reclaimPolicy: 'Retain',
    allowVolumeExpansion: true,
  });
  await signInAsAdmin(page, '/storage-classes');
  await expect(page.getByRole('columnheader')).toHaveText(['', /^NAME/, /^PROVISIONER/, /^RECLAIMPOLICY/, /^VOLUMEBINDINGMODE/, /^ALLOWVOLUMEEXPANSION/, /^AGE/]);
  // Only the rows in view are rendered (other tests make many classes): find each by name.
  const filter = page.getByRole('textbox', { name: 'Filter by text' });
  await filter.fill(standard);
  const def = page.getByTestId('object-row').filter({ has: page.getByRole('link', { name: standard, exact: true }) });
  await expect(def.getByTestId('default-class')).toHaveText('(default)');
  await filter.fill(fast);
  const other = page.getByTestId('object-row').filter({ has: page.getByRole('link', { name: fast, exact: true }) });
  await expect(other).toContainText('Retain');
  await expect(other).toContainText('true');
  await expect(other.getByTestId('default-class')).toHaveCount(0);
  await screenshot(page, 'storage-classes');
});
