/**
 * Spark's InSubquery type check: `(x, y) IN (SELECT a, b …)` whose value and column pairs do not
 * compare is refused as a whole (DATATYPE_MISMATCH.IN_SUBQUERY_DATA_TYPE_MISMATCH), naming the
 * pairs that do not, before Weir's semi join would refuse the first pair's comparison alone.
 */
import { describe, expect, it } from 'vitest';
import { compileStreamingQuery } from './streaming-query';

const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: [{ name: 'a', type: 'double' as const }, { name: 's', type: 'string' as const }] };
const errorOf = (sql: string) => {
  try {
    compileStreamingQuery(sql, rel);
    return null;
  } catch (e) {
    return e as { errorClass?: string; message: string };
  }
};

describe('IN subquery column types', () => {
  it('refuses pairs that do not compare with IN_SUBQUERY_DATA_TYPE_MISMATCH', () => {
    const err = errorOf("SELECT * FROM src WHERE (a, s) IN (SELECT t, v FROM VALUES (timestamp'2020-01-01 00:00:00', 'x') AS v(t, v))");
    expect(err?.errorClass).toBe('DATATYPE_MISMATCH.IN_SUBQUERY_DATA_TYPE_MISMATCH');
    expect(err?.message).toContain('Mismatched columns: [(a:double, column 1 of the subquery:timestamp)], left side: [double, string], right side: [timestamp, string]');
  });

  it('refuses a single value so too', () => {
    expect(errorOf("SELECT * FROM src WHERE a IN (SELECT t FROM VALUES (timestamp'2020-01-01 00:00:00') AS v(t))")?.errorClass).toBe('DATATYPE_MISMATCH.IN_SUBQUERY_DATA_TYPE_MISMATCH');
  });

  it('takes pairs that compare', () => {
    expect(errorOf("SELECT * FROM src WHERE (a, s) IN (SELECT n, v FROM VALUES (1, 'x') AS v(n, v))")).toBeNull();
  });
});
