// ESLint, run by `npm run lint` (part of `npm test`). The type-aware rules of
// typescript-eslint catch what tsc does not: a promise nobody awaits or catches, a promise
// where a callback's return is ignored, a `switch` over a union that misses a member.
// React's hooks rules apply to the dashboard (components/, app/), Next.js's to the pages.
// A finding is fixed, or disabled on its line with the reason
// (`// eslint-disable-next-line <rule> -- why`); a rule is off project-wide only below,
// with its reason.
import js from '@eslint/js';
import nextPlugin from '@next/eslint-plugin-next';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const nodeGlobals = Object.fromEntries(
  ['process', 'console', 'Buffer', 'URL', 'performance', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'module', 'require', '__dirname'].map((name) => [
    name,
    'readonly',
  ]),
);

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.next/',
      'dist/',
      'server/store/generated/',
      '.stowage/',
      '.stowage-cluster/',
      'examples/',
      'test-results/',
      'playwright-report/',
      'next-env.d.ts',
    ],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        // A `default` that handles the rest is a decision, not an omission.
        { considerDefaultExhaustiveForUnions: true },
      ],
      // Off: an explicit `any` is allowed only at a parse boundary (JSON of any age from the
      // database, a kubectl or HTTP body before zod), and `no-explicit-any` below makes each
      // one visible with its reason. The no-unsafe-* family would then flag every use
      // downstream of such a boundary, and every use of `JSON.parse` / `res.json()`: about
      // 1,200 lines, most of them tests asserting on a response body, where the assertion
      // is the check. Zod at the boundary is the house rule for untyped data.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      // Off: each line it flagged (26) turns a field of open JSON into text (`String(x ?? '')`,
      // a name or a quantity that is a string when well-formed); after `??` the rule sees
      // `{}` and cannot tell that from an object, so it would flag every such display.
      '@typescript-eslint/no-base-to-string': 'off',
      // Passing on a caught error (`.catch((e) => (ok(e) ? undefined : Promise.reject(e)))`)
      // keeps it as it was; only new rejections must be Errors.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // Off: an `async` function that does not await implements a Promise-returning
      // contract (a fake OS, a plugin, a store method); dropping `async` would turn its
      // throws into synchronous throws, a change of behaviour, to please the rule.
      '@typescript-eslint/require-await': 'off',
      // Off: interfaces here declare members with method syntax (`close(): Promise<void>`)
      // and implement them with closures that never use `this`, so passing `hs.close` or
      // destructuring `{ get }` is safe; the rule cannot see the implementation and flags
      // every such line (32).
      '@typescript-eslint/unbound-method': 'off',
      // `_name` marks a parameter or binding kept for its position.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Tests set hostile scenes: untyped bodies, shapes a type would forbid.
    // The benches and the chaos and cluster tools read kubectl and HTTP JSON the same way.
    files: ['**/*.test.{ts,tsx}', 'test/**', 'e2e/**', 'bench/**', 'scripts/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.cjs', '**/*.js'],
    languageOptions: { globals: nodeGlobals },
  },
  {
    files: ['components/**/*.{ts,tsx}', 'app/**/*.{ts,tsx}'],
    // The classic rules of react-hooks' recommended set, as errors. Its other rules are
    // the React Compiler's (refs, set-state-in-effect, static-components ...): they run the
    // compiler over every component, a quarter of the whole lint's time, and describe what
    // the compiler could memoise; the dashboard is not built with it. On the day it is,
    // take `reactHooks.configs.flat.recommended` whole.
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    files: ['app/**/*.{ts,tsx}'],
    extends: [nextPlugin.configs['core-web-vitals']],
    settings: { next: { rootDir: '.' } },
  },
);
