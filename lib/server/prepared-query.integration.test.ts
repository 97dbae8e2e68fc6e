/**
 * The hot reads' statements are prepared once per connection by name, up to MAX_PREPARED texts:
 * a text beyond them is sent unnamed and still answered, so no connection keeps more.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '@/lib/generated/prisma/client';
import { MAX_PREPARED, queryPrepared } from './prepared-query';
import { createTestDatabase, type TestDatabase } from './testing/database';

let database: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase('weir_prepared', { migrate: false });
  // One connection, so every statement meets the same session.
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

describe('queryPrepared over a pg pool', () => {
  it('prepares the first MAX_PREPARED texts once each and sends the rest unnamed', async () => {
    const texts = MAX_PREPARED + 25;
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < texts; i++) {
        const rows = await queryPrepared<{ n: number; v: number }>(pool, Prisma.sql`SELECT ${Prisma.raw(String(i))}::int AS n, ${round}::int AS v`);
        expect(rows).toEqual([{ n: i, v: round }]);
      }
    }
    const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM pg_prepared_statements WHERE name LIKE 'weir\\_%'`);
    expect(Number(rows[0].n)).toBe(MAX_PREPARED);
  }, 120_000);
});
