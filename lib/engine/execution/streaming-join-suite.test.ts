/**
 * Spark's StreamingJoinSuite (StreamingInnerJoinSuite, StreamingOuterJoinSuite,
 * StreamingFullOuterJoinSuite, StreamingLeftSemiJoinSuite), translated action by action with
 * Spark's per-batch answers and state row counts.
 *
 * Spark's inputs are MemoryStream[Int]s projected to (key, <side>Time = timestamp_seconds(value),
 * <side>Value = value * multiplier) with a watermark on the time; here each source carries those
 * three columns as Spark's projection computes them, with the watermark on the source. A
 * DataFrame's `window.end.cast("long")` is `CAST(window.end AS LONG)` (seconds), a time's
 * `cast("int")` `CAST(t AS INT)`.
 */
import { describe, expect, it } from 'vitest';
import { validateJob } from '../spec/validate-job';
import { AddData, assertNumStateRows, assertStateOperatorProgressMetric, CheckNewAnswer, MultiAddData, sparkStreams, StartStream, StopStream, type SparkSource } from './testing/spark-stream-test';

const INT = { type: 'long', integral: 32 };
const TS = { type: 'timestamp' };

/** setupStream(prefix, multiplier): (key, prefixTime, prefixValue), watermark 10 seconds on prefixTime. */
const sideSource = (prefix: string, watermark: string | null = '10 seconds'): SparkSource => ({
  schema: [{ name: 'key', ...INT }, { name: `${prefix}Time`, ...TS }, { name: `${prefix}Value`, ...INT }],
  ...(watermark ? { eventTime: `${prefix}Time`, watermarkDelay: watermark } : {}),
});
const L = (...vs: number[]) => vs.map((v) => ({ key: v, leftTime: v * 1000, leftValue: v * 2 }));
const R = (...vs: number[]) => vs.map((v) => ({ key: v, rightTime: v * 1000, rightValue: v * 3 }));

/** setupWindowedJoin(joinType): the two sides windowed by 10 seconds, joined on (key, window). */
function windowedJoin(joinType: string) {
  const cols = joinType === 'LEFT SEMI' ? 'key, CAST(window.end AS LONG) AS end, leftValue' : 'key, CAST(window.end AS LONG) AS end, leftValue, rightValue';
  return sparkStreams({
    sources: { leftInput: sideSource('left'), rightInput: sideSource('right') },
    sql: `SELECT ${cols} FROM
      (SELECT key, window(leftTime, '10 seconds') AS window, leftValue FROM leftInput) l ${joinType} JOIN
      (SELECT key, window(rightTime, '10 seconds') AS window, rightValue FROM rightInput) r USING (key, window)`,
  });
}

/**
 * setupWindowedJoinWithLeftCondition / …RightCondition: the right value is a string (so a NULL row
 * shows which side it pads), and the condition has a further predicate over one side.
 */
function windowedJoinWithCondition(joinType: string, predicate: 'leftValue > 4' | 'CAST(rightValue AS INT) > 7') {
  const select = {
    'LEFT SEMI': 'l.key, CAST(l.window.end AS LONG) AS end, leftValue',
    'LEFT OUTER': 'l.key, CAST(l.window.end AS LONG) AS end, leftValue, rightValue',
    'RIGHT OUTER': 'r.key, CAST(r.window.end AS LONG) AS end, leftValue, rightValue',
    'FULL OUTER': 'l.key AS lkey, CAST(l.window.end AS LONG) AS lend, leftValue, r.key AS rkey, CAST(r.window.end AS LONG) AS rend, rightValue',
  }[joinType];
  return sparkStreams({
    sources: { leftInput: sideSource('left'), rightInput: sideSource('right') },
    sql: `SELECT ${select} FROM
      (SELECT key, window(leftTime, '10 seconds') AS window, leftValue FROM leftInput) l ${joinType} JOIN
      (SELECT key, window(rightTime, '10 seconds') AS window, CAST(rightValue AS STRING) AS rightValue FROM rightInput) r
      ON l.key = r.key AND l.window = r.window AND ${predicate}`,
  });
}

/** setupJoinWithRangeCondition: (leftKey, time) and (rightKey, time), leftTime within ± bounds of rightTime. */
function rangeJoin(joinType: string, watermark = '10 seconds', lowerBound = 'INTERVAL 5 SECONDS', upperBound = 'INTERVAL 5 SECONDS') {
  const side = (p: string): SparkSource => ({
    schema: [{ name: `${p}Key`, ...INT }, { name: `${p}Time`, ...TS }, { name: `${p}Value`, ...INT }],
    eventTime: `${p}Time`,
    watermarkDelay: watermark,
  });
  const select = joinType === 'LEFT SEMI' ? 'leftKey, CAST(leftTime AS INT) AS leftTime' : 'leftKey, rightKey, CAST(leftTime AS INT) AS lt, CAST(rightTime AS INT) AS rt';
  return sparkStreams({
    sources: { leftInput: side('left'), rightInput: side('right') },
    sql: `SELECT ${select} FROM leftInput ${joinType} JOIN rightInput
      ON leftKey = rightKey AND leftTime BETWEEN rightTime - ${lowerBound} AND rightTime + ${upperBound}`,
  });
}
const LK = (...kts: [number, number][]) => kts.map(([k, t]) => ({ leftKey: k, leftTime: t * 1000, leftValue: k * 2 }));
const RK = (...kts: [number, number][]) => kts.map(([k, t]) => ({ rightKey: k, rightTime: t * 1000, rightValue: k * 3 }));

/**
 * setupSelfJoin: one stream of (value, timestamp); the left side every row, the right side the
 * even values, each with a 5-second watermark, joined on the id with rightTime within 5 seconds
 * after leftTime.
 */
function selfJoin(joinType: string) {
  const select = joinType === 'LEFT SEMI' ? 'leftId, CAST(leftTime AS INT) AS lt' : 'leftId, CAST(leftTime AS INT) AS lt, rightId, CAST(rightTime AS INT) AS rt';
  return sparkStreams({
    sources: { input: { schema: [{ name: 'value', ...INT }, { name: 'timestamp', ...TS }], eventTime: 'timestamp', watermarkDelay: '5 seconds' } },
    sql: `SELECT ${select} FROM (SELECT value AS leftId, timestamp AS leftTime FROM input) l ${joinType} JOIN
      (SELECT value AS rightId, timestamp AS rightTime FROM input WHERE value % 2 = 0) r
      ON leftId = rightId AND rightTime >= leftTime AND rightTime <= leftTime + INTERVAL 5 SECONDS`,
  });
}
const VT = (...vs: number[]) => vs.map((v) => ({ value: v, timestamp: v * 1000 }));

describe('StreamingInnerJoinSuite', () => {
  it('stream stream inner join on non-time column', async () => {
    const t = sparkStreams({
      sources: { input1: { schema: [{ name: 'value', ...INT }] }, input2: { schema: [{ name: 'value', ...INT }] } },
      sql: 'SELECT * FROM (SELECT value AS key, value * 2 AS leftValue FROM input1) a JOIN (SELECT value AS key, value * 3 AS rightValue FROM input2) b USING (key)',
    });
    const v = (...xs: number[]) => xs.map((value) => ({ value }));
    await t.run(
      AddData('input1', ...v(1)),
      CheckNewAnswer(),
      AddData('input2', ...v(1, 10)), // 1 arrived on input1 first, then input2, should join
      CheckNewAnswer([1, 2, 3]),
      AddData('input1', ...v(10)), // 10 arrived on input2 first, then input1, should join
      CheckNewAnswer([10, 20, 30]),
      AddData('input2', ...v(1)), // another 1 in input2 should join with 1 input1
      CheckNewAnswer([1, 2, 3]),
      StopStream,
      StartStream,
      AddData('input1', ...v(1)), // multiple 1s should be kept in state causing multiple (1, 2, 3)
      CheckNewAnswer([1, 2, 3], [1, 2, 3]),
      StopStream,
      StartStream,
      AddData('input1', ...v(100)),
      AddData('input2', ...v(100)),
      CheckNewAnswer([100, 200, 300]),
    );
  });

  it('stream stream inner join on windows - without watermark', async () => {
    const t = sparkStreams({
      sources: { leftInput: sideSource('left', null), rightInput: sideSource('right', null) },
      sql: `SELECT key, CAST(window.end AS LONG) AS end, leftValue, rightValue FROM
        (SELECT key, window(leftTime, '10 seconds') AS window, leftValue FROM leftInput) l JOIN
        (SELECT key, window(rightTime, '10 seconds') AS window, rightValue FROM rightInput) r USING (key, window)`,
    });
    await t.run(
      AddData('leftInput', ...L(1)),
      CheckNewAnswer(),
      AddData('rightInput', ...R(1)),
      CheckNewAnswer([1, 10, 2, 3]),
      StopStream,
      StartStream,
      AddData('leftInput', ...L(25)),
      CheckNewAnswer(),
      StopStream,
      StartStream,
      AddData('rightInput', ...R(25)),
      CheckNewAnswer([25, 30, 50, 75]),
      AddData('leftInput', ...L(1)),
      CheckNewAnswer([1, 10, 2, 3]), // State for 1 still around as there is no watermark
      StopStream,
      StartStream,
      AddData('leftInput', ...L(5)),
      CheckNewAnswer(),
      AddData('rightInput', ...R(5)),
      CheckNewAnswer([5, 10, 10, 15]), // No filter by any watermark
    );
  });

  it('stream stream inner join on windows - with watermark (the left side alone has one)', async () => {
    const t = sparkStreams({
      sources: { leftInput: sideSource('left'), rightInput: sideSource('right', null) },
      sql: `SELECT key, CAST(window.end AS LONG) AS end, leftValue, rightValue FROM
        (SELECT key, window(leftTime, '10 seconds') AS window, leftValue FROM leftInput) l JOIN
        (SELECT key, window(rightTime, '10 seconds') AS window, rightValue FROM rightInput) r USING (key, window)`,
    });
    await t.run(
      AddData('leftInput', ...L(1)),
      CheckNewAnswer(),
      assertNumStateRows({ total: 1, updated: 1 }),
      AddData('rightInput', ...R(1)),
      CheckNewAnswer([1, 10, 2, 3]),
      assertNumStateRows({ total: 2, updated: 1 }),
      StopStream,
      StartStream,
      AddData('leftInput', ...L(25)),
      CheckNewAnswer(), // watermark = 15, no-data-batch should remove 2 rows having window=[0,10]
      assertNumStateRows({ total: 1, updated: 1 }),
      AddData('rightInput', ...R(25)),
      CheckNewAnswer([25, 30, 50, 75]),
      assertNumStateRows({ total: 2, updated: 1 }),
      StopStream,
      StartStream,
      AddData('rightInput', ...R(1)),
      CheckNewAnswer(), // Should not join as < 15 removed
      assertNumStateRows({ total: 2, updated: 0 }), // row not add as 1 < state key watermark = 15
      AddData('leftInput', ...L(5)),
      CheckNewAnswer(), // Same reason as above
      assertNumStateRows({ total: 2, updated: 0, droppedByWatermark: 1 }),
    );
  });

  it('stream stream inner join with time range - with watermark - one side condition', async () => {
    const side = (p: string): SparkSource => ({ schema: [{ name: `${p}Key`, ...INT }, { name: `${p}Time`, ...TS }, { name: `${p}Value`, ...INT }], eventTime: `${p}Time`, watermarkDelay: '10 seconds' });
    const t = sparkStreams({
      sources: { leftInput: side('left'), rightInput: side('right') },
      sql: 'SELECT leftKey, CAST(leftTime AS INT) AS lt, CAST(rightTime AS INT) AS rt FROM leftInput JOIN rightInput ON leftKey = rightKey AND leftTime < rightTime - INTERVAL 5 SECONDS',
    });
    await t.run(
      AddData('leftInput', ...LK([1, 5])),
      CheckNewAnswer(),
      AddData('rightInput', ...RK([1, 11])),
      CheckNewAnswer([1, 5, 11]),
      AddData('rightInput', ...RK([1, 10])),
      CheckNewAnswer(), // no match as leftTime 5 is not < rightTime 10 - 5
      assertNumStateRows({ total: 3, updated: 3 }),
      // Increase event time watermark to 20s by adding data with time = 30s on both inputs
      AddData('leftInput', ...LK([1, 3], [1, 30])),
      CheckNewAnswer([1, 3, 10], [1, 3, 11]),
      assertNumStateRows({ total: 5, updated: 2 }),
      AddData('rightInput', ...RK([0, 30])),
      CheckNewAnswer(),
      // Watermark 20: the right side keeps rightTime > 25 only, so (1, 11) and (1, 10) go.
      assertNumStateRows({ total: 4, updated: 1 }),
      // (1, 20) is late; (1, 21) matches (1, 3) and (1, 5) but is not buffered (21 < the state
      // watermark 25); (1, 28) matches them and is buffered.
      AddData('rightInput', ...RK([1, 20], [1, 21], [1, 28])),
      CheckNewAnswer([1, 3, 21], [1, 5, 21], [1, 3, 28], [1, 5, 28]),
      assertNumStateRows({ total: 5, updated: 1, droppedByWatermark: 1 }),
      // New data to left input with leftTime <= 20 should be filtered due to event time watermark
      AddData('leftInput', ...LK([1, 20], [1, 21])),
      CheckNewAnswer([1, 21, 28]),
      assertNumStateRows({ total: 6, updated: 1, droppedByWatermark: 1 }),
    );
  });

  it('stream stream inner join with time range - with watermark - two side conditions', async () => {
    const side = (p: string, delay: string): SparkSource => ({ schema: [{ name: `${p}Key`, ...INT }, { name: `${p}Time`, ...TS }, { name: `${p}Value`, ...INT }], eventTime: `${p}Time`, watermarkDelay: delay });
    const t = sparkStreams({
      sources: { leftInput: side('left', '20 seconds'), rightInput: side('right', '30 seconds') },
      sql: 'SELECT leftKey, CAST(leftTime AS INT) AS lt, CAST(rightTime AS INT) AS rt FROM leftInput JOIN rightInput ' +
        'ON leftKey = rightKey AND leftTime BETWEEN rightTime - INTERVAL 10 SECONDS AND rightTime + INTERVAL 5 SECONDS',
    });
    await t.run(
      // If leftTime = 20, then it match only with rightTime = [15, 30]
      AddData('leftInput', ...LK([1, 20])),
      CheckNewAnswer(),
      AddData('rightInput', ...RK([1, 14], [1, 15], [1, 25], [1, 26], [1, 30], [1, 31])),
      CheckNewAnswer([1, 20, 15], [1, 20, 25], [1, 20, 26], [1, 20, 30]),
      assertNumStateRows({ total: 7, updated: 7 }),
      // If rightTime = 60, then it matches only leftTime = [50, 65]
      AddData('rightInput', ...RK([1, 60])),
      CheckNewAnswer(), // matches with nothing on the left
      AddData('leftInput', ...LK([1, 49], [1, 50], [1, 65], [1, 66])),
      CheckNewAnswer([1, 50, 60], [1, 65, 60]),
      // Watermark min(66 - 20, 60 - 30) = 30: the left keeps ≥ 20 (all), the right drops < 25 (14, 15).
      assertNumStateRows({ total: 10, updated: 5 }),
      AddData('leftInput', ...LK([1, 30], [1, 31])), // 30 should not be processed or added to state
      CheckNewAnswer([1, 31, 26], [1, 31, 30], [1, 31, 31]),
      assertNumStateRows({ total: 11, updated: 1, droppedByWatermark: 1 }), // only 31 added
      // Advance the watermark: min(46, 50) = 46; the left drops < 36, the right < 41.
      AddData('rightInput', ...RK([1, 80])),
      CheckNewAnswer(),
      assertNumStateRows({ total: 6, updated: 1 }),
      AddData('rightInput', ...RK([1, 46], [1, 50])), // 46 should not be processed or added to state
      CheckNewAnswer([1, 49, 50], [1, 50, 50]),
      assertNumStateRows({ total: 7, updated: 1, droppedByWatermark: 1 }), // 50 added
    );
  });

  it('stream stream self join', async () => {
    const t = sparkStreams({
      sources: { input: { schema: [{ name: 'value', ...INT }] } },
      sql: 'SELECT * FROM (SELECT value % 5 AS key, value FROM input) a JOIN (SELECT value % 5 AS key, value AS value2 FROM input) b USING (key)',
    });
    const v = (...xs: number[]) => xs.map((value) => ({ value }));
    await t.run(
      AddData('input', ...v(1, 2)),
      CheckNewAnswer([1, 1, 1], [2, 2, 2]),
      StopStream,
      StartStream,
      AddData('input', ...v(3, 6)),
      // (Spark's CheckAnswer is of everything so far: these are the new rows of it.)
      CheckNewAnswer([3, 3, 3], [1, 1, 6], [1, 6, 1], [1, 6, 6]),
    );
  });

  it('join between three streams', async () => {
    const one = { schema: [{ name: 'value', ...INT }] };
    const t = sparkStreams({
      sources: { input1: one, input2: one, input3: one },
      sql: `SELECT * FROM (SELECT value AS leftKey, value * 2 AS leftValue FROM input1) a
        JOIN (SELECT value AS middleKey, value * 3 AS middleValue FROM input2) b ON leftKey = middleKey
        JOIN (SELECT value AS rightKey, value * 5 AS rightValue FROM input3) c ON rightKey = middleKey`,
    });
    const v = (...xs: number[]) => xs.map((value) => ({ value }));
    await t.run(
      AddData('input1', ...v(1, 5)),
      AddData('input2', ...v(1, 5, 10)),
      AddData('input3', ...v(5, 10)),
      CheckNewAnswer([5, 10, 5, 15, 5, 25]),
    );
  });

  it('stream stream inner join without equality predicate', async () => {
    const one = { schema: [{ name: 'value', ...INT }] };
    const t = sparkStreams({
      sources: { input1: one, input2: one },
      sql: 'SELECT * FROM (SELECT value AS leftKey, value * 2 AS leftValue FROM input1) a JOIN (SELECT value AS rightKey, value * 3 AS rightValue FROM input2) b ON leftKey < rightKey',
    });
    // Spark's planner refuses it when the query starts; Weir at validation, and again at start.
    expect(validateJob(t.spec).errors.map((e) => e.message).join(' ')).toContain('Stream-stream join without equality predicate is not supported');
    await expect(t.run(AddData('input1', { value: 1 }), StartStream)).rejects.toThrow('Stream-stream join without equality predicate is not supported');
  });

  it('streaming join should require StatefulOpClusteredDistribution from children', async () => {
    // Spark's check of the physical plan (both sides shuffled by (a, b)) has no counterpart; the
    // answer over several partitions, one side repartitioned by b, is the part that carries over.
    const one = { schema: [{ name: 'value', ...INT }] };
    const t = sparkStreams({
      sources: { input1: one, input2: one },
      sql: `SELECT a FROM (SELECT value AS a, value * 2 AS b FROM input1) x JOIN
        (SELECT /*+ REPARTITION(b) */ value AS a, value * 2 AS b FROM input2) y USING (a, b)`,
      spec: { parallelism: 3 },
    });
    const v = Array.from({ length: 1000 }, (_, i) => ({ value: i + 1 }));
    await t.run(AddData('input1', ...v), AddData('input2', ...v), CheckNewAnswer(...v.map(({ value }) => [value])));
  });

  /*
   * SPARK-48687: Spark restores a checkpoint of Spark 3.5.1 (the self join of setupSelfJoin, on
   * the id alone) under a changed query. Here the first query runs on Weir's own checkpoint, then
   * the changed one starts on it.
   */
  describe('SPARK-48687 - restore the stream-stream inner join query and change it', () => {
    const side = (p: string): SparkSource => ({ schema: [{ name: `${p}Id`, ...INT }, { name: `${p}Time`, ...TS }, { name: `${p}Name`, type: 'string' }], eventTime: `${p}Time`, watermarkDelay: '5 seconds' });
    const BASE = 'leftId, CAST(leftTime AS INT) AS lt, rightId, CAST(rightTime AS INT) AS rt';
    const ON = 'rightId = leftId AND rightTime >= leftTime AND rightTime <= leftTime + INTERVAL 5 SECONDS';
    const restored = async (sql: string) => {
      const t = sparkStreams({ sources: { l: side('left'), r: side('right') }, sql: `SELECT ${BASE} FROM l JOIN r ON ${ON}` });
      const n = (p: string, ...vs: [number, string][]) => vs.map(([v, name]) => ({ [`${p}Id`]: v, [`${p}Time`]: v * 1000, [`${p}Name`]: name }));
      await t.run(
        MultiAddData({ l: n('left', [1, 'a'], [2, 'b'], [3, 'c'], [4, 'd'], [5, 'e']), r: n('right', [2, 'b'], [4, 'd']) }),
        CheckNewAnswer([2, 2, 2, 2], [4, 4, 4, 4]),
      );
      (t.spec as { sql: string }).sql = sql;
      return { t, n };
    };

    it('changing the join condition (key schema) should fail the query', async () => {
      const { t, n } = await restored(`SELECT leftId, CAST(leftTime AS INT) AS lt, leftName, rightId, CAST(rightTime AS INT) AS rt, rightName FROM l JOIN r ON ${ON} AND leftName = rightName`);
      const e: unknown = await t.run(AddData('l', ...n('left', [6, 'a'])), StartStream).then(() => undefined, (err: unknown) => err);
      expect(e).toMatchObject({ errorClass: 'STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE', message: expect.stringContaining('Provided key schema does not match existing state key schema') });
    });

    it('changing the value schema: not refused, the state keeps each side\'s whole row', async () => {
      // Spark's state value is the side's row as the plan prunes it: outputting leftName and
      // rightName widens it, and Spark fails with STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE.
      // Weir's join state holds the side's whole input row, so the rows buffered by the first
      // query answer the new one with their names.
      const { t, n } = await restored(`SELECT leftId, CAST(leftTime AS INT) AS lt, leftName, rightId, CAST(rightTime AS INT) AS rt, rightName FROM l JOIN r ON ${ON}`);
      await t.run(AddData('r', ...n('right', [6, 'f'])), StartStream, AddData('r', { rightId: 5, rightTime: 6000, rightName: 'x' }), CheckNewAnswer([5, 5, 'e', 5, 6, 'x']));
    });
  });

  it('SPARK-35896: metrics in StateOperatorProgress are output correctly', async () => {
    const t = sparkStreams({
      sources: { leftInput: sideSource('left'), rightInput: sideSource('right', null) },
      sql: `SELECT key, CAST(window.end AS LONG) AS end, leftValue, rightValue FROM
        (SELECT key, window(leftTime, '10 seconds') AS window, leftValue FROM leftInput) l JOIN
        (SELECT key, window(rightTime, '10 seconds') AS window, rightValue FROM rightInput) r USING (key, window)`,
      spec: { parallelism: 3 },
    });
    await t.run(
      AddData('leftInput', ...L(1)),
      CheckNewAnswer(),
      assertNumStateRows({ total: 1, updated: 1 }),
      AddData('rightInput', ...R(1)),
      CheckNewAnswer([1, 10, 2, 3]),
      assertNumStateRows({ total: 2, updated: 1, droppedByWatermark: 0, removed: 0 }),
      AddData('leftInput', ...L(25)),
      CheckNewAnswer(), // watermark = 15, no-data-batch should remove 2 rows having window=[0,10]
      assertNumStateRows({ total: 1, updated: 1, droppedByWatermark: 0, removed: 2 }),
      AddData('rightInput', ...R(25)),
      CheckNewAnswer([25, 30, 50, 75]),
      assertNumStateRows({ total: 2, updated: 1, droppedByWatermark: 0, removed: 0 }),
      assertStateOperatorProgressMetric({ operatorName: 'symmetricHashJoin', numShufflePartitions: 3, numStateStoreInstances: 3 * 4 }),
    );
  });

  describe('join keys compared with <=> (testForJoinKeyNullability)', () => {
    const nullable = (name: string) => ({ schema: [{ name: 'value', ...INT }] , name });
    const make = () => sparkStreams({
      sources: { input1: nullable('input1'), input2: nullable('input2') },
      sql: 'SELECT leftKey, rightKey, leftValue, rightValue FROM (SELECT value AS leftKey, value * 2 AS leftValue FROM input1) a ' +
        'JOIN (SELECT value AS rightKey, value * 3 AS rightValue FROM input2) b ON leftKey <=> rightKey',
    });
    const v = (...xs: (number | null)[]) => xs.map((value) => ({ value }));
    it('joining non-nullable left join key with nullable right join key', async () => {
      await make().run(AddData('input1', ...v(1, 5)), AddData('input2', ...v(1, 5, 10, null)), CheckNewAnswer([1, 1, 2, 3], [5, 5, 10, 15]));
    });
    it('joining nullable left join key with non-nullable right join key', async () => {
      await make().run(AddData('input1', ...v(1, 5, 10, null)), AddData('input2', ...v(1, 5)), CheckNewAnswer([1, 1, 2, 3], [5, 5, 10, 15]));
    });
    it('joining nullable left join key with nullable right join key', async () => {
      await make().run(AddData('input1', ...v(1, 5, 10, null)), AddData('input2', ...v(1, 5, null)), CheckNewAnswer([1, 1, 2, 3], [5, 5, 10, 15], [null, null, null, null]));
    });
  });
});

describe('StreamingOuterJoinSuite', () => {
  it('left outer early state exclusion on left', async () => {
    await windowedJoinWithCondition('LEFT OUTER', 'leftValue > 4').run(
      MultiAddData({ leftInput: L(1, 2, 3), rightInput: R(3, 4, 5) }),
      // The left rows with leftValue <= 4 should generate their outer join row now and
      // not get added to the state.
      CheckNewAnswer([3, 10, 6, '9'], [1, 10, 2, null], [2, 10, 4, null]),
      assertNumStateRows({ total: 4, updated: 4 }),
      // We shouldn't get more outer join rows when the watermark advances.
      MultiAddData({ leftInput: L(20), rightInput: R(21) }),
      CheckNewAnswer(),
      AddData('rightInput', ...R(20)),
      CheckNewAnswer([20, 30, 40, '60']),
    );
  });

  it('left outer early state exclusion on right', async () => {
    await windowedJoinWithCondition('LEFT OUTER', 'CAST(rightValue AS INT) > 7').run(
      MultiAddData({ leftInput: L(3, 4, 5), rightInput: R(1, 2, 3) }),
      // The right rows with rightValue <= 7 should never be added to the state.
      CheckNewAnswer([3, 10, 6, '9']), // rightValue = 9 > 7 hence joined and added to state
      assertNumStateRows({ total: 4, updated: 4 }),
      // When the watermark advances, we get the outer join rows just as we would if they
      // were added but didn't match the full join condition.
      MultiAddData({ leftInput: L(20), rightInput: R(21) }), // watermark = 10, no-data-batch computes nulls
      CheckNewAnswer([4, 10, 8, null], [5, 10, 10, null]),
      AddData('rightInput', ...R(20)),
      CheckNewAnswer([20, 30, 40, '60']),
    );
  });

  it('right outer early state exclusion on left', async () => {
    await windowedJoinWithCondition('RIGHT OUTER', 'leftValue > 4').run(
      MultiAddData({ leftInput: L(1, 2, 3), rightInput: R(3, 4, 5) }),
      // The left rows with leftValue <= 4 should never be added to the state.
      CheckNewAnswer([3, 10, 6, '9']),
      assertNumStateRows({ total: 4, updated: 4 }),
      MultiAddData({ leftInput: L(20), rightInput: R(21) }), // watermark = 10, no-data-batch computes nulls
      CheckNewAnswer([4, 10, null, '12'], [5, 10, null, '15']),
      AddData('rightInput', ...R(20)),
      CheckNewAnswer([20, 30, 40, '60']),
    );
  });

  it('right outer early state exclusion on right', async () => {
    await windowedJoinWithCondition('RIGHT OUTER', 'CAST(rightValue AS INT) > 7').run(
      MultiAddData({ leftInput: L(3, 4, 5), rightInput: R(1, 2, 3) }),
      // The right rows with rightValue <= 7 should generate their outer join row now and
      // not get added to the state.
      CheckNewAnswer([3, 10, 6, '9'], [1, 10, null, '3'], [2, 10, null, '6']),
      assertNumStateRows({ total: 4, updated: 4 }),
      // We shouldn't get more outer join rows when the watermark advances.
      MultiAddData({ leftInput: L(20), rightInput: R(21) }),
      CheckNewAnswer(),
      AddData('rightInput', ...R(20)),
      CheckNewAnswer([20, 30, 40, '60']),
    );
  });

  it('windowed left outer join', async () => {
    await windowedJoin('LEFT OUTER').run(
      MultiAddData({ leftInput: L(1, 2, 3, 4, 5), rightInput: R(3, 4, 5, 6, 7) }),
      CheckNewAnswer([3, 10, 6, 9], [4, 10, 8, 12], [5, 10, 10, 15]),
      MultiAddData({ leftInput: L(21), rightInput: R(22) }), // watermark = 11, no-data-batch computes nulls
      CheckNewAnswer([1, 10, 2, null], [2, 10, 4, null]),
      assertNumStateRows({ total: 2, updated: 12 }),
      AddData('leftInput', ...L(22)),
      CheckNewAnswer([22, 30, 44, 66]),
      assertNumStateRows({ total: 3, updated: 1 }),
    );
  });

  it('windowed right outer join', async () => {
    await windowedJoin('RIGHT OUTER').run(
      MultiAddData({ leftInput: L(1, 2, 3, 4, 5), rightInput: R(3, 4, 5, 6, 7) }),
      CheckNewAnswer([3, 10, 6, 9], [4, 10, 8, 12], [5, 10, 10, 15]),
      MultiAddData({ leftInput: L(21), rightInput: R(22) }), // watermark = 11, no-data-batch computes nulls
      CheckNewAnswer([6, 10, null, 18], [7, 10, null, 21]),
      assertNumStateRows({ total: 2, updated: 12 }),
      AddData('leftInput', ...L(22)),
      CheckNewAnswer([22, 30, 44, 66]),
      assertNumStateRows({ total: 3, updated: 1 }),
    );
  });

  describe.each([
    ['LEFT OUTER', [3, null, 5, null]],
    ['RIGHT OUTER', [null, 2, null, 5]],
  ])('%s join with watermark range condition', (joinType, outerResult) => {
    it('5-second bounds', async () => {
      await rangeJoin(joinType).run(
        AddData('leftInput', ...LK([1, 5], [3, 5])),
        CheckNewAnswer(),
        AddData('rightInput', ...RK([1, 10], [2, 5])),
        CheckNewAnswer([1, 1, 5, 10]),
        AddData('rightInput', ...RK([1, 11])),
        CheckNewAnswer(), // no match as left time is too low
        assertNumStateRows({ total: 5, updated: 5 }),
        // Increase event time watermark to 20s by adding data with time = 30s on both inputs
        AddData('leftInput', ...LK([1, 7], [1, 30])),
        CheckNewAnswer([1, 1, 7, 10], [1, 1, 7, 11]),
        assertNumStateRows({ total: 7, updated: 2 }),
        AddData('rightInput', ...RK([0, 30])), // watermark = 30 - 10 = 20, no-data-batch computes nulls
        CheckNewAnswer(outerResult),
        assertNumStateRows({ total: 2, updated: 1 }),
      );
    });

    it.each([
      ['interval 3 minutes 30 seconds'],
      ["interval '3:30' minute to second"],
    ])('10-minute watermark, bounds of %s', async (bound) => {
      await rangeJoin(joinType, '10 minutes', bound, bound).run(
        AddData('leftInput', ...LK([1, 210], [3, 5])),
        CheckNewAnswer(),
        AddData('rightInput', ...RK([1, 300], [2, 5])),
        CheckNewAnswer([1, 1, 210, 300]),
        AddData('rightInput', ...RK([1, 450])),
        CheckNewAnswer(),
        assertNumStateRows({ total: 5, updated: 5 }),
        AddData('leftInput', ...LK([1, 260], [1, 1800])),
        CheckNewAnswer([1, 1, 260, 300], [1, 1, 260, 450]),
        assertNumStateRows({ total: 7, updated: 2 }),
        AddData('rightInput', ...RK([0, 1800])),
        CheckNewAnswer(outerResult),
        assertNumStateRows({ total: 2, updated: 1 }),
      );
    });
  });

  // When the join condition isn't true, the outer null rows must be generated, even if the join
  // keys themselves have a match.
  it('left outer join with non-key condition violated', async () => {
    const t = sparkStreams({
      sources: { leftInput: sideSource('left'), rightInput: sideSource('right') },
      sql: `SELECT l.key, CAST(l.window.end AS LONG) AS end, leftValue, rightValue FROM
        (SELECT key, window(leftTime, '10 seconds') AS window, leftValue FROM leftInput) l LEFT OUTER JOIN
        (SELECT key, window(rightTime, '10 seconds') AS window, rightValue FROM rightInput) r
        ON l.key = r.key AND l.window = r.window AND leftValue > 10 AND (rightValue < 300 OR rightValue > 1000)`,
    });
    await t.run(
      // leftValue <= 10 should generate outer join rows even though it matches right keys
      MultiAddData({ leftInput: L(1, 2, 3), rightInput: R(1, 2, 3) }),
      CheckNewAnswer([1, 10, 2, null], [2, 10, 4, null], [3, 10, 6, null]),
      assertNumStateRows({ total: 3, updated: 3 }), // only right 1, 2, 3 added
      MultiAddData({ leftInput: L(20), rightInput: R(21) }), // watermark = 10, no-data-batch cleared < 10
      CheckNewAnswer(),
      assertNumStateRows({ total: 2, updated: 2 }), // only 20 and 21 left in state
      AddData('rightInput', ...R(20)),
      CheckNewAnswer([20, 30, 40, 60]),
      assertNumStateRows({ total: 3, updated: 1 }),
      // leftValue and rightValue both satisfying condition should not generate outer join rows
      MultiAddData({ leftInput: L(40, 41), rightInput: R(40, 41) }), // watermark = 31
      CheckNewAnswer([40, 50, 80, 120], [41, 50, 82, 123]),
      assertNumStateRows({ total: 4, updated: 4 }), // only left 40, 41 + right 40,41 left in state
      MultiAddData({ leftInput: L(70), rightInput: R(71) }), // watermark = 60
      CheckNewAnswer(),
      assertNumStateRows({ total: 2, updated: 2 }), // only 70, 71 left in state
      AddData('rightInput', ...R(70)),
      CheckNewAnswer([70, 80, 140, 210]),
      assertNumStateRows({ total: 3, updated: 1 }),
      // rightValue between 300 and 1000 should generate outer join rows even though it matches left
      MultiAddData({ leftInput: L(101, 102, 103), rightInput: R(101, 102, 103) }), // watermark = 91
      CheckNewAnswer(),
      // Right 101..103 fail the right-only conjunct, which the optimizer moves below the right
      // side's watermark (PushPredicateThroughJoin, then PushPredicateThroughNonJoin): the right
      // watermark stays 61, and so the [70, 80) windows stay.
      assertNumStateRows({ total: 6, updated: 3 }), // only 101 - 103 left in state
      MultiAddData({ leftInput: L(1000), rightInput: R(1001) }),
      CheckNewAnswer([101, 110, 202, null], [102, 110, 204, null], [103, 110, 206, null]),
      assertNumStateRows({ total: 2, updated: 2 }),
    );
  });

  it('SPARK-26187 self left outer join should not return outer nulls for already matched rows', async () => {
    await selfJoin('LEFT OUTER').run(
      AddData('input', ...VT(1, 2, 3, 4, 5)),
      // batch 1 - global watermark = 0; left: 1..5, right: 2, 4
      CheckNewAnswer([2, 2, 2, 2], [4, 4, 4, 4]),
      assertNumStateRows({ total: 7, updated: 7 }),
      AddData('input', ...VT(6, 7, 8, 9, 10)),
      // batch 2 - global watermark = 5; the right evicts 2 and 4, the left nothing (it waits
      // 5 seconds more than the watermark, by the join condition)
      CheckNewAnswer([6, 6, 6, 6], [8, 8, 8, 8], [10, 10, 10, 10]),
      assertNumStateRows({ total: 13, updated: 8 }),
      AddData('input', ...VT(11, 12, 13, 14, 15)),
      // batch 3 - global watermark = 10; the left evicts 1, 2, 3 (2 matched), the right 6, 8
      CheckNewAnswer([12, 12, 12, 12], [14, 14, 14, 14], [1, 1, null, null], [3, 3, null, null]),
      // Each read of the stream has its own watermark: the right side's, over the even values,
      // is 14 - 5 = 9, the left's 15 - 5 = 10, the global one min(10, 9) = 9: the left keeps 4.
      assertNumStateRows({ total: 15, updated: 7 }),
    );
  });

  it('SPARK-26187 self right outer join should not return outer nulls for already matched rows', async () => {
    const t = sparkStreams({
      sources: { input: { schema: [{ name: 'value', ...INT }, { name: 'timestamp', ...TS }], eventTime: 'timestamp', watermarkDelay: '5 seconds' } },
      sql: `SELECT leftId, CAST(leftTime AS INT) AS lt, rightId, CAST(rightTime AS INT) AS rt FROM
        (SELECT value AS leftId, timestamp AS leftTime FROM input WHERE value % 2 = 0) l RIGHT OUTER JOIN
        (SELECT value AS rightId, timestamp AS rightTime FROM input) r
        ON leftId = rightId AND leftTime >= rightTime AND leftTime <= rightTime + INTERVAL 5 SECONDS`,
    });
    await t.run(
      AddData('input', ...VT(1, 2, 3, 4, 5)),
      CheckNewAnswer([2, 2, 2, 2], [4, 4, 4, 4]),
      assertNumStateRows({ total: 7, updated: 7 }),
      AddData('input', ...VT(6, 7, 8, 9, 10)),
      CheckNewAnswer([6, 6, 6, 6], [8, 8, 8, 8], [10, 10, 10, 10]),
      assertNumStateRows({ total: 13, updated: 8 }),
      AddData('input', ...VT(11, 12, 13, 14, 15)),
      CheckNewAnswer([12, 12, 12, 12], [14, 14, 14, 14], [null, null, 1, 1], [null, null, 3, 3]),
      // Each read of the stream has its own watermark: the right side's, over the even values,
      // is 14 - 5 = 9, the left's 15 - 5 = 10, the global one min(10, 9) = 9: the left keeps 4.
      assertNumStateRows({ total: 15, updated: 7 }),
    );
  });

  it('SPARK-29438: ensure UNION doesn\'t lead stream-stream join to use shifted partition IDs (across a restart)', async () => {
    const t = sparkStreams({
      sources: { input1: { schema: [{ name: 'value', ...INT }] }, input2: sideSource('left'), input3: sideSource('right') },
      sql: `SELECT value AS key, value AS leftValue, value AS rightValue FROM input1 UNION ALL
        SELECT a.key, leftValue, rightValue FROM input2 a JOIN input3 b ON a.key = b.key AND leftTime = rightTime`,
      spec: { parallelism: 2 },
    });
    const v = (...xs: number[]) => xs.map((value) => ({ value }));
    await t.run(
      MultiAddData({ input1: v(11, 12, 13), input2: L(11, 12, 13, 14, 15), input3: R(13, 14, 15, 16, 17) }),
      CheckNewAnswer([11, 11, 11], [12, 12, 12], [13, 13, 13], [13, 26, 39], [14, 28, 42], [15, 30, 45]),
      StopStream,
      StartStream,
      MultiAddData({ input1: v(21, 22, 23), input2: L(21, 22, 23, 24, 25), input3: R(23, 24, 25, 26, 27) }),
      CheckNewAnswer([21, 21, 21], [22, 22, 22], [23, 23, 23], [23, 46, 69], [24, 48, 72], [25, 50, 75]),
    );
  });

  it('SPARK-32148 stream-stream join regression on Spark 3.0.0', async () => {
    const side = (other: string, delay: string): SparkSource => ({ schema: [{ name: 'eventTime', ...TS }, { name: 'id', type: 'string' }, { name: other, type: 'string' }], eventTime: 'eventTime', watermarkDelay: delay });
    const t = sparkStreams({
      sources: { input1: side('comment', '2 minutes'), input2: side('name', '4 minutes') },
      sql: `SELECT \`left\`.*, \`right\`.eventTime AS rightTime, \`right\`.id AS rightId, name FROM input1 AS \`left\` LEFT OUTER JOIN input2 AS \`right\` ON \`left\`.id = \`right\`.id AND \`left\`.eventTime BETWEEN
        \`right\`.eventTime - INTERVAL 30 seconds AND \`right\`.eventTime + INTERVAL 30 seconds`,
    });
    const at = (s: string) => Date.parse(`${s}Z`);
    await t.run(
      MultiAddData({
        input1: [
          { eventTime: at('2020-01-01T00:00:00'), id: 'abc', comment: 'has no join partner' },
          { eventTime: at('2020-01-02T00:00:00'), id: 'abc', comment: 'joined with A' },
          { eventTime: at('2020-01-02T01:00:00'), id: 'abc', comment: 'joined with B' },
        ],
        input2: [
          { eventTime: at('2020-01-02T00:00:10'), id: 'abc', name: 'A' },
          { eventTime: at('2020-01-02T00:59:59'), id: 'abc', name: 'B' },
          { eventTime: at('2020-01-02T02:00:00'), id: 'abc', name: 'C' },
        ],
      }),
      CheckNewAnswer(
        [at('2020-01-01T00:00:00'), 'abc', 'has no join partner', null, null, null],
        [at('2020-01-02T00:00:00'), 'abc', 'joined with A', at('2020-01-02T00:00:10'), 'abc', 'A'],
        [at('2020-01-02T01:00:00'), 'abc', 'joined with B', at('2020-01-02T00:59:59'), 'abc', 'B'],
      ),
    );
  });

  it('SPARK-38684: outer join works correctly even if processing input rows and evicting state rows for same grouping key happens in the same micro-batch', async () => {
    // Spark runs it on RocksDB; the state store provider is not what the test is about.
    const side = (delay: string): SparkSource => ({ schema: [{ name: 'eventTime', ...TS }, { name: 'id', type: 'string' }, { name: 'comment', type: 'string' }], eventTime: 'eventTime', watermarkDelay: delay });
    const t = sparkStreams({
      sources: { input1: side('0 second'), input2: side('0 second') },
      sql: `SELECT \`left\`.*, \`right\`.eventTime AS rightTime, \`right\`.id AS rightId, \`right\`.comment AS rightComment
        FROM input1 AS \`left\` LEFT OUTER JOIN input2 AS \`right\` ON \`left\`.id = \`right\`.id AND \`left\`.eventTime BETWEEN
        \`right\`.eventTime - INTERVAL 30 seconds AND \`right\`.eventTime + INTERVAL 30 seconds`,
      confs: { noDataMicroBatchesEnabled: false },
    });
    const at = (s: string) => Date.parse(`${s}Z`);
    const row = (ts: string, comment: string) => ({ eventTime: at(ts), id: 'abc', comment });
    await t.run(
      MultiAddData({ input1: [row('2020-01-02T00:00:00', 'left in batch 1')], input2: [row('2020-01-02T00:01:00', 'right in batch 1')] }),
      CheckNewAnswer(),
      MultiAddData({ input1: [row('2020-01-02T01:00:00', 'left in batch 2')], input2: [row('2020-01-02T01:01:00', 'right in batch 2')] }),
      // watermark advanced to "2020-01-02 00:00:00"
      CheckNewAnswer(),
      AddData('input1', row('2020-01-02T01:30:00', 'left in batch 3')),
      // watermark advanced to "2020-01-02 01:00:00"
      CheckNewAnswer([at('2020-01-02T00:00:00'), 'abc', 'left in batch 1', null, null, null]),
      // left side state should still contain "left in batch 2" and "left in batch 3"
      // we should see both rows in the left side since
      // - "left in batch 2" is going to be evicted in this batch
      // - "left in batch 3" is going to be matched with new row in right side
      AddData('input2', row('2020-01-02T01:30:10', 'match with left in batch 3')),
      // watermark advanced to "2020-01-02 01:01:00"
      CheckNewAnswer(
        [at('2020-01-02T01:00:00'), 'abc', 'left in batch 2', null, null, null],
        [at('2020-01-02T01:30:00'), 'abc', 'left in batch 3', at('2020-01-02T01:30:10'), 'abc', 'match with left in batch 3'],
      ),
    );
  });

  describe('left-outer join keys compared with <=> (testForLeftOuterJoinKeyNullability)', () => {
    const side = (p: string): SparkSource => ({
      schema: [{ name: `${p}Key1`, ...INT }, { name: `${p}Key2`, ...INT }, { name: `${p}Time`, ...TS }, { name: `${p}Value`, ...INT }],
      eventTime: `${p}Time`,
      watermarkDelay: '10 seconds',
    });
    const make = () => sparkStreams({
      sources: { input1: side('left'), input2: side('right') },
      sql: `SELECT leftKey1, rightKey1, leftKey2, rightKey2, CAST(leftWindow.end AS LONG) AS end, leftValue, rightValue FROM
        (SELECT leftKey1, leftKey2, window(leftTime, '10 seconds') AS leftWindow, leftValue FROM input1) a LEFT OUTER JOIN
        (SELECT rightKey1, rightKey2, window(rightTime, '10 seconds') AS rightWindow, rightValue FROM input2) b
        ON leftKey1 <=> rightKey1 AND leftKey2 = rightKey2 AND leftWindow = rightWindow`,
    });
    const l = (...ps: [number | null, number][]) => ps.map(([k, v]) => ({ leftKey1: k, leftKey2: v, leftTime: v * 1000, leftValue: v * 2 }));
    const r = (...ps: [number | null, number][]) => ps.map(([k, v]) => ({ rightKey1: k, rightKey2: v, rightTime: v * 1000, rightValue: v * 3 }));

    it('left-outer: joining non-nullable left join key with nullable right join key', async () => {
      await make().run(
        AddData('input1', ...l([1, 1], [1, 2], [1, 3], [1, 4], [1, 5])),
        AddData('input2', ...r([1, 3], [1, 4], [1, 5], [1, 6])),
        CheckNewAnswer([1, 1, 3, 3, 10, 6, 9], [1, 1, 4, 4, 10, 8, 12], [1, 1, 5, 5, 10, 10, 15]),
        AddData('input1', ...l([1, 21])),
        AddData('input2', ...r([1, 22])), // watermark = 11, no-data-batch computes nulls
        CheckNewAnswer([1, null, 1, null, 10, 2, null], [1, null, 2, null, 10, 4, null]),
      );
    });

    it('left-outer: joining nullable left join key with non-nullable right join key', async () => {
      await make().run(
        AddData('input1', ...l([1, 1], [null, 2], [1, 3], [1, 4], [1, 5])),
        AddData('input2', ...r([1, 3], [1, 4], [1, 5], [1, 6])),
        CheckNewAnswer([1, 1, 3, 3, 10, 6, 9], [1, 1, 4, 4, 10, 8, 12], [1, 1, 5, 5, 10, 10, 15]),
        AddData('input1', ...l([1, 21])),
        AddData('input2', ...r([1, 22])),
        CheckNewAnswer([1, null, 1, null, 10, 2, null], [null, null, 2, null, 10, 4, null]),
      );
    });

    it('left-outer: joining nullable left join key with nullable right join key', async () => {
      await make().run(
        AddData('input1', ...l([1, 1], [null, 2], [1, 3], [null, 4], [1, 5])),
        AddData('input2', ...r([1, 3], [null, 4], [1, 5], [1, 6])),
        CheckNewAnswer([1, 1, 3, 3, 10, 6, 9], [null, null, 4, 4, 10, 8, 12], [1, 1, 5, 5, 10, 10, 15]),
        AddData('input1', ...l([1, 21])),
        AddData('input2', ...r([1, 22])),
        CheckNewAnswer([1, null, 1, null, 10, 2, null], [null, null, 2, null, 10, 4, null]),
      );
    });
  });
});

describe('StreamingFullOuterJoinSuite', () => {
  it('windowed full outer join', async () => {
    await windowedJoin('FULL OUTER').run(
      MultiAddData({ leftInput: L(1, 2, 3, 4, 5), rightInput: R(3, 4, 5, 6, 7) }),
      CheckNewAnswer([3, 10, 6, 9], [4, 10, 8, 12], [5, 10, 10, 15]),
      assertNumStateRows({ total: 10, updated: 10 }),
      MultiAddData({ leftInput: L(21), rightInput: R(22) }),
      // Watermark = 11, should remove rows having window=[0,10].
      CheckNewAnswer([1, 10, 2, null], [2, 10, 4, null], [6, 10, null, 18], [7, 10, null, 21]),
      assertNumStateRows({ total: 2, updated: 2 }),
      AddData('leftInput', ...L(22)),
      CheckNewAnswer([22, 30, 44, 66]),
      assertNumStateRows({ total: 3, updated: 1 }),
      StopStream,
      StartStream,
      AddData('leftInput', ...L(1)),
      // Row not add as 1 < state key watermark = 12.
      CheckNewAnswer(),
      assertNumStateRows({ total: 3, updated: 0, droppedByWatermark: 1 }),
      AddData('rightInput', ...R(5)),
      // Row not add as 5 < state key watermark = 12.
      CheckNewAnswer(),
      assertNumStateRows({ total: 3, updated: 0, droppedByWatermark: 1 }),
    );
  });

  it('full outer early state exclusion on left', async () => {
    await windowedJoinWithCondition('FULL OUTER', 'leftValue > 4').run(
      MultiAddData({ leftInput: L(1, 2, 3), rightInput: R(3, 4, 5) }),
      // The left rows with leftValue <= 4 should generate their outer join rows now and
      // not get added to the state.
      CheckNewAnswer([1, 10, 2, null, null, null], [2, 10, 4, null, null, null], [3, 10, 6, 3, 10, '9']),
      assertNumStateRows({ total: 4, updated: 4 }),
      // Generate outer join result for all non-matched rows when the watermark advances.
      MultiAddData({ leftInput: L(20), rightInput: R(21) }),
      CheckNewAnswer([null, null, null, 4, 10, '12'], [null, null, null, 5, 10, '15']),
      assertNumStateRows({ total: 2, updated: 2 }),
      AddData('rightInput', ...R(20)),
      CheckNewAnswer([20, 30, 40, 20, 30, '60']),
      assertNumStateRows({ total: 3, updated: 1 }),
    );
  });

  it('full outer early state exclusion on right', async () => {
    await windowedJoinWithCondition('FULL OUTER', 'CAST(rightValue AS INT) > 7').run(
      MultiAddData({ leftInput: L(3, 4, 5), rightInput: R(1, 2, 3) }),
      // The right rows with rightValue <= 7 should generate their outer join rows now,
      // and never be added to the state.
      CheckNewAnswer([null, null, null, 1, 10, '3'], [null, null, null, 2, 10, '6'], [3, 10, 6, 3, 10, '9']),
      assertNumStateRows({ total: 4, updated: 4 }),
      MultiAddData({ leftInput: L(20), rightInput: R(21) }),
      CheckNewAnswer([4, 10, 8, null, null, null], [5, 10, 10, null, null, null]),
      assertNumStateRows({ total: 2, updated: 2 }),
      AddData('rightInput', ...R(20)),
      CheckNewAnswer([20, 30, 40, 20, 30, '60']),
      assertNumStateRows({ total: 3, updated: 1 }),
    );
  });

  it('full outer join with watermark range condition', async () => {
    await rangeJoin('FULL OUTER').run(
      AddData('leftInput', ...LK([1, 5], [3, 5])),
      CheckNewAnswer(),
      assertNumStateRows({ total: 2, updated: 2 }),
      AddData('rightInput', ...RK([1, 10], [2, 5])),
      // Match left row in the state.
      CheckNewAnswer([1, 1, 5, 10]),
      assertNumStateRows({ total: 4, updated: 2 }),
      AddData('rightInput', ...RK([1, 9])),
      // Match left row in the state.
      CheckNewAnswer([1, 1, 5, 9]),
      assertNumStateRows({ total: 5, updated: 1 }),
      // Increase event time watermark to 20s by adding data with time = 30s on both inputs.
      AddData('leftInput', ...LK([1, 7], [1, 30])),
      CheckNewAnswer([1, 1, 7, 9], [1, 1, 7, 10]),
      assertNumStateRows({ total: 7, updated: 2 }),
      // Watermark = 30 - 10 = 20, no matched row.
      // Generate outer join result for all non-matched rows when the watermark advances.
      AddData('rightInput', ...RK([0, 30])),
      CheckNewAnswer([3, null, 5, null], [null, 2, null, 5]),
      assertNumStateRows({ total: 2, updated: 1 }),
    );
  });

  it('self full outer join', async () => {
    await selfJoin('FULL OUTER').run(
      AddData('input', ...VT(1, 2, 3, 4, 5)),
      CheckNewAnswer([2, 2, 2, 2], [4, 4, 4, 4]),
      assertNumStateRows({ total: 7, updated: 7 }),
      AddData('input', ...VT(6, 7, 8, 9, 10)),
      CheckNewAnswer([6, 6, 6, 6], [8, 8, 8, 8], [10, 10, 10, 10]),
      assertNumStateRows({ total: 13, updated: 8 }),
      AddData('input', ...VT(11, 12, 13, 14, 15)),
      CheckNewAnswer([12, 12, 12, 12], [14, 14, 14, 14], [1, 1, null, null], [3, 3, null, null]),
      // Each read of the stream has its own watermark: the right side's, over the even values,
      // is 14 - 5 = 9, the left's 15 - 5 = 10, the global one min(10, 9) = 9: the left keeps 4.
      assertNumStateRows({ total: 15, updated: 7 }),
    );
  });
});

describe('StreamingLeftSemiJoinSuite', () => {
  it('windowed left semi join', async () => {
    await windowedJoin('LEFT SEMI').run(
      MultiAddData({ leftInput: L(1, 2, 3, 4, 5), rightInput: R(3, 4, 5, 6, 7) }),
      CheckNewAnswer([3, 10, 6], [4, 10, 8], [5, 10, 10]),
      assertNumStateRows({ total: 10, updated: 10 }),
      MultiAddData({ leftInput: L(21), rightInput: R(22) }),
      // Watermark = 11, should remove rows having window=[0,10].
      CheckNewAnswer(),
      assertNumStateRows({ total: 2, updated: 2 }),
      AddData('leftInput', ...L(22)),
      CheckNewAnswer([22, 30, 44]),
      // Unlike inner/outer joins, given left input row matches with right input row,
      // we don't buffer the matched left input row to the state store.
      assertNumStateRows({ total: 2, updated: 0 }),
      StopStream,
      StartStream,
      AddData('leftInput', ...L(1)),
      // Row not add as 1 < state key watermark = 12.
      CheckNewAnswer(),
      assertNumStateRows({ total: 2, updated: 0, droppedByWatermark: 1 }),
      AddData('rightInput', ...R(5)),
      // Row not add as 5 < state key watermark = 12.
      CheckNewAnswer(),
      assertNumStateRows({ total: 2, updated: 0, droppedByWatermark: 1 }),
    );
  });

  it('left semi early state exclusion on left', async () => {
    await windowedJoinWithCondition('LEFT SEMI', 'leftValue > 4').run(
      MultiAddData({ leftInput: L(1, 2, 3), rightInput: R(3, 4, 5) }),
      // The left rows with leftValue <= 4 should not generate their semi join rows and
      // not get added to the state.
      CheckNewAnswer([3, 10, 6]),
      assertNumStateRows({ total: 4, updated: 4 }),
      // We shouldn't get more semi join rows when the watermark advances.
      MultiAddData({ leftInput: L(20), rightInput: R(21) }),
      CheckNewAnswer(),
      assertNumStateRows({ total: 2, updated: 2 }),
      AddData('rightInput', ...R(20)),
      CheckNewAnswer([20, 30, 40]),
      assertNumStateRows({ total: 3, updated: 1 }),
    );
  });

  it('left semi early state exclusion on right', async () => {
    await windowedJoinWithCondition('LEFT SEMI', 'CAST(rightValue AS INT) > 7').run(
      MultiAddData({ leftInput: L(3, 4, 5), rightInput: R(1, 2, 3) }),
      // The right rows with rightValue <= 7 should never be added to the state.
      // The right row with rightValue = 9 > 7, hence joined and added to state.
      CheckNewAnswer([3, 10, 6]),
      assertNumStateRows({ total: 4, updated: 4 }),
      // We shouldn't get more semi join rows when the watermark advances.
      MultiAddData({ leftInput: L(20), rightInput: R(21) }),
      CheckNewAnswer(),
      assertNumStateRows({ total: 2, updated: 2 }),
      AddData('rightInput', ...R(20)),
      CheckNewAnswer([20, 30, 40]),
      assertNumStateRows({ total: 3, updated: 1 }),
    );
  });

  it('left semi join with watermark range condition', async () => {
    await rangeJoin('LEFT SEMI').run(
      AddData('leftInput', ...LK([1, 5], [3, 5])),
      CheckNewAnswer(),
      assertNumStateRows({ total: 2, updated: 2 }),
      AddData('rightInput', ...RK([1, 10], [2, 5])),
      // Match left row in the state.
      CheckNewAnswer([1, 5]),
      assertNumStateRows({ total: 4, updated: 2 }),
      AddData('rightInput', ...RK([1, 9])),
      // No match as left row is already matched.
      CheckNewAnswer(),
      assertNumStateRows({ total: 5, updated: 1 }),
      // Increase event time watermark to 20s by adding data with time = 30s on both inputs.
      AddData('leftInput', ...LK([1, 7], [1, 30])),
      CheckNewAnswer([1, 7]),
      assertNumStateRows({ total: 6, updated: 1 }),
      // Watermark = 30 - 10 = 20, no matched row.
      AddData('rightInput', ...RK([0, 30])),
      CheckNewAnswer(),
      assertNumStateRows({ total: 2, updated: 1 }),
    );
  });

  it('self left semi join', async () => {
    await selfJoin('LEFT SEMI').run(
      AddData('input', ...VT(1, 2, 3, 4, 5)),
      CheckNewAnswer([2, 2], [4, 4]),
      // batch 1 - global watermark = 0
      // left: (2, 2L), (4, 4L): the odd rows are filtered, as InferFiltersFromConstraints infers
      // leftId % 2 = 0 from the right side's filter and leftId = rightId
      // right: (2, 2L), (4, 4L)
      assertNumStateRows({ total: 4, updated: 4 }),
      AddData('input', ...VT(6, 7, 8, 9, 10)),
      CheckNewAnswer([6, 6], [8, 8], [10, 10]),
      // batch 2 - global watermark = 5; the right evicts (2, 2L), (4, 4L)
      assertNumStateRows({ total: 8, updated: 6 }),
      AddData('input', ...VT(11, 12, 13, 14, 15)),
      CheckNewAnswer([12, 12], [14, 14]),
      // batch 3 - global watermark = 9; the left evicts (2, 2L), the right (6, 6L), (8, 8L)
      assertNumStateRows({ total: 9, updated: 4 }),
    );
  });
});
