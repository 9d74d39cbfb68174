// Users and tokens in the browser: an admin adds a developer (the password shown once),
// changes their namespaces; the developer signs in, is told /users is for admins, creates
// an API token (shown once; it works on the API), downloads a kubeconfig, revokes the
// token (it stops working); the admin sees and revokes the developer's kubeconfig token,
// resets the password and removes the user.
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { DEV_USER, e2eEnv } from '../env';
import { expect, screenshotThemes, signIn, signInAsAdmin, test, uniqueName } from '../helpers';

/** Who a bearer token acts as on the dashboard's API, or null when it is refused. */
async function whoIs(token: string): Promise<string | null> {
  const res = await fetch(`${e2eEnv('url')}/api/trpc/auth.me`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { result?: { data: { name: string } | null } };
  return body.result?.data?.name ?? null;
}

test('an admin manages a user; the user manages their own tokens and gets a kubeconfig', async ({ page }) => {
  test.setTimeout(90_000);
  const name = uniqueName('user');

  // The admin adds a developer; the generated password is shown once.
  await signInAsAdmin(page, '/users');
  const form = page.getByRole('form', { name: 'Add a user' });
  await form.getByRole('textbox', { name: 'User name' }).fill(name);
  await form.getByRole('combobox', { name: 'Namespaces' }).fill(DEV_USER.namespace);
  await form.getByRole('combobox', { name: 'Namespaces' }).press('Enter');
  await form.getByRole('button', { name: 'Add user' }).click();
  const password = (await page.getByTestId('new-password-value').textContent()) ?? '';
  expect(password.length).toBeGreaterThanOrEqual(16);
  const row = page.getByTestId('user-row').and(page.locator(`[data-name="${name}"]`));
  await expect(row).toContainText('developer');
  await expect(row).toContainText(DEV_USER.namespace);

  // ... and gives them a second namespace.
  await row.getByRole('button', { name: `Change ${name}` }).click();
  await page.getByRole('dialog').getByRole('combobox', { name: 'Namespaces' }).fill(DEV_USER.otherNamespace);
  await page.getByRole('dialog').getByRole('combobox', { name: 'Namespaces' }).press('Enter');
  await page.getByTestId('save-user').click();
  await expect(row).toContainText(`${DEV_USER.otherNamespace}, ${DEV_USER.namespace}`);
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await screenshotThemes(page, 'users');

  // The developer signs in; /users is not theirs.
  await page.context().clearCookies();
  await signIn(page, name, password, '/users');
  await expect(page.getByTestId('users-error')).toContainText('only administrators may list users');

  // A token: shown once, works on the API, listed by name only.
  await page.goto('/tokens');
  await page.getByRole('textbox', { name: 'Token name' }).fill('ci');
  await page.getByRole('button', { name: 'Create token' }).click();
  const secret = (await page.getByTestId('new-token-value').textContent()) ?? '';
  expect(secret).toMatch(/^swt_/);
  expect(await whoIs(secret)).toBe(name);
  const tokenRow = page.getByTestId('token-row').and(page.locator('[data-name="ci"]'));
  await expect(tokenRow).toBeVisible();
  await expect(page.getByTestId('token-table')).not.toContainText(secret);

  // A kubeconfig for kubectl, with a new token of theirs.
  const downloading = page.waitForEvent('download');
  await page.getByTestId('download-kubeconfig').click();
  const file = await downloading;
  expect(file.suggestedFilename()).toBe(`${name}.kubeconfig`);
  const kubeconfig = parse(await readFile((await file.path()), 'utf8')) as { users: { name: string; user: { token: string } }[]; contexts: { context: { namespace: string } }[] };
  expect(kubeconfig.users[0].name).toBe(name);
  expect(kubeconfig.contexts[0].context.namespace).toBe(DEV_USER.otherNamespace);
  expect(await whoIs(kubeconfig.users[0].user.token)).toBe(name);
  await expect(page.getByTestId('token-row')).toHaveCount(2);
  await screenshotThemes(page, 'tokens');

  // Revoked: gone from the list, refused by the API.
  await tokenRow.getByRole('button', { name: 'Revoke token ci' }).click();
  await page.getByTestId('confirm-revoke').click();
  await expect(tokenRow).toHaveCount(0);
  expect(await whoIs(secret)).toBeNull();

  // The admin revokes the kubeconfig's token, resets the password, removes the user.
  await page.context().clearCookies();
  await signInAsAdmin(page, '/users');
  await expect(row.getByTestId('user-tokens')).toHaveText('1');
  await row.getByRole('button', { name: `Tokens of ${name}` }).click();
  const dialog = page.getByRole('dialog', { name: `API tokens of ${name}` });
  await dialog.getByRole('button', { name: /^Revoke token kubeconfig/ }).click();
  await page.getByTestId('confirm-revoke').click();
  await expect(dialog.getByTestId('no-tokens')).toBeVisible();
  expect(await whoIs(kubeconfig.users[0].user.token)).toBeNull();
  await dialog.getByRole('button', { name: 'Close' }).click();

  await row.getByRole('button', { name: `Reset password of ${name}` }).click();
  await page.getByTestId('confirm-reset').click();
  await expect(page.getByTestId('new-password')).toContainText(`Password of ${name}`);
  expect(await page.getByTestId('new-password-value').textContent()).not.toBe(password);

  await row.getByRole('button', { name: `Remove ${name}` }).click();
  await page.getByTestId('confirm-remove').click();
  await expect(row).toHaveCount(0);
  await expect(page.getByTestId('user-row').and(page.locator('[data-name="admin"]')).getByRole('button', { name: 'Remove admin' })).toBeDisabled();
});
