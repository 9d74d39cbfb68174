import { e2eEnv } from '../env';
import { expect, signInAsAdminByForm, test } from '../helpers';

test('a wrong password shows an error and signs nobody in', async ({ page }) => {
  await page.goto('/volumes');
  await expect(page).toHaveURL(/\/login\?next=%2Fvolumes/);
  await page.getByRole('textbox', { name: 'User name' }).fill('admin');
  await page.getByRole('textbox', { name: 'Password' }).fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('login-error')).toBeVisible();
  await expect(page.getByTestId('login-error')).toContainText(/password/i);
  await expect(page).toHaveURL(/\/login/);
});

test('signing in returns to the page asked for; signing out ends the session', async ({ page }) => {
  await signInAsAdminByForm(page, '/storage-classes');
  await expect(page).toHaveURL(/\/storage-classes$/);
  await expect(page.getByRole('heading', { name: 'Storage classes' })).toBeVisible();
  await expect(page.getByTestId('user-role')).toHaveText('admin');
  await expect(page.getByTestId('live-indicator')).toHaveAttribute('data-status', 'live');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login/);
  await page.goto('/volumes');
  await expect(page).toHaveURL(/\/login\?next=%2Fvolumes/);
  expect(e2eEnv('url')).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
});
