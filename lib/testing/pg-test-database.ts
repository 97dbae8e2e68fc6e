/**
 * Test support: a uniquely named database on this machine's PostgreSQL (127.0.0.1:5432, trust
 * auth), created for one test file and dropped after it, so parallel test files and other
 * engineers' databases never meet; a test never touches a database it did not create. The one
 * helper for the engine, the connectors and the control plane: the control plane's tests pass
 * `migrate` (lib/server/testing/database.ts) to get Weir's own tables.
 *
 * The server is `WEIR_TEST_PG_URL` (a URL of any database on it) or the local default.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const TEST_PG = process.env.WEIR_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  name: string;
  url: string;
  /** A small pool on the database (connects on first query; ended by `drop`). */
  pool: pg.Pool;
  drop(): Promise<void>;
}

export interface TestDatabaseOptions {
  /** Run against the new database before it is handed out (the control plane's migrations). */
  migrate?: (url: string) => Promise<unknown>;
}

/** Every name starts with `weir_`, so a database left by a killed test run is recognisable. */
function databaseName(prefix: string): string {
  const base = prefix.startsWith('weir') ? prefix : `weir_${prefix}`;
  return `${base}_${process.pid}_${randomBytes(4).toString('hex')}`.toLowerCase();
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function onServer(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: TEST_PG });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/**
 * Drops the database once the sessions on it are gone. A pool's `end()` resolves once it has
 * asked its connections to close, not once they have: a FORCE drop at that moment terminates a
 * connection still closing, whose client then raises "terminating connection due to administrator
 * command" with nobody listening (an uncaught error that fails the whole test run; seen on a
 * loaded machine). So wait, up to a bound, for the sessions to leave; then drop, with FORCE for a
 * session a test left open.
 */
async function dropWhenIdle(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: TEST_PG });
  await admin.connect();
  try {
    for (let waited = 0; waited < 10_000; waited += 50) {
      const { rows } = await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
      if (rows[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await admin.query(`DROP DATABASE IF EXISTS ${quote(name)} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

export async function createTestDatabase(prefix = 'weir_test', opts: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const name = databaseName(prefix);
  await onServer(`CREATE DATABASE ${quote(name)}`);
  const url = new URL(TEST_PG);
  url.pathname = `/${name}`;
  if (opts.migrate) await opts.migrate(url.toString());
  const pool = new pg.Pool({ connectionString: url.toString(), max: 3 });
  pool.on('error', () => {});
  return {
    name,
    url: url.toString(),
    pool,
    async drop() {
      await pool.end().catch(() => undefined);
      await dropWhenIdle(name);
    },
  };
}
