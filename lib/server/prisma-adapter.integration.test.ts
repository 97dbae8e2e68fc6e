import { afterAll, describe, expect, it } from 'vitest';
import { PrismaPg } from '@prisma/adapter-pg';
import { NameAsTextPool, retypeNameColumns, WholeScriptPrismaPg } from './prisma-adapter';
import { createTestDatabase } from './testing/database';
import { TEST_PG } from './testing/database';

const pools: NameAsTextPool[] = [];
afterAll(async () => Promise.all(pools.map((p) => p.end())));

describe('the name-as-text shim for the migration adapter', () => {
  it('retypes name, char and name[] result columns only', () => {
    const r = retypeNameColumns({ fields: [{ dataTypeID: 19 }, { dataTypeID: 18 }, { dataTypeID: 1003 }, { dataTypeID: 23 }] });
    expect(r.fields.map((f) => f.dataTypeID)).toEqual([25, 25, 1009, 23]);
  });

  it('lets the Prisma pg adapter read a catalog name column, which it rejects without the shim', async () => {
    const sql = { sql: 'SELECT datname FROM pg_database WHERE datname = $1', args: ['postgres'], argTypes: [{ scalarType: 'string', arity: 'scalar' }] };
    const plain = await new PrismaPg({ connectionString: TEST_PG }).connect();
    await expect(plain.queryRaw(sql as never)).rejects.toThrow();
    await plain.dispose();

    const pool = new NameAsTextPool({ connectionString: TEST_PG });
    pools.push(pool);
    const shimmed = await new PrismaPg(pool).connect();
    const result = await shimmed.queryRaw(sql as never);
    expect(result.rows).toEqual([['postgres']]);
    // Through a transaction too (the adapter checks out a client with the promise form of connect()).
    const tx = await shimmed.startTransaction();
    expect((await tx.queryRaw(sql as never)).rows).toEqual([['postgres']]);
    await tx.rollback();
  });

  it('runs a migration script whole: a PL/pgSQL body and a comment may hold `;`, which the plain adapter splits on', async () => {
    const script = `-- a comment; with a semicolon
      CREATE FUNCTION shim_probe() RETURNS integer LANGUAGE plpgsql AS $$ BEGIN PERFORM 1; RETURN 42; END $$;
      CREATE TABLE shim_probe_t (n integer)`;
    const database = await createTestDatabase('weir_adapter', { migrate: false });
    try {
      const plain = await new PrismaPg({ connectionString: database.url }).connect();
      await expect(plain.executeScript(script)).rejects.toThrow();
      await plain.dispose();

      const whole = await new WholeScriptPrismaPg({ connectionString: database.url }).connect();
      await whole.executeScript(script);
      const r = await whole.queryRaw({ sql: 'SELECT shim_probe() AS n', args: [], argTypes: [] } as never);
      expect(r.rows).toEqual([[42]]);
      // A failing script still surfaces as the adapter's error, and rolls back whole.
      await expect(whole.executeScript('CREATE TABLE shim_probe_2 (n integer); SELECT no_such_column FROM shim_probe_t')).rejects.toThrow();
      expect((await whole.queryRaw({ sql: `SELECT to_regclass('shim_probe_2') IS NULL AS gone`, args: [], argTypes: [] } as never)).rows).toEqual([[true]]);
      await whole.dispose();
    } finally {
      await database.drop();
    }
  });
});
