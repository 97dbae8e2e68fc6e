/**
 * Stream-stream joins through the engine, with Spark's answers: the programming guide's ad
 * impressions and clicks (an inner join on the ad with a one-hour time range), a left outer join
 * whose unmatched impression comes out padded with NULLs only once the watermark passes it (in a
 * batch of its own when no data follows), a restart in between that resumes both buffers from
 * the checkpoint, and Spark's refusals before the first batch.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { ManualClock } from '../clock';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import type { StreamingQueryProgress } from '../progress';
import { MicroBatchExecution } from './micro-batch-execution';
import { mustParse } from './testing/test-fixtures';
import { CheckNewAnswer, MultiAddData, sparkStreams, type SparkSource } from './testing/spark-stream-test';
import { validateJob } from '../spec/validate-job';
import { partitionForKey } from '../state/state-store';
import { encodeKey } from '../state/state-value-codec';
import type { Row } from '../types';

const MIN = 60_000;
const T0 = Date.UTC(2026, 0, 1);

let n = 0;
type KeyType = Record<string, unknown> & { type: string };

function adsJob(sql: string, extra: Record<string, unknown> = {}, keys: { adId: KeyType; clickAdId: KeyType } = { adId: { type: 'long' }, clickAdId: { type: 'long' } }) {
  const id = `ssjoin-${++n}-${process.pid}`;
  const spec = {
    name: id,
    sources: [
      { name: 'impressions', type: 'memory', options: { stream: `${id}-i` }, schema: [{ name: 'adId', ...keys.adId }, { name: 'impressionTime', type: 'timestamp' }], eventTime: 'impressionTime', watermarkDelay: '2 hours' },
      { name: 'clicks', type: 'memory', options: { stream: `${id}-c` }, schema: [{ name: 'clickAdId', ...keys.clickAdId }, { name: 'clickTime', type: 'timestamp' }], eventTime: 'clickTime', watermarkDelay: '3 hours' },
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
  // A decimal is its unscaled bigint: written as its digits.
  const out = () => table.rows.map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))).sort();
  return { impressions, clicks, table, start, progress, out, spec };
}

const imp = (adId: number, minute: number) => ({ adId, impressionTime: T0 + minute * MIN });
const click = (clickAdId: number, minute: number) => ({ clickAdId, clickTime: T0 + minute * MIN });
const row = (o: Record<string, unknown>) => JSON.stringify(o);

const INNER = 'SELECT * FROM impressions JOIN clicks ON clickAdId = adId AND clickTime >= impressionTime AND clickTime <= impressionTime + INTERVAL 1 HOUR';

describe('stream-stream inner join (the programming guide\'s impressions and clicks)', () => {
  it('streams joined by a comma (or CROSS JOIN) with the condition in WHERE join as with ON (Spark pushes the WHERE into the join)', async () => {
    for (const sql of [
      'SELECT * FROM impressions, clicks WHERE clickAdId = adId AND clickTime >= impressionTime AND clickTime <= impressionTime + INTERVAL 1 HOUR',
      'SELECT * FROM impressions CROSS JOIN clicks WHERE clickAdId = adId AND clickTime BETWEEN impressionTime AND impressionTime + INTERVAL 1 HOUR',
    ]) {
      const t = adsJob(sql);
      const q = t.start();
      t.impressions.addData(imp(1, 0), imp(2, 0));
      t.clicks.addData(click(1, 30), click(2, 120));
      await q.processAllAvailable();
      expect(t.out()).toEqual([row({ adId: 1, impressionTime: T0, clickAdId: 1, clickTime: T0 + 30 * MIN })]);
      expect(t.progress.at(-1)!.stateOperators[0].operatorName).toBe('symmetricHashJoin');
      await q.stop();
    }
  });

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
    // Spark's StateOperatorProgress fields, in its JSON's order; one partition of four stores.
    expect(Object.keys(join)).toEqual([
      'operatorName', 'numRowsTotal', 'numRowsUpdated', 'allUpdatesTimeMs', 'numRowsRemoved', 'allRemovalsTimeMs', 'commitTimeMs',
      'memoryUsedBytes', 'numRowsDroppedByWatermark', 'numShufflePartitions', 'numStateStoreInstances', 'customMetrics',
    ]);
    expect(join).toMatchObject({ numShufflePartitions: 1, numStateStoreInstances: 4 });
    expect(join.allUpdatesTimeMs).toBeGreaterThanOrEqual(0);
    expect(join.allRemovalsTimeMs).toBeGreaterThanOrEqual(0);
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

describe('the job\'s dedup option with a stream-stream join', () => {
  it('drops the first source\'s duplicates before the join, and remembers them across a restart', async () => {
    const t = adsJob(INNER, { dedup: { keys: ['adId', 'impressionTime'] } });
    let q = t.start();
    t.impressions.addData(imp(1, 0), imp(1, 0), imp(2, 5));
    t.clicks.addData(click(1, 30));
    await q.processAllAvailable();
    const first = [row({ adId: 1, impressionTime: T0, clickAdId: 1, clickTime: T0 + 30 * MIN })];
    expect(t.out()).toEqual(first);
    await q.stop();
    // After a restart the duplicate is still known: ad 1's new click meets one impression, not two.
    q = t.start();
    t.impressions.addData(imp(1, 0), imp(2, 5));
    t.clicks.addData(click(1, 40), click(2, 50));
    await q.processAllAvailable();
    expect(t.out()).toEqual([
      ...first,
      row({ adId: 1, impressionTime: T0, clickAdId: 1, clickTime: T0 + 40 * MIN }),
      row({ adId: 2, impressionTime: T0 + 5 * MIN, clickAdId: 2, clickTime: T0 + 50 * MIN }),
    ].sort());
    const names = t.progress.at(-1)!.stateOperators.map((o) => o.operatorName).sort();
    expect(names).toEqual(['dedupe', 'symmetricHashJoin']);
    expect(t.progress.at(-1)!.stateOperators.find((o) => o.operatorName === 'dedupe')!.numRowsTotal).toBe(2);
    await q.stop();
  });
});

describe('EXISTS over a stream (Spark\'s RewritePredicateSubquery makes it a LEFT SEMI join of streams)', () => {
  it('keeps each impression with a click within the hour, once', async () => {
    const t = adsJob('SELECT * FROM impressions WHERE EXISTS (SELECT 1 FROM clicks WHERE clickAdId = adId AND clickTime BETWEEN impressionTime AND impressionTime + INTERVAL 1 HOUR)');
    const q = t.start();
    t.impressions.addData(imp(1, 0), imp(2, 0));
    t.clicks.addData(click(1, 30), click(1, 40), click(2, 120));
    await q.processAllAvailable();
    expect(t.out()).toEqual([row({ adId: 1, impressionTime: T0 })]);
    expect(t.progress.at(-1)!.stateOperators[0].operatorName).toBe('symmetricHashJoin');
    await q.stop();
  });

  it('refuses NOT EXISTS (a LEFT ANTI join) and one without a time range, as Spark\'s checker does', async () => {
    for (const [sql, message] of [
      ['SELECT * FROM impressions WHERE NOT EXISTS (SELECT 1 FROM clicks WHERE clickAdId = adId AND clickTime BETWEEN impressionTime AND impressionTime + INTERVAL 1 HOUR)', 'LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported'],
      ['SELECT * FROM impressions WHERE EXISTS (SELECT 1 FROM clicks WHERE clickAdId = adId)', 'LeftSemi join between two streaming DataFrame/Datasets is not supported without a watermark'],
    ]) {
      const e = (await refusal(adsJob(sql))) as { message: string } | undefined;
      expect(e?.message).toContain(message);
    }
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

describe('stream-stream joins on keys of two types (Spark casts both to their common type)', () => {
  const imp2 = (adId: unknown, minute: number) => ({ adId, impressionTime: T0 + minute * MIN });
  const click2 = (clickAdId: unknown, minute: number) => ({ clickAdId, clickTime: T0 + minute * MIN });
  const cases: [string, KeyType, KeyType, { matches: [unknown, unknown][]; apart: [unknown, unknown][] }][] = [
    ['INT beside BIGINT', { type: 'long', integral: 32 }, { type: 'long' }, { matches: [[5, 5], [-7, -7]], apart: [[6, 60]] }],
    // 1.50 (DECIMAL(10,2), unscaled 150) is 1.5000 (DECIMAL(12,4), unscaled 15000); 1.5001 is not.
    ['DECIMAL(10,2) beside DECIMAL(12,4)', { type: 'decimal', precision: 10, scale: 2 }, { type: 'decimal', precision: 12, scale: 4 }, { matches: [[150n, 15000n], [-1n, -100n]], apart: [[250n, 25001n]] }],
    // PromoteStrings: the string key is read as a BIGINT; text that is no number is NULL.
    ['BIGINT beside STRING', { type: 'long' }, { type: 'string' }, { matches: [[5, '5'], [12, '12']], apart: [[6, 'six'], [7, '8']] }],
  ];
  it.each(cases.flatMap(([name, ...c]) => [1, 3].map((p) => [name, p, ...c] as const)))('%s, parallelism %i: equal values match whichever side, across a restart, others and NULLs never', async (_name, parallelism, lt, rt, { matches, apart }) => {
    const t = adsJob(INNER.replace('FROM impressions JOIN clicks', 'FROM impressions LEFT OUTER JOIN clicks'), { parallelism }, { adId: lt, clickAdId: rt });
    let q = t.start();
    // Left rows first (buffered), then, after a restart, the right rows that meet them.
    t.impressions.addData(...matches.map(([l], i) => imp2(l, i)), ...apart.map(([l], i) => imp2(l, i)), imp2(null, 0));
    await q.processAllAvailable();
    await q.stop();
    q = t.start();
    t.clicks.addData(...matches.map(([, r], i) => click2(r, i + 10)), ...apart.map(([, r], i) => click2(r, i + 10)), click2(null, 10));
    await q.processAllAvailable();
    const str = (o: Record<string, unknown>) => row(JSON.parse(JSON.stringify(o, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))) as Record<string, unknown>);
    const pairs = matches.map(([l, r], i) => str({ adId: l, impressionTime: T0 + i * MIN, clickAdId: r, clickTime: T0 + (i + 10) * MIN }));
    expect(t.out()).toEqual([...pairs].sort());
    // Much later data moves the watermark past the hour: the unmatched left rows (NULL key too) come out padded.
    t.impressions.addData(imp2(null, 600));
    t.clicks.addData(click2(null, 600));
    await q.processAllAvailable();
    const padded = [...apart.map(([l], i) => str({ adId: l, impressionTime: T0 + i * MIN, clickAdId: null, clickTime: null })), row({ adId: null, impressionTime: T0, clickAdId: null, clickTime: null })];
    expect(t.out()).toEqual([...pairs, ...padded].sort());
    const join = t.progress.at(-1)!.stateOperators[0];
    expect(join.operatorName).toBe('symmetricHashJoin');
    await q.stop();
  });

  it('shows the cast on the Join line of the explain', () => {
    const t = adsJob(INNER, {}, { adId: { type: 'long', integral: 32 }, clickAdId: { type: 'long' } });
    expect(validateJob(t.spec).explain).toMatch(/Join Inner .*cast\(adId as bigint\) = clickAdId|Join Inner .*clickAdId = cast\(adId as bigint\)/);
  });
});

describe('Spark\'s refusals of stream-stream joins, before the first batch', () => {
  it.each([
    ['update mode', INNER, { outputMode: 'update' }, 'Join between two streaming DataFrames/Datasets is not supported in Update output mode, only in Append output mode'],
    ['an outer join without a time range', 'SELECT * FROM impressions LEFT JOIN clicks ON clickAdId = adId', {}, 'Stream-stream LeftOuter join between two streaming DataFrame/Datasets is not supported without a watermark in the join keys, or a watermark on the nullable side and an appropriate range condition'],
    ['no equality', 'SELECT * FROM impressions JOIN clicks ON clickTime > impressionTime', {}, 'Stream-stream join without equality predicate is not supported'],
    ['a left anti join', 'SELECT * FROM impressions LEFT ANTI JOIN clicks ON clickAdId = adId', {}, 'LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported'],
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

/**
 * Two Kafka topics share every column name (key, value, timestamp, …), and a self-join shares all
 * of its own: each side's copy is read qualified, as in Spark.
 */
function topicsJob(sql: string, opts: { self?: boolean; topics?: string[]; parallelism?: number; columns?: Record<string, { name: string; type: string }[]> } = {}) {
  const id = `ssjoin-names-${++n}-${process.pid}`;
  const schema = [{ name: 'key', type: 'string' }, { name: 'value', type: 'string' }, { name: 'timestamp', type: 'timestamp' }];
  // A topic's own columns instead of Kafka's (its first timestamp column the event time).
  const columnsOf = (name: string) => opts.columns?.[name] ?? schema;
  const source = (name: string) => ({ name, type: 'memory', options: { stream: `${id}-${name}` }, schema: columnsOf(name), eventTime: columnsOf(name).find((f) => f.type === 'timestamp')!.name, watermarkDelay: '10 minutes' });
  const spec = {
    name: id,
    ...(opts.self ? { source: source('events') } : { sources: (opts.topics ?? ['impressions', 'clicks']).map(source) }),
    sql,
    sink: { type: 'memory', options: { table: id } },
    trigger: { type: 'available-now' },
    checkpointLocation: `memory://${id}`,
    ...(opts.parallelism ? { parallelism: opts.parallelism } : {}),
  };
  const stream = (name: string) => MemoryStream.named(`${id}-${name}`);
  const table = MemorySinkTable.named(id);
  const checkpoint = new InMemoryCheckpointFileManager();
  const progress: StreamingQueryProgress[] = [];
  const start = () => new MicroBatchExecution({ spec: mustParse(spec), checkpoint, clock: new ManualClock(T0), onProgress: (p) => void progress.push(p) });
  // A decimal is its unscaled bigint: written as its digits.
  const out = () => table.rows.map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))).sort();
  return { stream, table, start, progress, out };
}

const rec = (key: string, value: string, minute: number) => ({ key, value, timestamp: T0 + minute * MIN });

async function refusal(t: { start: () => MicroBatchExecution }): Promise<unknown> {
  const q = t.start();
  try {
    await q.processAllAvailable();
  } catch (e) {
    return e;
  } finally {
    await q.stop();
  }
  return undefined;
}

describe('stream-stream joins of sources that share column names', () => {
  const KAFKA = 'SELECT i.key, i.value AS impression, c.value AS click, c.timestamp AS clickTime FROM impressions i JOIN clicks c ' +
    'ON i.key = c.key AND c.timestamp BETWEEN i.timestamp AND i.timestamp + INTERVAL 1 HOUR';

  it('joins two Kafka-shaped topics by qualified names, names the output as Spark, and evicts by the renamed event times across a restart', async () => {
    const t = topicsJob(KAFKA);
    let q = t.start();
    t.stream('impressions').addData(rec('ad1', 'i1', 0), rec('ad2', 'i2', 0), rec('ad3', 'i3', 10));
    t.stream('clicks').addData(rec('ad1', 'c1', 30), rec('ad2', 'c2', 120));
    await q.processAllAvailable();
    expect(t.out()).toEqual([row({ key: 'ad1', impression: 'i1', click: 'c1', clickTime: T0 + 30 * MIN })]);
    await q.stop();
    q = t.start();
    t.stream('clicks').addData(rec('ad3', 'c3', 40));
    await q.processAllAvailable();
    expect(t.out()).toEqual([
      row({ key: 'ad1', impression: 'i1', click: 'c1', clickTime: T0 + 30 * MIN }),
      row({ key: 'ad3', impression: 'i3', click: 'c3', clickTime: T0 + 40 * MIN }),
    ].sort());
    // Far later rows move the watermark: the buffered rows of both sides are evicted.
    t.stream('impressions').addData(rec('ad9', 'i9', 600));
    t.stream('clicks').addData(rec('ad9', 'c9', 600));
    await q.processAllAvailable();
    const removed = t.progress.reduce((s, p) => s + p.stateOperators[0].numRowsRemoved, 0);
    expect(removed).toBeGreaterThan(0);
    await q.stop();
  });

  it('pads an unmatched left row with NULLs when the watermark passes its renamed event time', async () => {
    const t = topicsJob(KAFKA.replace('JOIN clicks c', 'LEFT JOIN clicks c'));
    const q = t.start();
    t.stream('impressions').addData(rec('ad1', 'i1', 0), rec('ad2', 'i2', 0));
    t.stream('clicks').addData(rec('ad1', 'c1', 20));
    await q.processAllAvailable();
    t.stream('impressions').addData(rec('ad8', 'i8', 600));
    t.stream('clicks').addData(rec('ad8', 'c8', 600));
    await q.processAllAvailable();
    expect(t.out().filter((r) => r.includes('"ad2"'))).toEqual([row({ key: 'ad2', impression: 'i2', click: null, clickTime: null })]);
    await q.stop();
  });

  it('feeds a windowed count in Append (a chain, as Spark 3.5+ allows): the window follows the renamed event time', async () => {
    const t = topicsJob(`SELECT window(c.timestamp, '10 minutes').start AS start, count(*) AS n FROM impressions i JOIN clicks c
      ON i.key = c.key AND c.timestamp BETWEEN i.timestamp AND i.timestamp + INTERVAL 1 HOUR GROUP BY window(c.timestamp, '10 minutes')`);
    const q = t.start();
    t.stream('impressions').addData(rec('ad1', 'i1', 0), rec('ad2', 'i2', 1));
    t.stream('clicks').addData(rec('ad1', 'c1', 2), rec('ad2', 'c2', 5));
    await q.processAllAvailable();
    expect(t.out()).toEqual([]);
    // Later rows move the watermark past the first window's end: it comes out, once.
    t.stream('impressions').addData(rec('ad9', 'i9', 120));
    t.stream('clicks').addData(rec('ad9', 'c9', 121));
    await q.processAllAvailable();
    expect(t.out()).toEqual([row({ start: T0, n: 2 })]);
    await q.stop();
  });

  it('a windowed count over a join reads the join\'s output watermark (Spark\'s propagation): a late match still counts', async () => {
    // The window is on the impression's time; an impression is buffered up to an hour for its click.
    const t = topicsJob(`SELECT window(i.timestamp, '10 minutes').start AS start, count(*) AS n FROM impressions i JOIN clicks c
      ON i.key = c.key AND c.timestamp BETWEEN i.timestamp AND i.timestamp + INTERVAL 1 HOUR GROUP BY window(i.timestamp, '10 minutes')`);
    const q = t.start();
    t.stream('impressions').addData(rec('ad1', 'i1', 0));
    await q.processAllAvailable();
    // Other traffic on both topics moves the global watermark to minute 40, past the window [0, 10).
    t.stream('impressions').addData(rec('ad2', 'i2', 50));
    t.stream('clicks').addData(rec('ad3', 'c3', 50));
    await q.processAllAvailable();
    // Ad 1's click, within its hour: the join emits (i1, c1), whose window is [0, 10).
    t.stream('clicks').addData(rec('ad1', 'c1', 50));
    await q.processAllAvailable();
    t.stream('impressions').addData(rec('ad9', 'i9', 300));
    t.stream('clicks').addData(rec('ad9', 'c9', 300));
    await q.processAllAvailable();
    expect(t.out()).toContainEqual(row({ start: T0, n: 1 }));
    await q.stop();
  });

  it('expands a.* to that side\'s columns only', async () => {
    const t = topicsJob('SELECT i.*, c.value AS click FROM impressions i JOIN clicks c ON i.key = c.key');
    const q = t.start();
    t.stream('impressions').addData(rec('ad1', 'i1', 0));
    t.stream('clicks').addData(rec('ad1', 'c1', 5));
    await q.processAllAvailable();
    expect(t.out()).toEqual([row({ key: 'ad1', value: 'i1', timestamp: T0, click: 'c1' })]);
    await q.stop();
  });

  it.each([
    ['an unqualified shared name', 'SELECT value FROM impressions i JOIN clicks c ON i.key = c.key', 'AMBIGUOUS_REFERENCE', 'Reference `value` is ambiguous, could be: [`i`.`value`, `c`.`value`]'],
    ['an unqualified shared name in ON', 'SELECT i.value FROM impressions i JOIN clicks c ON key = c.key', 'AMBIGUOUS_REFERENCE', 'Reference `key` is ambiguous'],
    ['SELECT * of two same-named columns into a sink that writes columns by name', 'SELECT * FROM impressions i JOIN clicks c ON i.key = c.key', 'COLUMN_ALREADY_EXISTS', 'The column `key` already exists'],
  ])('refuses %s', async (_name, sql, errorClass, message) => {
    const e = (await refusal(topicsJob(sql))) as { message: string; errorClass?: string };
    expect(e?.message).toContain(message);
    if (errorClass) expect(e.errorClass).toBe(errorClass);
  });
});

describe('stream-stream self-joins', () => {
  const PAIRS = 'SELECT a.key, a.value AS first, b.value AS second FROM events a JOIN events b ' +
    'ON a.key = b.key AND a.value < b.value AND b.timestamp BETWEEN a.timestamp AND a.timestamp + INTERVAL 10 MINUTES';

  it('pairs a stream\'s rows with its own later rows, within and across batches', async () => {
    const t = topicsJob(PAIRS, { self: true });
    const q = t.start();
    t.stream('events').addData(rec('u1', 'a', 0), rec('u1', 'b', 5), rec('u2', 'x', 0));
    await q.processAllAvailable();
    t.stream('events').addData(rec('u1', 'c', 8), rec('u2', 'y', 30));
    await q.processAllAvailable();
    // Against a nested loop over every pair of the rows (u2's y is 30 minutes after x: no pair).
    expect(t.out()).toEqual([
      row({ key: 'u1', first: 'a', second: 'b' }),
      row({ key: 'u1', first: 'a', second: 'c' }),
      row({ key: 'u1', first: 'b', second: 'c' }),
    ]);
    await q.stop();
  });

  it('needs an alias for each side', async () => {
    const e = (await refusal(topicsJob('SELECT * FROM events JOIN events ON key = key', { self: true }))) as Error;
    expect(e?.message).toContain('A self-join of the stream events needs an alias for each side');
  });
});

describe('a join of three streams (a join whose side is a join)', () => {
  const THREE = 'SELECT i.key, i.value AS impression, c.value AS click, v.value AS conversion FROM impressions i ' +
    'JOIN clicks c ON i.key = c.key AND c.timestamp BETWEEN i.timestamp AND i.timestamp + INTERVAL 1 HOUR ' +
    'JOIN conversions v ON c.key = v.key AND v.timestamp BETWEEN c.timestamp AND c.timestamp + INTERVAL 1 HOUR';
  const topics = ['impressions', 'clicks', 'conversions'];

  it.each([1, 3])('gives every triple in range once, whatever the batch each row arrives in, across a restart, and evicts both joins\' state (parallelism %i)', async (parallelism) => {
    const t = topicsJob(THREE, { topics, parallelism });
    const batches: [string, ReturnType<typeof rec>][][] = [
      [['impressions', rec('a', 'i1', 0)], ['impressions', rec('b', 'i2', 5)], ['clicks', rec('a', 'c1', 10)]],
      [['conversions', rec('a', 'v1', 30)], ['clicks', rec('b', 'c2', 50)], ['clicks', rec('a', 'c3', 70)]],
      [['conversions', rec('b', 'v2', 55)], ['conversions', rec('a', 'v3', 200)], ['impressions', rec('a', 'i3', 40)]],
    ];
    let q = t.start();
    for (const [k, batch] of batches.entries()) {
      for (const [topic, r] of batch) t.stream(topic).addData(r);
      await q.processAllAvailable();
      if (k === 1) {
        await q.stop();
        q = t.start();
      }
    }
    // A nested loop over every row (none is late: the watermark is 10 minutes behind the latest).
    const all = batches.flat();
    const of = (topic: string) => all.filter(([tp]) => tp === topic).map(([, r]) => r);
    const expected: string[] = [];
    for (const i of of('impressions')) for (const c of of('clicks')) for (const v of of('conversions')) {
      if (i.key === c.key && c.key === v.key && c.timestamp >= i.timestamp && c.timestamp <= i.timestamp + 60 * MIN && v.timestamp >= c.timestamp && v.timestamp <= c.timestamp + 60 * MIN) {
        expected.push(row({ key: i.key, impression: i.value, click: c.value, conversion: v.value }));
      }
    }
    expect(expected.length).toBeGreaterThan(1);
    expect(t.out()).toEqual(expected.sort());
    // Far later rows on every topic move the watermark: both joins evict.
    for (const topic of topics) t.stream(topic).addData(rec('z', 'late', 1000));
    await q.processAllAvailable();
    await q.processAllAvailable();
    const last = t.progress.at(-1)!;
    expect(last.stateOperators).toHaveLength(2);
    const removed = (op: number) => t.progress.reduce((n, p) => n + p.stateOperators[op].numRowsRemoved, 0);
    expect(removed(0)).toBeGreaterThan(0);
    expect(removed(1)).toBeGreaterThan(0);
    await q.stop();
  });

  // Spark initializes a task's nondeterministic expressions with its partition index: in the
  // join of partition p, rand(7) draws from seed 7 + p. One impression-and-click per partition
  // (keys b, a, c hash to partitions 0, 1, 2) makes one draw each: 0.2819, 0.4837 and 0.7146,
  // the first values of XORShiftRandom(7), (8) and (9), so `< 0.5` keeps b and a and drops c.
  // Drawn as partition 0 everywhere, all three would pass.
  it("draws rand(seed) in the inner join's condition per partition, from seed + partition index (parallelism 3)", async () => {
    const t = topicsJob(THREE.replace('i.key = c.key AND', 'i.key = c.key AND rand(7) < 0.5 AND'), { topics, parallelism: 3 });
    const q = t.start();
    for (const [key, minute] of [['b', 0], ['a', 1], ['c', 2]] as const) {
      expect(partitionForKey(encodeKey([key]), 3)).toBe(['b', 'a', 'c'].indexOf(key));
      t.stream('impressions').addData(rec(key, `i-${key}`, minute));
      t.stream('clicks').addData(rec(key, `c-${key}`, minute + 10));
      t.stream('conversions').addData(rec(key, `v-${key}`, minute + 20));
    }
    await q.processAllAvailable();
    expect(t.out()).toEqual(['a', 'b'].map((key) => row({ key, impression: `i-${key}`, click: `c-${key}`, conversion: `v-${key}` })));
    await q.stop();
  });

  it('pads an impression-and-click without a conversion once the watermark has passed both joins\' delays', async () => {
    const t = topicsJob(THREE.replace('JOIN conversions v', 'LEFT JOIN conversions v'), { topics });
    const q = t.start();
    t.stream('impressions').addData(rec('a', 'i1', 0));
    t.stream('clicks').addData(rec('a', 'c1', 10));
    await q.processAllAvailable();
    for (const topic of topics) t.stream(topic).addData(rec('z', 'later', 300));
    await q.processAllAvailable();
    expect(t.out().filter((r) => r.includes('"i1"'))).toEqual([row({ key: 'a', impression: 'i1', click: 'c1', conversion: null })]);
    await q.stop();
  });

  it('reads a name the three streams share only qualified', async () => {
    const e = (await refusal(topicsJob(THREE.replace('SELECT i.key,', 'SELECT key,'), { topics }))) as { message: string; errorClass?: string };
    expect(e.errorClass).toBe('AMBIGUOUS_REFERENCE');
    expect(e.message).toContain('could be: [`i`.`key`, `c`.`key`, `v`.`key`]');
  });
});

/**
 * USING (k, …) of two streams, as Spark: ON a.k = b.k AND …, and the output has each USING column
 * once (the left's; a right join's the right's; a full join's coalesce(a.k, b.k)), then the left's
 * other columns, then the right's; a.k and b.k stay readable qualified.
 */
describe('stream-stream joins USING (…)', () => {
  const OWN = {
    impressions: [{ name: 'key', type: 'string' }, { name: 'impressionTime', type: 'timestamp' }, { name: 'campaign', type: 'string' }],
    clicks: [{ name: 'clickTime', type: 'timestamp' }, { name: 'key', type: 'string' }, { name: 'device', type: 'string' }],
  };
  const imp2 = (key: string, minute: number, campaign: string) => ({ key, impressionTime: T0 + minute * MIN, campaign });
  const click2 = (key: string | null, minute: number, device: string) => ({ clickTime: T0 + minute * MIN, key, device });

  it('inner USING (key) with a time range: the key once, first, then each side\'s other columns, in Spark\'s order', async () => {
    const t = topicsJob('SELECT * FROM impressions JOIN clicks USING (key) WHERE clickTime BETWEEN impressionTime AND impressionTime + INTERVAL 1 HOUR', { columns: OWN });
    let q = t.start();
    t.stream('impressions').addData(imp2('ad1', 0, 'x'), imp2('ad2', 0, 'y'), imp2('ad3', 10, 'z'));
    t.stream('clicks').addData(click2('ad1', 30, 'phone'), click2('ad2', 120, 'tv'), click2(null, 5, 'none'));
    await q.processAllAvailable();
    expect(t.table.rows.map((r) => Object.keys(r))).toEqual([['key', 'impressionTime', 'campaign', 'clickTime', 'device']]);
    expect(t.out()).toEqual([row({ key: 'ad1', impressionTime: T0, campaign: 'x', clickTime: T0 + 30 * MIN, device: 'phone' })]);
    await q.stop();
    q = t.start();
    t.stream('clicks').addData(click2('ad3', 40, 'pc'));
    await q.processAllAvailable();
    expect(t.out()).toEqual([
      row({ key: 'ad1', impressionTime: T0, campaign: 'x', clickTime: T0 + 30 * MIN, device: 'phone' }),
      row({ key: 'ad3', impressionTime: T0 + 10 * MIN, campaign: 'z', clickTime: T0 + 40 * MIN, device: 'pc' }),
    ].sort());
    await q.stop();
  });

  it('NATURAL JOIN: USING the columns both streams have (Spark\'s ResolveNaturalAndUsingJoin)', async () => {
    const t = topicsJob('SELECT * FROM impressions NATURAL JOIN clicks WHERE clickTime BETWEEN impressionTime AND impressionTime + INTERVAL 1 HOUR', { columns: OWN });
    const q = t.start();
    t.stream('impressions').addData(imp2('ad1', 0, 'x'), imp2('ad2', 0, 'y'));
    t.stream('clicks').addData(click2('ad1', 30, 'phone'), click2('ad2', 120, 'tv'));
    await q.processAllAvailable();
    expect(t.table.rows.map((r) => Object.keys(r))).toEqual([['key', 'impressionTime', 'campaign', 'clickTime', 'device']]);
    expect(t.out()).toEqual([row({ key: 'ad1', impressionTime: T0, campaign: 'x', clickTime: T0 + 30 * MIN, device: 'phone' })]);
    await q.stop();
  });

  it('inner USING (key) with its time range in WHERE: the range joins the condition, so the watermark evicts', async () => {
    const t = topicsJob('SELECT * FROM impressions JOIN clicks USING (key) WHERE clickTime BETWEEN impressionTime AND impressionTime + INTERVAL 1 HOUR', { columns: OWN });
    const q = t.start();
    t.stream('impressions').addData(imp2('ad1', 0, 'x'), imp2('ad2', 0, 'y'));
    t.stream('clicks').addData(click2('ad1', 30, 'phone'));
    await q.processAllAvailable();
    // Far later rows on both streams move the watermark past every buffered row's range.
    t.stream('impressions').addData(imp2('ad9', 600, 'late'));
    t.stream('clicks').addData(click2('ad9', 601, 'late'));
    await q.processAllAvailable();
    await q.processAllAvailable();
    const removed = t.progress.reduce((n, p) => n + p.stateOperators[0].numRowsRemoved, 0);
    expect(removed).toBeGreaterThanOrEqual(3);
    expect(t.out().map((r) => JSON.parse(r).key).sort()).toEqual(['ad1', 'ad9']);
    await q.stop();
  });

  it('of Kafka-shaped topics: the unqualified key is the USING column, i.key and c.key stay readable', async () => {
    const t = topicsJob('SELECT key, i.key AS ik, c.key AS ck, i.value AS impression, c.value AS click FROM impressions i JOIN clicks c USING (key) ' +
      'WHERE c.timestamp BETWEEN i.timestamp AND i.timestamp + INTERVAL 1 HOUR');
    const q = t.start();
    t.stream('impressions').addData(rec('ad1', 'i1', 0), rec('ad2', 'i2', 0));
    t.stream('clicks').addData(rec('ad1', 'c1', 30), rec('ad2', 'c2', 120));
    await q.processAllAvailable();
    expect(t.table.rows).toEqual([{ key: 'ad1', ik: 'ad1', ck: 'ad1', impression: 'i1', click: 'c1' }]);
    await q.stop();
  });

  it('a.* and b.* keep each side\'s own key column', async () => {
    const t = topicsJob('SELECT c.*, i.campaign FROM impressions i JOIN clicks c USING (key)', { columns: OWN });
    const q = t.start();
    t.stream('impressions').addData(imp2('ad1', 0, 'x'));
    t.stream('clicks').addData(click2('ad1', 5, 'phone'));
    await q.processAllAvailable();
    expect(t.table.rows).toEqual([{ clickTime: T0 + 5 * MIN, key: 'ad1', device: 'phone', campaign: 'x' }]);
    await q.stop();
  });

  it('of three streams: the second USING (key) reads the first\'s merged key', async () => {
    const t = topicsJob('SELECT key, i.value AS impression, c.value AS click, v.value AS conversion FROM impressions i JOIN clicks c USING (key) JOIN conversions v USING (key) ' +
      'WHERE c.timestamp BETWEEN i.timestamp AND i.timestamp + INTERVAL 1 HOUR', { topics: ['impressions', 'clicks', 'conversions'] });
    const q = t.start();
    t.stream('impressions').addData(rec('a', 'i1', 0), rec('b', 'i2', 0));
    t.stream('clicks').addData(rec('a', 'c1', 10), rec('b', 'c2', 10));
    t.stream('conversions').addData(rec('a', 'v1', 20), rec('z', 'v9', 20));
    await q.processAllAvailable();
    expect(t.table.rows).toEqual([{ key: 'a', impression: 'i1', click: 'c1', conversion: 'v1' }]);
    await q.stop();
  });

  it('a self-join USING (key, value) pairs rows of one key and value', async () => {
    const t = topicsJob('SELECT key, value, a.timestamp AS first, b.timestamp AS second FROM events a JOIN events b USING (key, value) WHERE b.timestamp > a.timestamp', { self: true });
    const q = t.start();
    t.stream('events').addData(rec('k', 'x', 0), rec('k', 'x', 5), rec('k', 'y', 6));
    await q.processAllAvailable();
    expect(t.table.rows).toEqual([{ key: 'k', value: 'x', first: T0, second: T0 + 5 * MIN }]);
    await q.stop();
  });

  it('left outer USING (key): Spark refuses it, as it has no time range (USING takes no other condition)', async () => {
    const e = (await refusal(topicsJob('SELECT * FROM impressions LEFT JOIN clicks USING (key)', { columns: OWN }))) as Error;
    expect(e?.message).toContain('Stream-stream LeftOuter join between two streaming DataFrame/Datasets is not supported without a watermark in the join keys');
  });

  it.each([
    ['the left side', 'SELECT * FROM impressions JOIN clicks USING (device)', 'USING column `device` cannot be resolved on the left side of the join. The left-side columns: [`key`, `impressionTime`, `campaign`]'],
    ['the right side', 'SELECT * FROM impressions JOIN clicks USING (key, campaign)', 'USING column `campaign` cannot be resolved on the right side of the join. The right-side columns: [`clickTime`, `key`, `device`]'],
  ])('refuses a USING column %s lacks, as Spark', async (_name, sql, message) => {
    const e = (await refusal(topicsJob(sql, { columns: OWN }))) as { message: string; errorClass?: string };
    expect(e?.message).toContain(message);
    expect(e.errorClass).toBe('UNRESOLVED_USING_COLUMN_FOR_JOIN');
  });
});

describe('aggregations per stream feeding a join (a chain, as Spark 3.5+ allows)', () => {
  const perWindow = (source: 'impressions' | 'clicks', time: string) =>
    `(SELECT window(${time}, '10 minutes') AS w, count(*) AS n FROM ${source} GROUP BY window(${time}, '10 minutes'))`;
  const window = (startMinute: number) => ({ start: T0 + startMinute * MIN, end: T0 + (startMinute + 10) * MIN });

  it('joins each window\'s impression and click counts once both aggregations release it, across a restart, then evicts it', async () => {
    const t = adsJob(`SELECT a.w, a.n AS impressions, b.n AS clicks FROM ${perWindow('impressions', 'impressionTime')} a JOIN ${perWindow('clicks', 'clickTime')} b ON a.w = b.w`);
    let q = t.start();
    t.impressions.addData(imp(1, 1), imp(2, 2));
    t.clicks.addData(click(1, 3));
    await q.processAllAvailable();
    expect(t.table.rows).toEqual([]);
    await q.stop();
    // The counts so far are in each aggregation's state, inside the join's sides.
    q = t.start();
    t.impressions.addData(imp(3, 4));
    await q.processAllAvailable();
    // Both streams move five hours on: the watermark (min of 5h − 2h, 5h − 3h) passes window [0, 10).
    t.impressions.addData(imp(9, 300));
    t.clicks.addData(click(9, 300));
    await q.processAllAvailable();
    expect(t.out()).toEqual([row({ w: window(0), impressions: 3, clicks: 1 })]);
    const last = t.progress.at(-1)!;
    const join = last.stateOperators.find((s) => s.operatorName === 'symmetricHashJoin')!;
    // The joined window left the join's state in the batch that released it; windows [300, 310) wait in the aggregations.
    expect(join.numRowsTotal).toBe(0);
    expect(last.stateOperators.filter((s) => s.operatorName === 'stateStoreSave').map((s) => s.numRowsTotal)).toEqual([1, 1]);
    await q.stop();
  });

  it('a LEFT JOIN pads a window with impressions and no clicks when the watermark passes it', async () => {
    const t = adsJob(`SELECT a.w, a.n AS impressions, b.n AS clicks FROM ${perWindow('impressions', 'impressionTime')} a LEFT JOIN ${perWindow('clicks', 'clickTime')} b ON a.w = b.w`);
    const q = t.start();
    t.impressions.addData(imp(1, 1), imp(2, 15));
    t.clicks.addData(click(1, 3));
    await q.processAllAvailable();
    t.impressions.addData(imp(9, 300));
    t.clicks.addData(click(9, 300));
    await q.processAllAvailable();
    expect(t.out()).toEqual([
      row({ w: window(0), impressions: 1, clicks: 1 }),
      row({ w: window(10), impressions: 1, clicks: null }),
    ].sort());
    await q.stop();
  });

  it('a raw stream keyed by window(…) joins the other stream\'s windowed count: the window is an event time, so the join\'s state key watermark evicts both sides', async () => {
    const t = adsJob(`SELECT c.w, c.clickAdId, a.n AS impressions FROM (SELECT window(clickTime, '10 minutes') AS w, clickAdId FROM clicks) c
      JOIN ${perWindow('impressions', 'impressionTime')} a ON c.w = a.w`);
    let q = t.start();
    t.impressions.addData(imp(1, 1), imp(2, 2), imp(3, 12));
    t.clicks.addData(click(1, 3), click(2, 4), click(3, 15));
    await q.processAllAvailable();
    expect(t.table.rows).toEqual([]);
    await q.stop();
    // The clicks wait in the join's state, the counts in the aggregation's, across a restart.
    q = t.start();
    t.impressions.addData(imp(9, 300));
    t.clicks.addData(click(9, 300));
    await q.processAllAvailable();
    expect(t.out()).toEqual([
      row({ w: window(0), clickAdId: 1, impressions: 2 }),
      row({ w: window(0), clickAdId: 2, impressions: 2 }),
      row({ w: window(10), clickAdId: 3, impressions: 1 }),
    ].sort());
    const last = t.progress.at(-1)!;
    // Only the clicks of window [300, 310) are still buffered: the watermark passed the others' window end.
    expect(last.stateOperators.find((s) => s.operatorName === 'symmetricHashJoin')!.numRowsTotal).toBe(1);
    await q.stop();
  });

  it('a subquery over one stream is a side of the join: its WHERE applies before the join', async () => {
    const t = adsJob(`SELECT i.adId, c.clickTime FROM (SELECT adId, impressionTime FROM impressions WHERE adId <> 2) i JOIN clicks c
      ON c.clickAdId = i.adId AND c.clickTime >= i.impressionTime AND c.clickTime <= i.impressionTime + INTERVAL 1 HOUR`);
    const q = t.start();
    t.impressions.addData(imp(1, 0), imp(2, 0));
    t.clicks.addData(click(1, 5), click(2, 5));
    await q.processAllAvailable();
    expect(t.out()).toEqual([row({ adId: 1, clickTime: T0 + 5 * MIN })]);
    await q.stop();
  });

  it.each([
    // Spark checks the join before its global watermark limit.
    ['in Update mode', `SELECT a.w, a.n, b.n AS m FROM ${perWindow('impressions', 'impressionTime')} a JOIN ${perWindow('clicks', 'clickTime')} b ON a.w = b.w`, { outputMode: 'update' }, 'Join between two streaming DataFrames/Datasets is not supported in Update output mode, only in Append output mode'],
    ['an aggregation over an aggregation in Update mode', `SELECT count(*) AS k FROM ${perWindow('impressions', 'impressionTime')} a GROUP BY a.w`, { outputMode: 'update' }, "Detected pattern of possible 'correctness' issue due to global watermark"],
    ['a subquery side without an alias', `SELECT adId FROM (SELECT adId, impressionTime FROM impressions) JOIN clicks ON clickAdId = adId`, {}, 'A subquery joined with a stream needs an alias'],
  ])('refuses %s, before the first batch', async (_name, sql, extra, message) => {
    const e = (await refusal(adsJob(sql, extra))) as { message: string } | undefined;
    expect(e?.message).toContain(message);
  });
});

describe('a join of streams on columns named like niladic functions, then a static table', () => {
  /**
   * Views (user, vt) and buys (buyer, `buyExtra`…, bt) within 10 minutes, with a static table of
   * teams (member, team): the query over a batch of each, its sink's rows and the spec.
   */
  async function viewsAndBuys(tag: string, buyExtra: { name: string; type: string }[], sql: string, views: Row[], buys: Row[]) {
    const id = `ssjoin-${tag}-${process.pid}`;
    const dir = await mkdtemp(path.join(tmpdir(), `weir-ssjoin-${tag}-`));
    await writeFile(path.join(dir, 'teams.json'), '{"member":"ann","team":"red"}\n{"member":"bob","team":"blue"}\n');
    const spec = {
      name: id,
      sources: [
        { name: 'views', type: 'memory', options: { stream: `${id}-v` }, schema: [{ name: 'user', type: 'string' }, { name: 'vt', type: 'timestamp' }], eventTime: 'vt', watermarkDelay: '1 minute' },
        { name: 'buys', type: 'memory', options: { stream: `${id}-b` }, schema: [{ name: 'buyer', type: 'string' }, ...buyExtra, { name: 'bt', type: 'timestamp' }], eventTime: 'bt', watermarkDelay: '1 minute' },
      ],
      staticTables: [{ name: 'teams', path: path.join(dir, 'teams.json'), format: 'json', schema: [{ name: 'member', type: 'string' }, { name: 'team', type: 'string' }] }],
      sql,
      sink: { type: 'memory', options: { table: id } },
      trigger: { type: 'available-now' },
      checkpointLocation: `memory://${id}`,
    };
    expect(validateJob(spec).errors).toEqual([]);
    MemoryStream.named(`${id}-v`).addData(...views);
    MemoryStream.named(`${id}-b`).addData(...buys);
    const q = new MicroBatchExecution({ spec: mustParse(spec), checkpoint: new InMemoryCheckpointFileManager(), clock: new ManualClock(T0) });
    try {
      await q.processAllAvailable();
      await q.stop();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return { rows: MemorySinkTable.named(id).rows, spec };
  }
  const VIEWS = [{ user: 'ann', vt: T0 }, { user: 'bob', vt: T0 }, { user: 'cid', vt: T0 }];

  it('reads v.user as the column, not current_user(), where one stream has it, and joins the pairs with a dimension table', async () => {
    const { rows } = await viewsAndBuys('user', [], 'SELECT v.user, t.team FROM views v JOIN buys b ON v.user = b.buyer AND b.bt BETWEEN v.vt AND v.vt + INTERVAL 10 MINUTES JOIN teams t ON v.user = t.member',
      VIEWS, [{ buyer: 'ann', bt: T0 + MIN }, { buyer: 'cid', bt: T0 + MIN }, { buyer: 'weir', bt: T0 + MIN }]);
    expect(rows).toEqual([{ user: 'ann', team: 'red' }]);
  });

  it('joins a stream-static join with a stream (the table first), a name both sides have read by its table', async () => {
    const join = 'FROM views v JOIN teams t ON v.user = t.member JOIN buys b ON v.user = b.buyer AND b.bt BETWEEN v.vt AND v.vt + INTERVAL 10 MINUTES';
    const { rows, spec } = await viewsAndBuys('team', [{ name: 'team', type: 'string' }], `SELECT v.user, t.team AS view_team, b.team AS buy_team ${join}`,
      VIEWS, [{ buyer: 'ann', team: 'green', bt: T0 + MIN }, { buyer: 'cid', team: 'red', bt: T0 + MIN }, { buyer: 'bob', team: 'blue', bt: T0 + 30 * MIN }]);
    expect(validateJob({ ...spec, sql: `SELECT team ${join}` }).errors.map((e) => e.message).join('\n')).toContain('Reference `team` is ambiguous');
    expect(rows).toEqual([{ user: 'ann', view_team: 'red', buy_team: 'green' }]);
  });

  it('joins two stream-static joins in brackets: an alias names its columns, as a subquery\'s; unaliased, its tables do', async () => {
    const sql = 'SELECT x.user, x.team, y.bt FROM (views v JOIN teams t ON v.user = t.member) x ' +
      'JOIN (buys b LEFT JOIN teams u ON b.buyer = u.member) y ON x.user = y.buyer AND y.bt BETWEEN x.vt AND x.vt + INTERVAL 10 MINUTES';
    const { rows, spec } = await viewsAndBuys('brackets', [], sql, VIEWS, [{ buyer: 'ann', bt: T0 + MIN }, { buyer: 'cid', bt: T0 + MIN }, { buyer: 'bob', bt: T0 + 30 * MIN }]);
    expect(rows).toEqual([{ user: 'ann', team: 'red', bt: T0 + MIN }]);
    // Unaliased, the brackets' tables keep their names; the table both sides join is read by its aliases.
    const open = await viewsAndBuys('brackets-open', [], 'SELECT v.user, t.team, u.team AS buy_team FROM (views v JOIN teams t ON v.user = t.member) ' +
      'JOIN (buys b JOIN teams u ON b.buyer = u.member) ON v.user = b.buyer AND b.bt BETWEEN v.vt AND v.vt + INTERVAL 10 MINUTES',
    VIEWS, [{ buyer: 'ann', bt: T0 + MIN }, { buyer: 'bob', bt: T0 + 30 * MIN }]);
    expect(open.rows).toEqual([{ user: 'ann', team: 'red', buy_team: 'red' }]);
    // Inside the brackets the tables' names are out of scope, as in Spark.
    expect(validateJob({ ...spec, sql: sql.replace('x.team', 't.team') }).errors.map((e) => e.message).join('\n')).toMatch(/t\.team|`t`/);
  });
});

describe('a join whose waiting side is bounded by a range but has no watermark of its own', () => {
  // Spark's checker accepts it (the range is read over any column of that side), and its
  // getStateWatermarkPredicates evicts only a side whose input has a watermark: that side's rows
  // stay in state, and an outer join never pads them.
  const INT = { type: 'long', integral: 32 };
  const side = (p: string, watermark: boolean): SparkSource => ({ schema: [{ name: `${p}k`, ...INT }, { name: `${p}t`, type: 'timestamp' }], ...(watermark ? { eventTime: `${p}t`, watermarkDelay: '0 seconds' } : {}) });
  const rows = (p: string, ...kt: [number, number][]) => kt.map(([k, t]) => ({ [`${p}k`]: k, [`${p}t`]: t * 1000 }));
  const stateRows = (t: ReturnType<typeof sparkStreams>) => t.progress.at(-1)!.stateOperators[0].numRowsTotal;

  it('a left outer join keeps its unwatermarked left rows and pads none of them', async () => {
    const t = sparkStreams({
      sources: { p: side('p', false), w: side('w', true) },
      sql: 'SELECT pk, CAST(pt AS INT) AS a, wk, CAST(wt AS INT) AS b FROM p LEFT JOIN w ON pk = wk AND pt > wt + INTERVAL 10 SECONDS',
    });
    await t.run(
      MultiAddData({ p: rows('p', [1, 30], [2, 5]), w: rows('w', [1, 15]) }),
      CheckNewAnswer([1, 30, 1, 15]),
      // The watermark goes to 100 s: (2, 5) can match no row to come, yet stays, unpadded.
      MultiAddData({ w: rows('w', [3, 100]) }),
      CheckNewAnswer(),
      (s) => expect(stateRows(s)).toBe(4),
    );
  });

  it('a full outer join bounded on one side pads that side only', async () => {
    const t = sparkStreams({
      sources: { w: side('w', true), x: side('x', true) },
      sql: 'SELECT wk, CAST(wt AS INT) AS a, xk, CAST(xt AS INT) AS b FROM w FULL OUTER JOIN x ON wk = xk AND wt > xt + INTERVAL 10 SECONDS',
    });
    await t.run(
      MultiAddData({ w: rows('w', [1, 30], [9, 40]), x: rows('x', [1, 15], [3, 4]) }),
      CheckNewAnswer([1, 30, 1, 15]),
      // Watermark 100: the left rows (bounded by wt > xt + 10) go, (9, 40) padded; the right
      // rows, which nothing bounds, stay: (3, 4) is never padded.
      MultiAddData({ w: rows('w', [5, 100]), x: rows('x', [5, 100]) }),
      CheckNewAnswer([9, 40, null, null], [5, 100, null, null]),
      (s) => expect(stateRows(s)).toBe(3),
    );
  });
});

