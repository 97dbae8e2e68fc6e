/**
 * Spark 4's SQL pipe syntax (`FROM t |> WHERE … |> SELECT …`): each operator run through the
 * engine over a stream and over static views, with Spark's error classes and positions.
 */
import { describe, expect, it } from 'vitest';
import { parsePlan } from './parser/ast-builder';
import type { Row, Schema } from '../types';
import { compileStreamingQuery } from './streaming-query';
import { weirAnswer, type GoldenView } from './testing/spark-golden-file';

const INT = { type: 'long', integral: 32 } as const;
const SCHEMA: Schema = [{ name: 'x', ...INT }, { name: 'y', type: 'string' }];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'events', schema: SCHEMA };
const ROWS: Row[] = [{ x: 0, y: 'abc' }, { x: 1, y: 'def' }, { x: 2, y: 'ghij' }];

/** The stream query's output schema and its rows for one batch of ROWS. */
async function stream(sql: string): Promise<{ columns: string[]; rows: Row[] }> {
  const q = compileStreamingQuery(sql, rel);
  let out = ROWS;
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  return { columns: q.outputSchema.map((f) => f.name), rows: out };
}

const VIEWS: GoldenView[] = [
  { name: 't', sql: "SELECT * FROM VALUES (0, 'abc'), (1, 'def'), (2, 'ghij') AS t(x, y)" },
  { name: 'other', sql: 'SELECT * FROM VALUES (1, 1), (1, 2), (2, 4) AS other(a, b)' },
];
const batch = async (sql: string) => (await weirAnswer(sql, VIEWS)).output;

/** The error `sql` is refused with: its class and the text its position points at. */
function refusal(sql: string): { errorClass?: string; fragment: string } {
  try {
    parsePlan(sql);
  } catch (e) {
    const err = e as { errorClass?: string; details?: { start?: number; end?: number } };
    return { errorClass: err.errorClass, fragment: sql.slice(err.details?.start, err.details?.end) };
  }
  throw new Error(`expected ${sql} to be refused`);
}

describe('pipe operators over a stream', () => {
  it('SELECT, WHERE and EXTEND read the stream source', async () => {
    expect(await stream('FROM events |> WHERE x > 0 |> SELECT x, upper(y) AS u')).toEqual({ columns: ['x', 'u'], rows: [{ x: 1, u: 'DEF' }, { x: 2, u: 'GHIJ' }] });
    expect(await stream('TABLE events |> EXTEND x + length(y) AS z |> WHERE z < 5')).toEqual({ columns: ['x', 'y', 'z'], rows: [{ x: 0, y: 'abc', z: 3 }, { x: 1, y: 'def', z: 4 }] });
  });

  it('DROP, AS, SELECT * EXCEPT and a pipe query in a WITH clause', async () => {
    expect((await stream('TABLE events |> DROP y')).columns).toEqual(['x']);
    expect((await stream('TABLE events |> AS e |> SELECT e.y')).rows).toEqual([{ y: 'abc' }, { y: 'def' }, { y: 'ghij' }]);
    expect((await stream('WITH c AS (SELECT x FROM events) FROM c |> WHERE x = 1 |> SELECT x * 10 AS ten')).rows).toEqual([{ ten: 10 }]);
  });

  it('AGGREGATE over a stream is a streaming aggregation, keys first', () => {
    const q = compileStreamingQuery('FROM events |> AGGREGATE count(*) AS n, sum(x) AS s GROUP BY length(y) AS len', rel, { outputMode: 'update' });
    expect(q.outputSchema.map((f) => f.name)).toEqual(['len', 'n', 's']);
    expect(() => compileStreamingQuery('FROM events |> AGGREGATE count(*) AS n GROUP BY y', rel)).toThrow(/watermark/i);
  });

  it('SET replaces a column in its place, each assignment reading the ones before', async () => {
    expect(await stream('TABLE events |> SET x = x * 10, y = concat(y, x) |> WHERE x > 0')).toEqual({ columns: ['x', 'y'], rows: [{ x: 10, y: 'def10' }, { x: 20, y: 'ghij20' }] });
    expect(await batch('TABLE t |> SET x = x + 1 |> SELECT x')).toBe('1\n2\n3');
    expect(await batch('TABLE t |> SET z = 1')).toBe('error UNRESOLVED_COLUMN.WITH_SUGGESTION');
    expect(refusal('TABLE t |> SET x = sum(x)').errorClass).toBe('PIPE_OPERATOR_CONTAINS_AGGREGATE_FUNCTION');
  });

  it('a pipe query in parentheses, as a FROM subquery and a scalar subquery', async () => {
    expect((await stream('SELECT s.x FROM (FROM events |> WHERE x >= 1 |> SELECT x) AS s')).rows).toEqual([{ x: 1 }, { x: 2 }]);
    expect((await stream('SELECT x, (VALUES (5) v(c) |> SELECT c + 1) AS six FROM events |> WHERE x = 0')).rows).toEqual([{ x: 0, six: 6 }]);
  });

  it("non-reserved words keep their meaning as names (a column named `aggregate`, `extend`)", async () => {
    expect((await stream('SELECT x AS aggregate, y AS extend FROM events |> WHERE aggregate = 1 |> SELECT extend')).rows).toEqual([{ extend: 'def' }]);
  });
});

describe('pipe operators over static views', () => {
  it('AGGREGATE puts the GROUP BY items first, under their aliases', async () => {
    expect(await batch('TABLE other |> AGGREGATE sum(b) AS s GROUP BY a')).toBe('1\t3\n2\t4');
    expect(await batch('TABLE other |> AGGREGATE sum(b) GROUP BY a + 1 AS k |> SELECT k')).toBe('2\n3');
    expect(await batch('TABLE other |> AGGREGATE count(*) AS n')).toBe('3');
  });

  it('ORDER BY, LIMIT, OFFSET, JOIN and the set operations', async () => {
    expect(await batch('TABLE t |> ORDER BY x DESC |> LIMIT 2')).toBe('2\tghij\n1\tdef');
    expect(await batch('TABLE t |> WHERE x > 0 |> SELECT y |> LIMIT 1 OFFSET 1')).toBe('ghij');
    expect(await batch('TABLE t |> JOIN other ON x = a |> SELECT y, b')).toBe('def\t1\ndef\t2\nghij\t4');
    expect(await batch('TABLE t |> SELECT x |> UNION ALL SELECT a FROM other |> AGGREGATE count(*) AS n')).toBe('6');
    expect(await batch('TABLE t |> SELECT x |> EXCEPT SELECT a FROM other')).toBe('0');
  });

  it("an operator's WINDOW clause defines windows for that operator alone", async () => {
    expect(await batch('TABLE t |> SELECT x, sum(x) OVER w AS s WINDOW w AS (ORDER BY x) |> WHERE s > 0')).toBe('1\t1\n2\t3');
    expect(await batch('TABLE t |> SELECT x, first_value(y) OVER w AS f |> SELECT x WINDOW w AS (ORDER BY x)')).toBe('error MISSING_WINDOW_SPECIFICATION');
  });

  it('a result clause after the last operator is the whole query\'s', async () => {
    expect(await batch('TABLE t |> ORDER BY x DESC ORDER BY y')).toBe('0\tabc\n1\tdef\n2\tghij');
  });
});

describe("pipe operators' refusals", () => {
  it('an aggregate function in SELECT or EXTEND points to AGGREGATE', () => {
    expect(refusal('TABLE t |> SELECT y, length(y) + sum(x) AS r')).toEqual({ errorClass: 'PIPE_OPERATOR_CONTAINS_AGGREGATE_FUNCTION', fragment: 'sum(x)' });
    expect(refusal('TABLE t |> EXTEND sum(x) AS r')).toEqual({ errorClass: 'PIPE_OPERATOR_CONTAINS_AGGREGATE_FUNCTION', fragment: 'sum(x)' });
  });

  it('AGGREGATE items need an aggregate function, and no window or GROUPING', () => {
    expect(refusal('TABLE other |> AGGREGATE a GROUP BY a')).toEqual({ errorClass: 'PIPE_OPERATOR_AGGREGATE_EXPRESSION_CONTAINS_NO_AGGREGATE_FUNCTION', fragment: 'a' });
    expect(refusal('TABLE other |> AGGREGATE sum(a) OVER () GROUP BY b').errorClass).toBe('UNSUPPORTED_FEATURE.PIPE_OPERATOR_AGGREGATE_UNSUPPORTED_CASE');
    expect(refusal('TABLE other |> AGGREGATE sum(a) GROUP BY ROLLUP(b)').errorClass).toBe('UNSUPPORTED_FEATURE.PIPE_OPERATOR_AGGREGATE_UNSUPPORTED_CASE');
    expect(refusal('TABLE other |> AGGREGATE').errorClass).toBe('_LEGACY_ERROR_TEMP_0035');
  });

  it("WHERE's WINDOW clause, two result clauses, two joins, PIVOT with UNPIVOT", () => {
    expect(refusal('TABLE t |> WHERE sum(x) OVER w = 1 WINDOW w AS (PARTITION BY y)').errorClass).toBe('NOT_ALLOWED_IN_PIPE_OPERATOR_WHERE.WINDOW_CLAUSE');
    expect(refusal('TABLE t |> ORDER BY x LIMIT 1').errorClass).toBe('MULTIPLE_QUERY_RESULT_CLAUSES_WITH_PIPE_OPERATORS');
    expect(refusal('TABLE t |> JOIN other JOIN other')).toEqual({ errorClass: 'PARSE_SYNTAX_ERROR', fragment: 'JOIN' });
    expect(refusal('TABLE t |> PIVOT (sum(x) FOR y IN (1)) UNPIVOT (v FOR k IN (a))').errorClass).toBe('NOT_ALLOWED_IN_FROM.UNPIVOT_WITH_PIVOT');
    expect(refusal('TABLE t |> GROUP BY x')).toEqual({ errorClass: 'PARSE_SYNTAX_ERROR', fragment: 'GROUP' });
  });

  it("an operator's error points at its text, not at the query's start", () => {
    expect(refusal('TABLE t\n|> WHERE x = 1\n|> SELECT max(y) AS m').fragment).toBe('max(y)');
  });
});
