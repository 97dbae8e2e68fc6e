/**
 * A watermark on a column the SQL derives (Spark's withWatermark on a projection's column): the
 * Kafka shape, where the event time is a field of `from_json(CAST(value AS STRING), ...)`.
 * `source.eventTime` names the derived column; the planner puts an EventTimeWatermark operator
 * above the Project that defines it, and the aggregate over a window of it is bounded.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors';
import type { OperatorContext } from '../operators/physical-operator';
import type { Row, Schema } from '../types';
import { compileStreamingQuery } from './streaming-query';
import { validateJob } from '../spec/validate-job';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { StatefulQueryRunner } from './testing/stateful-test-harness';

const SCHEMA: Schema = [{ name: 'value', type: 'string' }, { name: 'timestamp', type: 'timestamp' }];
const rel = (eventTime: string) => ({ kind: 'StreamingRelation' as const, sourceName: 'orders', schema: SCHEMA, eventTime, watermarkDelayMs: 60_000 });
const PARSED = "(SELECT from_json(value, 'order_id BIGINT, region STRING, ts TIMESTAMP, n BIGINT') AS o FROM orders)";
const COUNT = `WITH p AS (SELECT o.region AS region, o.ts AS ts FROM ${PARSED}) SELECT window(ts, '1 minute'), region, count(*) AS n FROM p GROUP BY window(ts, '1 minute'), region`;

function compileError(sql: string, eventTime: string): ValidationError {
  try {
    compileStreamingQuery(sql, rel(eventTime), { outputMode: 'append' });
  } catch (e) {
    if (e instanceof ValidationError) return e;
    throw e;
  }
  throw new Error('compiled');
}

describe('watermark on a derived event-time column', () => {
  it('bounds the windowed aggregate (Append is legal) and folds the derived event times', async () => {
    const q = compileStreamingQuery(COUNT, rel('ts'), { outputMode: 'append' });
    expect(q.operators.map((o) => o.name)).toContain('EventTimeWatermark');
    expect(q.explain).toMatch(/evicted when the watermark passes the window end/);
    expect(q.explain).toMatch(/StreamingRelation orders .*watermark\(ts as the SQL derives it, 60000 ms\)/);
    const T = Date.UTC(2026, 0, 1, 12, 0, 0);
    const rows: Row[] = [10, 70, 30].map((s, i) => ({ value: JSON.stringify({ order_id: i, region: 'eu', ts: new Date(T + s * 1000).toISOString() }), timestamp: 0 }));
    rows.push({ value: 'not json', timestamp: 0 });
    const ctx: OperatorContext = { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: T };
    let out: Row[] = rows;
    for (const op of q.operators) {
      if (op.stateful) break; // the stores are the runtime's business; the watermark sits below them
      out = await op.execute(out, ctx);
    }
    // The unparsable line has a null ts: it does not move the watermark (as in Spark).
    expect(ctx.eventTimes).toEqual({ min: T + 10_000, max: T + 70_000, avg: T + 36_667, count: 3 });
  });

  it('refuses an event-time column that neither the source nor the SQL defines', () => {
    const e = compileError(COUNT, 'event_ts');
    expect(e.details).toMatchObject({ path: 'source.eventTime' });
    expect(e.message).toMatch(/"event_ts" is neither a column of source.schema nor a column the SQL's projection defines/);
  });

  it('refuses a derived event-time column that is not a timestamp', () => {
    const sql = `WITH p AS (SELECT o.region AS region, o.n AS ts FROM ${PARSED}) SELECT region, ts FROM p`;
    const e = compileError(sql, 'ts');
    expect(e.details).toMatchObject({ path: 'source.eventTime' });
    expect(e.message).toMatch(/must be a timestamp, the SQL makes it long/);
  });

  it('refuses dropDuplicatesWithinWatermark with a derived event time (dedup runs on the source rows)', () => {
    let err: unknown;
    try {
      compileStreamingQuery(COUNT, rel('ts'), { outputMode: 'append', dedup: { keys: ['value'], withinWatermark: true } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).details).toMatchObject({ path: 'dedup.withinWatermark' });
  });

  it('validates as a job (the editor\'s draft check): no errors, no unbounded-state warning; a wrong name lands on source.eventTime', () => {
    const job = (eventTime: string) => ({
      name: 'orders',
      source: { name: 'orders', type: 'memory', options: { stream: 'orders' }, schema: SCHEMA, eventTime, watermarkDelay: '1 minute' },
      sql: COUNT,
      sink: { type: 'memory', options: { table: 'per_region' } },
      outputMode: 'append',
      checkpointLocation: '/tmp/weir-derived-watermark-never-created',
    });
    const good = validateJob(job('ts'));
    expect(good.errors).toEqual([]);
    expect(good.warnings.map((w) => w.message).join('\n')).not.toMatch(/Unbounded state/);
    const bad = validateJob(job('event_ts'));
    expect(bad.ok).toBe(false);
    expect(bad.errors.map((e) => e.path)).toEqual(['source.eventTime']);
  });

  it('append mode: a window is emitted once the derived watermark passes its end, and late orders are dropped', async () => {
    const T = Date.UTC(2026, 0, 1, 12, 0, 0);
    const order = (id: number, secs: number): Row => ({ value: JSON.stringify({ order_id: id, region: 'eu', ts: new Date(T + secs * 1000).toISOString() }), timestamp: 0 });
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), COUNT, rel('ts'), 'append');
    // Minute 0 (two orders): nothing emitted, the window is still open.
    expect((await q.runBatch([order(0, 10), order(1, 50)])).output).toEqual([]);
    expect(q.watermarkMs).toBe(T + 50_000 - 60_000);
    // An order at 2:30 moves the watermark to 1:30, past minute 0's end.
    expect((await q.runBatch([order(2, 150)])).output).toEqual([]);
    expect(q.watermarkMs).toBe(T + 90_000);
    // The next batch closes minute 0; its late order (0:20, window ended before 1:30) is dropped.
    const closed = await q.runBatch([order(3, 20)]);
    expect(closed.output).toEqual([{ window: { start: T, end: T + 60_000 }, region: 'eu', n: 2 }]);
    expect(closed.progress[0]?.numRowsDroppedByWatermark).toBe(1);
  });

  it('UNION ALL: each branch defining the column folds its rows into one batch figure', async () => {
    const T = Date.UTC(2026, 0, 1, 12, 0, 0);
    const branch = (where: string) => `SELECT o.ts AS ts FROM (SELECT from_json(value, 'region STRING, ts TIMESTAMP') AS o FROM orders) WHERE ${where}`;
    const q = compileStreamingQuery(`${branch("o.region = 'eu'")} UNION ALL ${branch("o.region = 'us'")}`, rel('ts'));
    const rows: Row[] = [['eu', 10], ['us', 90], ['apac', 500]].map(([region, s]) => ({ value: JSON.stringify({ region, ts: new Date(T + (s as number) * 1000).toISOString() }), timestamp: 0 }));
    const ctx: OperatorContext = { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: T };
    let out: Row[] = rows;
    for (const op of q.operators) out = await op.execute(out, ctx);
    expect(out).toHaveLength(2);
    expect(ctx.eventTimes).toEqual({ min: T + 10_000, max: T + 90_000, avg: T + 50_000, count: 2 });
  });
});
