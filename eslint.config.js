// ESLint (flat config): typescript-eslint's recommended rules on every hand-written source, plus the
// few that keep the public API honest. Formatting is prettier's job (.prettierrc.json), not lint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'packages/protocol/src/wire/**',
      'packages/protocol/schema/**',
      'test/fixtures/**',
      'examples/.doc-snippets-*/**',
      '.bench-out/**',
      'coverage/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      // `_`-prefixed parameters are deliberate (a handler's signature); everything else unused is a bug
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      // off, each for a reason: a value set before a `try` that may throw is read after it
      // (no-useless-assignment misreads that); `const self = this` names the object inside getters of
      // an object literal; ANSI escape sequences are matched on purpose; commander's generics take `{}`
      'no-useless-assignment': 'off',
      // a `let` that a callback reads before its one assignment cannot be a const
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-this-alias': 'off',
      'no-control-regex': 'off',
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'always', allowObjectTypes: 'always' }],
      // `import('x').T` in a signature is how a lazily loaded module's types are named without loading it
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
    },
  },
  {
    // tests poke at raw wire values on purpose (malformed messages, private fields): `any` is their tool
    // (and `let x!: T` assigned once inside a callback is how a test names what a hook creates)
    files: ['test/**', 'packages/*/test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'prefer-const': 'off' },
  },
  {
    // functions of the inspector bench run inside the page (playwright's page.evaluate)
    files: ['bench/inspector.mjs'],
    languageOptions: {
      globals: { PerformanceObserver: 'readonly', MutationObserver: 'readonly', requestAnimationFrame: 'readonly' },
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    rules: {
      'no-useless-assignment': 'off',
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        performance: 'readonly',
        structuredClone: 'readonly',
        fetch: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        AbortController: 'readonly',
        queueMicrotask: 'readonly',
        globalThis: 'readonly',
        document: 'readonly',
        window: 'readonly',
      },
    },
  },
);
