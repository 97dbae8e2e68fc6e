/**
 * Stream-stream joins through the engine, with Spark's answers: the programming guide's ad
 * impressions and clicks (an inner join on the ad with a one-hour time range), a left outer join
 * whose unmatched impression comes out padded with NULLs only once the watermark passes it (in a
 * batch of its own when no data follows), a restart in between that resumes both buffers from
 * the checkpoint, and Spark's refusals before the first batch.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { ManualClock } from '../clock';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import type { StreamingQueryProgress } from '../progress';
import { MicroBatchExecution } from './micro-batch-execution';
import { mustParse } from './testing/test-fixtures';

const MIN = 60_000;
const T0 = Date.UTC(2026, 0, 1);

let n = 0;
function adsJob(sql: string, extra: Record<string, unknown> = {}) {
  const id = `ssjoin-${++n}-${process.pid}`;
  const spec = {
    name: id,
    sources: [
      { name: 'impressions', type: 'memory', options: { stream: `${id}-i` }, schema: [{ name: 'adId', type: 'long' }, { name: 'impressionTime', type: 'timestamp' }], eventTime: 'impressionTime', watermarkDelay: '2 hours' },
      { name: 'clicks', type: 'memory', options: { stream: `${id}-c` }, schema: [{ name: 'clickAdId', type: 'long' }, { name: 'clickTime', type: 'timestamp' }], eventTime: 'clickTime', watermarkDelay: '3 hours' },
    ],
    sql,
    sink: { type: 'memory', options: { table: id } },
    trigger: { type: 'available-now' },
    checkpointLocation: `memory://${id}`,
    ...extra,
  };
  const impressions = MemoryStream.named(`${id}-i`);
  const clicks = MemoryStream.named(`${id}-c`);
  const table = MemorySinkTable.named(id);
  const checkpoint = new InMemoryCheckpointFileManager();
  const clock = new ManualClock(T0);
  const progress: StreamingQueryProgress[] = [];
  const start = () => new MicroBatchExecution({ spec: mustParse(spec), checkpoint, clock, onProgress: (p) => void progress.push(p) });
  const out = () => table.rows.map((r) => JSON.stringify(r)).sort();
  return { impressions, clicks, table, start, progress, out };
}

const imp = (adId: number, minute: number) => ({ adId, impressionTime: T0 + minute * MIN });
const click = (clickAdId: number, minute: number) => ({ clickAdId, clickTime: T0 + minute * MIN });
const row = (o: Record<string, unknown>) => JSON.stringify(o);

const INNER = 'SELECT * FROM impressions JOIN clicks ON clickAdId = adId AND clickTime >= impressionTime AND clickTime <= impressionTime + INTERVAL 1 HOUR';

describe('stream-stream inner join (the programming guide\'s impressions and clicks)', () => {
  it('joins each click with its ad\'s impression within the hour, across batches and a restart', async () => {
    const t = adsJob(INNER);
    let q = t.start();
    t.impressions.addData(imp(1, 0), imp(2, 0), imp(3, 10));
    await q.processAllAvailable();
    expect(t.table.rows).toEqual([]);
    // Ad 1's click comes 30 minutes later (joins), ad 2's 2 hours later (outside the range).
    t.clicks.addData(click(1, 30), click(2, 120));
    await q.processAllAvailable();
    expect(t.out()).toEqual([row({ adId: 1, impressionTime: T0, clickAdId: 1, clickTime: T0 + 30 * MIN })]);
    await q.stop();
    // After a restart the buffered impression of ad 3 still meets its click.
    q = t.start();
    t.clicks.addData(click(3, 40));
    await q.processAllAvailable();
    expect(t.out()).toEqual([
      row({ adId: 1, impressionTime: T0, clickAdId: 1, clickTime: T0 + 30 * MIN }),
      row({ adId: 3, impressionTime: T0 + 10 * MIN, clickAdId: 3, clickTime: T0 + 40 * MIN }),
    ].sort());
    const join = t.progress.at(-1)!.stateOperators[0];
    expect(join.operatorName).toBe('symmetricHashJoin');
    expect(join.numRowsTotal).toBeGreaterThan(0);
    await q.stop();
  });

  it('evicts buffered rows once the watermark and the range say no row can match them', async () => {
    const t = adsJob(INNER);
    const q = t.start();
    t.impressions.addData(imp(1, 0));
    t.clicks.addData(click(9, 0));
    await q.processAllAvailable();
    // Both streams move 10 hours on: the watermark (min of 10h − 2h, 10h − 3h = 7h) passes both old rows.
    t.impressions.addData(imp(5, 600));
    t.clicks.addData(click(6, 600));
    await q.processAllAvailable();
    t.impressions.addData(imp(7, 601));
    await q.processAllAvailable();
    const last = t.progress.at(-1)!;
    expect(last.stateOperators[0].numRowsTotal).toBe(3);
    expect(t.table.rows).toEqual([]);
    await q.stop();
  });
});

describe('stream-stream left outer join', () => {
  it('emits an impression without a click, padded with NULLs, when the watermark passes it', async () => {
    const t = adsJob(INNER.replace('FROM impressions JOIN clicks', 'FROM impressions LEFT OUTER JOIN clicks'));
    const q = t.start();
    t.impressions.addData(imp(1, 0), imp(2, 0));
    t.clicks.addData(click(1, 20));
    await q.processAllAvailable();
    expect(t.out()).toEqual([row({ adId: 1, impressionTime: T0, clickAdId: 1, clickTime: T0 + 20 * MIN })]);
    // Much later data moves the watermark past ad 2's hour: its NULL-padded row follows.
    t.impressions.addData(imp(8, 600));
    t.clicks.addData(click(8, 600));
    await q.processAllAvailable();
    expect(t.out()).toContainEqual(row({ adId: 2, impressionTime: T0, clickAdId: null, clickTime: null }));
    expect(t.out().filter((r) => r.includes('"adId":2'))).toHaveLength(1);
    await q.stop();
  });
});

describe('Spark\'s refusals of stream-stream joins, before the first batch', () => {
  it.each([
    ['update mode', INNER, { outputMode: 'update' }, 'Join between two streaming DataFrames/Datasets is not supported in Update output mode, only in Append output mode'],
    ['an outer join without a time range', 'SELECT * FROM impressions LEFT JOIN clicks ON clickAdId = adId', {}, 'Stream-stream LeftOuter join between two streaming DataFrame/Datasets is not supported without a watermark in the join keys, or a watermark on the nullable side and an appropriate range condition'],
    ['no equality', 'SELECT * FROM impressions JOIN clicks ON clickTime > impressionTime', {}, 'Stream-stream join without equality predicate is not supported'],
    ['a left anti join', 'SELECT * FROM impressions LEFT ANTI JOIN clicks ON clickAdId = adId', {}, 'Left anti joins with streaming DataFrames/Datasets are not supported'],
  ])('%s', async (_name, sql, extra, message) => {
    const t = adsJob(sql, extra);
    await expect(async () => {
      const q = t.start();
      try {
        await q.processAllAvailable();
      } finally {
        await q.stop();
      }
    }).rejects.toThrow(message);
  });
});
