// A fault-injection property (fast-check, seeded) over the real engine, PostgreSQL source and
// sinks: any schedule of appends and runs, each run possibly crashing at any crash point of the
// first batch it executes (a new batch or the re-run of a pending one), then a clean run.
// - transactional and upsert sinks end with every input row exactly once;
// - the bare-append sink ends with every input row once plus one extra copy of each row of
//   every batch that crashed after its sink write, counted from that batch's recorded range
//   (offsets/N-1, offsets/N]: the duplicates are exactly the replays, nothing else.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import './index'; // registers every connector, as the worker and the CLI do
import fc from 'fast-check';
import { MicroBatchExecution } from '../engine/execution/micro-batch-execution';
import { CRASH_POINTS, type CrashPointName } from '../engine/execution/crash-points';
import { parseJobSpec, type JobSpec } from '../engine/spec/job-spec';
import { OffsetSeqLog } from '../engine/checkpoint/offset-seq-log';
import { CommitLog } from '../engine/checkpoint/commit-log';
import { LocalCheckpointFileManager } from '../engine/checkpoint/local-checkpoint-file-manager';
import { CrashPointError } from '../engine/errors';
import { createTestDatabase, type TestDatabase } from '../testing/pg-test-database';
import '../engine/sources/index';
import '../engine/sinks/index';

let db: TestDatabase;
const dirs: string[] = [];
let n = 0;
beforeAll(async () => { db = await createTestDatabase('faultprop'); });
afterAll(async () => {
  await db.drop();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const sinks = {
  transactional: (table: string) => ({ type: 'postgres', options: { connectionString: db.url, table } }),
  'bare-append': (table: string) => ({ type: 'postgres', options: { connectionString: db.url, table, mode: 'bare-append' } }),
  upsert: (table: string) => ({ type: 'postgres-upsert', options: { connectionString: db.url, table, keyColumns: ['id'] } }),
};

async function newJob(sink: keyof typeof sinks): Promise<{ spec: JobSpec; input: string; output: string }> {
  const id = `p${++n}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-faultprop-'));
  dirs.push(dir);
  await db.pool.query(`CREATE TABLE ${id}_in (id bigint, name text, amount double precision)`);
  const r = parseJobSpec({
    name: id,
    source: { name: 'orders', type: 'postgres', options: { connectionString: db.url, table: `${id}_in`, offsetColumn: 'id' }, schema: [{ name: 'id', type: 'long' }, { name: 'name', type: 'string' }, { name: 'amount', type: 'double' }] },
    sql: 'SELECT id, name, amount FROM orders',
    sink: sinks[sink](`${id}_out`),
    trigger: { type: 'available-now' },
    checkpointLocation: dir,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return { spec: r.spec, input: `${id}_in`, output: `${id}_out` };
}

/** The batch a new run executes first: the pending one, or the next after the last commit. */
async function firstBatchOfNextRun(cp: LocalCheckpointFileManager): Promise<number> {
  const offsets = await new OffsetSeqLog(cp).getLatest();
  const commit = await new CommitLog(cp).getLatest();
  if (!offsets) return 0;
  return commit?.batchId === offsets.batchId ? offsets.batchId + 1 : offsets.batchId;
}

/** Input ids in batch N's recorded range (offsets/N-1, offsets/N]. */
async function idsOfBatch(cp: LocalCheckpointFileManager, input: string, batchId: number): Promise<number[]> {
  const log = new OffsetSeqLog(cp);
  const end = (await log.get(batchId))!.offsets[0] as { id: string };
  const start = batchId > 0 ? ((await log.get(batchId - 1))!.offsets[0] as { id: string }) : null;
  const res = await db.pool.query(`SELECT id FROM ${input} WHERE id <= $1 AND ($2::bigint IS NULL OR id > $2) ORDER BY id`, [end.id, start?.id ?? null]);
  return res.rows.map((r) => Number(r.id));
}

const step = fc.record({
  rows: fc.integer({ min: 0, max: 4 }),
  crash: fc.option(fc.constantFrom(...(CRASH_POINTS as readonly CrashPointName[])), { nil: null }),
});

describe.each(Object.keys(sinks) as (keyof typeof sinks)[])('fault-injection property: %s sink', (sinkName) => {
  it('any schedule of appends and crashes ends with the contract\'s counts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 5 }), async (steps) => {
        const { spec, input, output } = await newJob(sinkName);
        const cp = new LocalCheckpointFileManager(spec.checkpointLocation);
        let nextId = 1;
        const extra = new Map<number, number>();
        for (const s of steps) {
          if (s.rows > 0) {
            await db.pool.query(`INSERT INTO ${input} SELECT i, 'n' || i, i FROM generate_series($1::int, $2::int) i`, [nextId, nextId + s.rows - 1]);
            nextId += s.rows;
          }
          const batchId = await firstBatchOfNextRun(cp);
          const q = new MicroBatchExecution({ spec, crash: s.crash ? { point: s.crash, batchId } : undefined });
          const crashed = await q.processAllAvailable().then(() => false, (e) => {
            if (!(e instanceof CrashPointError)) throw e;
            return true;
          });
          await q.stop();
          // For a stateless plan mid-state-commit is the same instant as after-sink: the sink has the batch.
          if (crashed && (s.crash === 'after-sink' || s.crash === 'mid-state-commit')) {
            for (const id of await idsOfBatch(cp, input, batchId)) extra.set(id, (extra.get(id) ?? 0) + 1);
          }
        }
        const last = new MicroBatchExecution({ spec });
        await last.processAllAvailable();
        await last.stop();
        const counts = new Map<number, number>();
        const res = await db.pool.query(`SELECT id FROM ${output}`).catch(() => ({ rows: [] as { id: string }[] }));
        for (const r of res.rows) counts.set(Number(r.id), (counts.get(Number(r.id)) ?? 0) + 1);
        const want = new Map<number, number>();
        for (let id = 1; id < nextId; id++) want.set(id, 1 + (sinkName === 'bare-append' ? extra.get(id) ?? 0 : 0));
        expect(counts).toEqual(want);
      }),
      { numRuns: 12, seed: 5 },
    );
  });
});
