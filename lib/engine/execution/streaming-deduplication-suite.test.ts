/**
 * Spark's StreamingDeduplicationSuite, translated action by action with Spark's answers and state
 * row counts. Spark's dropDuplicates(cols) on the input is the job's `dedup` option (keys: cols;
 * all of the input's columns for dropDuplicates()), applied to the source before the SQL; Spark's
 * `eventTime = timestamp_seconds(value)` is a column of the source. With two operators the state
 * row counts are listed as Weir's progress lists them, from the source up (dedup, then the
 * aggregation); Spark lists them from the sink down. ("multiple deduplicates" has no translation:
 * the job has one `dedup`.)
 */
import { describe, expect, it } from 'vitest';
import { AddData, assertNumStateRows, assertStateOperatorProgressMetric, CheckLastBatch, CheckNewAnswer, Execute, MultiAddData, sparkStreams, StartStream, StopStream, type SparkSource } from './testing/spark-stream-test';

const INT = { type: 'long', integral: 32 };
const withWatermark = (delay: string): SparkSource => ({ schema: [{ name: 'value', ...INT }, { name: 'eventTime', type: 'timestamp' }], eventTime: 'eventTime', watermarkDelay: delay });
const V = (...vs: number[]) => vs.map((value) => ({ value, eventTime: value * 1000 }));
/** (1 to 5).flatMap(_ => (10 to 15)) */
const tenToFifteenFiveTimes = () => V(...Array.from({ length: 5 }, () => [10, 11, 12, 13, 14, 15]).flat());
const pairs = (...ps: [string, number][]) => ps.map(([_1, _2]) => ({ _1, _2 }));
const PAIRS: SparkSource = { schema: [{ name: '_1', type: 'string' }, { name: '_2', ...INT }] };
/** Spark's assertStateOperatorCustomMetric: the last progress of a batch with input rows. */
const droppedDuplicates = (n: number) => Execute((t) => expect(t.progress.filter((p) => p.numInputRows > 0).at(-1)!.stateOperators[0].customMetrics?.numDroppedDuplicateRows).toBe(n));

describe('StreamingDeduplicationSuite', () => {
  it('deduplicate with all columns', async () => {
    const t = sparkStreams({ sources: { inputData: { schema: [{ name: 'value', type: 'string' }] } }, spec: { dedup: { keys: ['value'] } }, sql: 'SELECT value FROM inputData' });
    await t.run(
      AddData('inputData', { value: 'a' }),
      CheckLastBatch(['a']),
      assertNumStateRows({ total: 1, updated: 1 }),
      AddData('inputData', { value: 'a' }),
      CheckLastBatch(),
      assertNumStateRows({ total: 1, updated: 0 }),
      AddData('inputData', { value: 'b' }),
      CheckLastBatch(['b']),
      assertNumStateRows({ total: 2, updated: 1 }),
    );
  });

  it('deduplicate with some columns', async () => {
    const t = sparkStreams({ sources: { inputData: PAIRS }, spec: { dedup: { keys: ['_1'] } }, sql: 'SELECT * FROM inputData' });
    await t.run(
      AddData('inputData', ...pairs(['a', 1])),
      CheckLastBatch(['a', 1]),
      assertNumStateRows({ total: 1, updated: 1, droppedByWatermark: 0 }),
      AddData('inputData', ...pairs(['a', 2])), // Dropped
      CheckLastBatch(),
      assertNumStateRows({ total: 1, updated: 0, droppedByWatermark: 0 }),
      AddData('inputData', ...pairs(['b', 1])),
      CheckLastBatch(['b', 1]),
      assertNumStateRows({ total: 2, updated: 1, droppedByWatermark: 0 }),
    );
  });

  it('SPARK-35896: metrics in StateOperatorProgress are output correctly', async () => {
    const t = sparkStreams({ sources: { inputData: withWatermark('10 seconds') }, spec: { dedup: { keys: ['value', 'eventTime'] }, parallelism: 2 }, sql: 'SELECT CAST(eventTime AS LONG) AS t FROM inputData' });
    await t.run(
      AddData('inputData', ...tenToFifteenFiveTimes()),
      CheckNewAnswer([10], [11], [12], [13], [14], [15]),
      assertNumStateRows({ total: 6, updated: 6, droppedByWatermark: 0, removed: 0 }),
      AddData('inputData', ...V(25)), // Advance watermark to 15 secs, no-data-batch drops rows <= 15
      CheckNewAnswer([25]),
      assertNumStateRows({ total: 1, updated: 1, droppedByWatermark: 0, removed: 6 }),
      AddData('inputData', ...V(10)), // Should not emit anything as data less than watermark
      CheckNewAnswer(),
      assertNumStateRows({ total: 1, updated: 0, droppedByWatermark: 1, removed: 0 }),
      assertStateOperatorProgressMetric({ operatorName: 'dedupe', numShufflePartitions: 2, numStateStoreInstances: 2 }),
    );
  });

  it('deduplicate with watermark', async () => {
    const t = sparkStreams({ sources: { inputData: withWatermark('10 seconds') }, spec: { dedup: { keys: ['value', 'eventTime'] } }, sql: 'SELECT CAST(eventTime AS LONG) AS t FROM inputData' });
    await t.run(
      AddData('inputData', ...tenToFifteenFiveTimes()),
      CheckNewAnswer([10], [11], [12], [13], [14], [15]),
      assertNumStateRows({ total: 6, updated: 6 }),
      AddData('inputData', ...V(25)), // Advance watermark to 15 secs, no-data-batch drops rows <= 15
      CheckNewAnswer([25]),
      assertNumStateRows({ total: 1, updated: 1 }),
      AddData('inputData', ...V(10)), // Should not emit anything as data less than watermark
      CheckNewAnswer(),
      assertNumStateRows({ total: 1, updated: 0, droppedByWatermark: 1 }),
      AddData('inputData', ...V(45)), // Advance watermark to 35 seconds, no-data-batch drops row 25
      CheckNewAnswer([45]),
      assertNumStateRows({ total: 1, updated: 1 }),
    );
  });

  it('deduplicate with aggregate - append mode', async () => {
    const t = sparkStreams({
      sources: { inputData: withWatermark('10 seconds') },
      spec: { dedup: { keys: ['value', 'eventTime'] } },
      sql: "SELECT CAST(window.start AS LONG) AS start, count(*) AS count FROM inputData GROUP BY window(eventTime, '5 seconds')",
    });
    await t.run(
      AddData('inputData', ...tenToFifteenFiveTimes()),
      CheckLastBatch(),
      // states in aggregate in [10, 14), [15, 20) (2 windows); in deduplicate 10 to 15
      assertNumStateRows({ total: [6, 2], updated: [6, 2] }),
      AddData('inputData', ...V(25)), // Advance watermark to 15 seconds
      CheckLastBatch([10, 5]), // 5 items (10 to 14) after deduplicate, emitted with no-data-batch
      assertNumStateRows({ total: [1, 2], updated: [1, 1] }),
      AddData('inputData', ...V(10)), // Should not emit anything as data less than watermark
      CheckLastBatch(),
      assertNumStateRows({ total: [1, 2], updated: [0, 0], droppedByWatermark: [1, 0] }),
      AddData('inputData', ...V(40)), // Advance watermark to 30 seconds
      CheckLastBatch([15, 1], [25, 1]),
      // states in aggregate is [40, 45); in deduplicate 40
      assertNumStateRows({ total: [1, 1], updated: [1, 1] }),
    );
  });

  describe.each([
    ['update', [['a', 1], [], ['a', 3], ['b', 1]]],
    ['complete', [['a', 1], ['a', 1], ['a', 3], ['a', 3, 'b', 1]]],
  ] as const)('deduplicate with aggregate - %s mode', (mode, answers) => {
    it('answers per batch as Spark', async () => {
      const t = sparkStreams({
        sources: { inputData: { schema: [{ name: 'str', type: 'string' }, { name: 'num', ...INT }] } },
        spec: { dedup: { keys: ['str', 'num'] } },
        outputMode: mode,
        sql: 'SELECT str, sum(num) AS total FROM inputData GROUP BY str',
      });
      const last = (a: readonly (string | number)[]) => CheckLastBatch(...Array.from({ length: a.length / 2 }, (_, i) => [a[2 * i], a[2 * i + 1]]));
      const sn = (str: string, num: number) => ({ str, num });
      await t.run(
        AddData('inputData', sn('a', 1)),
        last(answers[0]),
        assertNumStateRows({ total: [1, 1], updated: [1, 1] }),
        AddData('inputData', sn('a', 1)), // Dropped
        last(answers[1]),
        assertNumStateRows({ total: [1, 1], updated: [0, 0] }),
        AddData('inputData', sn('a', 2)),
        last(answers[2]),
        assertNumStateRows({ total: [2, 1], updated: [1, 1] }),
        AddData('inputData', sn('b', 1)),
        last(answers[3]),
        assertNumStateRows({ total: [3, 2], updated: [1, 1] }),
      );
    });
  });

  it('SPARK-19841: watermarkPredicate should filter based on keys', async () => {
    const t = sparkStreams({
      sources: { input: { schema: [{ name: 'time', type: 'timestamp' }, { name: 'id', ...INT }], eventTime: 'time', watermarkDelay: '1 second' } },
      spec: { dedup: { keys: ['id', 'time'] } }, // Change the column positions
      sql: 'SELECT id FROM input',
    });
    const ti = (...ps: [number, number][]) => ps.map(([time, id]) => ({ time: time * 1000, id }));
    await t.run(
      AddData('input', ...ti([1, 1], [1, 1], [1, 2])),
      CheckNewAnswer([1], [2]),
      AddData('input', ...ti([1, 1], [2, 3], [2, 4])),
      CheckNewAnswer([3], [4]),
      AddData('input', ...ti([1, 0], [1, 1], [3, 5], [3, 6])), // Drop (1 -> 0, 1 -> 1) due to watermark
      CheckNewAnswer([5], [6]),
      AddData('input', ...ti([1, 0], [4, 7])), // Drop (1 -> 0) due to watermark
      CheckNewAnswer([7]),
    );
  });

  it('SPARK-21546: dropDuplicates should ignore watermark when it\'s not a key', async () => {
    const t = sparkStreams({
      sources: { input: { schema: [{ name: 'id', ...INT }, { name: 'time', type: 'timestamp' }], eventTime: 'time', watermarkDelay: '1 second' } },
      spec: { dedup: { keys: ['id'] } },
      sql: 'SELECT id, CAST(time AS LONG) AS time FROM input',
    });
    await t.run(
      AddData('input', ...[[1, 1], [1, 2], [2, 2]].map(([id, time]) => ({ id, time: time * 1000 }))),
      CheckNewAnswer([1, 1], [2, 2]),
    );
  });

  it('SPARK-29438: ensure UNION doesn\'t lead streaming deduplication to use shifted partition IDs (across a restart)', async () => {
    // The dedup option is the first source's: Spark's input2.dropDuplicates("value") is the first here.
    const one: SparkSource = { schema: [{ name: 'value', ...INT }] };
    const t = sparkStreams({ sources: { input2: one, input1: one }, spec: { dedup: { keys: ['value'] }, parallelism: 2 }, sql: 'SELECT value FROM input1 UNION ALL SELECT value FROM input2' });
    const v = (...xs: number[]) => xs.map((value) => ({ value }));
    await t.run(
      MultiAddData({ input1: v(11, 12), input2: v(21, 22) }),
      CheckNewAnswer([11], [12], [21], [22]),
      StopStream,
      StartStream,
      MultiAddData({ input1: v(13, 14), input2: v(22, 23) }),
      CheckNewAnswer([13], [14], [23]),
    );
  });

  it('SPARK-35880: custom metric numDroppedDuplicateRows in state operator progress', async () => {
    const dedupe = sparkStreams({ sources: { dedupeInputData: PAIRS }, spec: { dedup: { keys: ['_1'] } }, sql: 'SELECT * FROM dedupeInputData' });
    await dedupe.run(
      AddData('dedupeInputData', ...pairs(['a', 1])),
      CheckLastBatch(['a', 1]),
      droppedDuplicates(0),
      AddData('dedupeInputData', ...pairs(['a', 2], ['b', 3])),
      CheckLastBatch(['b', 3]),
      droppedDuplicates(1),
      AddData('dedupeInputData', ...pairs(['a', 5], ['b', 2], ['c', 9])),
      CheckLastBatch(['c', 9]),
      droppedDuplicates(2),
    );
    // with watermark
    const withWm = sparkStreams({ sources: { dedupeWithWMInputData: withWatermark('10 seconds') }, spec: { dedup: { keys: ['value', 'eventTime'] } }, sql: 'SELECT CAST(eventTime AS LONG) AS t FROM dedupeWithWMInputData' });
    await withWm.run(
      AddData('dedupeWithWMInputData', ...tenToFifteenFiveTimes()),
      CheckNewAnswer([10], [11], [12], [13], [14], [15]),
      droppedDuplicates(24),
      AddData('dedupeWithWMInputData', ...V(14)),
      CheckNewAnswer(),
      droppedDuplicates(1),
      // Advance watermark to 15 secs, no-data-batch drops rows <= 15
      AddData('dedupeWithWMInputData', ...V(25)),
      CheckNewAnswer([25]),
      droppedDuplicates(0),
      AddData('dedupeWithWMInputData', ...V(10)), // Should not emit anything as data less than watermark
      CheckNewAnswer(),
      droppedDuplicates(0),
      AddData('dedupeWithWMInputData', ...V(26, 26)),
      CheckNewAnswer([26]),
      droppedDuplicates(1),
    );
  });

  it('SPARK-39650: duplicate with specific keys should allow input to change schema', async () => {
    const t = sparkStreams({ sources: { dedupeInputData: PAIRS }, spec: { dedup: { keys: ['_1'] } }, sql: 'SELECT * FROM dedupeInputData' });
    await t.run(
      AddData('dedupeInputData', ...pairs(['a', 1])),
      CheckLastBatch(['a', 1]),
      AddData('dedupeInputData', ...pairs(['a', 2], ['b', 3])),
      CheckLastBatch(['b', 3]),
      StopStream,
    );
    // The same checkpoint, the input now with a third column: the state's value schema may change.
    const schema = [...PAIRS.schema, { name: '_3', type: 'string' }];
    const sources = (t.spec.sources as Record<string, unknown>[]).map((s) => ({ ...s, schema }));
    (t.spec as { sources: unknown }).sources = sources;
    await t.run(
      AddData('dedupeInputData', { _1: 'a', _2: 5, _3: 'a' }, { _1: 'b', _2: 2, _3: 'b' }, { _1: 'c', _2: 9, _3: 'c' }),
      CheckLastBatch(['c', 9, 'c']),
    );
  });
});
