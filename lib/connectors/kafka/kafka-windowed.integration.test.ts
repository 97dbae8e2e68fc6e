/**
 * The job Kafka users run first: JSON orders from a topic, parsed with from_json, counted per
 * region in 1-minute event-time windows over the order's own `ts` with a watermark on it, into
 * postgres-upsert, crashing at every crash point of a batch and restarting: the table ends with
 * each window's count once. The watermark is on a column the SQL derives (`o.ts AS ts` in a CTE),
 * as Spark's withWatermark on a projection: source.eventTime names it though it is not a source
 * column. The Kafka record timestamp is deliberately a day earlier than the order's ts, so the
 * watermark the progress reports shows which of the two it was computed from.
 * The broker is librdkafka's mock cluster run by kcat (testing/mock-broker.ts), not Apache Kafka.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../engine/clock';
import { CRASH_POINTS } from '../../engine/execution/crash-points';
import { AddData, CheckAnswer, CrashAt, StopStream, testStream, type StreamHarness } from '../../engine/execution/testing/stream-test';
import { mustParse } from '../../engine/execution/testing/test-fixtures';
import { createTestDatabase, type TestDatabase } from '../../testing/pg-test-database';
import type { Row } from '../../engine/types';
import '../index'; // registers every connector, as the worker and the CLI do
import { kcatAvailable, produce, startMockKafka, type MockKafkaBroker } from './testing/mock-broker';

const HAVE_KCAT = kcatAvailable();
let broker: MockKafkaBroker;
let db: TestDatabase;
let root: string;

beforeAll(async () => {
  if (!HAVE_KCAT) return;
  broker = await startMockKafka({ brokers: 1 });
  db = await createTestDatabase('kafka_win');
  root = await mkdtemp(path.join(tmpdir(), 'weir-kafka-win-'));
}, 120_000);
afterAll(async () => {
  await broker?.stop();
  await db?.drop();
  if (root) await rm(root, { recursive: true, force: true });
});

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const REGIONS = ['eu', 'us', 'apac'];

describe.skipIf(!HAVE_KCAT)('kafka JSON orders → windowed count per region → postgres-upsert (librdkafka mock cluster)', () => {
  it.each(CRASH_POINTS)('survives a crash at %s with every window counted once', async (point) => {
    const topic = `orders-win-${point}-${process.pid}`;
    const table = `per_region_${point.replace(/-/g, '_')}`;
    const spec = mustParse({
      name: 'orders-per-region',
      source: {
        name: 'orders', type: 'kafka', options: { bootstrapServers: broker.bootstrapServers, subscribe: topic, startingOffsets: 'earliest' },
        schema: [{ name: 'value', type: 'binary' }, { name: 'timestamp', type: 'timestamp' }], eventTime: 'ts', watermarkDelay: '1 minute',
      },
      sql: [
        "WITH orders_parsed AS (SELECT o.region AS region, o.ts AS ts FROM (SELECT from_json(CAST(value AS STRING), 'order_id BIGINT, region STRING, amount DOUBLE, ts TIMESTAMP') AS o FROM orders))",
        "SELECT window(ts, '1 minute'), region, count(*) AS n FROM orders_parsed GROUP BY window(ts, '1 minute'), region",
      ].join(' '),
      sink: { type: 'postgres-upsert', options: { connectionString: db.url, table, keyColumns: ['window_start', 'region'] } },
      outputMode: 'update',
      trigger: { type: 'available-now' },
      checkpointLocation: path.join(root, `checkpoint-${point}`),
    });
    let n = 0;
    const harness: StreamHarness = {
      spec,
      clock: new ManualClock(T0 + 3_600_000),
      // The record timestamp is a day before the order's ts: only the JSON field may drive the windows.
      addData: (rows) =>
        produce(broker.bootstrapServers, topic, rows.map((r) => ({
          value: JSON.stringify({ order_id: r.id, region: r.region, amount: (r.id as number) * 1.5, ts: new Date(r.ts as number).toISOString() }),
          timestamp: (r.ts as number) - 86_400_000,
          partition: (r.id as number) % 4,
        }))),
      readAnswer: async () => {
        const r = await db.pool.query(`SELECT window_start, region, n FROM ${table}`).catch(() => ({ rows: [] as Row[] }));
        return r.rows.map((x: Row) => ({ window_start: new Date(x.window_start as string).getTime(), region: x.region, n: Number(x.n) }));
      },
      expected: (added) => {
        const m = new Map<string, Row>();
        for (const r of added) {
          const w = Math.floor((r.ts as number) / 60_000) * 60_000;
          const k = `${w}|${r.region}`;
          const e = m.get(k) ?? { window_start: w, region: r.region, n: 0 };
          e.n = (e.n as number) + 1;
          m.set(k, e);
        }
        return [...m.values()];
      },
    };
    const gen = (count: number, minute: number): Row[] => Array.from({ length: count }, () => ({ id: n, region: REGIONS[n % 3], ts: T0 + minute * 60_000 + (n++ % 50) * 1000 }));
    // Batch 1 is the no-data batch the watermark's advance runs after batch 0; batch 2 reads minute 1.
    const state = await testStream(harness, [AddData(gen(12, 0)), CheckAnswer(), AddData(gen(9, 1)), CrashAt(point, 2), AddData(gen(7, 2)), CheckAnswer(), StopStream()]);
    expect(state.crashes.map((c) => c.point)).toEqual([point]);
    expect(state.progress[0].contract.guarantee).toBe('exactly-once');
    // The watermark follows the orders' ts (max so far − 1 minute), not the record timestamps.
    const maxTs = (rows: Row[]) => Math.max(...rows.map((r) => r.ts as number));
    const watermarks = state.progress.map((p) => (p.eventTime ? Date.parse(p.eventTime.watermark) : 0));
    expect(Math.max(...watermarks)).toBeGreaterThanOrEqual(maxTs(state.added.slice(0, 21)) - 60_000);
    expect(Math.max(...watermarks)).toBeLessThanOrEqual(maxTs(state.added) - 60_000);
  }, 120_000);
});
