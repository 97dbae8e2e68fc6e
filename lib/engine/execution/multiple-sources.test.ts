/**
 * Queries over several streams, through the engine, with Spark's per-batch answers: UNION ALL of
 * two streams (StreamSuite "union two streams"), an aggregation over the union, offsets/N with
 * one line per source, restart from each source's own offset, the refusals of a changed source
 * list, multiple watermarks with Spark's MultipleWatermarkPolicy (EventTimeWatermarkSuite
 * "watermark with 2 streams"), progress per source, and a crash at every point of the protocol.
 */
import { describe, expect, it } from 'vitest';
import { CommitLog } from '../checkpoint/commit-log';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { OffsetSeqLog } from '../checkpoint/offset-seq-log';
import { ManualClock } from '../clock';
import { sourcesContract } from '../contract';
import { CrashPointError, IncompatibleQueryChangeError } from '../errors';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import { validateJob } from '../spec/validate-job';
import type { StreamingQueryProgress } from '../progress';
import type { Row } from '../types';
import { CRASH_POINTS } from './crash-points';
import { MicroBatchExecution } from './micro-batch-execution';
import { mustParse } from './testing/test-fixtures';

const SCHEMA = [
  { name: 'value', type: 'long' },
  { name: 'ts', type: 'timestamp' },
];

let n = 0;
function twoStreams(extra: Record<string, unknown> = {}, sources?: (ids: [string, string]) => unknown[]) {
  const id = `multi-${++n}-${process.pid}`;
  const ids: [string, string] = [`${id}-a`, `${id}-b`];
  const spec = {
    name: id,
    sources: sources?.(ids) ?? [
      { name: 'first', type: 'memory', options: { stream: ids[0] }, schema: SCHEMA },
      { name: 'second', type: 'memory', options: { stream: ids[1] }, schema: SCHEMA },
    ],
    sql: 'SELECT value FROM first UNION ALL SELECT value FROM second',
    sink: { type: 'memory', options: { table: id } },
    trigger: { type: 'available-now' },
    checkpointLocation: `memory://${id}`,
    ...extra,
  };
  const first = MemoryStream.named(ids[0]);
  const second = MemoryStream.named(ids[1]);
  const table = MemorySinkTable.named(id);
  const checkpoint = new InMemoryCheckpointFileManager();
  const clock = new ManualClock(1_700_000_000_000);
  const progress: StreamingQueryProgress[] = [];
  const start = (s: unknown = spec, opts: { crash?: ConstructorParameters<typeof MicroBatchExecution>[0]['crash'] } = {}) =>
    new MicroBatchExecution({ spec: mustParse(s), checkpoint, clock, onProgress: (p) => void progress.push(p), ...opts });
  const values = () => table.rows.map((r) => Number(r.value)).sort((a, b) => a - b);
  const rows = (...vs: number[]): Row[] => vs.map((v) => ({ value: v, ts: v * 1000 }));
  return { spec, first, second, table, checkpoint, clock, progress, start, values, rows };
}

describe('UNION ALL of two streams (StreamSuite "union two streams")', () => {
  it('answers per batch as Spark, and resumes each source from its own offset after a restart', async () => {
    const t = twoStreams();
    let q = t.start();
    t.first.addData(...t.rows(1, 3, 5));
    await q.processAllAvailable();
    expect(t.values()).toEqual([1, 3, 5]);
    t.second.addData(...t.rows(2, 4, 6));
    await q.processAllAvailable();
    expect(t.values()).toEqual([1, 2, 3, 4, 5, 6]);
    await q.stop();
    t.first.addData(...t.rows(7));
    q = t.start();
    await q.processAllAvailable();
    t.second.addData(...t.rows(8));
    await q.processAllAvailable();
    expect(t.values()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await q.stop();
  });

  it('writes offsets/N as Spark\'s OffsetSeq: one line per source in order, "-" for a source with no offset yet', async () => {
    const t = twoStreams();
    const q = t.start();
    t.first.addData(...t.rows(1));
    await q.processAllAvailable();
    t.second.addData(...t.rows(2, 3));
    await q.processAllAvailable();
    await q.stop();
    const text0 = new TextDecoder().decode(await t.checkpoint.read('offsets/0'));
    const lines0 = text0.split('\n');
    expect(lines0[0]).toBe('v1');
    expect(lines0).toHaveLength(4);
    expect(lines0[3]).toBe('-');
    const seq1 = (await new OffsetSeqLog(t.checkpoint).get(1))!;
    expect(seq1.offsets).toHaveLength(2);
    expect(seq1.offsets[0]).toEqual(JSON.parse(lines0[2]));
    expect(seq1.offsets[1]).not.toBeNull();
    expect(Object.keys(seq1.metadata.conf)).toEqual(['weir.source', 'weir.source.1', 'weir.statefulOperators', 'spark.sql.streaming.multipleWatermarkPolicy', 'spark.sql.shuffle.partitions']);
    expect(seq1.metadata.conf['spark.sql.streaming.multipleWatermarkPolicy']).toBe('min');
  });

  it('reports each source in progress: offsets, rows, and a lag of its own', async () => {
    const t = twoStreams();
    const q = t.start();
    t.first.addData(...t.rows(1, 2, 3));
    t.second.addData(...t.rows(4));
    await q.processAllAvailable();
    await q.stop();
    const p = t.progress.at(-1)!;
    expect(p.sources.map((s) => s.numInputRows)).toEqual([3, 1]);
    expect(p.numInputRows).toBe(4);
    expect(p.sources[0].description).not.toBe(p.sources[1].description);
    expect(p.sources.every((s) => s.endOffset !== null && 'commitLag' in s)).toBe(true);
  });

  it('aggregates over the union (complete mode), batch by batch', async () => {
    const t = twoStreams({ sql: 'SELECT value % 2 AS parity, count(*) AS n FROM (SELECT value FROM first UNION ALL SELECT value FROM second) GROUP BY value % 2', outputMode: 'complete' });
    const q = t.start();
    t.first.addData(...t.rows(1, 2, 3));
    await q.processAllAvailable();
    t.second.addData(...t.rows(5, 6));
    await q.processAllAvailable();
    await q.stop();
    const last = t.table.batches.at(-1)!.rows.map((r) => [Number(r.parity), Number(r.n)]).sort();
    expect(last).toEqual([[0, 2], [1, 3]]);
  });

  it('UNION (distinct) of two streams is a Distinct over the union: in Update mode each value once per batch it comes in, as Spark\'s aggregation emits every key the batch updates', async () => {
    const t = twoStreams({ sql: 'SELECT value FROM first UNION SELECT value FROM second', outputMode: 'update' });
    const q = t.start();
    t.first.addData(...t.rows(1, 2, 2));
    t.second.addData(...t.rows(2, 3));
    await q.processAllAvailable();
    t.second.addData(...t.rows(1, 4));
    await q.processAllAvailable();
    await q.stop();
    expect(t.table.batches.map((b) => b.rows.map((r) => Number(r.value)).sort())).toEqual([[1, 2, 3], [1, 4]]);
  });

  it('SELECT DISTINCT * over the union is the same', async () => {
    const t = twoStreams({ sql: 'SELECT DISTINCT * FROM (SELECT value FROM first UNION ALL SELECT value FROM second) u', outputMode: 'update' });
    const q = t.start();
    t.first.addData(...t.rows(5, 5));
    t.second.addData(...t.rows(5, 6));
    await q.processAllAvailable();
    await q.stop();
    expect(t.values()).toEqual([5, 6]);
  });
});

describe('UNION ALL branches that aggregate (each its own stateful operator, as in Spark 3.5+)', () => {
  it('emits the aggregation\'s updated groups and the other stream\'s rows, batch by batch, and keeps its state across a restart', async () => {
    const t = twoStreams({
      sql: 'SELECT value % 2 AS k, count(*) AS n FROM first GROUP BY value % 2 UNION ALL SELECT value AS k, value AS n FROM second',
      outputMode: 'update',
    });
    const answer = (i: number) => t.table.batches[i].rows.map((r) => [Number(r.k), Number(r.n)]).sort((a, b) => a[0] - b[0]);
    let q = t.start();
    t.first.addData(...t.rows(1, 2, 3));
    await q.processAllAvailable();
    expect(answer(0)).toEqual([[0, 1], [1, 2]]);
    t.second.addData(...t.rows(10));
    await q.processAllAvailable();
    expect(answer(1)).toEqual([[10, 10]]);
    await q.stop();
    q = t.start();
    t.first.addData(...t.rows(5));
    t.second.addData(...t.rows(11));
    await q.processAllAvailable();
    await q.stop();
    expect(answer(2)).toEqual([[1, 3], [11, 11]]);
    expect(t.progress.at(-1)!.stateOperators).toHaveLength(1);
  });

  // Spark 3.5+'s checker has no rule against several aggregations (3.4's "Multiple streaming
  // aggregations are not supported"): each branch is a stateful operator of its own.
  it('runs two aggregating branches, each its own stateful operator, across a restart', async () => {
    const t = twoStreams({ outputMode: 'update', sql: 'SELECT value % 2 AS k, count(*) AS n FROM first GROUP BY value % 2 UNION ALL SELECT value % 3 AS k, sum(value) AS n FROM second GROUP BY value % 3' });
    const answer = (i: number) => t.table.batches[i].rows.map((r) => [Number(r.k), Number(r.n)]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let q = t.start();
    t.first.addData(...t.rows(1, 2, 3));
    t.second.addData(...t.rows(3, 4));
    await q.processAllAvailable();
    expect(answer(0)).toEqual([[0, 1], [0, 3], [1, 2], [1, 4]]);
    await q.stop();
    q = t.start();
    t.first.addData(...t.rows(5));
    t.second.addData(...t.rows(7));
    await q.processAllAvailable();
    await q.stop();
    expect(answer(1)).toEqual([[1, 3], [1, 11]]);
    expect(t.progress.at(-1)!.stateOperators.map((o) => o.numRowsTotal)).toEqual([2, 2]);
  });

  it('in Append mode each branch emits a window once the global watermark passes it', async () => {
    const sources = (ids: [string, string]) => ids.map((stream, i) => ({ name: ['first', 'second'][i], type: 'memory', options: { stream }, schema: SCHEMA, eventTime: 'ts', watermarkDelay: '0 seconds' }));
    const t = twoStreams({ sql: "SELECT CAST(window.start AS INT) AS s, count(*) AS n FROM first GROUP BY window(ts, '5 seconds') UNION ALL SELECT CAST(window.start AS INT) AS s, sum(value) AS n FROM second GROUP BY window(ts, '5 seconds')" }, sources);
    const q = t.start();
    t.first.addData(...t.rows(1, 2, 3));
    t.second.addData(...t.rows(3, 4));
    await q.processAllAvailable();
    expect(t.table.rows).toEqual([]);
    // The global watermark (min) goes to 11: both [0, 5) windows close.
    t.first.addData(...t.rows(11));
    t.second.addData(...t.rows(12));
    await q.processAllAvailable();
    await q.stop();
    expect(t.table.rows.map((r) => [Number(r.s), Number(r.n)]).sort((a, b) => a[1] - b[1])).toEqual([[0, 3], [0, 7]]);
  });
});

describe('a checkpoint keeps its sources', () => {
  it('refuses another number of sources, with Spark\'s words and what to do', async () => {
    const t = twoStreams();
    const q = t.start();
    t.first.addData(...t.rows(1));
    await q.processAllAvailable();
    await q.stop();
    const one = { ...t.spec, sources: [t.spec.sources[0]], sql: 'SELECT value FROM first' };
    const err = await t.start(one).start().then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(IncompatibleQueryChangeError);
    expect((err as Error).message).toContain('There are [2] sources in the checkpoint offsets and now there are [1] sources requested by the query. Cannot continue.');
    expect((err as Error).message).toContain('new checkpointLocation');
  });

  it('refuses the same sources in another order, saying so', async () => {
    const t = twoStreams();
    const q = t.start();
    t.first.addData(...t.rows(1));
    await q.processAllAvailable();
    await q.stop();
    const swapped = { ...t.spec, sources: [t.spec.sources[1], t.spec.sources[0]] };
    const err = await t.start(swapped).start().then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(IncompatibleQueryChangeError);
    expect((err as Error).message).toContain('another order');
  });
});

describe('multiple watermarks (EventTimeWatermarkSuite "watermark with 2 streams")', () => {
  // first: 10 s delay, second: 5 s, as Spark's test; a batch's watermark is commits/N's.
  const withWatermarks = (policy?: 'min' | 'max') =>
    twoStreams(policy ? { multipleWatermarkPolicy: policy } : {}, (ids) => [
      { name: 'first', type: 'memory', options: { stream: ids[0] }, schema: SCHEMA, eventTime: 'ts', watermarkDelay: '10 seconds' },
      { name: 'second', type: 'memory', options: { stream: ids[1] }, schema: SCHEMA, eventTime: 'ts', watermarkDelay: '5 seconds' },
    ]);
  async function watermarkAfter(t: ReturnType<typeof twoStreams>, q: MicroBatchExecution, first: number[], second: number[]): Promise<number> {
    if (first.length) t.first.addData(...t.rows(...first));
    if (second.length) t.second.addData(...t.rows(...second));
    await q.processAllAvailable();
    return (await new CommitLog(t.checkpoint).getLatest())!.value.nextBatchWatermarkMs;
  }

  it('min (the default): an input without data holds the watermark at 0; then the slower input decides; never back', async () => {
    const t = withWatermarks();
    const q = t.start();
    expect(await watermarkAfter(t, q, [11], [])).toBe(0);
    expect(await watermarkAfter(t, q, [], [10])).toBe(1000);
    expect(await watermarkAfter(t, q, [30], [30])).toBe(20_000);
    // An input's own watermark never moves back either: late data changes nothing.
    expect(await watermarkAfter(t, q, [1], [1])).toBe(20_000);
    await q.stop();
  });

  it('a source the SQL does not read is no input of the watermark: an empty one does not hold it at 0', async () => {
    const t = withWatermarks();
    const q = t.start({ ...t.spec, sql: 'SELECT value, ts FROM first' });
    expect(await watermarkAfter(t, q, [11], [])).toBe(1000);
    expect(await watermarkAfter(t, q, [30], [])).toBe(20_000);
    await q.stop();
  });

  it('reports each source\'s own watermark and the policy in progress, from which the next global one is picked', async () => {
    const t = withWatermarks();
    const q = t.start();
    // first: 11 s − 10 s; second, no data yet: 0 (as the tracker counts it).
    expect(await watermarkAfter(t, q, [11], [])).toBe(0);
    expect(t.progress.at(-1)!.sources.map((s) => s.watermark)).toEqual(['1970-01-01T00:00:01.000Z', '1970-01-01T00:00:00.000Z']);
    expect(await watermarkAfter(t, q, [], [10])).toBe(1000);
    const p = t.progress.at(-1)!;
    expect(p.sources.map((s) => s.watermark)).toEqual(['1970-01-01T00:00:01.000Z', '1970-01-01T00:00:05.000Z']);
    expect(p.multipleWatermarkPolicy).toBe('min');
    await q.stop();
  });

  it('a query of one watermark keeps Spark\'s progress: no watermark per source, no policy', async () => {
    const t = twoStreams({}, (ids) => [
      { name: 'first', type: 'memory', options: { stream: ids[0] }, schema: SCHEMA, eventTime: 'ts', watermarkDelay: '10 seconds' },
      { name: 'second', type: 'memory', options: { stream: ids[1] }, schema: SCHEMA },
    ]);
    const q = t.start();
    t.first.addData(...t.rows(11));
    await q.processAllAvailable();
    await q.stop();
    const p = t.progress.at(-1)!;
    expect(p.sources.map((s) => 'watermark' in s)).toEqual([false, false]);
    expect('multipleWatermarkPolicy' in p).toBe(false);
  });

  it('max: the faster input decides', async () => {
    const t = withWatermarks('max');
    const q = t.start();
    expect(await watermarkAfter(t, q, [11], [])).toBe(1000);
    expect(await watermarkAfter(t, q, [], [10])).toBe(5000);
    expect(await watermarkAfter(t, q, [30], [20])).toBe(20_000);
    await q.stop();
  });

  it('on restart the checkpoint\'s policy wins over the spec\'s, and the global watermark resumes from the checkpoint', async () => {
    const t = withWatermarks('min');
    let q = t.start();
    expect(await watermarkAfter(t, q, [30], [30])).toBe(20_000);
    await q.stop();
    // The spec now says max; the checkpoint says min. Inputs begin anew (Spark keeps them in
    // memory only): first alone at 60 s would make max 50 s, min keeps the second's 0 → 20 s.
    q = t.start({ ...t.spec, multipleWatermarkPolicy: 'max' });
    expect(await watermarkAfter(t, q, [60], [])).toBe(20_000);
    expect(await watermarkAfter(t, q, [], [40])).toBe(35_000);
    await q.stop();
    const latest = (await new OffsetSeqLog(t.checkpoint).getLatest())!;
    expect(latest.value.metadata.conf['spark.sql.streaming.multipleWatermarkPolicy']).toBe('min');
  });

  it('a windowed count over a union of streams whose event times are named apart: the window follows each one (Append)', async () => {
    const t = twoStreams({
      sql: "SELECT window(t, '10 seconds').start AS start, count(*) AS n FROM (SELECT ts AS t FROM first UNION ALL SELECT at AS t FROM second) GROUP BY window(t, '10 seconds')",
    }, (ids) => [
      { name: 'first', type: 'memory', options: { stream: ids[0] }, schema: SCHEMA, eventTime: 'ts', watermarkDelay: '0 seconds' },
      { name: 'second', type: 'memory', options: { stream: ids[1] }, schema: [{ name: 'value', type: 'long' }, { name: 'at', type: 'timestamp' }], eventTime: 'at', watermarkDelay: '0 seconds' },
    ]);
    const q = t.start();
    t.first.addData(...t.rows(1, 2));
    t.second.addData({ value: 3, at: 3000 });
    await q.processAllAvailable();
    t.first.addData(...t.rows(25));
    t.second.addData({ value: 26, at: 26_000 });
    await q.processAllAvailable();
    expect(t.table.rows).toEqual([{ start: 0, n: 3 }]);
    await q.stop();
  });

  it('refuses an invalid policy', () => {
    const t = withWatermarks();
    const r = validateJob({ ...t.spec, multipleWatermarkPolicy: 'median' });
    expect(r.ok).toBe(false);
    expect(r.errors.map((e) => e.path)).toContain('multipleWatermarkPolicy');
  });
});

describe('crash at every point with two sources: every row once', () => {
  it.each(CRASH_POINTS)('crash at %s of batch 1', async (point) => {
    const t = twoStreams();
    let q = t.start();
    t.first.addData(...t.rows(1, 2));
    t.second.addData(...t.rows(3));
    await q.processAllAvailable();
    await q.stop();
    q = t.start(t.spec, { crash: { point, batchId: 1 } });
    t.first.addData(...t.rows(4));
    t.second.addData(...t.rows(5, 6));
    await expect(q.processAllAvailable()).rejects.toBeInstanceOf(CrashPointError);
    await q.stop();
    // Data arriving during the outage goes to a later batch, not into the re-run of batch 1.
    t.first.addData(...t.rows(7));
    q = t.start();
    await q.processAllAvailable();
    await q.stop();
    expect(t.values()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const batch1 = t.table.batches.find((b) => b.batchId === 1)!;
    expect(batch1.rows.map((r) => Number(r.value)).sort()).toEqual([4, 5, 6]);
  });
});

describe('analysis before the first batch (Spark\'s UnsupportedOperationChecker)', () => {
  const spec = (sql: string, extra: Record<string, unknown> = {}) => ({ ...twoStreams().spec, sql, ...extra });
  const firstError = (s: unknown) => validateJob(s).errors[0];

  it('INTERSECT and EXCEPT of streams', () => {
    expect(firstError(spec('SELECT value FROM first INTERSECT SELECT value FROM second'))).toMatchObject({ message: 'Intersect of streaming DataFrames/Datasets is not supported' });
    expect(firstError(spec('SELECT value FROM first EXCEPT SELECT value FROM second'))).toMatchObject({ message: 'Except on a streaming DataFrame/Dataset on the right is not supported' });
    expect(firstError(spec('SELECT value FROM first INTERSECT SELECT value FROM second')).errorClass).toBeDefined();
  });

  it('UNION of a stream with a static table', () => {
    const s = spec('SELECT value FROM first UNION ALL SELECT value FROM dim', {
      staticTables: [{ name: 'dim', path: '/tmp/weir-multi-dim.json', schema: [{ name: 'value', type: 'long' }] }],
    });
    expect(firstError(s)).toMatchObject({ message: 'Union between streaming and batch DataFrames/Datasets is not supported' });
  });

  it('a join of two streams that share column names reads each side qualified (stream-stream-join.test.ts has the joins that run)', () => {
    expect(validateJob(spec('SELECT first.value FROM first JOIN second ON first.value = second.value')).errors).toEqual([]);
    expect(firstError(spec('SELECT value FROM first JOIN second ON first.value = second.value')).message).toMatch(/Reference `value` is ambiguous, could be: \[`first`.`value`, `second`.`value`\]/);
  });

  it('UNION ALL column counts and widening hold across streams; the explain shows both inputs', () => {
    expect(firstError(spec('SELECT value, ts FROM first UNION ALL SELECT value FROM second')).message).toMatch(/same number of columns/);
    const ok = validateJob(spec('SELECT value FROM first UNION ALL SELECT CAST(value AS INT) AS value FROM second'));
    expect(ok.errors).toEqual([]);
    expect(ok.explain).toMatch(/StreamingRelation first/);
    expect(ok.explain).toMatch(/StreamingRelation second/);
  });

  it('the contract names the source that cannot replay', () => {
    const c = sourcesContract([
      { name: 'first', replayable: true, reason: 'offsets in memory' },
      { name: 'hook', replayable: false, reason: 'an HTTP push replays nothing' },
    ]);
    expect(c.replayable).toBe(false);
    expect(c.reason).toContain('source "hook" is not replayable');
  });
});

describe('a sources[] spec validates as a deploy does', () => {
  it('validateJob: ok, the contract over both sources, explain with both inputs, errors by sources.<i> path', () => {
    const t = twoStreams();
    const r = validateJob(t.spec);
    expect(r.errors).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.spec!.sources.map((s) => s.name)).toEqual(['first', 'second']);
    expect(r.contract!.guarantee).toBe('exactly-once');
    const bad = validateJob({ ...t.spec, sources: [t.spec.sources[0], { ...(t.spec.sources[1] as object), watermarkDelay: '5 seconds' }] });
    expect(bad.errors.map((e) => e.path)).toContain('sources.1.watermarkDelay');
    const dup = validateJob({ ...t.spec, sources: [t.spec.sources[0], t.spec.sources[0]] });
    expect(dup.errors.map((e) => e.message).join(' ')).toMatch(/duplicate source name "first"/);
    const both = validateJob({ ...t.spec, source: t.spec.sources[0] });
    expect(both.errors.map((e) => e.message).join(' ')).toMatch(/not both/);
    expect(r.warnings.filter((w) => w.path.startsWith('sources.'))).toEqual([]);
    const unread = validateJob({ ...t.spec, sql: 'SELECT value FROM first' });
    expect(unread.ok).toBe(true);
    expect(unread.warnings.filter((w) => w.path.startsWith('sources.'))).toEqual([{ path: 'sources.1', message: expect.stringMatching(/^source "second" is not read by the SQL/) }]);
  });
});

describe('every source is inside the trust boundaries', () => {
  it('path confinement, outbound checks and canonical options see each of sources[]', async () => {
    const { specPathFields } = await import('../spec/path-roots');
    const { specDestinations } = await import('../outbound/spec-destinations');
    const spec = {
      sources: [
        { name: 'a', type: 'files', options: { path: '/data/a', format: 'json' }, badRecordsPath: '/data/bad-a' },
        { name: 'b', type: 'files', options: { path: '/etc', format: 'json' } },
      ],
      sink: { type: 'memory', options: { table: 't' } },
      checkpointLocation: '/cp',
    };
    expect(specPathFields(spec).map((f) => `${f.field}=${f.value}`)).toEqual([
      'sources.0.options.path=/data/a',
      'sources.0.badRecordsPath=/data/bad-a',
      'sources.1.options.path=/etc',
      'checkpointLocation=/cp',
    ]);
    expect(Array.isArray(specDestinations(spec))).toBe(true);
  });
});
