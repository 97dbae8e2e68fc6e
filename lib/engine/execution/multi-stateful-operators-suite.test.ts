/**
 * Spark's MultiStatefulOperatorsSuite (chains of stateful operators in Append mode, Spark 3.5+),
 * translated action by action with Spark's per-batch answers and state row counts. Spark's inputs
 * are MemoryStream[Int]s with `eventTime = timestamp_seconds(value)`; here each source carries
 * both columns. ("agg -> agg -> agg" is in operators/aggregate-chain.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { validateJob } from '../spec/validate-job';
import { AddData, assertNumRowsDroppedByWatermark, assertNumStateRowsTotals, CheckNewAnswer, MultiAddData, sparkStreams, type SparkSource } from './testing/spark-stream-test';

const numbers = (delay: string, value = 'value', eventTime = 'eventTime'): SparkSource => ({
  schema: [{ name: value, type: 'long', integral: 32 }, { name: eventTime, type: 'timestamp' }],
  eventTime,
  watermarkDelay: delay,
});
const V = (...vs: number[]) => vs.map((value) => ({ value, eventTime: value * 1000 }));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('MultiStatefulOperatorsSuite', () => {
  it('window agg -> window agg, append mode', async () => {
    const t = sparkStreams({
      sources: { inputData: numbers('0 seconds') },
      sql: `SELECT CAST(window.start AS LONG) AS start, count, sum FROM (
        SELECT window, count(*) AS count, sum(count) AS sum FROM (
          SELECT window(eventTime, '5 seconds') AS window, count(*) AS count FROM inputData GROUP BY window(eventTime, '5 seconds')
        ) GROUP BY window(window, '10 seconds'))`,
    });
    await t.run(
      AddData('inputData', ...V(...range(10, 21))),
      // op1 closes [10, 15) and [15, 20) at watermark 21 (no-data batch); op2 closes [10, 20).
      CheckNewAnswer([10, 2, 10]),
      assertNumStateRowsTotals([0, 1]),
      assertNumRowsDroppedByWatermark([0, 0]),
      AddData('inputData', ...V(...range(10, 29))),
      // op1: [10, 15) and [15, 20) are late; [20, 25) 7 goes to op2 at watermark 29, which keeps
      // [20, 30).
      CheckNewAnswer(),
      assertNumStateRowsTotals([1, 1]),
      // The ten late rows are two late windows: Spark drops them after its partial aggregation,
      // in StateStoreSaveExec, and counts the two aggregated rows.
      assertNumRowsDroppedByWatermark([0, 2]),
      // Move the watermark.
      AddData('inputData', ...V(30, 31)),
      CheckNewAnswer([20, 2, 12]),
      assertNumStateRowsTotals([0, 1]),
      assertNumRowsDroppedByWatermark([0, 0]),
    );
  });

  it('stream deduplication -> aggregation, append mode', async () => {
    const t = sparkStreams({
      sources: { inputData: numbers('10 seconds') },
      spec: { dedup: { keys: ['value', 'eventTime'] } },
      sql: "SELECT CAST(window.start AS LONG) AS start, count(*) AS count FROM inputData GROUP BY window(eventTime, '5 seconds')",
    });
    await t.run(
      AddData('inputData', ...V(...range(1, 15))),
      // Watermark 5 (no-data batch): the dedup keeps 6..15, the aggregation emits [0, 5) 4.
      CheckNewAnswer([0, 4]),
      assertNumStateRowsTotals([3, 10]),
      assertNumRowsDroppedByWatermark([0, 0]),
    );
  });

  it('join -> window agg, append mode', async () => {
    const t = sparkStreams({
      sources: { input1: numbers('0 seconds', 'value1', 'eventTime1'), input2: numbers('0 seconds', 'value2', 'eventTime2') },
      sql: `SELECT CAST(window.start AS LONG) AS start, count(*) AS count FROM input1 JOIN input2 ON eventTime1 = eventTime2
        GROUP BY window(eventTime1, '5 seconds')`,
    });
    const in1 = (...vs: number[]) => vs.map((v) => ({ value1: v, eventTime1: v * 1000 }));
    const in2 = (...vs: number[]) => vs.map((v) => ({ value2: v, eventTime2: v * 1000 }));
    await t.run(
      MultiAddData({ input1: in1(1, 2, 3, 4), input2: in2(1, 2, 3, 4) }),
      // The join's state goes at watermark 4 (the event time is its key); [0, 5) 4 waits.
      CheckNewAnswer(),
      assertNumStateRowsTotals([1, 0]),
      assertNumRowsDroppedByWatermark([0, 0]),
      // Move the watermark
      MultiAddData({ input1: in1(5), input2: in2(5) }),
      CheckNewAnswer([0, 4]),
      assertNumStateRowsTotals([1, 0]),
      assertNumRowsDroppedByWatermark([0, 0]),
    );
  });

  it('join with range join on non-time intervals -> window agg, append mode, shouldn\'t fail', async () => {
    const t = sparkStreams({
      sources: {
        input1: numbers('0 seconds', 'value1', 'eventTime1'),
        input2: { schema: [{ name: 'start', type: 'long', integral: 32 }, { name: 'end', type: 'long', integral: 32 }, { name: 'eventTime2Start', type: 'timestamp' }], eventTime: 'eventTime2Start', watermarkDelay: '0 seconds' },
      },
      sql: `SELECT CAST(window.start AS LONG) AS start, count(*) AS count FROM
        (SELECT value1, eventTime1, timestamp_seconds(value1) AS v1 FROM input1) a JOIN
        (SELECT eventTime2Start, timestamp_seconds(start) AS start2, timestamp_seconds(end) AS end2 FROM input2) b
        ON v1 >= start2 AND v1 < end2 AND eventTime1 = start2
        GROUP BY window(eventTime1, '5 seconds')`,
    });
    await t.run(
      AddData('input1', ...[1, 2, 3, 4].map((v) => ({ value1: v, eventTime1: v * 1000 }))),
      AddData('input2', ...[[1, 2], [2, 3], [3, 4], [4, 5]].map(([s, e]) => ({ start: s, end: e, eventTime2Start: s * 1000 }))),
      CheckNewAnswer(),
      assertNumStateRowsTotals([1, 0]),
      assertNumRowsDroppedByWatermark([0, 0]),
    );
  });

  describe.each([
    ['left', 'LEFT OUTER', 'timestamp1', (a: [string, string][], b: [string, string][]) => ({ input1: a, input2: b })],
    ['right', 'RIGHT OUTER', 'timestamp2', (a: [string, string][], b: [string, string][]) => ({ input2: a, input1: b })],
  ])('stream-stream time interval %s outer join -> aggregation, append mode', (_side, joinType, time, inputs) => {
    it('gives Spark\'s answer once both delays have passed', async () => {
      const t = sparkStreams({
        sources: {
          input1: { schema: [{ name: 'id1', type: 'string' }, { name: 'timestamp1', type: 'timestamp' }], eventTime: 'timestamp1', watermarkDelay: '0 seconds' },
          input2: { schema: [{ name: 'id2', type: 'string' }, { name: 'timestamp2', type: 'timestamp' }], eventTime: 'timestamp2', watermarkDelay: '0 seconds' },
        },
        sql: `SELECT CAST(window.start AS STRING) AS window_start, CAST(window.end AS STRING) AS window_end, count(*) AS cnt
          FROM input1 s1 ${joinType} JOIN input2 s2 ON s1.id1 = s2.id2 AND (s1.timestamp1 BETWEEN
            s2.timestamp2 - INTERVAL 1 hour AND s2.timestamp2 + INTERVAL 1 hour)
          GROUP BY window(${time}, '10 minutes')`,
      });
      const rows = (data: Record<string, [string, string][]>) => Object.fromEntries(Object.entries(data).map(([name, rs]) => [
        name, rs.map(([id, ts]) => (name === 'input1' ? { id1: id, timestamp1: Date.parse(`${ts}Z`) } : { id2: id, timestamp2: Date.parse(`${ts}Z`) })),
      ]));
      await t.run(
        MultiAddData(rows(inputs([['1', '2023-01-01T01:00:10'], ['2', '2023-01-01T01:00:30']], [['1', '2023-01-01T01:00:20']]))),
        CheckNewAnswer(),
        MultiAddData(rows(inputs([['5', '2023-01-01T01:15:00']], [['6', '2023-01-01T01:15:00']]))),
        CheckNewAnswer(),
        MultiAddData(rows(inputs([['5', '2023-01-01T02:16:00']], [['6', '2023-01-01T02:16:00']]))),
        // The join pads ("2", 01:00:30) and ("5", 01:15:00) at watermark 02:16, its output
        // watermark 01:15:59.999 closes [01:00, 01:10) with the matched row and the padded one.
        CheckNewAnswer(['2023-01-01 01:00:00', '2023-01-01 01:10:00', 2]),
      );
    });
  });

  it('stream-stream time interval join - output watermark for various intervals', () => {
    // The output watermark is read where an aggregation above the join says how far behind the
    // global watermark its input is: Spark's produceOutputWatermark(0).
    const behind = (range: string) => {
      const t = sparkStreams({
        sources: {
          input1: { schema: [{ name: 'leftId', type: 'string' }, { name: 'leftEventTime', type: 'timestamp' }], eventTime: 'leftEventTime', watermarkDelay: '5 minutes' },
          input2: { schema: [{ name: 'rightId', type: 'string' }, { name: 'rightEventTime', type: 'timestamp' }], eventTime: 'rightEventTime', watermarkDelay: '10 minutes' },
        },
        sql: `SELECT window(leftEventTime, '1 minute') AS w, count(*) AS n FROM input1 JOIN input2
          ON leftId = rightId AND leftEventTime BETWEEN ${range} GROUP BY window(leftEventTime, '1 minute')`,
      });
      const r = validateJob(t.spec);
      expect(r.errors).toEqual([]);
      return Number(/reads the watermark (\d+) ms behind/.exec(r.explain!)![1]);
    };
    // right row should wait for additional 40 seconds (+ 1 ms) to be matched with left rows
    expect(behind('rightEventTime AND rightEventTime + INTERVAL 40 seconds')).toBe(40 * 1000 + 1);
    // left row should wait for additional 30 seconds (+ 1 ms) to be matched with right rows
    expect(behind('rightEventTime - INTERVAL 30 seconds AND rightEventTime')).toBe(30 * 1000 + 1);
    // taking minimum of both criteria - 40 seconds (+ 1 ms)
    expect(behind('rightEventTime - INTERVAL 30 seconds AND rightEventTime + INTERVAL 40 seconds')).toBe(40 * 1000 + 1);
  });

  it('SPARK-49829 time window agg per each source followed by stream-stream join', async () => {
    const t = sparkStreams({
      sources: { inputStream1: numbers('5 seconds', 'value', 'ts'), inputStream2: numbers('5 seconds', 'value', 'ts') },
      sql: `SELECT CAST(window.end AS LONG) AS window_end, sum_df1, sum_df2 FROM
        (SELECT window(ts, '10 seconds') AS window, sum(value) AS sum_df1 FROM inputStream1 GROUP BY window(ts, '10 seconds')) a
        JOIN (SELECT window(ts, '10 seconds') AS window, sum(value) AS sum_df2 FROM inputStream2 GROUP BY window(ts, '10 seconds')) b
        USING (window)`,
    });
    const W = (...vs: number[]) => vs.map((value) => ({ value, ts: value * 1000 }));
    await t.run(
      MultiAddData({ inputStream1: W(1, 2, 3, 4, 5), inputStream2: W(5, 6, 7, 8, 9) }),
      // watermark: 5 - 5 = 0
      CheckNewAnswer(),
      MultiAddData({ inputStream1: W(11, 12, 13, 14, 15), inputStream2: W(15, 16, 17, 18, 19) }),
      // watermark: 15 - 5 = 10 (windows for [0, 10) are completed)
      CheckNewAnswer([10, 15, 35]),
      MultiAddData({ inputStream1: W(100), inputStream2: W(101) }),
      // watermark: 100 - 5 = 95 (windows for [0, 20) are completed)
      CheckNewAnswer([20, 65, 85]),
    );
  });
});

describe('SELECT DISTINCT over a GROUP BY (not in Spark\'s suite)', () => {
  // Spark plans it as a Distinct over the Aggregate (ReplaceDistinctWithAggregate: a second
  // aggregation by every output column), which Spark 3.5+ chains in Append mode: the inner one
  // emits a window once the watermark passes it, the outer one then, in the same batch.
  it('emits each closed window once, as an aggregation over the aggregation', async () => {
    const t = sparkStreams({
      sources: { inputData: numbers('0 seconds') },
      sql: "SELECT DISTINCT CAST(window(eventTime, '5 seconds').start AS LONG) AS start, window(eventTime, '5 seconds') AS w, count(*) AS count FROM inputData GROUP BY window(eventTime, '5 seconds')",
    });
    const answer = (rows: unknown[][]) => rows.map(([start, , count]) => [start, count]);
    await t.run(
      AddData('inputData', ...V(1, 2, 3, 6)),
      // Watermark 6 (no-data batch): [0, 5) closes below, then above.
      (s) => s.ensureStarted().then((q) => q.processAllAvailable()),
      (s) => expect(answer(s.newBatches().flat().map((r) => Object.values(r)))).toEqual([[0, 3]]),
      AddData('inputData', ...V(7, 12)),
      (s) => s.ensureStarted().then((q) => q.processAllAvailable()),
      (s) => expect(answer(s.newBatches().flat().map((r) => Object.values(r)))).toEqual([[5, 2]]),
      assertNumStateRowsTotals([0, 1]),
    );
  });
});

