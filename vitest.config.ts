import { defineConfig } from 'vitest/config';
import path from 'node:path';

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', '.next/**', '.data/**', 'e2e/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests share this machine's PostgreSQL/Redis/NATS; each creates its own
    // database or key prefix, so files may run in parallel, but 2 cores is the budget.
    maxWorkers: 2,
  },
});
