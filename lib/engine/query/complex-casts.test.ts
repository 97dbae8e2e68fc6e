/**
 * CAST between nested types (ARRAY, MAP, STRUCT), as Spark's Cast with ANSI off: element by
 * element, each as its own type's cast (NULL where that gives NULL); a STRUCT by position, named
 * as the target. Expected values are Spark's by those rules.
 */
import { describe, expect, it } from 'vitest';
import type { Row } from '../types';
import { compileStreamingQuery } from './streaming-query';

const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: [{ name: 'id', type: 'long' as const }, { name: 's', type: 'string' as const }] };

async function one(expr: string): Promise<{ v: unknown; type: string }> {
  const q = compileStreamingQuery(`SELECT ${expr} AS v, typeof(${expr}) AS t FROM src`, rel);
  let out: Row[] = [{ id: 1, s: '{"a":["1","2","x"]}' }];
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  return { v: out[0].v, type: String(out[0].t) };
}

function failure(expr: string): { message: string; errorClass?: string } {
  try {
    compileStreamingQuery(`SELECT ${expr} AS v FROM src`, rel);
  } catch (e) {
    return { message: (e as Error).message, errorClass: (e as { errorClass?: string }).errorClass };
  }
  throw new Error(`expected ${expr} to fail`);
}

describe('CAST to ARRAY, MAP and STRUCT', () => {
  it("casts an array, a map or a struct to a STRING as Spark 3 writes it (ToStringBase)", async () => {
    expect(await one('CAST(array(1, 2) AS STRING)')).toEqual({ v: '[1, 2]', type: 'string' });
    expect((await one("CAST(array('a', NULL) AS STRING)")).v).toBe('[a, null]');
    expect((await one("CAST(named_struct('a', 1, 'b', 'x', 'c', NULL) AS STRING)")).v).toBe('{1, x, null}');
    expect((await one("CAST(map('a', 1, 'b', NULL) AS STRING)")).v).toBe('{a -> 1, b -> null}');
    // Each element as its own CAST writes it: a DOUBLE as Java's, a timestamp without its zone, a decimal with its scale.
    expect((await one("CAST(array(array(2D), NULL) AS STRING)")).v).toBe('[[2.0], null]');
    expect((await one("CAST(map(1, named_struct('t', TIMESTAMP '2024-01-01 00:00:00')) AS STRING)")).v).toBe('{1 -> {2024-01-01 00:00:00}}');
    expect((await one('CAST(array(1.50) AS STRING)')).v).toBe('[1.50]');
  });

  it('casts each element of an array, NULL where its cast gives NULL', async () => {
    expect(await one('CAST(array(1, 2) AS ARRAY<STRING>)')).toEqual({ v: ['1', '2'], type: 'array<string>' });
    expect((await one("CAST(array('1', 'x', NULL) AS ARRAY<BIGINT>)")).v).toEqual([1, null, null]);
    expect((await one('CAST(array(array(1)) AS ARRAY<ARRAY<DOUBLE>>)')).v).toEqual([[1]]);
    expect((await one("from_json(s, 'a ARRAY<STRING>').a :: ARRAY<BIGINT>")).v).toEqual([1, 2, null]);
    expect((await one("CAST(array('1.5') AS ARRAY<DECIMAL(4,2)>)")).v).toEqual([150n]);
  });

  it("casts a map's keys and values, keeping keys as their text", async () => {
    expect(await one("CAST(map('a', 1) AS MAP<STRING, DOUBLE>)")).toEqual({ v: { a: 1 }, type: 'map<string,double>' });
    expect((await one("CAST(map(1, 'x') AS MAP<STRING, STRING>)")).v).toEqual({ 1: 'x' });
    expect((await one("CAST(map('1', 'x', 'y', 'z') AS MAP<BIGINT, STRING>)")).v).toBe(null);
  });

  it('casts a struct by position, named as the target', async () => {
    expect(await one("CAST(named_struct('a', 1, 'b', 'x') AS STRUCT<x: STRING, y: STRING>)")).toEqual({ v: { x: '1', y: 'x' }, type: 'struct<x:string,y:string>' });
    expect((await one("CAST(named_struct('a', '7') AS STRUCT<n: BIGINT>).n")).v).toBe(7);
  });

  it("refuses what Spark's Cast refuses, with its error class", () => {
    const e = failure('CAST(array(1) AS MAP<STRING, STRING>)');
    expect(e.errorClass).toBe('DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION');
    expect(e.message).toMatch(/cannot cast "ARRAY<INT>" to "MAP<STRING, STRING>"/);
    expect(failure("CAST(named_struct('a', 1) AS STRUCT<x: INT, y: INT>)").message).toMatch(/A STRUCT of 1 fields does not cast to one of 2/);
    expect(failure("CAST(array(X'01') AS ARRAY<DATE>)").errorClass).toBe('DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION');
    expect(failure("CAST('x' AS ARRAY<STRING>)").message).toMatch(/Only an ARRAY casts to ARRAY<STRING>/);
  });
});

// Spark's findWiderTypeForTwo over nested types (TypeCoercionSuite's "wider common type for
// decimal and array", "struct" cases): what array(), coalesce, CASE, IF and IN of them give.
describe('complex values widen to one type, as Spark findWiderTypeForTwo', () => {
  it("array(named_struct('a', 1, 'b', 2), named_struct('a', 3, 'b', NULL)): a NULL field takes the other's type", async () => {
    expect(await one("array(named_struct('a', 1, 'b', 2), named_struct('a', 3, 'b', NULL))")).toEqual({ v: [{ a: 1, b: 2 }, { a: 3, b: null }], type: 'array<struct<a:int,b:int>>' });
    // Fields widen one by one: INT and DECIMAL(2,1) to DECIMAL(11,1) (1.0 is the unscaled 10n).
    expect(await one("CASE WHEN id = 1 THEN named_struct('a', 1) ELSE named_struct('a', 2.5) END")).toEqual({ v: { a: 10n }, type: 'struct<a:decimal(11,1)>' });
    expect(await one('coalesce(CAST(NULL AS ARRAY<INT>), array(1.5))')).toEqual({ v: [15n], type: 'array<decimal(11,1)>' });
    expect(await one('if(id = 1, array(1), array(2.5D))')).toEqual({ v: [1], type: 'array<double>' });
    expect(await one("array(map('k', 1), map('k', 2L))")).toEqual({ v: [{ k: 1 }, { k: 2 }], type: 'array<map<string,bigint>>' });
    expect(await one("named_struct('a', 1) IN (named_struct('a', 2L), named_struct('a', 1))")).toEqual({ v: true, type: 'boolean' });
  });

  it('IN over structs and arrays: the list widens with the value (InConversion), field names aside (In\'s equalsStructurally)', async () => {
    expect(await one("named_struct('a', 1) IN (named_struct('a', 1L), named_struct('a', 2))")).toEqual({ v: true, type: 'boolean' });
    expect(await one('array(id) IN (array(1.5), array(2))')).toEqual({ v: false, type: 'boolean' });
    expect(await one("array(id) IN (array('1'))")).toEqual({ v: true, type: 'boolean' });
    // Spark's In examples: structs compare field by field.
    expect(await one("named_struct('a', 1, 'b', 2) IN (named_struct('a', 1, 'b', 1), named_struct('a', 1, 'b', 3))")).toEqual({ v: false, type: 'boolean' });
    expect(await one("named_struct('a', 1, 'b', 2) IN (named_struct('a', 1, 'b', 2), named_struct('a', 1, 'b', 3))")).toEqual({ v: true, type: 'boolean' });
    // Names that differ do not widen, but In's type check compares the structure only.
    expect(await one("named_struct('a', 1) IN (named_struct('b', 1))")).toEqual({ v: true, type: 'boolean' });
  });

  it('refuses an IN whose list does not widen with the value (DATA_DIFF_TYPES) or of maps (INVALID_ORDERING_TYPE), as Spark', () => {
    const f = failure("named_struct('a', id) IN (named_struct('b', 7))");
    expect(f.errorClass).toBe('DATATYPE_MISMATCH.DATA_DIFF_TYPES');
    expect(f.message).toMatch(/Input to `in` should all be the same type, but it's \["STRUCT<a: BIGINT>", "STRUCT<b: INT>"\]/);
    expect(failure('id IN (true)').errorClass).toBe('DATATYPE_MISMATCH.DATA_DIFF_TYPES');
    expect(failure('map(1, 2) IN (map(1, 2))').errorClass).toBe('DATATYPE_MISMATCH.INVALID_ORDERING_TYPE');
  });

  it('array() is ARRAY<VOID>: it casts and widens to any array', async () => {
    expect(await one('CAST(array() AS ARRAY<STRUCT<a:INT>>)')).toEqual({ v: [], type: 'array<struct<a:int>>' });
    expect(await one('coalesce(array(1, 2), array())')).toEqual({ v: [1, 2], type: 'array<int>' });
    expect(await one("array(array(named_struct('a', 1)), array())")).toEqual({ v: [[{ a: 1 }], []], type: 'array<array<struct<a:int>>>' });
  });

  it('refuses structs whose field names differ, as Spark (DATA_DIFF_TYPES)', () => {
    const f = failure("array(named_struct('a', 1), named_struct('b', 2))");
    expect(f.errorClass).toBe('DATATYPE_MISMATCH.DATA_DIFF_TYPES');
    expect(f.message).toMatch(/"STRUCT<a: INT>" or "STRUCT<b: INT>"/);
    expect(failure("coalesce(array(1), map('a', 1))").message).toMatch(/incompatible types/);
  });
});
