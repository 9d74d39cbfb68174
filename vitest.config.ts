import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['server/**/*.test.ts', 'components/**/*.test.ts', 'app/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['node_modules/**', 'e2e/**', '.stowage/**', 'examples/**'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
