/**
 * A column of NULLs (Spark's VOID) grouped by, or aggregated by an aggregate that returns its
 * argument's values (max, first, mode, …), stays VOID in the aggregation's output, as Spark's
 * grouping attribute and the aggregate's dataType (its child's) do: Weir keeps it as a STRING
 * marked void, so the state schema's kinds are the same as before.
 */
import { describe, expect, it } from 'vitest';
import { simpleTypeString } from './data-types';
import { compileStreamingQuery } from './streaming-query';

const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: [{ name: 'k', type: 'string' as const }, { name: 'v', type: 'double' as const }] };

describe('VOID through an aggregation', () => {
  it('keeps a NULL key and the max, first and mode of NULLs VOID', () => {
    const q = compileStreamingQuery('SELECT n, max(n) AS m, first(n) AS f, mode(n) AS o, count(*) AS c FROM (SELECT NULL AS n FROM src) GROUP BY n', rel, { outputMode: 'complete' });
    expect(q.outputSchema.map(simpleTypeString)).toEqual(['void', 'void', 'void', 'void', 'bigint']);
  });

  it('keeps the count and sum of NULLs their own types', () => {
    const q = compileStreamingQuery('SELECT count(n) AS c, sum(n) AS s FROM (SELECT NULL AS n FROM src)', rel, { outputMode: 'complete' });
    expect(q.outputSchema.map(simpleTypeString)).toEqual(['bigint', 'double']);
  });

  it('keeps the state schema a STRING key, as before', () => {
    const q = compileStreamingQuery('SELECT n, count(*) AS c FROM (SELECT NULL AS n FROM src) GROUP BY n', rel, { outputMode: 'complete' });
    expect(q.statefulOperators[0].keySchema.map((f) => f.type)).toEqual(['string']);
  });
});
