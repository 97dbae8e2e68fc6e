/**
 * A row whose expression builds a string over the 1 MiB limit is a bad record, handled by the
 * job's onBadRecord like a record that did not parse: "fail" stops the run naming the function
 * and the limit with nothing committed; "dead-letter" diverts that row (with the reason) and
 * lets the others through. Inside an aggregation a row cannot be set aside, so the run fails
 * under either policy, saying so.
 */
import { readFile, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BadRecordError } from '../errors';
import { CommitLog } from '../checkpoint/commit-log';
import { LocalCheckpointFileManager } from '../checkpoint/local-checkpoint-file-manager';
import { readCommittedRows } from '../sinks/files-sink';
import { MicroBatchExecution } from './micro-batch-execution';
import { eventGenerator, filesJob, mustParse } from './testing/test-fixtures';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

// Row id 3 asks for a 2,000,000-character value; every other row for 8 characters.
const SQL = "SELECT id, lpad(name, CASE WHEN id = 3 THEN 2000000 ELSE 8 END, '.') AS padded FROM events WHERE id < 6";

async function setup(policy: 'fail' | 'dead-letter', sql = SQL) {
  const base = await filesJob('json');
  roots.push(base.root);
  const badRecordsPath = path.join(base.root, 'bad');
  const source = policy === 'dead-letter' ? { ...base.spec.source, onBadRecord: 'dead-letter', badRecordsPath } : base.spec.source;
  const spec = mustParse({ ...base.spec, sql, source, outputMode: sql.includes('GROUP BY') ? 'update' : 'append' });
  const rows = eventGenerator(7)(6);
  await base.harness.addData(rows);
  return { ...base, spec, rows, badRecordsPath };
}

describe('an oversize string value is a bad record', () => {
  it('fail: the run fails naming the function and the limit; nothing is committed', async () => {
    const job = await setup('fail');
    const q = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock });
    const err = await q.processAllAvailable().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRecordError);
    const e = err as BadRecordError;
    expect(e.code).toBe('BAD_RECORD');
    expect(e.message).toMatch(/lpad\(\): the result would be 2,000,000 characters, over the limit of 1,048,576 characters \(1 MiB\)/);
    expect(e.message).toMatch(/set source\.onBadRecord to "dead-letter"/);
    expect(e.details).toMatchObject({ batchId: 0, count: 1 });
    expect(JSON.parse(e.details!.record as string)).toMatchObject({ id: 3 });
    expect(await new CommitLog(new LocalCheckpointFileManager(job.checkpoint)).batchIds()).toEqual([]);
    await q.stop();
  });

  it('dead-letter: the row lands once in badRecordsPath with its reason; the other rows flow', async () => {
    const job = await setup('dead-letter');
    const q = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock });
    await q.processAllAvailable();
    expect(q.lastProgress!.numBadRecords).toBe(1);
    expect(q.lastProgress!.numDeadLetterRecords).toBe(1);
    const dir = path.join(job.badRecordsPath, q.id);
    expect(await readdir(dir)).toEqual(['batch-0.jsonl']);
    const dead = (await readFile(path.join(dir, 'batch-0.jsonl'), 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ batchId: 0, source: expect.stringContaining(job.input) });
    expect(dead[0].reason).toMatch(/^lpad\(\): the result would be 2,000,000 characters, over the limit of 1,048,576 characters/);
    expect(JSON.parse(dead[0].record)).toMatchObject({ id: 3, name: job.rows[3].name });
    const out = (await readCommittedRows(job.output, 'json', { schema: [{ name: 'id', type: 'long' }, { name: 'padded', type: 'string' }] })).flatMap((b) => b.rows);
    expect(out.map((r) => r.id).sort()).toEqual([0, 1, 2, 4, 5]);
    for (const r of out) expect((r.padded as string).length).toBe(8);
    await q.stop();
  });

  it('in a WHERE clause too: dead-letter diverts the row instead of filtering on it', async () => {
    const job = await setup('dead-letter', "SELECT id FROM events WHERE lpad(name, CASE WHEN id = 2 THEN 2000000 ELSE 3 END, '.') <> '' AND id < 6");
    const q = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock });
    await q.processAllAvailable();
    expect(q.lastProgress!.numDeadLetterRecords).toBe(1);
    expect(q.lastProgress!.sink.numOutputRows).toBe(5);
    await q.stop();
  });

  it('inside an aggregation the run fails under dead-letter too, saying why', async () => {
    const job = await setup('dead-letter', "SELECT lpad(name, CASE WHEN id = 3 THEN 2000000 ELSE 8 END, '.') AS k, count(*) AS n FROM events GROUP BY lpad(name, CASE WHEN id = 3 THEN 2000000 ELSE 8 END, '.')");
    const q = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock });
    const err = await q.processAllAvailable().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRecordError);
    expect((err as Error).message).toMatch(/lpad\(\): the result would be 2,000,000 characters.*part of an aggregation, where a record cannot be set aside/);
    expect(await new CommitLog(new LocalCheckpointFileManager(job.checkpoint)).batchIds()).toEqual([]);
    await q.stop();
  });
});
