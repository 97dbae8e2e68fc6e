// Lint: typescript-eslint's recommended rules, plus the boundary that keeps the engine pure:
// lib/engine imports nothing from Next, BullMQ, Prisma or lib/env, and never reads process.env.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const engineForbidden = {
  patterns: [
    { group: ['next', 'next/*'], message: 'lib/engine must not depend on Next.js.' },
    { group: ['bullmq', 'bullmq/*'], message: 'lib/engine must not depend on BullMQ.' },
    { group: ['prisma', '@prisma/*', '**/generated/**'], message: 'lib/engine must not depend on Prisma.' },
    { group: ['**/lib/env', '**/env', '@/lib/env', '@/lib/server/*', '@/lib/queue/*', '**/server/*', '**/queue/*'], message: 'lib/engine takes options; configuration is read in lib/env.ts only.' },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules/', '.next/', '.data/', 'lib/generated/', 'next-env.d.ts', 'test-results/', 'playwright-report/', 'e2e/artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', fetch: 'readonly', Response: 'readonly', Request: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', AbortController: 'readonly', structuredClone: 'readonly', window: 'readonly', document: 'readonly', performance: 'readonly', queueMicrotask: 'readonly', setImmediate: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      'no-undef': 'off',
    },
  },
  {
    files: ['lib/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', engineForbidden],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'lib/engine never reads process.env; take options instead.' }],
      'no-restricted-syntax': ['error',
        { selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: 'Use the injected Clock, not Date.now().' },
        { selector: "CallExpression[callee.name='eval']", message: 'No eval in the engine.' },
        { selector: "NewExpression[callee.name='Function']", message: 'No new Function in the engine.' },
      ],
    },
  },
);
