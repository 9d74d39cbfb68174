// The static volume form: an admin makes a local volume on a node picked from the nodes,
// after the form refused what the API would refuse.
import { getObject, objectNames, type Obj } from '../api';
import { expect, screenshot, settledVolume, signInAsAdmin, test, uniqueName } from '../helpers';

test('an admin creates a local volume on a node through the form', async ({ page }) => {
  const name = uniqueName('pv-form');
  await signInAsAdmin(page, '/volumes');
  await page.getByRole('link', { name: 'Create volume' }).first().click();
  await expect(page.getByRole('heading', { level: 1, name: 'Create volume' })).toBeVisible();

  await page.getByRole('textbox', { name: 'Name' }).fill(name);
  await page.getByText('Local path on a node').click();
  await page.getByRole('textbox', { name: 'Path on the node' }).fill('/srv/../etc');
  await page.getByTestId('save-volume').click();
  const errors = page.getByTestId('form-errors');
  await expect(errors).toContainText('a local volume lives on one node');
  await expect(errors).toContainText('spec.local.path');

  await page.getByRole('textbox', { name: 'Path on the node' }).fill(`/srv/stowage-e2e/${name}`);
  const [node] = await objectNames('Node');
  expect(node, 'the server has a node').toBeTruthy();
  const nodeBox = page.getByRole('combobox', { name: 'Node', exact: true });
  await nodeBox.click();
  await nodeBox.fill(node);
  await page.getByRole('option', { name: node, exact: true }).click();
  await expect(nodeBox).toHaveValue(node);
  await page.getByRole('textbox', { name: 'Capacity' }).fill('2Gi');
  await expect(page.getByRole('combobox', { name: 'Unit' })).toHaveValue('Gi');
  await page.getByRole('combobox', { name: 'Storage class' }).fill(`static-${name}`);
  await expect(errors).toHaveCount(0);
  await screenshot(page, 'volume-form');
  await page.getByTestId('save-volume').click();

  await expect(page).toHaveURL(new RegExp(`/volumes/${name}$`));
  await settledVolume(name);
  const pv = await getObject<Obj & { spec: Record<string, any> }>('PersistentVolume', name);
  expect(pv.spec.local).toEqual({ path: `/srv/stowage-e2e/${name}` });
  expect(pv.spec.capacity).toEqual({ storage: '2Gi' });
  expect(pv.spec.storageClassName).toBe(`static-${name}`);
  expect(pv.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0]).toEqual({ key: 'kubernetes.io/hostname', operator: 'In', values: [node] });
});
