/**
 * History off the batch loop, against a real database that refuses the history writes for a
 * while (its BatchProgress table renamed away: every insert fails with "relation does not
 * exist", as a real refusal would): the engine keeps committing, the listener bus retries, and
 * what a run could not deliver before it ended is filled in from progress/N by the next one.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommitLog, InMemoryCheckpointFileManager, MemoryStream, MicroBatchExecution, type StreamingQueryProgress } from '@/lib/engine';
import { EVENT_SCHEMA, EVENT_SQL, eventGenerator, mustParse } from '@/lib/engine/execution/testing/test-fixtures';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { waitFor } from '@/lib/testing/wait-for';
import { ListenerBus } from './listener-bus';
import { RunRecorder } from './run-recorder';
import { createTestDatabase, type TestDatabase } from './testing/database';

describe('a committed batch always gets its history', () => {
  let tdb: TestDatabase;
  let db: PrismaClient;
  beforeAll(async () => {
    tdb = await createTestDatabase('weir_history');
    db = new PrismaClient({ adapter: new PrismaPg({ connectionString: tdb.url }) });
  }, 60_000);
  afterAll(async () => {
    await db?.$disconnect();
    await tdb?.drop();
  });

  const refuse = () => db.$executeRawUnsafe(`ALTER TABLE "BatchProgress" RENAME TO "BatchProgress_away"`);
  const accept = () => db.$executeRawUnsafe(`ALTER TABLE "BatchProgress_away" RENAME TO "BatchProgress"`);

  async function setup(name: string) {
    const spec = mustParse({
      name,
      source: { name: 'events', type: 'memory', options: { stream: name }, schema: EVENT_SCHEMA, eventTime: 'ts', watermarkDelay: '1 hour' },
      sql: EVENT_SQL,
      sink: { type: 'memory', options: { table: name } },
      trigger: { type: 'available-now' },
      checkpointLocation: `memory://${name}`,
    });
    const job = await db.job.create({
      data: { name, spec: {}, sql: EVENT_SQL, sourceType: 'memory', sinkType: 'memory', outputMode: 'append', trigger: {}, checkpointLocation: spec.checkpointLocation, status: 'RUNNING', desiredState: 'RUNNING' },
    });
    const newRecorder = async (runId: string) =>
      RunRecorder.create(db, { jobId: job.id, runId: `${name}-${runId}`, workerId: 'w', status: 'STARTING', attempt: 0, recoveredFromRunId: null, leaseEpoch: 1 });
    return { spec, job, stream: MemoryStream.named(name), checkpoint: new InMemoryCheckpointFileManager(), newRecorder };
  }

  const history = async (jobId: string) => (await db.batchProgress.findMany({ where: { jobId }, orderBy: { batchId: 'asc' } })).map((b) => [b.batchId, b.runId]);

  it('retries while the database refuses, never failing the run, and backfills when it accepts again', async () => {
    const s = await setup('history-retry');
    const rec = await s.newRecorder('run-1');
    const errors: unknown[] = [];
    let recovered = 0;
    let backfilled: number[] = [];
    const bus: ListenerBus<StreamingQueryProgress | 'backfill'> = new ListenerBus(
      async (e) => {
        if (e === 'backfill') backfilled = await rec.backfillHistory(s.checkpoint);
        else await rec.batch(e);
      },
      { minBackoffMs: 20, maxBackoffMs: 200, onError: (e) => errors.push(e), onRecovered: () => (recovered++, bus.post('backfill')) },
    );
    const q = new MicroBatchExecution({ spec: s.spec, checkpoint: s.checkpoint, onProgress: (p) => bus.post(p) });
    const gen = eventGenerator(21);
    await refuse();
    for (let i = 0; i < 3; i++) {
      s.stream.addData(...gen(4));
      await q.processAllAvailable(); // resolves: a failed history write does not fail the batch
    }
    expect(await new CommitLog(s.checkpoint).batchIds()).toEqual([0, 1, 2]);
    await waitFor('a failed delivery', async () => errors.length > 0);
    expect(bus.pending).toBe(3);
    await accept();
    await waitFor('the history of every batch', async () => bus.pending === 0 && (await history(s.job.id)).length === 3);
    expect(await history(s.job.id)).toEqual([0, 1, 2].map((b) => [b, rec.runRowId]));
    // Output rows and state rows removed are columns of their own, as the progress JSON has them.
    for (const row of await db.batchProgress.findMany({ where: { jobId: s.job.id } })) {
      const p = row.progress as unknown as StreamingQueryProgress;
      expect(Number(row.numOutputRows)).toBe(p.sink.numOutputRows);
      expect(Number(row.stateRowsRemoved)).toBe(p.stateOperators.reduce((n, o) => n + o.numRowsRemoved, 0));
    }
    expect(recovered).toBe(1);
    await waitFor('the backfill after recovery', async () => bus.pending === 0);
    expect(backfilled).toEqual([]); // the retries delivered everything: nothing left to fill in
    expect((await db.job.findUniqueOrThrow({ where: { id: s.job.id } })).lastBatchId).toBe(2);
    await q.stop();
  });

  it('a run that ended before delivering leaves its batches in progress/N; the next run fills them in', async () => {
    const s = await setup('history-backfill');
    const rec = await s.newRecorder('run-1');
    const bus = new ListenerBus<StreamingQueryProgress>((p) => rec.batch(p), { minBackoffMs: 20, maxBackoffMs: 100 });
    const q = new MicroBatchExecution({ spec: s.spec, checkpoint: s.checkpoint, onProgress: (p) => bus.post(p) });
    const gen = eventGenerator(22);
    s.stream.addData(...gen(4));
    await q.processAllAvailable();
    await waitFor('batch 0 recorded', async () => (await history(s.job.id)).length === 1);
    await refuse();
    for (let i = 0; i < 2; i++) {
      s.stream.addData(...gen(4));
      await q.processAllAvailable();
    }
    await q.stop();
    expect(await bus.close(200)).toBe(2); // the run ends (or its worker dies) with 2 undelivered
    await bus.settled; // a write in flight at close fails against the refusing database, not after it accepts
    expect(bus.pending).toBe(2);
    await accept();
    expect(await history(s.job.id)).toEqual([[0, rec.runRowId]]);

    const next = await s.newRecorder('run-2');
    expect(await next.backfillHistory(s.checkpoint)).toEqual([1, 2]);
    // Filled in from the checkpoint: the row is the engine's progress; the run that committed it is not known.
    expect(await history(s.job.id)).toEqual([[0, rec.runRowId], [1, null], [2, null]]);
    const row = await db.batchProgress.findFirstOrThrow({ where: { jobId: s.job.id, batchId: 2 } });
    expect(row.numInputRows).toBe(4);
    expect((row.progress as { batchId: number }).batchId).toBe(2);
    expect((await db.job.findUniqueOrThrow({ where: { id: s.job.id } })).lastBatchId).toBe(2);
    expect(await next.backfillHistory(s.checkpoint)).toEqual([]);
  });

  it('a run that fails for good makes the job FAILED and STOPPED in one write', async () => {
    const s = await setup('give-up');
    // Every change of the job's status or desiredState, in order.
    await db.$executeRawUnsafe(`CREATE TABLE job_moves (n serial, status text, desired text)`);
    await db.$executeRawUnsafe(
      `CREATE FUNCTION log_job_move() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO job_moves (status, desired) VALUES (NEW.status::text, NEW."desiredState"::text); RETURN NEW; END $$`,
    );
    await db.$executeRawUnsafe(`CREATE TRIGGER job_moves AFTER UPDATE OF status, "desiredState" ON "Job" FOR EACH ROW WHEN (NEW.id = '${s.job.id}') EXECUTE FUNCTION log_job_move()`);
    const rec = await s.newRecorder('run-1');
    await rec.end('FAILED', 'boom', undefined, { giveUp: true });
    const moves = await db.$queryRawUnsafe<{ status: string; desired: string }[]>(`SELECT status, desired FROM job_moves ORDER BY n`);
    // STARTING (the run began), then FAILED together with STOPPED: never FAILED while still wanted RUNNING.
    expect(moves.map((m) => `${m.status}/${m.desired}`)).toEqual(['STARTING/RUNNING', 'FAILED/STOPPED']);
  });
});
