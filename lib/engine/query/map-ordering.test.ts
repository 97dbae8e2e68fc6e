/**
 * A MAP has no order and no equality in Spark (RowOrdering.isOrderable), nor has an array or a
 * struct holding one: a comparison, IN, an ORDER BY or a window's keys of such a type are refused
 * as Spark refuses them, on the static (batch) path as on a stream's.
 */
import { describe, expect, it } from 'vitest';
import { select, selectStatic } from './testing/spark-printed';
import { compileStreamingQuery } from './streaming-query';

const T = "VALUES (map(1, 'a'), 1), (map(), 2) AS t(m, k)";
const errorOf = (q: string) => selectStatic(q, []).then(() => null, (e: unknown) => e as { errorClass?: string; message: string });
const rel = {
  kind: 'StreamingRelation' as const, sourceName: 'src',
  schema: [{ name: 'k', type: 'long' as const }, { name: 'm', type: 'map' as const, keyType: { name: 'key', type: 'long' as const, nullable: false }, valueType: { name: 'value', type: 'string' as const, nullable: true } }],
};

describe('ordering and comparing a type that holds a map', () => {
  it.each([
    [`SELECT * FROM ${T} ORDER BY m`, 'The `sortorder` does not support ordering on type "MAP<INT, STRING>"', '"m ASC NULLS FIRST"'],
    [`SELECT * FROM ${T} ORDER BY array(m) DESC`, 'The `sortorder` does not support ordering on type "ARRAY<MAP<INT, STRING>>"', '"array(m) DESC NULLS LAST"'],
    [`SELECT * FROM ${T} ORDER BY named_struct('a', m)`, 'The `sortorder` does not support ordering on type "STRUCT<a: MAP<INT, STRING>>"', ''],
    [`SELECT array(m) = array(m) FROM ${T}`, 'The `=` does not support ordering on type "ARRAY<MAP<INT, STRING>>"', ''],
    [`SELECT array(m) < array(m) FROM ${T}`, 'The `<` does not support ordering', ''],
    [`SELECT named_struct('a', m) = named_struct('a', m) FROM ${T}`, 'The `=` does not support ordering on type "STRUCT<a: MAP<INT, STRING>>"', ''],
    [`SELECT array(m) <=> array(m) FROM ${T}`, 'does not support ordering on type "ARRAY<MAP<INT, STRING>>"', ''],
    [`SELECT array(m) IN (array(m)) FROM ${T}`, 'The `in` does not support ordering on type "ARRAY<MAP<INT, STRING>>"', ''],
    [`SELECT nullif(array(m), array(m)) FROM ${T}`, 'The `=` does not support ordering', ''],
    [`SELECT array_contains(array(array(m)), array(m)) FROM ${T}`, 'The `array_contains` does not support ordering on type "ARRAY<MAP<INT, STRING>>"', ''],
    [`SELECT k, rank() OVER (ORDER BY array(m)) FROM ${T}`, 'The `sortorder` does not support ordering on type "ARRAY<MAP<INT, STRING>>"', ''],
    [`SELECT greatest(array(m), array(m)) FROM ${T}`, 'The `greatest` does not support ordering on type "ARRAY<MAP<INT, STRING>>"', '"greatest(array(m), array(m))"'],
    [`SELECT least(named_struct('a', m), named_struct('a', m)) FROM ${T}`, 'The `least` does not support ordering on type "STRUCT<a: MAP<INT, STRING>>"', ''],
    [`SELECT greatest(m, m) FROM ${T}`, 'The `greatest` does not support ordering on type "MAP<INT, STRING>"', ''],
    [`SELECT array_position(array(m), m) FROM ${T}`, 'The `array_position` does not support ordering on type "MAP<INT, STRING>"', ''],
    [`SELECT array_remove(array(m), m) FROM ${T}`, 'The `array_remove` does not support ordering on type "MAP<INT, STRING>"', ''],
    [`SELECT arrays_overlap(array(m), array(m)) FROM ${T}`, 'The `arrays_overlap` does not support ordering on type "MAP<INT, STRING>"', ''],
    [`SELECT array_distinct(array(array(m))) FROM ${T}`, 'The `array_distinct` does not support ordering on type "ARRAY<MAP<INT, STRING>>"', ''],
    [`SELECT array_union(array(m), array(m)) FROM ${T}`, 'The `array_union` does not support ordering on type "MAP<INT, STRING>"', ''],
    [`SELECT array_intersect(array(named_struct('a', m)), array(named_struct('a', m))) FROM ${T}`, 'The `array_intersect` does not support ordering on type "STRUCT<a: MAP<INT, STRING>>"', ''],
    [`SELECT array_except(array(m), array(m)) FROM ${T}`, 'The `array_except` does not support ordering on type "MAP<INT, STRING>"', ''],
  ])('refuses %s (DATATYPE_MISMATCH.INVALID_ORDERING_TYPE)', async (q, detail, text) => {
    const err = await errorOf(q);
    expect(err?.errorClass).toBe('DATATYPE_MISMATCH.INVALID_ORDERING_TYPE');
    expect(err?.message).toContain(detail);
    expect(err?.message).toContain(text);
  });

  it('refuses min, max and max_by of one (DATATYPE_MISMATCH.INVALID_ORDERING_TYPE)', async () => {
    for (const q of [`SELECT max(array(m)) FROM ${T}`, `SELECT min(m) FROM ${T}`, `SELECT max_by(k, named_struct('a', m)) FROM ${T}`]) {
      expect((await errorOf(q))?.errorClass).toBe('DATATYPE_MISMATCH.INVALID_ORDERING_TYPE');
    }
  });

  it.each([
    [`SELECT DISTINCT m FROM ${T}`, 'm', 'MAP<INT, STRING>'],
    [`SELECT DISTINCT k, array(m) AS a FROM ${T}`, 'a', 'ARRAY<MAP<INT, STRING>>'],
    [`SELECT m FROM ${T} UNION SELECT m FROM ${T}`, 'm', 'MAP<INT, STRING>'],
    [`SELECT named_struct('a', m) AS s FROM ${T} INTERSECT SELECT named_struct('a', m) FROM ${T}`, 's', 'STRUCT<a: MAP<INT, STRING>>'],
    [`SELECT m FROM ${T} EXCEPT SELECT m FROM ${T}`, 'm', 'MAP<INT, STRING>'],
  ])('refuses %s (UNSUPPORTED_FEATURE.SET_OPERATION_ON_MAP_TYPE)', async (q, column, type) => {
    const err = await errorOf(q);
    expect(err?.errorClass).toBe('UNSUPPORTED_FEATURE.SET_OPERATION_ON_MAP_TYPE');
    expect(err?.message).toContain(`but the type of column \`${column}\` is "${type}"`);
  });

  it('refuses a GROUP BY of a map as Spark does, DISTINCT over it too, and UNION ALL keeps maps', async () => {
    expect((await errorOf(`SELECT m FROM ${T} GROUP BY m`))?.errorClass).toBe('GROUP_EXPRESSION_TYPE_IS_NOT_ORDERABLE');
    expect((await errorOf(`SELECT DISTINCT m, k FROM ${T} GROUP BY m, k`))?.errorClass).toBe('GROUP_EXPRESSION_TYPE_IS_NOT_ORDERABLE');
    expect((await selectStatic(`SELECT m FROM ${T} UNION ALL SELECT m FROM ${T}`, [])).rows).toHaveLength(4);
  });

  it('refuses a window partitioned by an array of maps (EXPRESSION_TYPE_IS_NOT_ORDERABLE)', async () => {
    const err = await errorOf(`SELECT k, count(*) OVER (PARTITION BY array(m)) FROM ${T}`);
    expect(err?.errorClass).toBe('EXPRESSION_TYPE_IS_NOT_ORDERABLE');
  });

  it('refuses them on a stream, in a filter, a stream-static join key and a DISTINCT', () => {
    const refused = (q: string) => { try { compileStreamingQuery(q, rel); return null; } catch (e) { return (e as { errorClass?: string }).errorClass; } };
    expect(refused("SELECT k FROM src WHERE named_struct('a', m) = named_struct('a', m)")).toBe('DATATYPE_MISMATCH.INVALID_ORDERING_TYPE');
    expect(refused(`SELECT s.k FROM src s JOIN (SELECT * FROM ${T}) b ON array(s.m) = array(b.m)`)).toBe('DATATYPE_MISMATCH.INVALID_ORDERING_TYPE');
    expect(refused('SELECT DISTINCT k, m FROM src')).toBe('UNSUPPORTED_FEATURE.SET_OPERATION_ON_MAP_TYPE');
  });

  it('still orders and compares arrays and structs of orderable types', async () => {
    const { rows } = await selectStatic(`SELECT k, array(k) = array(k) AS e FROM ${T} ORDER BY named_struct('a', array(k)) DESC`, []);
    expect(rows).toEqual([{ k: 2, e: true }, { k: 1, e: true }]);
    const { row } = await select("greatest(array(1), array(2)) AS g, array_union(array(named_struct('a', 1)), array(named_struct('a', 2))) AS u, array_position(array(array(1)), array(1)) AS p");
    expect(row).toEqual({ g: [2], u: [{ a: 1 }, { a: 2 }], p: 1 });
  });
});
