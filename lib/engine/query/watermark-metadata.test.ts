/**
 * The watermark follows the event-time column, not its name, as Spark's watermark metadata on the
 * attribute does: an alias of the event time in a subquery still bounds a windowed aggregation
 * (Append is legal, windows are emitted when the watermark passes them), and another column given
 * the event time's name does not.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import type { Schema } from '../types';
import { compileStreamingQuery } from './streaming-query';
import { StatefulQueryRunner } from './testing/stateful-test-harness';

const SCHEMA: Schema = [{ name: 'ts', type: 'timestamp' }, { name: 'created', type: 'timestamp' }, { name: 'k', type: 'string' }];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: SCHEMA, eventTime: 'ts', watermarkDelayMs: 0 };
const MIN = 60_000;
const T0 = Date.UTC(2026, 0, 1);

const windowed = (inner: string, col = 't') =>
  `SELECT window(${col}, '1 minute').start AS start, count(*) AS n FROM (${inner}) GROUP BY window(${col}, '1 minute')`;

describe('the watermark metadata follows the event-time column', () => {
  it('an alias of the event time bounds the window: Append emits each window once the watermark passes it', async () => {
    const sql = windowed('SELECT ts AS t, k FROM src');
    expect(compileStreamingQuery(sql, rel, { outputMode: 'append' }).explain).toMatch(/evicted when the watermark passes the window end/);
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, rel, 'append');
    const row = (minute: number) => ({ ts: T0 + minute * MIN, created: 0, k: 'a' });
    expect((await q.runBatch([row(0), row(0.5), row(1.2)])).output).toEqual([]);
    // The watermark is now 1.2 minutes: the first window is complete; the second is not.
    expect((await q.runBatch([row(3)])).output).toEqual([{ start: T0, n: 2 }]);
    q.restart();
    expect((await q.runBatch([])).output).toEqual([{ start: T0 + MIN, n: 1 }]);
  });

  it('through two aliases and a CTE too', () => {
    const sql = `WITH a AS (SELECT ts AS t1 FROM src), b AS (SELECT t1 AS t FROM a) ${windowed('SELECT t FROM b')}`;
    expect(() => compileStreamingQuery(sql, rel, { outputMode: 'append' })).not.toThrow();
  });

  it('another column named like the event time is not the event time (Spark refuses Append without a watermark)', () => {
    const sql = windowed('SELECT created AS ts FROM src', 'ts');
    expect(() => compileStreamingQuery(sql, rel, { outputMode: 'append' })).toThrow(
      'Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark',
    );
  });

  it('an expression over the event time is not the event time', () => {
    const sql = windowed("SELECT ts + INTERVAL 1 MINUTE AS t FROM src");
    expect(() => compileStreamingQuery(sql, rel, { outputMode: 'append' })).toThrow(/without watermark/);
  });
});

describe('watermark propagation through a join of streams (explain)', () => {
  const kafka: Schema = [{ name: 'key', type: 'string' }, { name: 'timestamp', type: 'timestamp' }];
  const topic = (sourceName: string) => ({ kind: 'StreamingRelation' as const, sourceName, schema: kafka, eventTime: 'timestamp', watermarkDelayMs: 0 });
  it('says the aggregation above the join reads the watermark the join\'s state delay behind (an hour and 1 ms)', () => {
    const q = compileStreamingQuery(
      "SELECT window(i.timestamp, '10 minutes'), count(*) AS n FROM impressions i JOIN clicks c ON i.key = c.key AND c.timestamp BETWEEN i.timestamp AND i.timestamp + INTERVAL 1 HOUR GROUP BY window(i.timestamp, '10 minutes')",
      [topic('impressions'), topic('clicks')],
      { outputMode: 'append' },
    );
    // An hour and the 1 ms by which Spark's state watermark of a bound admitting equality is lower.
    expect(q.explain).toMatch(/reads the watermark 3600001 ms behind the global one/);
  });
});
