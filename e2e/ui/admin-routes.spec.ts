// A developer who opens an administrators' form is told at once that the page is for
// administrators, instead of filling the whole form for a raw Forbidden (issue 25, bug 9).
import { createObject } from '../api';
import { expect, signInAsDeveloper, test, uniqueName } from '../helpers';

test("a developer opening an admin's form is told at once it is for administrators", async ({ page }) => {
  const cls = uniqueName('adm');
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'kubernetes.io/no-provisioner' });
  await signInAsDeveloper(page, '/new/storage-class');
  for (const [route, title] of [
    ['/new/storage-class', 'Create storage class'],
    ['/new/volume', 'Create volume'],
    [`/storage-classes/${cls}/edit`, `Edit storage class ${cls}`],
    ['/new/quota', 'Create quota'],
  ]) {
    await page.goto(route);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
    await expect(page.getByTestId('admins-only')).toContainText('This page is for administrators');
    await expect(page.getByRole('textbox', { name: 'Name' })).toHaveCount(0);
  }
});
