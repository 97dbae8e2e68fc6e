/**
 * The crash matrix over two sources: two files sources UNION ALL into the files sink; a run dies
 * at each point of the write-ahead protocol in batch 1, a new run starts on the same checkpoint,
 * and the sink holds every input row of both sources exactly once. Batch 1's recorded offsets
 * (one per source) are what the re-run reads.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalCheckpointFileManager } from '../checkpoint/local-checkpoint-file-manager';
import { OffsetSeqLog } from '../checkpoint/offset-seq-log';
import { CRASH_POINTS } from './crash-points';
import { AddData, Assert, CheckAnswer, CrashAt, StopStream, testStream } from './testing/stream-test';
import { EVENT_SCHEMA, eventGenerator, filesJob, mustParse, writeInputFile } from './testing/test-fixtures';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

const branch = (from: string) => `SELECT id, upper(name) AS name_upper, amount * 2 AS doubled, ts FROM ${from} WHERE keep AND amount >= 5`;

describe('two files sources → files sink: crash at every point, restart, every row once', () => {
  it.each(CRASH_POINTS)('crash at %s of batch 1', async (point) => {
    const job = await filesJob('json');
    roots.push(job.root);
    const second = path.join(job.root, 'in2');
    const spec = mustParse({
      ...job.spec,
      source: undefined,
      sources: [
        { name: 'events', type: 'files', options: { path: job.input, format: 'json' }, schema: EVENT_SCHEMA },
        { name: 'more', type: 'files', options: { path: second, format: 'json' }, schema: EVENT_SCHEMA },
      ],
      sql: `${branch('events')} UNION ALL ${branch('more')}`,
    });
    // Each AddData writes one file to each source.
    let seq = 0;
    const harness = {
      ...job.harness,
      spec,
      addData: async (rows: Parameters<typeof job.harness.addData>[0]) => {
        const half = Math.ceil(rows.length / 2);
        await writeInputFile(job.input, seq, rows.slice(0, half), 'json');
        await writeInputFile(second, seq++, rows.slice(half), 'json');
      },
    };
    const gen = eventGenerator(point.length * 17);
    const offsets = new OffsetSeqLog(new LocalCheckpointFileManager(job.checkpoint));
    await testStream(harness, [
      AddData(gen(12)),
      CheckAnswer(),
      AddData(gen(12)),
      CrashAt(point, 1),
      Assert(async () => {
        const seq1 = (await offsets.get(1))!;
        expect(seq1.offsets).toHaveLength(2);
        expect(seq1.offsets.every((o) => o !== null)).toBe(true);
      }),
      AddData(gen(9)),
      CheckAnswer(),
      StopStream(),
    ]);
  });
});
