// Lint: typescript-eslint's recommended rules, plus the boundaries that keep the engine pure:
// lib/engine imports nothing from Next, BullMQ, Prisma or lib/env, never reads process.env, and
// loads no connector client library: the sources and sinks that talk to an external system live
// in lib/connectors and register into the engine's registries, so a new connector (Kafka) touches
// lib/connectors and nothing in the engine core.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Bare package names only (a regex, so that a relative path such as './pg-test-database' is not caught).
const CLIENT_LIBRARY = '^(pg|pg-[a-z-]+|ioredis|nats|@nats-io/.+|@aws-sdk/.+|kafkajs)$';
const clientLibraryPattern = { regex: CLIENT_LIBRARY, message: 'lib/engine must not load a connector client library: put the connector in lib/connectors/<name> and register it there.' };
const connectorsPattern = { group: ['**/connectors', '**/connectors/*', '**/connectors/**', '@/lib/connectors', '@/lib/connectors/*'], message: 'lib/engine must not import lib/connectors: connectors depend on the engine, never the reverse.' };
const clientLibraryImportSyntax = {
  selector: `ImportExpression[source.value=/${CLIENT_LIBRARY.replaceAll('/', '\\/')}/]`,
  message: 'lib/engine must not load a connector client library, not even lazily: put the connector in lib/connectors/<name>.',
};

// Test support lives in testing/ folders; production code never imports it, nor vitest.
const testSupportPatterns = [
  { group: ['**/testing', '**/testing/*', '**/testing/**', '@/lib/testing', '@/lib/testing/*'], message: 'Production code must not import test support (testing/ folders): it belongs to tests.' },
  { group: ['vitest', 'vitest/*', '@vitest/*'], message: 'Production code must not import vitest: put test support in a testing/ folder.' },
];
// Test files, test support, and the programs that only run in development or CI.
const NOT_PRODUCTION = ['**/*.test.ts', '**/*.test.tsx', '**/testing/**', 'e2e/**', 'bench/**', 'vitest.config.ts', 'playwright.config.ts'];

const engineForbidden = {
  patterns: [
    clientLibraryPattern,
    connectorsPattern,
    { group: ['next', 'next/*'], message: 'lib/engine must not depend on Next.js.' },
    { group: ['bullmq', 'bullmq/*'], message: 'lib/engine must not depend on BullMQ.' },
    { group: ['prisma', '@prisma/*', '**/generated/**'], message: 'lib/engine must not depend on Prisma.' },
    { group: ['**/lib/env', '**/env', '@/lib/env', '@/lib/server/*', '@/lib/queue/*', '**/server/*', '**/queue/*'], message: 'lib/engine takes options; configuration is read in lib/env.ts only.' },
  ],
};

// The control plane's layers: services (writes) never import presenters (reads) or http/ (the
// API's request handling); what both need (domain errors, the job view, checkpoint access,
// secret masking) lives beside them in lib/server. scripts/lint-boundary.test.ts proves each rule bites.
const servicesPatterns = [
  { group: ['**/presenters', '**/presenters/*', '@/lib/server/presenters/*', '**/*-presenter'], message: 'A service (lib/server/services, *-service.ts) must not import presenters: move what both need beside them (job-view.ts, alerts/alert-view.ts, checkpoint-access.ts, secret-masking.ts).' },
  { group: ['**/server/http/*', '../http/*', '../../http/*', './http/*', '@/lib/server/http/*'], message: 'A service (lib/server/services, *-service.ts) must not import http/ (the API only): throw a domain error from lib/server/errors.ts.' },
];
// Connectors reach the engine through its public index (lib/engine/index.ts) only, so the engine
// may move its internals without touching a connector. Connector tests may use the engine's test
// support (testing/ folders) too.
const connectorEnginePatterns = [
  { group: ['**/engine/*', '**/engine/**', '!**/engine/index', '@/lib/engine/*', '@/lib/engine/**', '!@/lib/engine/index'], message: 'lib/connectors imports the engine only through its public index (lib/engine/index.ts): import from the engine folder itself, and export what is missing there.' },
];

export default tseslint.config(
  { ignores: ['node_modules/', '.next/', '.data/', 'lib/generated/', 'next-env.d.ts', 'test-results/', 'playwright-report/', 'e2e/artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Type-aware rules: a promise nobody awaits loses its error, a promise where a callback's
    // return is ignored runs unobserved, and a switch over a union that misses a member fails
    // silently when the union grows. Type information comes from tsconfig.json.
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
    },
  },
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', fetch: 'readonly', Response: 'readonly', Request: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', AbortController: 'readonly', structuredClone: 'readonly', window: 'readonly', document: 'readonly', performance: 'readonly', queueMicrotask: 'readonly', setImmediate: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      'no-undef': 'off',
    },
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    ignores: NOT_PRODUCTION,
    rules: {
      'no-restricted-imports': ['error', { patterns: testSupportPatterns }],
    },
  },
  {
    files: ['lib/engine/**/*.ts'],
    rules: {
      // One rule entry per file (a later entry replaces an earlier one): the engine's list
      // carries the test-support patterns too, except for tests and test support.
      'no-restricted-imports': ['error', { patterns: [...engineForbidden.patterns, ...testSupportPatterns] }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'lib/engine never reads process.env; take options instead.' }],
      'no-restricted-syntax': ['error',
        { selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: 'Use the injected Clock, not Date.now().' },
        { selector: "CallExpression[callee.name='eval']", message: 'No eval in the engine.' },
        { selector: "NewExpression[callee.name='Function']", message: 'No new Function in the engine.' },
        clientLibraryImportSyntax,
      ],
    },
  },
  {
    // An engine test may run the engine against a real connector (an integration test imports
    // lib/connectors to register it); it still may not use a client library itself.
    files: ['lib/engine/**/*.test.ts', 'lib/engine/**/testing/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: engineForbidden.patterns.filter((p) => p !== connectorsPattern) }],
    },
  },
  {
    files: ['lib/server/services/**/*.ts', 'lib/server/**/*-service.ts'],
    ignores: NOT_PRODUCTION,
    rules: { 'no-restricted-imports': ['error', { patterns: [...servicesPatterns, ...testSupportPatterns] }] },
  },
  {
    files: ['lib/connectors/**/*.ts'],
    ignores: NOT_PRODUCTION,
    rules: { 'no-restricted-imports': ['error', { patterns: [...connectorEnginePatterns, ...testSupportPatterns] }] },
  },
);
