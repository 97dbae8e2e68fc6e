/**
 * Spark's UnsupportedOperationsSuite (UnsupportedOperationChecker.checkForStreaming), as SQL over
 * streams: each refused plan's message contains the suite's expected words and, as its testError
 * requires of every streaming refusal, "streaming", "DataFrame", "Dataset" and "not supported"
 * (case-insensitive); each supported one validates without error.
 */
import { describe, expect, it } from 'vitest';
import { validateJob } from '../spec/validate-job';

const stream = (name: string) => ({ name, type: 'memory', options: { stream: name }, schema: [{ name: 'a', type: 'long' }, { name: 'ts', type: 'timestamp' }], eventTime: 'ts', watermarkDelay: '10 seconds' });
const job = (sql: string, outputMode: 'append' | 'update' | 'complete' = 'append', extra: Record<string, unknown> = {}) => ({
  name: 'unsupported', sources: [stream('s'), stream('t')], sql, outputMode,
  sink: { type: 'memory', options: { table: 'unsupported' } }, checkpointLocation: 'memory://unsupported', ...extra,
});
const STATIC = { staticTables: [{ name: 'b', path: '/tmp/weir-unsupported-b.json', schema: [{ name: 'a', type: 'long' }] }] };

function notSupported(sql: string, mode: 'append' | 'update' | 'complete', expected: string[], extra?: Record<string, unknown>) {
  const errors = validateJob(job(sql, mode, extra)).errors;
  expect(errors.length, `${sql} in ${mode} mode is refused`).toBeGreaterThan(0);
  const message = errors[0].message.toLowerCase();
  for (const m of [...expected, 'streaming', 'DataFrame', 'Dataset', 'not supported']) expect(message, errors[0].message).toContain(m.toLowerCase());
}
const supported = (sql: string, mode: 'append' | 'update' | 'complete' = 'append', extra?: Record<string, unknown>) => expect(validateJob(job(sql, mode, extra)).errors).toEqual([]);

describe('UnsupportedOperationsSuite', () => {
  it('sort with stream relation: not supported', () => notSupported('SELECT a FROM s ORDER BY a', 'append', ['sort']));
  it('sort - sort after aggregation in Complete output mode: supported', () => supported('SELECT count(*) AS n FROM s ORDER BY n', 'complete'));
  it('sort - sort before aggregation in Complete output mode: not supported', () =>
    notSupported('SELECT count(*) AS n FROM (SELECT a FROM s ORDER BY a)', 'complete', ['sort', 'aggregat', 'complete']));
  it('sort - sort over aggregated data in Update output mode: not supported', () =>
    notSupported('SELECT count(*) AS n FROM s ORDER BY n', 'update', ['sort', 'aggregat', 'complete']));
  it('window with stream relation: not supported (non-time-based windows)', () => {
    // The suite's "non-time-based windows" is Spark 3's text; Spark 3.5+ raises
    // NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING, whose message Weir gives.
    const [e] = validateJob(job('SELECT a, row_number() OVER (ORDER BY a) AS r FROM s')).errors;
    expect(e.message).toContain('Window function is not supported in ROW_NUMBER() (as column `r`) on streaming DataFrames/Datasets. Structured Streaming only supports time-window aggregation using the WINDOW function.');
  });

  describe('output modes with aggregation and non-aggregation plans (testOutputMode)', () => {
    it('Append output mode - aggregation: not supported', () => notSupported('SELECT a, count(*) AS n FROM s GROUP BY a', 'append', ['aggregation', 'Append output mode']));
    it('Append output mode - no aggregation: supported', () => supported('SELECT a FROM s WHERE a > 1', 'append'));
    it('Update output mode - aggregation: supported', () => supported('SELECT a, count(*) AS n FROM s GROUP BY a', 'update'));
    it('Update output mode - no aggregation: supported', () => supported('SELECT a FROM s WHERE a > 1', 'update'));
    it('Complete output mode - aggregation: supported', () => supported('SELECT a, count(*) AS n FROM s GROUP BY a', 'complete'));
    it('Complete output mode - no aggregation: not supported', () => notSupported('SELECT a FROM s WHERE a > 1', 'complete', ['aggregation', 'Complete output mode']));
  });

  describe('TABLESAMPLE (AstBuilder.withSample)', () => {
    // The suite's "sample: not supported": Sample over a stream, a percentage or a bucket.
    it('sample with stream relation: not supported', () => {
      for (const sql of ['SELECT a FROM s TABLESAMPLE (10 PERCENT)', 'SELECT a FROM s TABLESAMPLE (BUCKET 1 OUT OF 4) x', 'SELECT a FROM (SELECT a FROM s) TABLESAMPLE (50 PERCENT)']) {
        notSupported(sql, 'append', ['Sampling is not supported on streaming DataFrames/Datasets']);
        expect(validateJob(job(sql)).errors[0]).toMatchObject({ errorClass: '_LEGACY_ERROR_TEMP_3102' });
      }
    });
    // `n ROWS` is Spark's Limit of the relation: a streaming limit, as LIMIT n.
    it('n ROWS is a LIMIT: supported in Append, refused in Update as LIMIT is', () => {
      supported('SELECT a FROM s TABLESAMPLE (5 ROWS)');
      supported('SELECT x.a FROM s TABLESAMPLE (5 ROWS) x');
      notSupported('SELECT a FROM s TABLESAMPLE (5 ROWS)', 'update', ['Limits are not supported on streaming DataFrames/Datasets in Update output mode']);
    });
    it("the parser's refusals, in Spark's words", () => {
      const first = (sql: string) => validateJob(job(sql)).errors[0];
      expect(first('SELECT a FROM s TABLESAMPLE (BUCKET 11 OUT OF 10)')).toMatchObject({ errorClass: '_LEGACY_ERROR_TEMP_0064', message: expect.stringContaining('Sampling fraction (1.1) must be on interval [0, 1]') });
      expect(first('SELECT a FROM s TABLESAMPLE (-1 PERCENT)')).toMatchObject({ errorClass: '_LEGACY_ERROR_TEMP_0064', message: expect.stringContaining('Sampling fraction (-0.01) must be on interval [0, 1]') });
      expect(first('SELECT a FROM s TABLESAMPLE (BUCKET 4 OUT OF 10 ON a)')).toMatchObject({ errorClass: '_LEGACY_ERROR_TEMP_0015', message: expect.stringContaining('TABLESAMPLE(BUCKET x OUT OF y ON colname) is not supported.') });
      expect(first('SELECT a FROM s TABLESAMPLE (BUCKET 3 OUT OF 32 ON rand())')).toMatchObject({ errorClass: '_LEGACY_ERROR_TEMP_0015', message: expect.stringContaining('TABLESAMPLE(BUCKET x OUT OF y ON function) is not supported.') });
      expect(first('SELECT a FROM s TABLESAMPLE (300M)')).toMatchObject({ errorClass: '_LEGACY_ERROR_TEMP_0015', message: expect.stringContaining('TABLESAMPLE(byteLengthLiteral) is not supported.') });
    });
  });

  it('MonotonicallyIncreasingID: not supported', () => notSupported('SELECT monotonically_increasing_id() AS id FROM s', 'append', ['monotonically_increasing_id']));

  describe('binary operations (testBinaryOperationInStreamingPlan)', () => {
    it('union with stream-stream relations: supported', () => supported('SELECT a FROM s UNION ALL SELECT a FROM t'));
    it('union with stream-batch relations: not supported', () => notSupported('SELECT a FROM s UNION ALL SELECT a FROM b', 'append', ['union'], STATIC));
    it('except with stream-stream relations: not supported', () => notSupported('SELECT a FROM s EXCEPT SELECT a FROM t', 'append', ['except']));
    it('intersect with stream-stream relations: not supported', () => notSupported('SELECT a FROM s INTERSECT SELECT a FROM t', 'append', ['intersect']));
    it('multiple inner joins in append mode: supported', () =>
      supported('SELECT x.a FROM s x JOIN t y ON x.a = y.a JOIN s z ON y.a = z.a'));
    it('inner join in update mode: not supported', () =>
      notSupported('SELECT x.a FROM s x JOIN t y ON x.a = y.a', 'update', ['join', 'Update output mode']));
    it('left outer join with stream-batch relations: supported', () => supported('SELECT s.a FROM s LEFT JOIN b ON s.a = b.a', 'append', STATIC));
    it('left outer join with batch-stream relations: not supported', () => notSupported('SELECT s.a FROM b LEFT JOIN s ON s.a = b.a', 'append', ['LeftOuter join'], STATIC));
    it('right outer join with stream-batch relations: not supported', () => notSupported('SELECT s.a FROM s RIGHT JOIN b ON s.a = b.a', 'append', ['RightOuter join'], STATIC));
  });
});
