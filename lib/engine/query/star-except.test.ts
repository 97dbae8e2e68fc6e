/**
 * Spark 4's `* EXCEPT (…)`: `*`, `t.*` and a struct's `s.*` less the columns and fields it names
 * (Spark's UnresolvedStarExcept), with Spark's error classes; the queries of Spark's sql-tests
 * selectExcept.sql over a stream.
 */
import { describe, expect, it } from 'vitest';
import { WeirError } from '../errors';
import type { Row, Schema } from '../types';
import { compileStreamingQuery } from './streaming-query';

const INT = { type: 'long', integral: 32 } as const;
const SCHEMA: Schema = [
  { name: 'id', ...INT },
  { name: 'name', type: 'string' },
  {
    name: 'data', type: 'struct', fields: [
      { name: 'f1', ...INT },
      { name: 's2', type: 'struct', fields: [{ name: 'f2', ...INT }, { name: 'f3', type: 'string' }] },
    ],
  },
];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'tbl_view', schema: SCHEMA };
const ROW: Row = { id: 10, name: 'name1', data: { f1: 1, s2: { f2: 101, f3: 'a' } } };

async function run(sql: string): Promise<{ schema: string; rows: Row[] }> {
  const q = compileStreamingQuery(sql, rel);
  let out = [ROW];
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  const type = (f: Schema[number]): string => (f.type === 'struct' ? `struct<${(f.fields ?? []).map((x) => `${x.name}:${type(x)}`).join(',')}>` : f.type);
  return { schema: q.outputSchema.map((f) => `${f.name}:${type(f)}`).join(','), rows: out };
}

function refusal(sql: string): WeirError {
  try {
    compileStreamingQuery(sql, rel);
  } catch (e) {
    if (e instanceof WeirError) return e;
    throw e;
  }
  throw new Error(`expected ${sql} to be refused`);
}

describe('SELECT * EXCEPT (…)', () => {
  it('leaves out the columns it names, by name or qualified by the table', async () => {
    expect(await run('SELECT * EXCEPT (id) FROM tbl_view')).toEqual({ schema: 'name:string,data:struct<f1:long,s2:struct<f2:long,f3:string>>', rows: [{ name: 'name1', data: ROW.data }] });
    expect((await run('SELECT * EXCEPT (ID, Data) FROM tbl_view')).rows).toEqual([{ name: 'name1' }]);
    expect((await run('SELECT tbl_view.* EXCEPT (tbl_view.name), 1 AS one FROM tbl_view')).rows).toEqual([{ id: 10, data: ROW.data, one: 1 }]);
    expect((await run('SELECT * EXCEPT (id, name, data) FROM tbl_view')).schema).toBe('');
    expect((await run('SELECT coalesce(* EXCEPT (data, name)) AS c FROM tbl_view')).rows).toEqual([{ c: 10 }]);
  });

  it("leaves out a struct's fields: the struct is rebuilt of the others", async () => {
    expect(await run('SELECT * EXCEPT (data.f1) FROM tbl_view')).toEqual({ schema: 'id:long,name:string,data:struct<s2:struct<f2:long,f3:string>>', rows: [{ id: 10, name: 'name1', data: { s2: { f2: 101, f3: 'a' } } }] });
    expect((await run('SELECT * EXCEPT (data.s2.f2) FROM tbl_view')).rows).toEqual([{ id: 10, name: 'name1', data: { f1: 1, s2: { f3: 'a' } } }]);
    expect((await run('SELECT * EXCEPT (data.f1, data.s2) FROM tbl_view')).rows).toEqual([{ id: 10, name: 'name1', data: {} }]);
  });

  it("of a struct's star: its fields less those named, nested ones too", async () => {
    expect(await run('SELECT data.* EXCEPT (s2) FROM tbl_view')).toEqual({ schema: 'f1:long', rows: [{ f1: 1 }] });
    expect((await run('SELECT data.* EXCEPT (s2.f2) FROM tbl_view')).rows).toEqual([{ f1: 1, s2: { f3: 'a' } }]);
    expect(await run('SELECT data.s2.* EXCEPT (f2) FROM tbl_view')).toEqual({ schema: 'f3:string', rows: [{ f3: 'a' }] });
  });

  it("refuses a name it cannot resolve, and names that repeat or overlap, with Spark's classes", () => {
    expect(refusal('SELECT * EXCEPT (id, invalid_column) FROM tbl_view').errorClass).toBe('UNRESOLVED_COLUMN.WITH_SUGGESTION');
    expect(refusal('SELECT * EXCEPT (data.nope) FROM tbl_view').errorClass).toBe('UNRESOLVED_COLUMN.WITH_SUGGESTION');
    expect(refusal('SELECT data.* EXCEPT (data.f1) FROM tbl_view').errorClass).toBe('EXCEPT_UNRESOLVED_COLUMN_IN_STRUCT_EXPANSION');
    expect(refusal('SELECT * EXCEPT (id, id) FROM tbl_view').errorClass).toBe('EXCEPT_OVERLAPPING_COLUMNS');
    expect(refusal('SELECT * EXCEPT (data.s2, data.s2.f2) FROM tbl_view').errorClass).toBe('EXCEPT_OVERLAPPING_COLUMNS');
    expect(refusal('SELECT * EXCEPT (data, data.f1) FROM tbl_view').errorClass).toBe('EXCEPT_OVERLAPPING_COLUMNS');
  });

  it('is a syntax error without its parentheses or names, or with an expression in them', () => {
    for (const [sql, near] of [
      ['SELECT * EXCEPT name FROM tbl_view', "'name'"],
      ['SELECT * EXCEPT () FROM tbl_view', "')'"],
      ['SELECT * EXCEPT (id + 1) FROM tbl_view', "'+'"],
      ['SELECT * EXCEPT (id, name AS x) FROM tbl_view', "'AS'"],
    ]) {
      const e = refusal(sql);
      expect(e.errorClass, sql).toBe('PARSE_SYNTAX_ERROR');
      expect(e.message, sql).toContain(`Syntax error at or near ${near}`);
    }
  });
});
