import { defineConfig } from 'vitest/config';
import path from 'node:path';

export default defineConfig({
  resolve: {
    alias: {
      '@': path.resolve(import.meta.dirname),
      // `server-only` throws unless resolved under the react-server condition (Next's server
      // build; node gets --conditions=react-server). Tests import server modules directly.
      'server-only': path.resolve(import.meta.dirname, 'node_modules/server-only/empty.js'),
    },
  },
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', '.next/**', '.data/**', 'e2e/**'],
    // Timeouts catch a hang, not slowness: many tests spawn CLIs, workers and databases, and on
    // a loaded laptop each of those can take tens of seconds. Tests wait for conditions instead.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Integration tests share this machine's PostgreSQL/Redis/NATS; each creates its own
    // database or key prefix, so files may run in parallel, but 2 cores is the budget.
    maxWorkers: 2,
  },
});
