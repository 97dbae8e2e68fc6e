import { defineConfig } from 'vitest/config';
import path from 'node:path';

/**
 * Two projects, split by file name:
 * - `unit`: every `*.test.ts` but the integration ones. Needs no service; `lib/testing/no-services.ts`
 *   fails a file that connects to PostgreSQL, Redis or NATS or starts kcat, so a new test that
 *   needs one cannot land in the unit suite unnoticed.
 * - `integration`: `*.integration.test.ts`, the tests that use this machine's PostgreSQL, Redis,
 *   NATS JetStream, kcat's mock Kafka broker, or start a PostgreSQL or one of Weir's own programs
 *   (the weir CLI, a worker, the engine or preview process): those take seconds each to start.
 * `npm run test:unit` and `npm run test:integration` run one each; `npx vitest run <file>` runs a
 * file in whichever project it belongs to.
 */
const INTEGRATION = '**/*.integration.test.ts';
const NOT_TESTS = ['node_modules/**', '.next/**', '.data/**', 'e2e/**'];

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
    // Timeouts catch a hang, not slowness: many tests spawn CLIs, workers and databases, and on
    // a loaded laptop each of those can take tens of seconds. Tests wait for conditions instead.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Integration tests share this machine's PostgreSQL/Redis/NATS; each creates its own
    // database or key prefix, so files may run in parallel, but 2 cores is the budget.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['**/*.test.ts'],
          exclude: [...NOT_TESTS, INTEGRATION],
          setupFiles: ['lib/testing/no-services.ts'],
          // Each worker process keeps its modules from one test file to the next. Isolated, every
          // file loaded the SQL grammar (ANTLR) and the engine again, and learned the grammar's
          // prediction paths again (the cost of a process's first queries): half of the unit
          // suite's time. A unit test therefore leaves no module state behind (a spy restored, a
          // registration undone); `--isolate` runs a file, or the suite, isolated as before.
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'integration', include: [INTEGRATION], exclude: NOT_TESTS },
      },
    ],
  },
});
