/**
 * An aggregation over an aggregation in Append mode (Spark's MultiStatefulOperatorsSuite,
 * "agg -> agg -> agg, append mode"): each groups by a window over window_time() of the one
 * below it, so each is bounded by the watermark the first one's input carries.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import type { StreamingRelation } from '../query/logical-plan';
import { StatefulQueryRunner } from '../query/testing/stateful-test-harness';
import type { Row } from '../types';

const SEC = 1000;
const numbers: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 'numbers',
  schema: [{ name: 'value', type: 'long' }, { name: 'eventTime', type: 'timestamp' }],
  eventTime: 'eventTime',
  watermarkDelayMs: 0,
};
const values = (from: number, to: number): Row[] => Array.from({ length: to - from + 1 }, (_, i) => ({ value: from + i, eventTime: (from + i) * SEC }));

const AGG3 = `
SELECT window.start AS start, window.end AS end, count, sum FROM (
  SELECT window, count(*) AS count, sum(sum) AS sum FROM (
    SELECT window, count(*) AS count, sum(count) AS sum FROM (
      SELECT window, count(*) AS count FROM numbers GROUP BY window(eventTime, '5 seconds')
    ) GROUP BY window(window_time(window), '10 seconds')
  ) GROUP BY window(window_time(window), '20 seconds')
)`;

const answer = (rows: Row[]) => rows.map((r) => [Number(r.start) / SEC, Number(r.end) / SEC, Number(r.count), Number(r.sum)]).sort((a, b) => a[0] - b[0]);

const stateRows = (b: { progress: { numRowsTotal: number }[] }) => b.progress.map((p) => p.numRowsTotal);

// Spark's answers: each AddData is a data batch then the no-data batch the moved watermark
// triggers (the harness runs it as a batch of no rows).
describe('agg -> agg -> agg, append mode', () => {
  for (const restartMidway of [false, true]) {
    it(`gives Spark's answers per batch${restartMidway ? ', across a restart between them' : ''}`, async () => {
      const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), AGG3, numbers, 'append');
      q.lateEventsByPreviousWatermark = true;
      // Watermark 0: every 5 s window stays open.
      expect(answer((await q.runBatch(values(0, 37))).output)).toEqual([]);
      // Watermark 37: op1 closes [0, 35), op2 closes [0, 30) from them in the same batch, op3 [0, 20).
      let b = await q.runBatch([]);
      expect(answer(b.output)).toEqual([[0, 20, 2, 20]]);
      expect(stateRows(b)).toEqual([1, 1, 1]);
      if (restartMidway) q.restart();
      // At op1 (watermark 37) 30..34 are late, their window [30, 35) closed; 35..37 join [35, 40).
      // Spark counts 1 dropped row: its partial aggregation has made the five one row by then.
      b = await q.runBatch(values(30, 60));
      expect(answer(b.output)).toEqual([]);
      expect(b.progress[0].numRowsDroppedByWatermark).toBe(1);
      // Watermark 60: op1's [35, 40) (wt 39.999 s) is not late at op2, whose late rows are judged by 37.
      b = await q.runBatch([]);
      expect(answer(b.output)).toEqual([[20, 40, 2, 23], [40, 60, 2, 20]]);
      // Operators listed from the source up (Spark's progress lists them from the sink down: 0, 0, 1).
      expect(stateRows(b)).toEqual([1, 0, 0]);
    });
  }

  it('groups by the inner window itself: evicted when the watermark passes its end, as Spark\'s window key', async () => {
    // (The key comes out as a struct without its fields' types, so window.start is not read here.)
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), `SELECT window, count(*) AS count, sum(n) AS sum FROM (
      SELECT window, count(*) AS n FROM numbers GROUP BY window(eventTime, '5 seconds')) GROUP BY window`, numbers, 'append');
    q.lateEventsByPreviousWatermark = true;
    await q.runBatch(values(0, 12));
    const b = await q.runBatch([]);
    const flat = b.output.map((r) => ({ ...(r.window as object), count: Number(r.count), sum: Number(r.sum) }));
    expect(answer(flat)).toEqual([[0, 5, 1, 5], [5, 10, 1, 5]]);
    expect(stateRows(b)).toEqual([1, 0]);
  });

  it('refuses it in Update and Complete mode, and when the inner aggregation is not watermarked', () => {
    const fm = new InMemoryCheckpointFileManager();
    for (const mode of ['update', 'complete'] as const) {
      // Spark 3.5+'s global watermark limit: an aggregation in Update or Complete mode feeds no stateful operator.
      expect(() => new StatefulQueryRunner(fm, AGG3, numbers, mode)).toThrow("Detected pattern of possible 'correctness' issue due to global watermark");
    }
    const unbounded = `SELECT window, count(*) AS n FROM (SELECT value % 2 AS k, count(*) AS c FROM numbers GROUP BY value % 2) GROUP BY window(current_timestamp(), '10 seconds')`;
    expect(() => new StatefulQueryRunner(fm, unbounded, numbers, 'append')).toThrow('Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark');
  });
});
