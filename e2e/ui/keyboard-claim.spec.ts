// A developer requests a claim with the keyboard alone: the command palette opens the
// claim form, Tab and the arrow keys fill it (name, class, size), Enter submits it. No
// mouse, no fill(): every step is a key press.
import type { Locator, Page } from '@playwright/test';
import { createObject, getObject, type Obj } from '../api';
import { DEV_USER } from '../env';
import { expect, signInAsDeveloper, test, uniqueName } from '../helpers';

const isFocused = (l: Locator) => l.evaluate((el) => el === document.activeElement).catch(() => false);

/** Presses `key` until `target` has the focus (bounded), as a keyboard user tabs through a page. */
async function pressUntilFocused(page: Page, key: string, target: Locator, max = 60): Promise<void> {
  for (let i = 0; i < max && !(await isFocused(target)); i++) await page.keyboard.press(key);
  await expect(target).toBeFocused();
}

test('a developer creates a claim with the keyboard alone: palette, name, class, size, Enter', async ({ page }) => {
  const cls = uniqueName('kbd-class');
  const claim = uniqueName('kbd-claim');
  await createObject({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: cls, annotations: { 'storageclass.kubernetes.io/description': 'Keyboard test class' } },
    provisioner: 'kubernetes.io/no-provisioner',
  });

  await signInAsDeveloper(page, '/claims');
  await expect(page.getByRole('heading', { level: 1, name: 'Claims' })).toBeVisible();

  // The palette's "Create claim" action.
  await page.keyboard.press('Control+K');
  const search = page.getByRole('combobox', { name: 'Command palette search' });
  await expect(search).toBeFocused();
  await page.keyboard.type('create claim');
  await expect(page.getByRole('dialog', { name: 'Command palette' }).getByRole('option').first()).toContainText('Create claim');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/claims\/new$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Request storage' })).toBeVisible();

  // Name.
  const name = page.getByRole('textbox', { name: 'Name' });
  await pressUntilFocused(page, 'Tab', name);
  await page.keyboard.type(claim);
  await expect(name).toHaveValue(claim);

  // Class: Tab into the radio group, arrows move the choice.
  const picker = page.getByTestId('class-picker');
  await expect(picker).toContainText(cls);
  const radios = picker.getByRole('radio');
  const wanted = picker.getByRole('radio', { name: new RegExp(cls) });
  await page.keyboard.press('Tab');
  await expect(radios.and(page.locator(':focus'))).toHaveCount(1);
  const count = await radios.count();
  for (let i = 0; i < count && !(await wanted.isChecked()); i++) await page.keyboard.press('ArrowDown');
  await expect(wanted).toBeChecked();
  await expect(wanted).toBeFocused();

  // Size: 512, in Mi (the unit is a native select inside the size control: the arrow keys pick).
  const size = page.getByRole('textbox', { name: 'Size' });
  await pressUntilFocused(page, 'Tab', size, 20);
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('512');
  await expect(size).toHaveValue('512');
  const unit = page.getByRole('combobox', { name: 'Unit' });
  await pressUntilFocused(page, 'Tab', unit, 3);
  for (let i = 0; i < 4 && (await unit.inputValue()) !== 'Mi'; i++) await page.keyboard.press('ArrowUp');
  await expect(unit).toHaveValue('Mi');
  // Picking the unit did not submit the form.
  await expect(page).toHaveURL(/\/claims\/new$/);

  // The check has run: it says what the claim would do (nothing fits this class).
  const check = page.getByTestId('claim-check');
  await expect(check).toHaveAttribute('data-outcome', 'pending');

  // Submit: Tab to the button and press Enter.
  const submit = page.getByRole('button', { name: 'Create claim' });
  await pressUntilFocused(page, 'Tab', submit, 20);
  await page.keyboard.press('Enter');

  await expect(page).toHaveURL(new RegExp(`/claims/${DEV_USER.namespace}/${claim}$`));
  await expect(page.getByRole('heading', { level: 1 })).toContainText(claim);
  const saved = await getObject<Obj & { spec: { storageClassName?: string; resources: { requests: { storage: string } } } }>('PersistentVolumeClaim', claim, DEV_USER.namespace);
  expect(saved.spec.storageClassName).toBe(cls);
  expect(saved.spec.resources.requests.storage).toBe('512Mi');
});
