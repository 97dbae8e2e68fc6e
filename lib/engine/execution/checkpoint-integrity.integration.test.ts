/**
 * A damaged checkpoint is refused at start, before anything is written, and never becomes a
 * different query: a deleted `metadata` used to get a fresh query id, so the transactional
 * Postgres sink (which recognizes a replayed batch by query id) took the re-run batch a second
 * time. Through the real engine, on local disk, against this machine's PostgreSQL.
 */
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectCheckpoint } from '../checkpoint/checkpoint-inspector';
import { LocalCheckpointFileManager } from '../checkpoint/local-checkpoint-file-manager';
import { STATEFUL_OPERATORS_CONF, OffsetSeqLog } from '../checkpoint/offset-seq-log';
import { ManualClock } from '../clock';
import { CorruptCheckpointError, CrashPointError, IncompatibleQueryChangeError } from '../errors';
import { createTestDatabase, type TestDatabase } from '../../testing/pg-test-database';
// An engine-with-connector integration test: the postgres connector registers its types here.
import '../../connectors/postgres/index';
import { MemoryStream } from '../sources/memory-source';
import { MicroBatchExecution } from './micro-batch-execution';
import { EVENT_SCHEMA, eventGenerator, mustParse, tempDir, writeInputFile } from './testing/test-fixtures';

const T0 = Date.UTC(2024, 5, 1);
const roots: string[] = [];
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('ckptint');
});
afterAll(async () => {
  await db?.drop();
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

/** Every file and directory under `dir` (hidden temp files included) with its size: "nothing written" is this, unchanged. */
async function listing(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of (await readdir(d, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        out.push(`${path.relative(dir, p)}/`);
        await walk(p);
      } else out.push(`${path.relative(dir, p)} ${(await stat(p)).size}`);
    }
  };
  await walk(dir);
  return out;
}

async function failure(q: MicroBatchExecution): Promise<unknown> {
  return q.processAllAvailable().then(
    () => null,
    (e: unknown) => e,
  ).finally(() => q.stop());
}

describe('files → transactional postgres: a deleted metadata', () => {
  it('is CORRUPT_CHECKPOINT naming the file; the sink keeps 30 rows for 30 ids; nothing is written; restoring it resumes', async () => {
    const root = await tempDir('ckpt-meta');
    roots.push(root);
    const input = path.join(root, 'in');
    const checkpoint = path.join(root, 'checkpoint');
    const gen = eventGenerator(13);
    for (let i = 0; i < 3; i++) await writeInputFile(input, i, gen(10), 'json');
    const spec = mustParse({
      name: 'ckpt-meta',
      source: { name: 'events', type: 'files', options: { path: input, format: 'json', maxFilesPerTrigger: 1 }, schema: EVENT_SCHEMA },
      sql: 'SELECT id, name, amount FROM events',
      sink: { type: 'postgres', options: { connectionString: db.url, table: 'events_out', mode: 'transactional' } },
      outputMode: 'append',
      trigger: { type: 'available-now' },
      checkpointLocation: checkpoint,
    });
    const count = async () => (await db.pool.query('SELECT count(*)::int AS n, count(DISTINCT id)::int AS d FROM events_out')).rows[0];

    // The incident: batch 2 reaches the sink, the run dies before commits/2.
    const crashed = await failure(new MicroBatchExecution({ spec, clock: new ManualClock(T0), crash: { point: 'after-sink', batchId: 2 } }));
    expect(crashed).toBeInstanceOf(CrashPointError);
    expect(await count()).toEqual({ n: 30, d: 30 });

    const backup = await readFile(path.join(checkpoint, 'metadata'));
    await rm(path.join(checkpoint, 'metadata'));
    const before = await listing(checkpoint);

    const logs: string[] = [];
    const err = await failure(new MicroBatchExecution({ spec, clock: new ManualClock(T0), log: (e) => logs.push(e.msg) }));
    expect(err).toBeInstanceOf(CorruptCheckpointError);
    const e = err as CorruptCheckpointError;
    expect(e.code).toBe('CORRUPT_CHECKPOINT');
    expect(e.message).toContain(`Checkpoint file file://${checkpoint}/metadata is missing`);
    expect(e.message).toMatch(/up to batch 2/);
    expect(e.message).toMatch(/restore it from a backup of the checkpoint, or start the query on a new checkpoint location \(which reprocesses from the source start\)/);
    expect(e.details).toMatchObject({ path: 'metadata', missing: true });
    expect(logs).not.toContain('Starting new streaming query');
    expect(await count()).toEqual({ n: 30, d: 30 });
    expect(await listing(checkpoint)).toEqual(before);

    // The inspector names the same problem instead of failing.
    const info = await inspectCheckpoint(new LocalCheckpointFileManager(checkpoint));
    expect(info.id).toBeNull();
    expect(info.pendingBatch).toBe(2);
    expect(info.problems).toEqual([expect.objectContaining({ path: 'metadata', missing: true })]);

    // The first way out: the file restored from a backup; batch 2 re-runs and the sink skips it.
    await writeFile(path.join(checkpoint, 'metadata'), backup);
    const resumed = new MicroBatchExecution({ spec, clock: new ManualClock(T0) });
    await resumed.processAllAvailable();
    await resumed.stop();
    expect(resumed.recentProgress.map((p) => p.batchId)).toEqual([2]);
    expect(await count()).toEqual({ n: 30, d: 30 });
  });
});

describe('other damage refused as CORRUPT_CHECKPOINT before anything is written', () => {
  async function statelessRan() {
    const root = await tempDir('ckpt-dmg');
    roots.push(root);
    const input = path.join(root, 'in');
    const checkpoint = path.join(root, 'checkpoint');
    await writeInputFile(input, 0, eventGenerator(5)(6), 'json');
    await writeInputFile(input, 1, eventGenerator(6)(6), 'json');
    const spec = mustParse({
      name: 'ckpt-dmg',
      source: { name: 'events', type: 'files', options: { path: input, format: 'json', maxFilesPerTrigger: 1 }, schema: EVENT_SCHEMA },
      sql: 'SELECT id, name FROM events',
      sink: { type: 'files', options: { path: path.join(root, 'out') } },
      trigger: { type: 'available-now' },
      checkpointLocation: checkpoint,
    });
    const q = new MicroBatchExecution({ spec, clock: new ManualClock(T0) });
    await q.processAllAvailable();
    await q.stop();
    return { spec, checkpoint };
  }

  it.each([
    ['metadata', 'not json', /metadata is corrupt: .*JSON/],
    ['metadata', '', /metadata is corrupt/],
    ['metadata', '{"notId":1}', /metadata is corrupt: no "id" string/],
    ['offsets/1', 'v1\n{"batchWatermarkMs":0,\n{"offset":1}', /offsets\/1 is corrupt: metadata line is not JSON/],
    ['offsets/1', '', /offsets\/1 is corrupt: expected a version line/],
    ['commits/1', 'v1\n{broken', /commits\/1 is corrupt: commit metadata is not JSON/],
    ['commits/1', 'v9\n{}', /commits\/1 is corrupt: log version v9 is not supported/],
  ])('%s holding %j', async (file, content, message) => {
    const { spec, checkpoint } = await statelessRan();
    await writeFile(path.join(checkpoint, file), content);
    const before = await listing(checkpoint);
    const err = await failure(new MicroBatchExecution({ spec, clock: new ManualClock(T0) }));
    expect(err).toBeInstanceOf(CorruptCheckpointError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).toContain(`file://${checkpoint}/${file}`);
    expect(await listing(checkpoint)).toEqual(before);
    const info = await inspectCheckpoint(new LocalCheckpointFileManager(checkpoint));
    expect(info.problems.map((p) => p.path)).toContain(file);
  });

  it('a commits/N whose offsets/N is gone', async () => {
    const { spec, checkpoint } = await statelessRan();
    await rm(path.join(checkpoint, 'offsets', '1'));
    const before = await listing(checkpoint);
    const err = await failure(new MicroBatchExecution({ spec, clock: new ManualClock(T0) }));
    expect(err).toBeInstanceOf(CorruptCheckpointError);
    expect((err as Error).message).toContain(`file://${checkpoint}/offsets/1 is missing: commits/1 exists but offsets/1 does not`);
    expect(await listing(checkpoint)).toEqual(before);
  });
});

describe('stateful: state without its schema', () => {
  let uniq = 0;
  async function aggregated() {
    const name = `ckpt-state-${process.pid}-${uniq++}`;
    const checkpoint = await tempDir('ckpt-state');
    roots.push(checkpoint);
    const specJson = {
      name,
      source: { name: 'events', type: 'memory', options: { stream: name }, schema: [{ name: 'region', type: 'string' }, { name: 'amount', type: 'double' }] },
      sql: 'SELECT region, count(*) AS n FROM events GROUP BY region',
      sink: { type: 'memory', options: { table: name } },
      outputMode: 'update',
      trigger: { type: 'available-now' },
      checkpointLocation: checkpoint,
    };
    const spec = mustParse(specJson);
    const stream = MemoryStream.named(name);
    for (let b = 0; b < 2; b++) {
      stream.addData({ region: 'eu', amount: 1 }, { region: 'us', amount: 2 });
      const q = new MicroBatchExecution({ spec, clock: new ManualClock(T0) });
      await q.processAllAvailable();
      await q.stop();
    }
    return { spec, specJson, checkpoint, stream };
  }

  it('records the stateful operators in offsets/N conf', async () => {
    const { checkpoint } = await aggregated();
    const latest = await new OffsetSeqLog(new LocalCheckpointFileManager(checkpoint)).getLatest();
    expect(latest!.value.metadata.conf[STATEFUL_OPERATORS_CONF]).toBe('0');
  });

  it.each([
    ['state/0/_metadata/schema deleted', (cp: string) => rm(path.join(cp, 'state', '0', '_metadata'), { recursive: true }), /offsets record stateful operator 0 and state\/0\/ holds its state files, but its schema is gone/],
    ['state/ deleted', (cp: string) => rm(path.join(cp, 'state'), { recursive: true }), /offsets record stateful operator 0, but its state is gone \(state\/0\/ was deleted\)/],
    ['state/0 deleted', (cp: string) => rm(path.join(cp, 'state', '0'), { recursive: true }), /offsets record stateful operator 0/],
  ])('%s: CORRUPT_CHECKPOINT naming state/0/_metadata/schema, not "operator added"', async (_what, damage, reason) => {
    const { spec, checkpoint, stream } = await aggregated();
    await damage(checkpoint);
    stream.addData({ region: 'eu', amount: 3 });
    const before = await listing(checkpoint);
    const err = await failure(new MicroBatchExecution({ spec, clock: new ManualClock(T0) }));
    expect(err).toBeInstanceOf(CorruptCheckpointError);
    expect(err).not.toBeInstanceOf(IncompatibleQueryChangeError);
    expect((err as Error).message).toContain(`file://${checkpoint}/state/0/_metadata/schema is missing`);
    expect((err as Error).message).toMatch(reason);
    expect((err as Error).message).not.toMatch(/operator added|is new/);
    expect(await listing(checkpoint)).toEqual(before);
    const info = await inspectCheckpoint(new LocalCheckpointFileManager(checkpoint));
    expect(info.problems.map((p) => p.path)).toEqual(['state/0/_metadata/schema']);
  });

  it('a checkpoint whose offsets predate the recorded operators: state files without a schema are still refused, a missing state/ says both readings', async () => {
    const { spec, checkpoint } = await aggregated();
    // What an older Weir wrote: offsets/N conf without weir.statefulOperators.
    for (const n of await readdir(path.join(checkpoint, 'offsets'))) {
      const f = path.join(checkpoint, 'offsets', n);
      await writeFile(f, (await readFile(f, 'utf8')).replace(/,"weir\.statefulOperators":"0"/, ''));
    }
    expect(await readFile(path.join(checkpoint, 'offsets', '0'), 'utf8')).not.toContain(STATEFUL_OPERATORS_CONF);
    await rm(path.join(checkpoint, 'state', '0', '_metadata'), { recursive: true });
    const err = await failure(new MicroBatchExecution({ spec, clock: new ManualClock(T0) }));
    expect(err).toBeInstanceOf(CorruptCheckpointError);
    expect((err as Error).message).toContain(`file://${checkpoint}/state/0/_metadata/schema is missing: state/0/ holds state files but not the schema`);

    await rm(path.join(checkpoint, 'state'), { recursive: true });
    const gone = await failure(new MicroBatchExecution({ spec, clock: new ManualClock(T0) }));
    expect(gone).toBeInstanceOf(IncompatibleQueryChangeError);
    expect((gone as Error).message).toMatch(/is new; the query ran before without it \(or, if the query did not change, this checkpoint's state\/0 was deleted: then restore it from a backup/);
  });

  it('a deleted state delta that the next batch needs: CORRUPT_CHECKPOINT naming it, before offsets/N is written', async () => {
    const { spec, checkpoint, stream } = await aggregated();
    // Two committed batches: the next loads version 2.
    await rm(path.join(checkpoint, 'state', '0', '0', '2.delta'));
    stream.addData({ region: 'eu', amount: 3 });
    const before = await listing(checkpoint);
    const err = await failure(new MicroBatchExecution({ spec, clock: new ManualClock(T0) }));
    expect(err).toBeInstanceOf(CorruptCheckpointError);
    expect((err as Error).message).toContain(`file://${checkpoint}/state/0/0/2.delta is missing: commits/1 means the next batch loads state version 2`);
    expect(await listing(checkpoint)).toEqual(before);
  });

  it('an unparseable schema is CORRUPT_CHECKPOINT naming it', async () => {
    const { spec, checkpoint } = await aggregated();
    await writeFile(path.join(checkpoint, 'state', '0', '_metadata', 'schema'), '{"formatVersion":');
    const err = await failure(new MicroBatchExecution({ spec, clock: new ManualClock(T0) }));
    expect(err).toBeInstanceOf(CorruptCheckpointError);
    expect((err as Error).message).toContain(`file://${checkpoint}/state/0/_metadata/schema is corrupt: not a state schema file`);
  });

  it('a stateful operator added to a query that ran stateless is still an incompatible change', async () => {
    const { specJson, checkpoint } = await aggregated();
    const other = await tempDir('ckpt-stateless');
    roots.push(other);
    const name = `${specJson.name}-sl`;
    const stateless = mustParse({ ...specJson, name, source: { ...specJson.source, options: { stream: name } }, sql: 'SELECT region FROM events', checkpointLocation: other });
    MemoryStream.named(name).addData({ region: 'eu', amount: 1 });
    const q = new MicroBatchExecution({ spec: stateless, clock: new ManualClock(T0) });
    await q.processAllAvailable();
    await q.stop();
    const grown = mustParse({ ...specJson, name, source: { ...specJson.source, options: { stream: name } }, checkpointLocation: other });
    const err = await failure(new MicroBatchExecution({ spec: grown, clock: new ManualClock(T0) }));
    expect(err).toBeInstanceOf(IncompatibleQueryChangeError);
    expect((err as Error).message).toMatch(/is new; the query ran before without it\. /);
    expect(checkpoint).not.toBe(other);
  });

  it('a fresh checkpoint with an empty state/ directory starts normally', async () => {
    const root = await tempDir('ckpt-fresh');
    roots.push(root);
    await mkdir(path.join(root, 'state'), { recursive: true });
    const { specJson } = await aggregated();
    const name = `${specJson.name}-fresh`;
    const spec = mustParse({ ...specJson, name, source: { ...specJson.source, options: { stream: name } }, checkpointLocation: root });
    MemoryStream.named(name).addData({ region: 'eu', amount: 1 });
    const q = new MicroBatchExecution({ spec, clock: new ManualClock(T0) });
    await q.processAllAvailable();
    await q.stop();
    expect(q.recentProgress.map((p) => p.batchId)).toEqual([0]);
  });
});
