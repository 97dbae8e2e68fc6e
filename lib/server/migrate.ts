/**
 * Applies prisma/migrations/* to a database, writing Prisma's own `_prisma_migrations` records
 * (same table, same sha256 checksums), so `prisma migrate deploy` and `prisma migrate status`
 * agree with it elsewhere.
 *
 * Why not spawn the Prisma CLI: offline, its WebAssembly engine works (prisma.config.ts) but each
 * invocation takes ~12 s here, most of it after the work is done; `npm start` and every
 * integration test's fresh database would pay that. This applies the same files in ~100 ms, one
 * transaction per migration, under an advisory lock so concurrent starters don't race.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';

const LOCK_KEY = 727_274_001; // arbitrary, constant: "weir migrations"

export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../../prisma/migrations');

export async function listMigrations(dir = MIGRATIONS_DIR): Promise<{ name: string; sql: string; checksum: string }[]> {
  const names = (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/** Returns the names of the migrations applied by this call. */
export async function migrate(connectionString: string, dir = MIGRATIONS_DIR): Promise<string[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const applied = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    const done: string[] = [];
    for (const m of await listMigrations(dir)) {
      const prior = applied.get(m.name);
      if (prior) {
        if (prior !== m.checksum) {
          throw new Error(
            `Migration ${m.name} was edited after it was applied (checksum differs). Migrations are never edited once committed: restore the file and add a new migration.`,
          );
        }
        continue;
      }
      await client.query('BEGIN');
      try {
        const started = new Date();
        await client.query(m.sql);
        await client.query(
          'INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ($1, $2, now(), $3, $4, 1)',
          [randomUUID(), m.checksum, m.name, started],
        );
        await client.query('COMMIT');
        done.push(m.name);
      } catch (e) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${m.name} failed: ${(e as Error).message}`, { cause: e });
      }
    }
    return done;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}
