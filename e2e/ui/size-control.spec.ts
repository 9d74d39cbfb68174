// One size control everywhere: an amount and a unit. A bare number takes the unit shown
// (a quota of "500" is 500Gi, never 500 bytes); a whole quantity typed or pasted is read as
// written and the unit follows it.
import { createObject, getObject, type Obj } from '../api';
import { expect, signInAsAdmin, test, uniqueName } from '../helpers';

test('the claim form reads a typed quantity as written and asks for the exact quantity', async ({ page }) => {
  await signInAsAdmin(page, '/claims/new');
  const size = page.getByRole('textbox', { name: 'Size' });
  const unit = page.getByRole('combobox', { name: 'Unit' });
  await expect(unit).toHaveValue('Gi');

  await size.fill('1.5Ti');
  await expect(unit).toHaveValue('Ti');
  await size.press('Tab');
  await expect(size).toHaveValue('1.5');
  await expect(size).toHaveAttribute('data-quantity', '1536Gi');

  await size.fill('500M');
  await expect(unit).toHaveValue('M');
  await size.press('Tab');
  await expect(size).toHaveValue('500');
  await expect(size).toHaveAttribute('title', 'Asks for 500M');

  // A bare number keeps the unit shown.
  await unit.selectOption('Gi');
  await size.fill('20');
  await expect(size).toHaveAttribute('data-quantity', '20Gi');
  await page.getByRole('tab', { name: 'YAML' }).click();
  await expect(page.getByTestId('claim-yaml')).toContainText('storage: 20Gi');
});

test('a quota of 500 is 500Gi, and a count is a plain number', async ({ page }) => {
  const ns = uniqueName('size-ns');
  const name = uniqueName('size-quota');
  await createObject({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await signInAsAdmin(page, `/new/quota?namespace=${ns}`);
  const form = page.getByRole('form', { name: 'Quota' });
  await expect(form.getByRole('combobox', { name: 'Namespace' })).toHaveValue(ns);
  await form.getByRole('textbox', { name: 'Name' }).fill(name);
  await form.getByRole('textbox', { name: 'Amount 1' }).fill('500');
  await expect(form.getByRole('combobox', { name: 'Unit 1' })).toHaveValue('Gi');
  await form.getByRole('button', { name: 'Add limit' }).click();
  await form.getByRole('combobox', { name: 'Resource 2' }).fill('persistentvolumeclaims');
  await form.getByRole('textbox', { name: 'Amount 2' }).fill('10');
  await form.getByRole('button', { name: 'Create quota' }).click();
  await expect(page).toHaveURL(new RegExp(`/quotas/${ns}/${name}$`));
  const saved = await getObject<Obj & { spec: { hard: Record<string, string> } }>('ResourceQuota', name, ns);
  expect(saved.spec.hard).toEqual({ 'requests.storage': '500Gi', persistentvolumeclaims: '10' });
});
