/**
 * Spark's EventTimeWatermarkSuite, translated action by action with Spark's answers, state rows,
 * progress event-time stats and watermarks. Spark's `eventTime = value.cast("timestamp")` (seconds)
 * is a column of the source; `window.start.cast("long")` is `CAST(window.start AS LONG)`.
 */
import { describe, expect, it } from 'vitest';
import { AddData, CheckLastBatch, CheckNewAnswer, MultiAddData, sparkStreams, StartStream, StopStream, type SparkAction, type SparkSource, type SparkStreams } from './testing/spark-stream-test';

const source = (delay?: string): SparkSource => ({
  schema: [{ name: 'value', type: 'long', integral: 32 }, { name: 'eventTime', type: 'timestamp' }],
  ...(delay ? { eventTime: 'eventTime', watermarkDelay: delay } : {}),
});
const V = (...vs: number[]) => vs.map((value) => ({ value, eventTime: value * 1000 }));
const WINDOWED = "SELECT CAST(window.start AS LONG) AS start, count(*) AS count FROM inputData GROUP BY window(eventTime, '5 seconds')";
const iso = (sec: number) => new Date(sec * 1000).toISOString();

/** Spark's assertEventStats: the event-time stats of the last batch with input rows. */
const assertEventStats = (want: { min: number; max: number; avg: number; watermark: number } | undefined): SparkAction => (t) => {
  const e = t.progress.filter((p) => p.numInputRows > 0).at(-1)!.eventTime;
  if (!want) expect(e?.max).toBeUndefined();
  else expect(e).toMatchObject({ min: iso(want.min), max: iso(want.max), avg: iso(want.avg), watermark: iso(want.watermark) });
};

/** Spark's assertNumStateRows(n) of this suite: the first operator's rows in the last progress. */
const assertNumStateRows = (n: number): SparkAction => (t) => expect(t.progress.at(-1)!.stateOperators[0].numRowsTotal).toBe(n);

/** Spark's checkWatermark: one more row on `input`, then the last progress's watermark. */
const checkWatermark = (input: string, seconds: number): SparkAction => async (t) => {
  t.stream(input).addRows(V(1));
  await (await t.ensureStarted()).processAllAvailable();
  t.newBatches();
  expect(t.progress.at(-1)!.eventTime?.watermark).toBe(iso(seconds));
};

describe('EventTimeWatermarkSuite', () => {
  it('event time and watermark metrics', async () => {
    // No event time metrics when there is no watermarking
    const without = sparkStreams({ sources: { inputData: source() }, outputMode: 'complete', sql: WINDOWED });
    await without.run(
      AddData('inputData', ...V(15)),
      CheckLastBatch([15, 1]),
      assertEventStats(undefined),
      AddData('inputData', ...V(10, 12, 14)),
      CheckLastBatch([10, 3], [15, 1]),
      assertEventStats(undefined),
    );
    // All event time metrics where watermarking is set
    const withWm = sparkStreams({ sources: { inputData: source('10 seconds') }, sql: WINDOWED });
    await withWm.run(
      AddData('inputData', ...V(15)),
      CheckNewAnswer(),
      assertEventStats({ min: 15, max: 15, avg: 15, watermark: 0 }),
      AddData('inputData', ...V(10, 12, 14)),
      CheckNewAnswer(),
      assertEventStats({ min: 10, max: 14, avg: 12, watermark: 5 }),
      AddData('inputData', ...V(25)),
      CheckNewAnswer([10, 3]),
      assertEventStats({ min: 25, max: 25, avg: 25, watermark: 5 }),
    );
  });

  it('append mode', async () => {
    await sparkStreams({ sources: { inputData: source('10 seconds') }, sql: WINDOWED }).run(
      AddData('inputData', ...V(10, 11, 12, 13, 14, 15)),
      CheckNewAnswer(),
      AddData('inputData', ...V(25)), // Advance watermark to 15 seconds
      CheckNewAnswer([10, 5]),
      assertNumStateRows(2),
      AddData('inputData', ...V(10)), // Should not emit anything as data less than watermark
      CheckNewAnswer(),
      assertNumStateRows(2),
    );
  });

  // The suite's session scripts (its `session` is Spark's released session_window). Its Update
  // mode variants are not translated: released Spark refuses Update mode with a session window
  // ("Update output mode not supported for session window"), and so does Weir.
  it('append mode - session', async () => {
    const t = sparkStreams({
      sources: { inputData: source('10 seconds') },
      sql: `SELECT valuegroup, CAST(session_window.start AS LONG) AS s, CAST(session_window.end AS LONG) AS e, count(*) AS count, sum(value) AS sum
        FROM (SELECT *, CAST(value / 10 AS INT) AS valuegroup FROM inputData) GROUP BY session_window(eventTime, '5 seconds'), valuegroup`,
    });
    await t.run(
      AddData('inputData', ...V(10, 11)), // sessions: key 1 => (10,16)
      CheckNewAnswer(),
      AddData('inputData', ...V(17)), // Advance watermark to 7 seconds
      CheckNewAnswer(),
      AddData('inputData', ...V(25)), // Advance watermark to 15 seconds
      CheckNewAnswer(),
      AddData('inputData', ...V(35)), // Advance watermark to 25 seconds: evicts key 1 => (10,16), (17,22)
      CheckNewAnswer([1, 10, 16, 2, 21], [1, 17, 22, 1, 17]),
      AddData('inputData', ...V(10)), // Should not emit anything as data less than watermark
      CheckNewAnswer(),
      AddData('inputData', ...V(40)), // Advance watermark to 30 seconds: evicts key 2 => (25,30)
      CheckNewAnswer([2, 25, 30, 1, 25]),
    );
  });

  it('append mode - session - no key: refused, as released Spark refuses it', async () => {
    // The suite's script predates Spark's check; released Spark (and Weir) refuse a session window
    // without another grouping key before the first batch.
    const t = sparkStreams({
      sources: { inputData: source('10 seconds') },
      sql: "SELECT count(*) AS count, sum(value) AS sum FROM inputData GROUP BY session_window(eventTime, '5 seconds')",
    });
    await expect(t.run(AddData('inputData', ...V(10, 11)), CheckNewAnswer())).rejects.toThrow('Global aggregation with session window in streaming query is not supported.');
  });

  it('update mode', async () => {
    await sparkStreams({ sources: { inputData: source('10 seconds') }, outputMode: 'update', sql: WINDOWED, spec: { parallelism: 10 } }).run(
      AddData('inputData', ...V(10, 11, 12, 13, 14, 15)),
      CheckNewAnswer([10, 5], [15, 1]),
      AddData('inputData', ...V(25)), // Advance watermark to 15 seconds
      CheckNewAnswer([25, 1]),
      assertNumStateRows(2),
      AddData('inputData', ...V(10, 25)), // Ignore 10 as its less than watermark
      CheckNewAnswer([25, 2]),
      assertNumStateRows(2),
      AddData('inputData', ...V(10)), // Should not emit anything as data less than watermark
      CheckNewAnswer(),
      assertNumStateRows(2),
    );
  });

  it('recovery (without the purged commit: a restart resumes the watermark)', async () => {
    await sparkStreams({ sources: { inputData: source('10 seconds') }, sql: WINDOWED }).run(
      AddData('inputData', ...V(10, 11, 12, 13, 14, 15)),
      CheckNewAnswer(),
      AddData('inputData', ...V(25)), // Advance watermark to 15 seconds
      CheckNewAnswer([10, 5]),
      StopStream,
      StartStream,
      AddData('inputData', ...V(10, 27, 30)), // Advance watermark to 20 seconds, 10 should be ignored
      CheckNewAnswer([15, 1]),
      StopStream,
      StartStream,
      AddData('inputData', ...V(17)), // Watermark should still be 20 seconds, 17 should be ignored
      CheckNewAnswer(),
      AddData('inputData', ...V(40)), // Advance watermark to 30 seconds, emit first data 25
      CheckNewAnswer([25, 2]),
    );
  });

  it('watermark with 2 streams', async () => {
    const t = sparkStreams({
      sources: { first: source('10 seconds'), second: source('5 seconds') },
      outputMode: 'complete',
      sql: 'SELECT sum(value) AS total FROM (SELECT value FROM first UNION ALL SELECT value FROM second)',
    });
    /** Spark's getWatermarkAfterData: the data, then a dummy batch whose watermark is the one they made. */
    const after = (first: number[], second: number[], want: number): SparkAction => async (s: SparkStreams) => {
      if (first.length) s.stream('first').addRows(V(...first));
      if (second.length) s.stream('second').addRows(V(...second));
      const q = await s.ensureStarted();
      await q.processAllAvailable();
      s.stream('first').addRows(V(0));
      await q.processAllAvailable();
      expect(s.progress.at(-1)!.eventTime?.watermark).toBe(new Date(want).toISOString());
    };
    await t.run(
      // Global watermark starts at 0 until we get data from both sides
      after([11], [], 0),
      after([], [6], 1000),
      // Global watermark stays at left watermark 1 when right watermark moves to 2
      after([], [8], 1000),
      // Global watermark switches to right side value 2 when left watermark goes higher
      after([21], [], 3000),
      // Global watermark goes back to left
      after([], [17, 28, 39], 11000),
      // Global watermark stays on left as long as it's below right
      after([31], [], 21000),
      after([41], [], 31000),
      // Global watermark switches back to right again
      after([51], [], 34000),
      // Global watermark is updated correctly with simultaneous data from both sides
      after([100], [100], 90000),
      after([120], [110], 105000),
      after([130], [125], 120000),
      // Global watermark doesn't decrement with simultaneous data
      after([100], [100], 120000),
      after([140], [100], 120000),
      after([100], [135], 130000),
      // Global watermark recovers after restart, but left side watermark ahead of it does not.
      after([200], [190], 185000),
      StopStream,
      after([], [], 185000),
      // Even though the left side was ahead of 185000 in the last execution, the watermark won't
      // increment until it gets past it in this execution.
      after([], [200], 185000),
      after([200], [], 190000),
    );
  });

  it('complete mode', async () => {
    // No eviction when asked to compute complete results.
    await sparkStreams({ sources: { inputData: source('10 seconds') }, outputMode: 'complete', sql: WINDOWED }).run(
      AddData('inputData', ...V(10, 11, 12)),
      CheckLastBatch([10, 3]),
      AddData('inputData', ...V(25)),
      CheckLastBatch([10, 3], [25, 1]),
      AddData('inputData', ...V(25)),
      CheckLastBatch([10, 3], [25, 2]),
      AddData('inputData', ...V(10)),
      CheckLastBatch([10, 4], [25, 2]),
      AddData('inputData', ...V(25)),
      CheckLastBatch([10, 4], [25, 3]),
    );
  });

  it('group by on raw timestamp', async () => {
    await sparkStreams({ sources: { inputData: source('10 seconds') }, sql: 'SELECT CAST(eventTime AS LONG) AS t, count(*) AS count FROM inputData GROUP BY eventTime' }).run(
      AddData('inputData', ...V(10)),
      CheckNewAnswer(),
      AddData('inputData', ...V(25)), // Advance watermark to 15 seconds
      CheckNewAnswer([10, 1]),
    );
  });

  describe('MultipleWatermarkPolicy (dfWithMultipleWatermarks: 10 and 15 seconds)', () => {
    const union = (policy?: 'min' | 'max') => sparkStreams({
      sources: { input1: source('10 seconds'), input2: source('15 seconds') },
      sql: 'SELECT CAST(eventTime AS INT) AS t FROM (SELECT eventTime FROM input1 UNION ALL SELECT eventTime FROM input2)',
      ...(policy ? { spec: { multipleWatermarkPolicy: policy } } : {}),
    });

    it('MultipleWatermarkPolicy: max', async () => {
      await union('max').run(
        MultiAddData({ input1: V(20), input2: V(30) }),
        CheckLastBatch([20], [30]),
        checkWatermark('input1', 15), // max(20 - 10, 30 - 15) = 15
        StopStream,
        StartStream,
        checkWatermark('input1', 15), // watermark recovered correctly
        MultiAddData({ input1: V(120), input2: V(130) }),
        CheckLastBatch([120], [130]),
        checkWatermark('input1', 115), // max(120 - 10, 130 - 15) = 115, policy recovered correctly
        AddData('input1', ...V(150)),
        CheckLastBatch([150]),
        checkWatermark('input1', 140), // should advance even if one of the input has data
      );
    });

    it('MultipleWatermarkPolicy: min', async () => {
      await union('min').run(
        MultiAddData({ input1: V(20), input2: V(30) }),
        CheckLastBatch([20], [30]),
        checkWatermark('input1', 10), // min(20 - 10, 30 - 15) = 10
        StopStream,
        StartStream,
        checkWatermark('input1', 10), // watermark recovered correctly
        MultiAddData({ input1: V(120), input2: V(130) }),
        CheckLastBatch([120], [130]),
        checkWatermark('input2', 110), // min(120 - 10, 130 - 15) = 110, policy recovered correctly
        AddData('input2', ...V(150)),
        CheckLastBatch([150]),
        checkWatermark('input2', 110), // does not advance when only one of the input has data
      );
    });

    it('MultipleWatermarkPolicy: fail on incorrect conf values', async () => {
      // Spark's conf refuses them with "Valid values are 'min' and 'max'"; the spec's field the same way, in its words.
      const { validateJob } = await import('../spec/validate-job');
      for (const value of ['', 'random']) {
        const errors = validateJob({ ...union().spec, multipleWatermarkPolicy: value }).errors;
        expect(errors).toEqual([{ path: 'multipleWatermarkPolicy', message: 'must be one of: min, max' }]);
      }
      // Spark lower-cases the conf's value (SQLConf's transform(_.toLowerCase)): any case is taken.
      for (const value of ['MAX', 'Min']) expect(validateJob({ ...union().spec, multipleWatermarkPolicy: value }).errors).toEqual([]);
    });

    it('MultipleWatermarkPolicy: recovery from checkpoints ignores session conf', async () => {
      const t = union('max');
      await t.run(
        MultiAddData({ input1: V(20), input2: V(30) }),
        CheckLastBatch([20], [30]),
        checkWatermark('input1', 15), // max(20 - 10, 30 - 15) = 15
      );
      (t.spec as { multipleWatermarkPolicy: string }).multipleWatermarkPolicy = 'min';
      await t.run(
        checkWatermark('input1', 15), // watermark recovered correctly
        MultiAddData({ input1: V(120), input2: V(130) }),
        CheckLastBatch([120], [130]),
        checkWatermark('input1', 115), // max(120 - 10, 130 - 15) = 115, policy recovered correctly
        AddData('input1', ...V(150)),
        CheckLastBatch([150]),
        checkWatermark('input1', 140), // should advance even if one of the input has data
      );
    });
  });

  it('SPARK-27340 Alias on TimeWindow expression cause watermark metadata lost', async () => {
    // The window's alias keeps the event time's watermark: the aggregation by it closes windows.
    const t = sparkStreams({
      sources: { inputData: source('10 seconds') },
      sql: "SELECT CAST(aliasWindow.start AS LONG) AS start, count(*) AS count FROM (SELECT window(eventTime, '5 seconds') AS aliasWindow FROM inputData) GROUP BY aliasWindow",
    });
    await t.run(
      AddData('inputData', ...V(10, 11, 12, 13, 14, 15)),
      CheckNewAnswer(),
      AddData('inputData', ...V(25)), // Advance watermark to 15 seconds
      CheckNewAnswer([10, 5]),
      assertNumStateRows(2),
      AddData('inputData', ...V(10)), // Should not emit anything as data less than watermark
      CheckNewAnswer(),
      assertNumStateRows(2),
    );
  });

  it.each([true, false])('test no-data flag (spark.sql.streaming.noDataMicroBatches.enabled = %s)', async (flag) => {
    const t = sparkStreams({ sources: { inputData: source('10 seconds') }, sql: WINDOWED, confs: { noDataMicroBatchesEnabled: flag } });
    await t.run(
      AddData('inputData', ...V(10, 11, 12, 13, 14, 15)),
      CheckNewAnswer(),
      AddData('inputData', ...V(25)), // Advance watermark to 15 seconds
      // Check if there is new answer if flag is set, no new answer otherwise
      flag ? CheckNewAnswer([10, 5]) : CheckNewAnswer(),
    );
  });

  // buildTestQueryForMultiEventTimeColumns: a join whose output keeps both sides' event times,
  // then a stateful operator over both (Spark's dropDuplicates(); here SELECT DISTINCT, an
  // aggregation whose keys are the same columns).
  it('multiple event time columns in an input DataFrame for stateful operator is not allowed', async () => {
    const side = (id: string, ts: string, delay: string): SparkSource => ({ schema: [{ name: id, type: 'string' }, { name: ts, type: 'timestamp' }], eventTime: ts, watermarkDelay: delay });
    const t = sparkStreams({
      sources: { input1: side('id1', 'ts1', '1 minute'), input2: side('id2', 'ts2', '2 minutes') },
      sql: `SELECT id1, CAST(ts1 AS LONG) AS ts1, CAST(ts2 AS LONG) AS ts2 FROM (SELECT DISTINCT id1, ts1, ts2 FROM
        (SELECT id1, ts1, ts2 FROM input1 JOIN input2 ON id1 = id2 AND ts1 = ts2 + INTERVAL 10 SECONDS))`,
    });
    // Spark fails the first batch (WatermarkSupport.findEventTimeColumn, as
    // spark.sql.streaming.statefulOperator.allowMultiple is true by default); Weir refuses the
    // query at validation, and again at start.
    const { validateJob } = await import('../spec/validate-job');
    const [e] = validateJob(t.spec).errors;
    expect(e).toMatchObject({ errorClass: '_LEGACY_ERROR_TEMP_3077' });
    for (const m of ['More than one event time columns are available.', 'Please ensure there is at most one event time column per stream.']) expect(e.message).toContain(m);
    await expect(t.run(
      MultiAddData({ input1: [{ id1: 'A', ts1: 200_000 }, { id1: 'B', ts1: 300_000 }], input2: [{ id2: 'A', ts2: 190_000 }, { id2: 'C', ts2: 350_000 }] }),
      StartStream,
    )).rejects.toThrow('More than one event time columns are available.');
  });

  // Spark's test takes System.currentTimeMillis as "now"; here a few fixed ones, one at the end
  // of January so that February's short month falls inside the delay.
  it.each([Date.UTC(2017, 0, 31, 23, 59, 59, 999), Date.UTC(2024, 2, 1, 0, 0, 0, 1), Date.UTC(2025, 6, 15, 12, 34, 56, 789)])('delay in months and years handled correctly (now = %d)', async (currentTimeMs) => {
    const monthsSinceEpoch = (ms: number) => new Date(ms).getUTCFullYear() * 12 + new Date(ms).getUTCMonth();
    const nowSec = Math.floor(currentTimeMs / 1000);
    const t = sparkStreams({ sources: { input: source('2 years 5 months') }, sql: WINDOWED.replace('inputData', 'input') });
    await t.run(
      AddData('input', ...V(nowSec)),
      CheckNewAnswer(),
      AddData('input', ...V(nowSec)),
      CheckNewAnswer(),
      (s) => {
        const e = s.progress.filter((p) => p.numInputRows > 0).at(-1)!.eventTime!;
        expect(Date.parse(e.max!)).toBe(nowSec * 1000);
        const watermarkTime = Date.parse(e.watermark!);
        // monthsSinceEpoch is like `math.floor(num)`, so monthDiff has two possible values.
        expect([29, 30]).toContain(monthsSinceEpoch(currentTimeMs) - monthsSinceEpoch(watermarkTime));
        // EventTimeWatermark.getDelayMs: (12 * 2 + 5) months of 31 days.
        expect(watermarkTime).toBe(nowSec * 1000 - (12 * 2 + 5) * 31 * 86_400_000);
      },
    );
  });

  it('delay threshold should not be negative.', async () => {
    const { validateJob } = await import('../spec/validate-job');
    const withDelay = (delay: string) => validateJob({ ...sparkStreams({ sources: { inputData: source(delay) }, sql: 'SELECT value FROM inputData' }).spec }).errors.map((e) => e.message).join(' ');
    for (const delay of ['-1 year', '1 year -13 months', '1 month -40 days', '-10 seconds']) {
      expect(withDelay(delay), delay).toContain('should not be negative');
    }
    // Spark's months count 31 days: one month less 30 days is a day, not negative.
    expect(withDelay('1 month -30 days')).toBe('');
  });

  it('refuses a bad event-time column (error on invalid column / wrong type)', async () => {
    const { validateJob } = await import('../spec/validate-job');
    const bad = (eventTime: string) => validateJob({ ...sparkStreams({ sources: { inputData: source() }, sql: 'SELECT value FROM inputData' }).spec, sources: [{ name: 'inputData', type: 'memory', options: { stream: 'x' }, schema: source().schema, eventTime, watermarkDelay: '1 minute' }] }).errors.map((e) => e.message).join(' ');
    expect(bad('badColumn')).toContain('badColumn');
    expect(bad('value')).toMatch(/value.*must be a timestamp, it is long/);
  });
});

describe("a WHERE under the watermark (Spark's PushPredicateThroughNonJoin through EventTimeWatermark)", () => {
  // Spark moves a filter's deterministic conjuncts that do not read the event time below
  // withWatermark: rows they drop move no watermark and count in no event-time statistic.
  const FILTERED = "SELECT CAST(window.start AS LONG) AS start, count(*) AS count FROM inputData WHERE value % 2 = 0 GROUP BY window(eventTime, '5 seconds')";

  it('a row the WHERE drops moves no watermark', async () => {
    const t = sparkStreams({ sources: { inputData: source('10 seconds') }, sql: FILTERED });
    await t.run(
      AddData('inputData', ...V(10, 12, 13)),
      CheckNewAnswer(),
      assertEventStats({ min: 10, max: 12, avg: 11, watermark: 0 }),
      // 41 is odd: the watermark stays 12 - 10 = 2, so [10, 15) stays open.
      AddData('inputData', ...V(41)),
      CheckNewAnswer(),
      AddData('inputData', ...V(30)),
      CheckNewAnswer([10, 2]),
      assertEventStats({ min: 30, max: 30, avg: 30, watermark: 2 }),
    );
  });

  it('a conjunct that reads the event time stays above it: its rows still move the watermark', async () => {
    const t = sparkStreams({
      sources: { inputData: source('10 seconds') },
      sql: "SELECT CAST(window.start AS LONG) AS start, count(*) AS count FROM inputData WHERE value % 2 = 0 AND eventTime < CAST(40 AS TIMESTAMP) GROUP BY window(eventTime, '5 seconds')",
    });
    await t.run(
      AddData('inputData', ...V(10, 12, 13)),
      CheckNewAnswer(),
      // 42 passes value % 2 = 0 (under the watermark) and fails eventTime < 40 (above it).
      AddData('inputData', ...V(42)),
      CheckNewAnswer([10, 2]),
    );
  });
});

describe('a watermark per read of a source (Spark: an EventTimeWatermark per StreamingRelation)', () => {
  // Two reads of one source, the first under a WHERE that keeps the even values: its watermark
  // follows those only, the second's every row; the global one is chosen by the policy, which
  // the checkpoint then records as for several sources.
  const selfUnion = (policy: 'min' | 'max') => sparkStreams({
    sources: { inputData: source('5 seconds') },
    sql: 'SELECT CAST(eventTime AS INT) AS t FROM (SELECT eventTime FROM inputData WHERE value % 2 = 0 UNION ALL SELECT eventTime FROM inputData)',
    spec: { multipleWatermarkPolicy: policy },
  });

  it.each([
    ['min', 15, 35], // min(20 - 5, 31 - 5); after 40, 51: min(40 - 5, 51 - 5)
    ['max', 26, 46], // max(20 - 5, 31 - 5); after 40, 51: max(40 - 5, 51 - 5)
  ] as const)('policy %s', async (policy, first, second) => {
    const t = selfUnion(policy);
    await t.run(
      AddData('inputData', ...V(20, 31)),
      CheckLastBatch([20], [20], [31]),
      checkWatermark('inputData', first),
      StopStream,
      StartStream,
      checkWatermark('inputData', first), // recovered, and so is the policy
      AddData('inputData', ...V(40, 51)),
      CheckLastBatch([40], [40], [51]),
      checkWatermark('inputData', second),
    );
  });
});
