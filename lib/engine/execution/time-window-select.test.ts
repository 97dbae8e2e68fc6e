/**
 * window(ts, size[, slide[, start]]) outside GROUP BY, through the engine, with Spark's answers
 * (its TimeWindowing rule: lastStart = ts - (ts - startTime + slide) % slide, windows
 * [lastStart - i * slide, + size) for i < ceil(size / slide) that contain ts, none for a NULL ts):
 * as a select item (tumbling, sliding, with a start offset), in WHERE, grouped by afterwards, and
 * window_time(w) (Spark's end - 1 microsecond).
 */
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { ManualClock } from '../clock';
import type { StreamingQueryProgress } from '../progress';
import { compileStreamingQuery } from '../query/streaming-query';
import type { StreamingRelation } from '../query/logical-plan';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import { MicroBatchExecution } from './micro-batch-execution';
import { mustParse } from './testing/test-fixtures';

const T0 = Date.UTC(2026, 0, 1);

let n = 0;
function job(sql: string, outputMode = 'append') {
  const id = `twsel-${++n}-${process.pid}`;
  const spec = {
    name: id,
    outputMode,
    sources: [{ name: 'events', type: 'memory', options: { stream: id }, schema: [{ name: 'id', type: 'long' }, { name: 'ts', type: 'timestamp' }], eventTime: 'ts', watermarkDelay: '5 seconds' }],
    sql,
    sink: { type: 'memory', options: { table: id } },
    trigger: { type: 'available-now' },
    checkpointLocation: `memory://${id}`,
  };
  const events = MemoryStream.named(id);
  const table = MemorySinkTable.named(id);
  const checkpoint = new InMemoryCheckpointFileManager();
  const progress: StreamingQueryProgress[] = [];
  const start = () => new MicroBatchExecution({ spec: mustParse(spec), checkpoint, clock: new ManualClock(T0), onProgress: (p) => void progress.push(p) });
  const out = () => table.rows.map((r) => JSON.stringify(r)).sort();
  return { events, table, start, out, progress };
}

async function run(sql: string, ...batches: Record<string, unknown>[][]) {
  const t = job(sql);
  const q = t.start();
  for (const rows of batches) {
    t.events.addData(...rows);
    await q.processAllAvailable();
  }
  await q.stop();
  return t;
}

const ev = (id: number, ms: number | null) => ({ id, ts: ms === null ? null : T0 + ms });
const w = (startMs: number, endMs: number) => ({ start: T0 + startMs, end: T0 + endMs });
const row = (o: Record<string, unknown>) => JSON.stringify(o);

describe('window() as a select item (Spark\'s TimeWindowing)', () => {
  it('tumbling: one window per row, a NULL time gives no row', async () => {
    const t = await run("SELECT window(ts, '10 seconds') AS w, id FROM events", [ev(1, 12_345), ev(2, null), ev(3, 20_000)]);
    expect(t.out()).toEqual([row({ w: w(10_000, 20_000), id: 1 }), row({ w: w(20_000, 30_000), id: 3 })]);
  });

  it('is named window unaliased, and its fields read as window.start and window.end', async () => {
    const t = await run("SELECT window(ts, '10 seconds'), window(ts, '10 seconds').end AS e, id FROM events", [ev(1, 12_345)]);
    expect(t.table.rows).toEqual([{ window: w(10_000, 20_000), e: T0 + 20_000, id: 1 }]);
  });

  it('beside *, in a UNION ALL branch and in a CTE', async () => {
    const star = await run("SELECT *, window(ts, '10 seconds') FROM events", [ev(1, 12_345)]);
    expect(star.table.rows).toEqual([{ id: 1, ts: T0 + 12_345, window: w(10_000, 20_000) }]);
    const union = await run("WITH c AS (SELECT window(ts, '10 seconds') AS w, id FROM events) SELECT w, id FROM c UNION ALL SELECT window(ts, '5 seconds') AS w, id FROM events", [ev(1, 12_345)]);
    expect(union.out()).toEqual([row({ w: w(10_000, 15_000), id: 1 }), row({ w: w(10_000, 20_000), id: 1 })]);
  });

  it('sliding: each row once per window containing it, the latest first (Spark\'s Expand order)', async () => {
    const t = await run("SELECT window(ts, '10 seconds', '5 seconds') AS w, id FROM events", [ev(1, 12_345), ev(2, null)]);
    expect(t.table.rows).toEqual([{ w: w(10_000, 20_000), id: 1 }, { w: w(5_000, 15_000), id: 1 }]);
  });

  it('sliding by a slide that does not divide the size: only the windows that contain the time (Spark\'s filter)', async () => {
    // ceil(10 / 3) = 4 candidates from lastStart 12 s: [12, 22), [9, 19), [6, 16), [3, 13); 14.5 s is not in the last.
    const t = await run("SELECT window(ts, '10 seconds', '3 seconds') AS w FROM events", [ev(1, 14_500)]);
    expect(t.table.rows).toEqual([{ w: w(12_000, 22_000) }, { w: w(9_000, 19_000) }, { w: w(6_000, 16_000) }]);
  });

  it('with a start offset: windows start that far past the epoch\'s alignment, a negative one before it', async () => {
    const sliding = await run("SELECT window(ts, '10 seconds', '5 seconds', '2 seconds') AS w FROM events", [ev(1, 12_345)]);
    expect(sliding.table.rows).toEqual([{ w: w(12_000, 22_000) }, { w: w(7_000, 17_000) }]);
    const tumbling = await run("SELECT window(ts, '10 seconds', '10 seconds', '-3 seconds') AS w FROM events", [ev(1, 12_345)]);
    expect(tumbling.table.rows).toEqual([{ w: w(7_000, 17_000) }]);
  });

  it('GROUP BY window(…) takes the start offset too', async () => {
    const t = await run("SELECT window(ts, '10 seconds', '10 seconds', '2 seconds') AS w, count(*) AS n FROM events GROUP BY window(ts, '10 seconds', '10 seconds', '2 seconds')", [ev(1, 11_000), ev(2, 12_500), ev(3, 21_999)], [ev(4, 60_000)]);
    expect(t.out()).toEqual([row({ w: w(2_000, 12_000), n: 1 }), row({ w: w(12_000, 22_000), n: 2 })]);
  });

  it('a window over window_time(w) (what Spark makes of a window over a window column)', async () => {
    const t = await run("SELECT window(window_time(w), '1 minute') AS m FROM (SELECT window(ts, '10 seconds') AS w FROM events)", [ev(1, 12_345)]);
    expect(t.table.rows).toEqual([{ m: w(0, 60_000) }]);
  });

  it('window_time(w) is the window\'s end less one microsecond, as Spark\'s', async () => {
    const t = await run("SELECT window_time(w) AS t FROM (SELECT window(ts, '10 seconds') AS w FROM events)", [ev(1, 12_345)]);
    expect(t.table.rows).toEqual([{ t: ((T0 + 19_999) * 1000 + 999) / 1000 }]);
  });
});

describe('window() in WHERE', () => {
  it('filters each row\'s windows; a row passes once per window that passes, and * leaves the window out', async () => {
    const t = await run(
      "SELECT * FROM events WHERE window(ts, '10 seconds', '5 seconds').start >= TIMESTAMP '2026-01-01 00:00:10'",
      [ev(1, 12_345), ev(2, 7_000), ev(3, null)],
    );
    expect(t.table.rows).toEqual([{ id: 1, ts: T0 + 12_345 }]);
    const both = await run("SELECT id FROM events WHERE window(ts, '10 seconds', '5 seconds').end > ts", [ev(1, 12_345)]);
    expect(both.table.rows).toEqual([{ id: 1 }, { id: 1 }]);
  });
});

describe('a window column grouped by afterwards', () => {
  it('counts per window in Append, each window out once the watermark passes its end, then evicted', async () => {
    const t = await run(
      "SELECT w, count(*) AS n FROM (SELECT window(ts, '10 seconds') AS w FROM events) GROUP BY w",
      [ev(1, 1_000), ev(2, 9_999), ev(3, 12_000)],
      [ev(4, 16_000)],
      [ev(5, 40_000)],
    );
    // Watermark 16 s − 5 s = 11 s passes [0, 10); 40 s − 5 s = 35 s passes [10, 20).
    expect(t.out()).toEqual([row({ w: w(0, 10_000), n: 2 }), row({ w: w(10_000, 20_000), n: 2 })]);
    const agg = t.progress.at(-1)!.stateOperators.find((s) => s.operatorName === 'stateStoreSave')!;
    expect(agg.numRowsTotal).toBe(1);
  });
});

describe('SELECT DISTINCT of a window\'s field (Spark\'s Distinct over TimeWindowing\'s Project)', () => {
  it('keeps each window start once, in Update mode (a start seen again is an updated key, out again)', async () => {
    const t = job("SELECT DISTINCT window(ts, '10 seconds').start AS s FROM events", 'update');
    const q = t.start();
    t.events.addData(ev(1, 1_000), ev(2, 9_999), ev(3, 12_000));
    await q.processAllAvailable();
    t.events.addData(ev(4, 3_000), ev(5, 25_000));
    await q.processAllAvailable();
    await q.stop();
    expect(t.out()).toEqual([row({ s: T0 }), row({ s: T0 }), row({ s: T0 + 10_000 }), row({ s: T0 + 20_000 })]);
  });

  it('is refused in Append mode: window.start does not carry the time column\'s watermark (only the window column does)', () => {
    const relation: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'events', eventTime: 'ts', watermarkDelayMs: 0, schema: [{ name: 'ts', type: 'timestamp', nullable: true }] };
    expect(() => compileStreamingQuery("SELECT DISTINCT window(ts, '10 seconds').start FROM events", relation, { outputMode: 'append' }))
      .toThrow('Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark');
  });
});

describe('Spark\'s refusals of window() outside GROUP BY', () => {
  const relation: StreamingRelation = {
    kind: 'StreamingRelation', sourceName: 'events', eventTime: 'ts', watermarkDelayMs: 0,
    schema: [{ name: 'id', type: 'long', nullable: true }, { name: 'ts', type: 'timestamp', nullable: true }, { name: 's', type: 'string', nullable: true }],
  };
  it.each([
    ["SELECT window(ts, '10 seconds') AS a, window(ts, '5 seconds') AS b FROM events", 'Multiple time/session window expressions would result in a cartesian product of rows'],
    ["SELECT window(s, '10 seconds') AS w FROM events", 'window() needs a timestamp, got string'],
    ["SELECT window(ts, '10 seconds', '5 seconds', '5 seconds') AS w FROM events", 'The absolute value of start time (5 seconds) must be less than the slideDuration (5 seconds)'],
    ["SELECT window(ts, '10 seconds') AS w FROM (SELECT ts, id AS window FROM events)", 'outputs a column window, and its input has a column window too'],
    ['SELECT window_time(ts) AS t FROM events', 'The input is not a correct window column'],
    ["SELECT window(w, '1 minute') AS m FROM (SELECT window(ts, '10 seconds') AS w FROM events)", 'over a window column w, pass window_time(w)'],
    ["SELECT e.id FROM events e JOIN events f ON window(e.ts, '10 seconds') = window(f.ts, '10 seconds')", "window(e.ts, '10 seconds') cannot be computed here"],
    ["SELECT count(*) AS n FROM events GROUP BY id HAVING max(window(ts, '10 seconds').end) > TIMESTAMP '2026-01-01 00:00:00'", 'cannot be computed here'],
  ])('%s', (sql, message) => {
    expect(() => compileStreamingQuery(sql, relation)).toThrow(message);
  });
});
