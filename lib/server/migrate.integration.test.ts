import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './testing/database';
import { listMigrations, migrate, MIGRATIONS_DIR } from './migrate';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('weir_migrate', { migrate: false });
});
afterAll(async () => db?.drop());

async function tables(url: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const { rows } = await c.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1");
  await c.end();
  return rows.map((r) => r.tablename);
}

describe('migrate', () => {
  it('creates every model table once, and is idempotent', async () => {
    const first = await migrate(db.url);
    expect(first).toEqual((await listMigrations()).map((m) => m.name));
    expect(await tables(db.url)).toEqual(
      expect.arrayContaining(['Job', 'Run', 'BatchProgress', 'AlertRule', 'Alert', 'AuditEvent', 'ApiToken', 'User', 'Worker', '_prisma_migrations']),
    );
    expect(await migrate(db.url)).toEqual([]);
  });

  it('has an index for batch history by job, newest first', async () => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const { rows } = await c.query(`SELECT indexdef FROM pg_indexes WHERE tablename = 'BatchProgress'`);
    await c.end();
    expect(rows.map((r) => r.indexdef).join('\n')).toMatch(/\("jobId", "batchId" DESC\)/);
  });

  it('refuses a migration edited after it was applied', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-mig-'));
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    const [first] = await listMigrations(dir);
    writeFileSync(path.join(dir, first.name, 'migration.sql'), `${first.sql}\n-- edited`);
    await expect(migrate(db.url, dir)).rejects.toThrow(/was edited after it was applied/);
  });

  it('agrees with `prisma migrate status` (same records Prisma writes)', async () => {
    const { stdout } = await promisify(execFile)('npx', ['prisma', 'migrate', 'status'], {
      env: { ...process.env, DATABASE_URL: db.url },
      cwd: path.resolve(import.meta.dirname, '../..'),
    });
    expect(stdout).toMatch(/Database schema is up to date/);
  });
});
