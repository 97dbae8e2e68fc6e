/**
 * Spark's inverse distribution functions, `percentile_cont(p) WITHIN GROUP (ORDER BY x [DESC])`
 * and `percentile_disc(…)`, end to end (SQL text → plan → stateful aggregation): the queries of
 * Spark's sql-tests percentiles.sql with the answers, column names and error classes of its
 * percentiles.sql.out (Spark 3.5: percentile_disc as fixed there, without the legacy
 * calculation), streamed over several batches and a restart; the OVER forms are refused as
 * every other window function is on a stream.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import type { Field, Row, Schema } from '../types';
import { compileStreamingQuery } from './streaming-query';
import { printed } from './testing/spark-printed';
import { StatefulQueryRunner } from './testing/stateful-test-harness';

const INT = { type: 'long', integral: 32 } as const;
const relation = (schema: Schema) => ({ kind: 'StreamingRelation' as const, sourceName: 'src', schema });

// CREATE OR REPLACE TEMPORARY VIEW aggr AS SELECT * FROM VALUES … AS aggr(k, v)
const AGGR = relation([{ name: 'k', ...INT }, { name: 'v', ...INT }]);
const AGGR_ROWS: Row[] = [[0, 0], [0, 10], [0, 20], [0, 30], [0, 40], [1, 10], [1, 20], [2, 10], [2, 20], [2, 25], [2, 30], [3, 60], [4, null]].map(([k, v]) => ({ k, v }));

// The intervals view: dt of months, ym of seconds, dt2 of minutes (Spark's test names them so).
const INTERVALS = relation([
  { name: 'k', ...INT },
  { name: 'dt', type: 'year_month_interval', interval: { start: 1, end: 1 } },
  { name: 'ym', type: 'day_time_interval', interval: { start: 3, end: 3 } },
  { name: 'dt2', type: 'day_time_interval', interval: { start: 2, end: 2 } },
]);
const INTERVAL_ROWS: Row[] = AGGR_ROWS.map(({ k, v }) => ({
  k, dt: v, ym: v === null ? null : (v as number) * 1_000_000, dt2: v === null ? null : (v as number) * 60_000_000,
}));

/** An ANSI interval as Spark's HiveResult prints it in sql-tests' answers: `1-8`, `0 00:00:12.500000000`. */
function hiveInterval(v: unknown, f: Field): string {
  if (f.type === 'year_month_interval') {
    const m = Number(v);
    return `${m < 0 ? '-' : ''}${Math.floor(Math.abs(m) / 12)}-${Math.abs(m) % 12}`;
  }
  const micros = BigInt(v as number | bigint);
  const a = micros < 0n ? -micros : micros;
  const pad = (x: bigint) => String(x).padStart(2, '0');
  const s = a / 1_000_000n;
  return `${micros < 0n ? '-' : ''}${s / 86_400n} ${pad((s / 3600n) % 24n)}:${pad((s / 60n) % 60n)}:${pad(s % 60n)}.${String((a % 1_000_000n) * 1000n).padStart(9, '0')}`;
}

/**
 * Runs `sql` over `rows` in complete mode, one batch per chunk, with a restart (only the
 * checkpoint kept) before the last chunk; the last batch's rows as Spark prints them, by the first
 * column, and the output column names.
 */
async function stream(sql: string, rel: ReturnType<typeof relation>, rows: Row[], chunks = 3): Promise<{ names: string[]; rows: (string | null)[][] }> {
  const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, rel, 'complete');
  const size = Math.ceil(rows.length / chunks);
  let output: Row[] = [];
  for (let i = 0; i < rows.length; i += size) {
    if (i > 0 && i + size >= rows.length) q.restart();
    output = (await q.runBatch(rows.slice(i, i + size))).output;
  }
  const schema = compileStreamingQuery(sql, rel, { outputMode: 'complete' }).outputSchema;
  const text = output.map((r) => schema.map((f: Field) => {
    const v = r[f.name];
    return v === null ? null : f.type === 'year_month_interval' || f.type === 'day_time_interval' ? hiveInterval(v, f) : printed(v, f);
  }));
  text.sort((a, b) => Number(a[0]) - Number(b[0]));
  return { names: schema.map((f) => f.name), rows: text };
}

/** The error compiling `sql` gives: its error class and message. */
function refusal(sql: string, rel = AGGR): { errorClass?: string; message: string } {
  try {
    compileStreamingQuery(sql, rel, { outputMode: 'complete' });
  } catch (e) {
    return { errorClass: (e as { errorClass?: string }).errorClass, message: (e as Error).message };
  }
  throw new Error(`expected ${sql} to be refused`);
}

describe("Spark's percentiles.sql: percentile_cont and percentile_disc WITHIN GROUP", () => {
  it('percentile_cont over the whole stream, with FILTER and DESC, named as Spark names them', async () => {
    const r = await stream(`SELECT
      percentile_cont(0.25) WITHIN GROUP (ORDER BY v),
      percentile_cont(0.25) WITHIN GROUP (ORDER BY v) FILTER (WHERE k > 0),
      percentile_cont(0.25) WITHIN GROUP (ORDER BY v DESC),
      percentile_cont(0.25) WITHIN GROUP (ORDER BY v DESC) FILTER (WHERE k > 0)
    FROM src`, AGGR, AGGR_ROWS);
    expect(r.names).toEqual([
      'percentile_cont(0.25) WITHIN GROUP (ORDER BY v)',
      'percentile_cont(0.25) WITHIN GROUP (ORDER BY v) FILTER (WHERE (k > 0))',
      'percentile_cont(0.25) WITHIN GROUP (ORDER BY v DESC)',
      'percentile_cont(0.25) WITHIN GROUP (ORDER BY v DESC) FILTER (WHERE (k > 0))',
    ]);
    expect(r.rows).toEqual([['10.0', '15.0', '30.0', '27.5']]);
  });

  it('percentile_cont by group', async () => {
    const r = await stream(`SELECT k,
      percentile_cont(0.25) WITHIN GROUP (ORDER BY v),
      percentile_cont(0.25) WITHIN GROUP (ORDER BY v) FILTER (WHERE k > 0),
      percentile_cont(0.25) WITHIN GROUP (ORDER BY v DESC),
      percentile_cont(0.25) WITHIN GROUP (ORDER BY v DESC) FILTER (WHERE k > 0)
    FROM src GROUP BY k`, AGGR, AGGR_ROWS);
    expect(r.rows).toEqual([
      ['0', '10.0', null, '30.0', null],
      ['1', '12.5', '12.5', '17.5', '17.5'],
      ['2', '17.5', '17.5', '26.25', '26.25'],
      ['3', '60.0', '60.0', '60.0', '60.0'],
      ['4', null, null, null, null],
    ]);
  });

  it('percentile_disc over the whole stream and by group', async () => {
    const cols = `percentile_disc(0.25) WITHIN GROUP (ORDER BY v),
      percentile_disc(0.25) WITHIN GROUP (ORDER BY v) FILTER (WHERE k > 0),
      percentile_disc(0.25) WITHIN GROUP (ORDER BY v DESC),
      percentile_disc(0.25) WITHIN GROUP (ORDER BY v DESC) FILTER (WHERE k > 0)`;
    const all = await stream(`SELECT ${cols} FROM src`, AGGR, AGGR_ROWS);
    expect(all.names[3]).toBe('percentile_disc(0.25) WITHIN GROUP (ORDER BY v DESC) FILTER (WHERE (k > 0))');
    expect(all.rows).toEqual([['10.0', '10.0', '30.0', '30.0']]);
    expect((await stream(`SELECT k, ${cols} FROM src GROUP BY k`, AGGR, AGGR_ROWS)).rows).toEqual([
      ['0', '10.0', null, '30.0', null],
      ['1', '10.0', '10.0', '20.0', '20.0'],
      ['2', '10.0', '10.0', '30.0', '30.0'],
      ['3', '60.0', '60.0', '60.0', '60.0'],
      ['4', null, null, null, null],
    ]);
  });

  it('percentile_cont(0.5) is median(v) and percentile(v, 0.5)', async () => {
    const sql = 'SELECT median(v), percentile(v, 0.5), percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM src';
    const all = await stream(sql, AGGR, AGGR_ROWS);
    expect(all.names[2]).toBe('percentile_cont(0.5) WITHIN GROUP (ORDER BY v)');
    expect(all.rows).toEqual([['20.0', '20.0', '20.0']]);
    expect((await stream(sql.replace('SELECT', 'SELECT k,') + ' GROUP BY k', AGGR, AGGR_ROWS)).rows).toEqual([
      ['0', '20.0', '20.0', '20.0'],
      ['1', '15.0', '15.0', '15.0'],
      ['2', '22.5', '22.5', '22.5'],
      ['3', '60.0', '60.0', '60.0'],
      ['4', null, null, null],
    ]);
  });

  it('percentile_disc as fixed in Spark 3.5: the least value whose cumulative share reaches p', async () => {
    const ps = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
    const sql = `SELECT ${ps.map((p, i) => `percentile_disc(${p.toFixed(1)}) WITHIN GROUP (ORDER BY a) AS p${i}`).join(', ')} FROM src`;
    const rel = relation([{ name: 'a', ...INT }]);
    const of = async (n: number) => (await stream(sql, rel, Array.from({ length: n }, (_, a) => ({ a })), Math.min(n, 3))).rows[0];
    expect(await of(1)).toEqual(Array(11).fill('0.0'));
    expect(await of(2)).toEqual(['0.0', '0.0', '0.0', '0.0', '0.0', '0.0', '1.0', '1.0', '1.0', '1.0', '1.0']);
    expect(await of(3)).toEqual(['0.0', '0.0', '0.0', '0.0', '1.0', '1.0', '1.0', '2.0', '2.0', '2.0', '2.0']);
    expect(await of(5)).toEqual(['0.0', '0.0', '0.0', '1.0', '1.0', '2.0', '2.0', '3.0', '3.0', '4.0', '4.0']);
  });

  it('of ANSI intervals: the kind\'s widest interval type, as Spark 3.4+ types it', async () => {
    const all = await stream('SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY dt), percentile_cont(0.25) WITHIN GROUP (ORDER BY dt DESC) FROM src', INTERVALS, INTERVAL_ROWS);
    expect(all.rows).toEqual([['0-10', '2-6']]);
    const types = compileStreamingQuery('SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY dt), percentile_disc(0.25) WITHIN GROUP (ORDER BY dt2) FROM src', INTERVALS, { outputMode: 'complete' }).outputSchema;
    expect(types.map((f) => [f.type, f.interval])).toEqual([['year_month_interval', { start: 0, end: 1 }], ['day_time_interval', { start: 0, end: 3 }]]);
    const disc = await stream('SELECT percentile_disc(0.25) WITHIN GROUP (ORDER BY dt), percentile_disc(0.25) WITHIN GROUP (ORDER BY dt DESC) FROM src', INTERVALS, INTERVAL_ROWS);
    expect(disc.rows).toEqual([['0-10', '2-6']]);

    const byK = (f: string, col: string) => `SELECT k, ${f}(0.25) WITHIN GROUP (ORDER BY ${col}), ${f}(0.25) WITHIN GROUP (ORDER BY ${col} DESC) FROM src GROUP BY k`;
    expect((await stream(byK('percentile_cont', 'ym'), INTERVALS, INTERVAL_ROWS)).rows).toEqual([
      ['0', '0 00:00:10.000000000', '0 00:00:30.000000000'],
      ['1', '0 00:00:12.500000000', '0 00:00:17.500000000'],
      ['2', '0 00:00:17.500000000', '0 00:00:26.250000000'],
      ['3', '0 00:01:00.000000000', '0 00:01:00.000000000'],
      ['4', null, null],
    ]);
    expect((await stream(byK('percentile_cont', 'dt2'), INTERVALS, INTERVAL_ROWS)).rows).toEqual([
      ['0', '0 00:10:00.000000000', '0 00:30:00.000000000'],
      ['1', '0 00:12:30.000000000', '0 00:17:30.000000000'],
      ['2', '0 00:17:30.000000000', '0 00:26:15.000000000'],
      ['3', '0 01:00:00.000000000', '0 01:00:00.000000000'],
      ['4', null, null],
    ]);
    expect((await stream(byK('percentile_disc', 'ym'), INTERVALS, INTERVAL_ROWS)).rows).toEqual([
      ['0', '0 00:00:10.000000000', '0 00:00:30.000000000'],
      ['1', '0 00:00:10.000000000', '0 00:00:20.000000000'],
      ['2', '0 00:00:10.000000000', '0 00:00:30.000000000'],
      ['3', '0 00:01:00.000000000', '0 00:01:00.000000000'],
      ['4', null, null],
    ]);
    expect((await stream(byK('percentile_disc', 'dt2'), INTERVALS, INTERVAL_ROWS)).rows).toEqual([
      ['0', '0 00:10:00.000000000', '0 00:30:00.000000000'],
      ['1', '0 00:10:00.000000000', '0 00:20:00.000000000'],
      ['2', '0 00:10:00.000000000', '0 00:30:00.000000000'],
      ['3', '0 01:00:00.000000000', '0 01:00:00.000000000'],
      ['4', null, null],
    ]);
  });

  it('median and percentile of ANSI intervals agree with percentile_cont(0.5)', async () => {
    expect((await stream('SELECT median(dt), percentile(dt, 0.5), percentile_cont(0.5) WITHIN GROUP (ORDER BY dt) FROM src', INTERVALS, INTERVAL_ROWS)).rows).toEqual([['1-8', '1-8', '1-8']]);
    const byK = (col: string) => `SELECT k, median(${col}), percentile(${col}, 0.5), percentile_cont(0.5) WITHIN GROUP (ORDER BY ${col}) FROM src GROUP BY k`;
    expect((await stream(byK('ym'), INTERVALS, INTERVAL_ROWS)).rows).toEqual([
      ['0', ...Array(3).fill('0 00:00:20.000000000')],
      ['1', ...Array(3).fill('0 00:00:15.000000000')],
      ['2', ...Array(3).fill('0 00:00:22.500000000')],
      ['3', ...Array(3).fill('0 00:01:00.000000000')],
      ['4', null, null, null],
    ]);
    expect((await stream(byK('dt2'), INTERVALS, INTERVAL_ROWS)).rows).toEqual([
      ['0', ...Array(3).fill('0 00:20:00.000000000')],
      ['1', ...Array(3).fill('0 00:15:00.000000000')],
      ['2', ...Array(3).fill('0 00:22:30.000000000')],
      ['3', ...Array(3).fill('0 01:00:00.000000000')],
      ['4', null, null, null],
    ]);
  });

  it('refuses a percentage that is not a literal, NULL or outside [0, 1], with Spark\'s DATATYPE_MISMATCH', () => {
    const ab = relation([{ name: 'a', ...INT }, { name: 'b', type: 'double' }]);
    const e = refusal('SELECT percentile_cont(b) WITHIN GROUP (ORDER BY a DESC) AS p0 FROM src', ab);
    expect(e.errorClass).toBe('DATATYPE_MISMATCH.NON_FOLDABLE_INPUT');
    expect(e.message).toContain('Cannot resolve "percentile_cont(a, b)" due to data type mismatch');
    expect(refusal('SELECT percentile_disc(1.5) WITHIN GROUP (ORDER BY v) FROM src')).toMatchObject({ errorClass: 'DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE', message: expect.stringContaining('The `percentage` must be between [0.0, 1.0] (current value = 1.5D)') });
    expect(refusal('SELECT percentile_cont(NULL) WITHIN GROUP (ORDER BY v) FROM src').errorClass).toBe('DATATYPE_MISMATCH.UNEXPECTED_NULL');
    expect(refusal("SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY CAST(v AS STRING) || 'x') FROM src").errorClass).toBe('DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
  });

  it('refuses percentile_cont without WITHIN GROUP, with DISTINCT, other counts of arguments or orderings, as Spark 4 does', () => {
    expect(refusal('SELECT percentile_cont(0.5) FROM src').errorClass).toBe('INVALID_WITHIN_GROUP_EXPRESSION.WITHIN_GROUP_MISSING');
    expect(refusal('SELECT percentile_disc(v, 0.5) FROM src').errorClass).toBe('WRONG_NUM_ARGS.WITHOUT_SUGGESTION');
    expect(refusal('SELECT percentile_cont(k, 0.5) WITHIN GROUP (ORDER BY v) FROM src').errorClass).toBe('WRONG_NUM_ARGS.WITHOUT_SUGGESTION');
    expect(refusal('SELECT percentile_cont() WITHIN GROUP (ORDER BY v) FROM src').errorClass).toBe('WRONG_NUM_ARGS.WITHOUT_SUGGESTION');
    expect(refusal('SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY k, v) FROM src').errorClass).toBe('INVALID_WITHIN_GROUP_EXPRESSION.WRONG_NUM_ORDERINGS');
    expect(refusal('SELECT percentile_cont(DISTINCT 0.5) WITHIN GROUP (ORDER BY v) FROM src').errorClass).toBe('INVALID_WITHIN_GROUP_EXPRESSION.DISTINCT_UNSUPPORTED');
    // An aggregate in WHERE, as Spark's CheckAnalysis refuses any.
    expect(refusal('SELECT k FROM src WHERE percentile_cont(0.5) WITHIN GROUP (ORDER BY v) > 1').errorClass).toBe('INVALID_WHERE_CONDITION');
  });

  it('refuses WITHIN GROUP after a function that takes none (Spark 4 parses it after any call)', () => {
    for (const sql of ['SELECT round(v, 0) WITHIN GROUP (ORDER BY v) FROM src', 'SELECT percentile(v, 0.5) WITHIN GROUP (ORDER BY v) FROM src']) {
      const e = refusal(sql);
      expect(e.errorClass, sql).toBe('INVALID_SQL_SYNTAX.FUNCTION_WITH_UNSUPPORTED_SYNTAX');
      expect(e.message).toContain('does not support WITHIN GROUP (ORDER BY ...)');
    }
  });

  it('refuses the OVER forms as every window function is refused on a stream', () => {
    const pays = relation([{ name: 'employee_name', type: 'string' }, { name: 'department', type: 'string' }, { name: 'salary', ...INT }]);
    for (const over of ['OVER (PARTITION BY department)', 'OVER (PARTITION BY department ORDER BY salary)', 'OVER (PARTITION BY department ROWS BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING)']) {
      const e = refusal(`SELECT employee_name, percentile_disc(0.25) WITHIN GROUP (ORDER BY salary DESC) FILTER (WHERE salary > 0) ${over} FROM src`, pays);
      expect(e.errorClass, e.message).toBe('NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING');
      expect(e.message).toContain(`(window specification: ${over.replace('OVER ', '')})`);
    }
  });
});

describe("Spark 4's mode() WITHIN GROUP (ORDER BY x [DESC]) (its sql-tests mode.sql)", () => {
  it('is mode(x) whose ties give the least value, the greatest with DESC', async () => {
    const all = await stream(`SELECT k, mode() WITHIN GROUP (ORDER BY v), mode() WITHIN GROUP (ORDER BY v DESC), mode(v, true),
      mode() WITHIN GROUP (ORDER BY v DESC) FILTER (WHERE v > 10) FROM src GROUP BY k`, AGGR, AGGR_ROWS);
    expect(all.names.slice(1)).toEqual(['mode() WITHIN GROUP (ORDER BY v)', 'mode() WITHIN GROUP (ORDER BY v DESC)', 'mode(v, true)', 'mode() WITHIN GROUP (ORDER BY v DESC) FILTER (WHERE (v > 10))']);
    expect(all.rows).toEqual([['0', '0', '40', '0', '40'], ['1', '10', '20', '10', '20'], ['2', '10', '30', '10', '30'], ['3', '60', '60', '60', '60'], ['4', null, null, null, null]]);
    const counted = await stream('SELECT k, mode() WITHIN GROUP (ORDER BY dt DESC) FROM src GROUP BY k', INTERVALS, [...INTERVAL_ROWS, { k: 0, dt: 10, ym: 0, dt2: 0 }]);
    expect(counted.rows[0]).toEqual(['0', '0-10']);
  });

  it("refuses DISTINCT, a missing WITHIN GROUP, an ordering after mode(x), with Spark 4's classes", () => {
    expect(refusal('SELECT mode(DISTINCT v) WITHIN GROUP (ORDER BY v) FROM src').errorClass).toBe('INVALID_WITHIN_GROUP_EXPRESSION.DISTINCT_UNSUPPORTED');
    expect(refusal('SELECT mode(DISTINCT v) FROM src').errorClass).toBe('INVALID_WITHIN_GROUP_EXPRESSION.DISTINCT_UNSUPPORTED');
    expect(refusal('SELECT mode() FROM src').errorClass).toBe('INVALID_WITHIN_GROUP_EXPRESSION.WITHIN_GROUP_MISSING');
    expect(refusal('SELECT mode(v) WITHIN GROUP (ORDER BY v) FROM src').errorClass).toBe('INVALID_WITHIN_GROUP_EXPRESSION.WRONG_NUM_ORDERINGS');
    expect(refusal('SELECT mode() WITHIN GROUP (ORDER BY k, v) FROM src').errorClass).toBe('INVALID_WITHIN_GROUP_EXPRESSION.WRONG_NUM_ORDERINGS');
    expect(refusal('SELECT mode(v, true, false) FROM src').errorClass).toBe('WRONG_NUM_ARGS.WITHOUT_SUGGESTION');
  });
});
