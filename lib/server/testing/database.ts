/**
 * The control plane's integration tests: a test database (lib/testing/pg-test-database.ts) with
 * Weir's migrations applied, unless `migrate: false` (a test of the migrations themselves).
 */
import { createTestDatabase as createDatabase, type TestDatabase } from '../../testing/pg-test-database';
import { migrate } from '../migrate';

export { TEST_PG, type TestDatabase } from '../../testing/pg-test-database';

export function createTestDatabase(prefix = 'weir_test', opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  return createDatabase(prefix, { migrate: opts.migrate === false ? undefined : migrate });
}
