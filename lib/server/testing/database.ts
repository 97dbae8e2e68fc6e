/**
 * Integration tests get their own database on this machine's PostgreSQL (127.0.0.1:5432, trust
 * auth), migrated, and dropped afterwards; they never touch a database they did not create.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../migrate';

export const TEST_PG = process.env.WEIR_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(prefix = 'weir_test', opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_PG });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(TEST_PG);
  url.pathname = `/${name}`;
  if (opts.migrate !== false) await migrate(url.toString());
  return {
    name,
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: TEST_PG });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}
