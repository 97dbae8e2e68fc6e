/**
 * Test support: a uniquely named database on this machine's PostgreSQL, created for one test
 * file and dropped after it, so parallel test files and other engineers' databases never meet.
 * The server address is an argument (tests pass the local default), never read from process.env.
 */
import pg from 'pg';
import { quoteIdent } from '../pg-util';

export interface TestDatabase {
  name: string;
  url: string;
  pool: pg.Pool;
  drop(): Promise<void>;
}

export async function createTestDatabase(prefix: string, server = 'postgres://postgres@127.0.0.1:5432'): Promise<TestDatabase> {
  const name = `weir_${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`.toLowerCase();
  const admin = new pg.Client({ connectionString: `${server}/postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
  await admin.end();
  const url = `${server}/${name}`;
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  pool.on('error', () => {});
  return {
    name,
    url,
    pool,
    async drop() {
      await pool.end().catch(() => undefined);
      const c = new pg.Client({ connectionString: `${server}/postgres` });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
      await c.end();
    },
  };
}
