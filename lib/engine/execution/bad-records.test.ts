/**
 * onBadRecord: "fail" stops the run naming file, line and reason, leaving the batch to re-run;
 * "dead-letter" diverts each bad record (with its location, reason and batch id) to
 * badRecordsPath, counts it in progress, and a re-run of the batch does not double the file.
 */
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BadRecordError, CrashPointError } from '../errors';
import { CommitLog } from '../checkpoint/commit-log';
import { LocalCheckpointFileManager } from '../checkpoint/local-checkpoint-file-manager';
import { MicroBatchExecution } from './micro-batch-execution';
import { eventGenerator, expectedEvents, filesJob, mustParse } from './testing/test-fixtures';
import { encodeRows } from '../sinks/files-sink';
import { EVENT_SCHEMA } from './testing/test-fixtures';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

describe.each(['json', 'csv'] as const)('bad records in %s input', (format) => {
  async function setup() {
    const job = await filesJob(format);
    roots.push(job.root);
    const good = eventGenerator(30)(6);
    const lines = encodeRows(good, EVENT_SCHEMA, format, true).trimEnd().split('\n');
    // Insert two bad records: a type error and a malformed line. Header is line 1 for CSV.
    const typeError = format === 'json' ? '{"id":"seven","name":"x","amount":1,"keep":true,"ts":0}' : 'seven,x,1,true,0';
    const malformed = format === 'json' ? '{"id": 1, "name": ' : '"unterminated,1,1,true,0';
    const at = format === 'json' ? 2 : 3;
    lines.splice(at, 0, typeError);
    lines.splice(at + 3, 0, malformed);
    await writeFile(path.join(job.input, `input-00000.${format}`), lines.join('\n') + '\n');
    return { job, good, badLines: [at + 1, at + 4], raw: [typeError, malformed] };
  }

  it('fail (the default): the run fails naming the file, the line and the reason; nothing is committed', async () => {
    const { job, badLines } = await setup();
    const q = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock });
    const err = await q.processAllAvailable().catch((e) => e);
    expect(err).toBeInstanceOf(BadRecordError);
    expect(err.code).toBe('BAD_RECORD');
    expect(err.message).toContain(`input-00000.${format} line ${badLines[0]}`);
    expect(err.message).toMatch(/field "id": expected a long/);
    expect(err.details).toMatchObject({ line: badLines[0], count: 2 });
    expect(await new CommitLog(new LocalCheckpointFileManager(job.checkpoint)).batchIds()).toEqual([]);
    expect(await job.harness.readAnswer()).toEqual([]);
    await q.stop();
  });

  it('dead-letter: good rows flow, bad ones land once in badRecordsPath with location and reason', async () => {
    const { job, good, badLines, raw } = await setup();
    const badRecordsPath = path.join(job.root, 'bad');
    const spec = mustParse({ ...job.spec, source: { ...job.spec.source, onBadRecord: 'dead-letter', badRecordsPath } });
    // First attempt dies after the sink; the re-run must rewrite, not append, the dead letters.
    const crashing = new MicroBatchExecution({ spec, clock: job.harness.clock, crash: { point: 'after-sink', batchId: 0 } });
    await expect(crashing.processAllAvailable()).rejects.toBeInstanceOf(CrashPointError);
    const q = new MicroBatchExecution({ spec, clock: job.harness.clock });
    await q.processAllAvailable();
    expect(q.lastProgress!.numBadRecords).toBe(2);
    expect(q.lastProgress!.numDeadLetterRecords).toBe(2);
    const dir = path.join(badRecordsPath, q.id);
    expect(await readdir(dir)).toEqual(['batch-0.jsonl']);
    const dead = (await readFile(path.join(dir, 'batch-0.jsonl'), 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(dead.map((d) => [d.batchId, d.line, d.record])).toEqual([
      [0, badLines[0], raw[0]],
      [0, badLines[1], raw[1]],
    ]);
    expect(dead[0].source).toBe(path.join(job.input, `input-00000.${format}`));
    expect(dead[1].reason).toMatch(/malformed/);
    expect(await job.harness.readAnswer()).toEqual(expect.arrayContaining(expectedEvents(good)));
    expect((await job.harness.readAnswer()).length).toBe(expectedEvents(good).length);
    await q.stop();
  });
});
