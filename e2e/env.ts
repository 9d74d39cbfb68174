// What the global setup hands to the tests (through environment variables, which
// Playwright passes from the global setup to its workers).
export const E2E_ENV = {
  url: 'STOWAGE_E2E_URL',
  adminPassword: 'STOWAGE_E2E_ADMIN_PASSWORD',
  adminToken: 'STOWAGE_E2E_ADMIN_TOKEN',
  adminSession: 'STOWAGE_E2E_ADMIN_SESSION',
} as const;

export const SESSION_COOKIE = 'stowage_session';

export const DEV_USER = {
  name: 'dev-e2e',
  password: 'dev-e2e-password-1',
  namespace: 'team-e2e',
  otherNamespace: 'other-e2e',
} as const;

export function e2eEnv(name: keyof typeof E2E_ENV): string {
  const v = process.env[E2E_ENV[name]];
  if (!v) throw new Error(`${E2E_ENV[name]} is not set: run the tests with \`npx playwright test\` (the global setup starts Stowage)`);
  return v;
}
