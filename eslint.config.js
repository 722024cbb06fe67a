// ESLint (flat config): typescript-eslint's recommended rules on every hand-written source, plus the
// few that keep the public API honest. Formatting is prettier's job (.prettierrc.json), not lint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'packages/protocol/src/wire/**', 'packages/protocol/schema/**', 'test/fixtures/**', 'examples/.doc-snippets-*/**', '.bench-out/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      // `_`-prefixed parameters are deliberate (a handler's signature); everything else unused is a bug
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // tests poke at raw wire values on purpose (malformed messages, private fields): `any` is their tool
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', performance: 'readonly', structuredClone: 'readonly', fetch: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', AbortController: 'readonly', queueMicrotask: 'readonly', globalThis: 'readonly', document: 'readonly', window: 'readonly' } },
  },
);
