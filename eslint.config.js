import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules', 'dist', 'data', 'coverage', 'test-artifacts', 'peers/*/node_modules'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': ['error', { ignoreRestArgs: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/db/migrations/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Providers reach platforms only through ctx.outbound, the guarded client (address policy, time limits).
    files: ['src/providers/**'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'fetch', message: 'Use ctx.outbound.fetch: the guarded client checks addresses and enforces time limits.' },
      ],
      'no-restricted-properties': ['error', { object: 'globalThis', property: 'fetch', message: 'Use ctx.outbound.fetch.' }],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'undici', message: 'Use ctx.outbound.fetch.' },
            { name: 'node:http', message: 'Use ctx.outbound.fetch.' },
            { name: 'node:https', message: 'Use ctx.outbound.fetch.' },
          ],
        },
      ],
    },
  },
  {
    files: ['bin/**/*.js'],
    languageOptions: { globals: { process: 'readonly' } },
  },
);
