/**
 * `weir checkpoint repartition`: a query run at parallelism 2, stopped, its state moved into 3
 * (or 1) partitions and restarted with that parallelism gives, batch after batch, what an
 * unbroken parallelism-1 run gives, on both state store providers; and the refusals.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CommitLog } from '../checkpoint/commit-log';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { OffsetSeqLog } from '../checkpoint/offset-seq-log';
import { ManualClock } from '../clock';
import { IncompatibleQueryChangeError } from '../errors';
import { MemoryStream } from '../sources/memory-source';
import type { Row } from '../types';
import { MicroBatchExecution } from './micro-batch-execution';
import { REPARTITIONED_FROM_CONF, SHUFFLE_PARTITIONS_CONF } from './populate-start-offsets';
import { repartitionState, RepartitionRefusedError } from './state-repartition';
import { BatchCapture } from './testing/stream-test';
import { mustParse } from './testing/test-fixtures';

const MIN = 60_000;
const T0 = Date.UTC(2026, 0, 1);


interface Query {
  sql: string;
  outputMode: 'append' | 'update' | 'complete';
  dedup?: { keys: string[] };
  join?: boolean;
}

const QUERIES: Record<string, Query> = {
  'grouped aggregation': { sql: 'SELECT k, count(*) AS c, sum(v) AS s FROM events GROUP BY k', outputMode: 'update' },
  'sliding windows': { sql: "SELECT window(ts, '10 minutes', '5 minutes') AS w, k, count(*) AS c FROM events GROUP BY window(ts, '10 minutes', '5 minutes'), k", outputMode: 'append' },
  'deduplication under a global aggregate': { sql: 'SELECT count(*) AS c FROM events', outputMode: 'complete', dedup: { keys: ['k', 'v'] } },
  'stream-stream full outer join': {
    sql: 'SELECT * FROM lefts FULL OUTER JOIN rights ON rk = k AND rts >= ts - INTERVAL 10 MINUTES AND rts <= ts + INTERVAL 10 MINUTES',
    outputMode: 'append', join: true,
  },
};

/** Six batches of rows, the same every run. */
function batches(): Row[][] {
  let seed = 7;
  const next = (m: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) % m;
  let id = 0;
  return Array.from({ length: 6 }, (_, b) => Array.from({ length: 15 }, () => ({
    id: id++, k: ['a', 'b', 'c', 'd', 'e', 'f', 'g', null][next(8)], v: next(6), ts: T0 + (b * 8 + next(20)) * MIN,
  })));
}

const locals: string[] = [];
afterAll(async () => {
  for (const d of locals) await rm(d, { recursive: true, force: true });
});

let n = 0;

/** Runs 3 batches at `before`, stops, optionally repartitions to `after`, and runs 3 more at `after`. */
async function runAround(q: Query, provider: 'hdfs' | 'lmdb', before: number, after: number, repartition: boolean) {
  const id = `repartition-${++n}-${process.pid}`;
  const source = (name: string, prefix: string) => ({
    name, type: 'memory', options: { stream: `${id}-${name}` },
    schema: [{ name: `${prefix}id`, type: 'long' }, { name: `${prefix}k`, type: 'string' }, { name: `${prefix}v`, type: 'long' }, { name: `${prefix}ts`, type: 'timestamp' }],
    eventTime: `${prefix}ts`, watermarkDelay: '5 minutes',
  });
  const spec = (parallelism: number) => mustParse({
    name: id,
    ...(q.join ? { sources: [source('lefts', ''), source('rights', 'r')] } : { source: source('events', '') }),
    sql: q.sql,
    sink: { type: 'memory', options: { table: id } },
    outputMode: q.outputMode,
    trigger: { type: 'available-now' },
    checkpointLocation: `memory://${id}`,
    parallelism,
    stateStore: { provider },
    ...(q.dedup ? { dedup: q.dedup } : {}),
  });
  const add = (rows: Row[]) => {
    if (!q.join) return void MemoryStream.named(`${id}-events`).addRows(rows);
    MemoryStream.named(`${id}-lefts`).addRows(rows.filter((r) => (r.v as number) % 2 === 0));
    MemoryStream.named(`${id}-rights`).addRows(rows.filter((r) => (r.v as number) % 2 === 1).map((r) => ({ rid: r.id, rk: r.k, rv: r.v, rts: r.ts })));
  };
  const checkpoint = new InMemoryCheckpointFileManager();
  const clock = new ManualClock(T0);
  const sink = new BatchCapture();
  const stateLocalDir = await mkdtemp(path.join(tmpdir(), 'weir-repartition-'));
  locals.push(stateLocalDir);
  const all = batches();
  const phase = async (parallelism: number, rows: Row[][]) => {
    const query = new MicroBatchExecution({ spec: spec(parallelism), checkpoint, clock, sink, stateLocalDir });
    for (const b of rows) {
      add(b);
      clock.advance(1000);
      await query.processAllAvailable();
    }
    await query.stop();
  };
  await phase(before, all.slice(0, 3));
  const moved = repartition ? await repartitionState(checkpoint, after) : undefined;
  await phase(after, all.slice(3));
  return { outputs: sink.outputs(), moved, checkpoint };
}

describe('a repartitioned checkpoint gives the output of an unbroken parallelism-1 run', () => {
  for (const provider of ['hdfs', 'lmdb'] as const) {
    for (const [name, q] of Object.entries(QUERIES)) {
      it(`${name} (${provider}), 2 → 3 and 2 → 1 partitions`, async () => {
        const unbroken = await runAround(q, provider, 1, 1, false);
        expect(unbroken.outputs.flat().length).toBeGreaterThan(0);
        for (const to of [3, 1]) {
          const r = await runAround(q, provider, 2, to, true);
          expect(r.moved).toMatchObject({ from: 2, to });
          expect(r.outputs).toEqual(unbroken.outputs);
          const seq = await new OffsetSeqLog(r.checkpoint).get(r.moved!.batchId!);
          expect(seq!.metadata.conf).toMatchObject({ [SHUFFLE_PARTITIONS_CONF]: String(to), [REPARTITIONED_FROM_CONF]: '2' });
          expect((await new OffsetSeqLog(r.checkpoint).getLatest())!.value.metadata.conf[SHUFFLE_PARTITIONS_CONF]).toBe(String(to));
        }
      });
    }
  }

  it('moves every row once, and leaves the partitions past the new count without files', async () => {
    const r = await runAround(QUERIES['grouped aggregation'], 'hdfs', 2, 1, true);
    const op = r.moved!.operators[0];
    expect(op).toMatchObject({ operatorId: 0, partitioned: true });
    expect(op.rows).toBe(8); // keys a..g and null
    expect(await r.checkpoint.list('state/0/1')).toEqual([]);
  });
});

describe('refusals', () => {
  async function counted(parallelism = 2) {
    const checkpoint = new InMemoryCheckpointFileManager();
    const id = `repartition-refusal-${++n}-${process.pid}`;
    MemoryStream.named(id).addRows([{ k: 'a' }, { k: 'b' }]);
    const spec = mustParse({
      name: id,
      source: { name: 'events', type: 'memory', options: { stream: id }, schema: [{ name: 'k', type: 'string' }] },
      sql: 'SELECT k, count(*) AS c FROM events GROUP BY k',
      sink: { type: 'memory', options: { table: id } },
      outputMode: 'complete',
      trigger: { type: 'available-now' },
      checkpointLocation: `memory://${id}`,
      parallelism,
    });
    const q = new MicroBatchExecution({ spec, checkpoint, clock: new ManualClock(T0) });
    await q.processAllAvailable();
    await q.stop();
    return { checkpoint, spec, id };
  }

  it('refuses a partition count that is not a positive whole number', async () => {
    const { checkpoint } = await counted();
    for (const bad of [0, -1, 1.5, 65, Number.NaN]) await expect(repartitionState(checkpoint, bad)).rejects.toThrow(RepartitionRefusedError);
  });

  it('refuses a checkpoint with an uncommitted batch, and one no query ran on', async () => {
    const { checkpoint } = await counted();
    await new CommitLog(checkpoint).remove(0);
    await expect(repartitionState(checkpoint, 3)).rejects.toThrow(/batch 0 of .* is not committed \(offsets\/0 without commits\/0\)/);
    await expect(repartitionState(new InMemoryCheckpointFileManager(), 3)).rejects.toThrow(/no offsets\//);
  });

  it('refuses when another run claims the batch first', async () => {
    const { checkpoint } = await counted();
    const real = checkpoint.createAtomic.bind(checkpoint);
    // Another runner writes offsets/1 between this command's read and its write.
    checkpoint.createAtomic = async (p, data, opts) => {
      if (p === 'offsets/1' && !(await checkpoint.exists(p))) await real(p, 'v1\n{"batchWatermarkMs":0,"batchTimestampMs":0,"conf":{}}\n', { overwrite: false });
      return real(p, data, opts);
    };
    await expect(repartitionState(checkpoint, 3)).rejects.toThrow(/another run wrote offsets\/1 .* stop the job/);
  });

  it('an interrupted repartition is refused by a start and finished by running it again', async () => {
    const { checkpoint, spec, id } = await counted();
    const real = checkpoint.createAtomic.bind(checkpoint);
    checkpoint.createAtomic = async (p, data, opts) => {
      if (p.startsWith('state/0/2/')) throw new Error('killed');
      return real(p, data, opts);
    };
    await expect(repartitionState(checkpoint, 3)).rejects.toThrow('killed');
    checkpoint.createAtomic = real;
    const restart = () => new MicroBatchExecution({ spec: { ...spec, parallelism: 3 }, checkpoint, clock: new ManualClock(T0) });
    await expect(restart().processAllAvailable()).rejects.toThrow(IncompatibleQueryChangeError);
    await expect(restart().processAllAvailable()).rejects.toThrow(/interrupted `weir checkpoint repartition` from 2 partitions.*--to 3/);
    await expect(repartitionState(checkpoint, 4)).rejects.toThrow(/finish it first with --to 3/);
    await expect(repartitionState(checkpoint, 3)).resolves.toMatchObject({ batchId: 1, from: 2, to: 3 });
    MemoryStream.named(id).addRows([{ k: 'a' }, { k: 'c' }]);
    const q = restart();
    await q.processAllAvailable();
    await q.stop();
    const { MemorySinkTable } = await import('../sinks/memory-sink');
    expect(Object.fromEntries(MemorySinkTable.named(id).rows.map((r) => [r.k, r.c]))).toEqual({ a: 2, b: 1, c: 1 });
  });

  it('refuses a checkpoint whose state files are missing or damaged, before writing anything', async () => {
    const { checkpoint } = await counted();
    await checkpoint.delete('state/0/1/1.delta');
    await expect(repartitionState(checkpoint, 3)).rejects.toThrow(/state\/0\/1\/1\.delta is missing/);
    expect(await new OffsetSeqLog(checkpoint).batchIds()).toEqual([0]);
  });

  it('refuses an operator it does not know, before writing anything', async () => {
    const { checkpoint } = await counted();
    const schema = JSON.parse((await checkpoint.read('state/0/_metadata/schema')).toString('utf8')) as Record<string, unknown>;
    await checkpoint.createAtomic('state/0/_metadata/schema', JSON.stringify({ ...schema, operatorName: 'flatMapGroupsWithState' }), { overwrite: true });
    await expect(repartitionState(checkpoint, 3)).rejects.toThrow(/operator 0 \(flatMapGroupsWithState\) keeps state this command cannot move/);
    expect(await new OffsetSeqLog(checkpoint).batchIds()).toEqual([0]);
  });
});
