/**
 * The incident the engine exists for: a run dies at each point of the write-ahead protocol,
 * a new run starts on the same checkpoint, and the files sink ends with every input row
 * exactly once: for every crash point and every file format (the Parquet sink's output is also
 * read back by DuckDB).
 */
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CommitLog } from '../checkpoint/commit-log';
import { LocalCheckpointFileManager } from '../checkpoint/local-checkpoint-file-manager';
import { OffsetSeqLog } from '../checkpoint/offset-seq-log';
import { FileStreamSinkLog } from '../sinks/file-stream-sink-log';
import { useDuckDB } from '../query/testing/duckdb';
import { CRASH_POINTS } from './crash-points';
import { AddData, Assert, CheckAnswer, CrashAt, StopStream, testStream } from './testing/stream-test';
import { eventGenerator, filesJob } from './testing/test-fixtures';

const duck = useDuckDB();
const roots: string[] = [];

/** The committed Parquet output as DuckDB reads it: the files `_weir_metadata` names, sorted by id. */
async function duckAnswer(output: string): Promise<Record<string, unknown>[]> {
  const files = (await new FileStreamSinkLog(new LocalCheckpointFileManager(output)).all()).flatMap((b) => b.entry.files.map((f) => `'${path.join(output, f.path)}'`));
  const r = await duck().runAndReadAll(`SELECT id, name_upper, doubled, strftime(ts, '%Y-%m-%dT%H:%M:%S.%gZ') AS ts FROM read_parquet([${files.join(', ')}]) ORDER BY id`);
  return r.getRowObjectsJson().map((x) => ({ ...x, id: Number(x.id) }));
}
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

describe.each(['json', 'csv', 'parquet'] as const)('files → files (%s): crash at every point, restart, exactly once', (format) => {
  it.each(CRASH_POINTS)('crash at %s of batch 1', async (point) => {
    const job = await filesJob(format);
    roots.push(job.root);
    const gen = eventGenerator(point.length * 31 + format.length);
    const fm = new LocalCheckpointFileManager(job.checkpoint);
    const offsets = new OffsetSeqLog(fm);
    const commits = new CommitLog(fm);
    let recordedBatch1: unknown;

    const state = await testStream(job.harness, [
      AddData(gen(12)),
      CheckAnswer(),
      AddData(gen(12)),
      CrashAt(point, 1),
      Assert(async () => {
        // What the checkpoint says right after the crash.
        expect(await offsets.batchIds()).toEqual([0, 1]);
        expect(await commits.batchIds()).toEqual(point === 'after-commit' ? [0, 1] : [0]);
        recordedBatch1 = (await offsets.get(1))!.offsets[0];
      }),
      // Data arriving during the outage must not leak into the re-run of batch 1.
      AddData(gen(12)),
      CheckAnswer(),
      AddData(gen(7)),
      CheckAnswer(),
      StopStream(),
    ]);

    expect(state.queryIds).toHaveLength(1);
    expect(state.crashes.map((c) => [c.point, c.batchId])).toEqual([[point, 1]]);
    const batchIds = state.progress.map((p) => p.batchId);
    if (point === 'after-commit') {
      // Batch 1 committed before the crash; the restart resumes at 2.
      expect(batchIds).toEqual([0, 2, 3]);
    } else {
      // The restart re-runs batch 1 over exactly the recorded range, then plans batch 2 for the new file.
      expect(batchIds).toEqual([0, 1, 2, 3]);
      const rerun = state.progress.find((p) => p.batchId === 1)!;
      expect(rerun.sources[0].endOffset).toEqual(recordedBatch1);
      expect(rerun.numInputRows).toBe(12);
    }
    // The sink log has one entry per batch; a stray file from a failed attempt is never read.
    const logged = await readdir(path.join(job.output, '_weir_metadata'));
    expect(logged.sort()).toEqual(['0', '1', '2', '3']);
    if (format === 'parquet') {
      // What Weir reads back, DuckDB reads too: every row once, same values.
      const answer = await job.harness.readAnswer();
      expect(answer.length).toBeGreaterThan(0);
      expect(await duckAnswer(job.output)).toEqual([...answer].sort((a, b) => (a.id as number) - (b.id as number)));
    }
  });
});
