/**
 * Model-based property test of the exactly-once contract: any interleaving of new data, runs
 * killed at any crash point, and restarts ends with every input row in the sink exactly once,
 * the query id unchanged, and the checkpoint with nothing pending.
 */
import { rm } from 'node:fs/promises';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { inspectCheckpoint } from '../checkpoint/checkpoint-inspector';
import { LocalCheckpointFileManager } from '../checkpoint/local-checkpoint-file-manager';
import { CrashPointError } from '../errors';
import { CRASH_POINTS, type CrashPointName } from './crash-points';
import { MicroBatchExecution } from './micro-batch-execution';
import { canonical } from './testing/stream-test';
import { eventGenerator, filesJob } from './testing/test-fixtures';

type Step = { kind: 'add'; n: number } | { kind: 'crash'; point: CrashPointName } | { kind: 'run' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.integer({ min: 0, max: 6 }).map((n): Step => ({ kind: 'add', n })),
  fc.constantFrom(...CRASH_POINTS).map((point): Step => ({ kind: 'crash', point })),
  fc.constant<Step>({ kind: 'run' }),
);

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

describe('exactly once under random crashes (files → files)', () => {
  it.each(['json', 'csv'] as const)('%s', async (format) => {
    let seed = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 10 }), async (steps) => {
        const job = await filesJob(format);
        roots.push(job.root);
        const gen = eventGenerator(++seed);
        const added: ReturnType<typeof gen> = [];
        const fm = new LocalCheckpointFileManager(job.checkpoint);
        const ids = new Set<string>();
        for (const step of steps) {
          if (step.kind === 'add') {
            const rows = gen(step.n);
            for (const r of rows) added.push(r);
            await job.harness.addData(rows);
            continue;
          }
          const info = await inspectCheckpoint(fm);
          const next = info.pendingBatch ?? (info.latestOffsetsBatch ?? -1) + 1;
          const q = new MicroBatchExecution({
            spec: job.spec,
            clock: job.harness.clock,
            crash: step.kind === 'crash' ? { point: step.point, batchId: next } : undefined,
          });
          const err = await q.processAllAvailable().then(() => undefined, (e: unknown) => e);
          ids.add(q.id);
          if (err) {
            expect(err).toBeInstanceOf(CrashPointError);
            continue; // killed: no cleanup
          }
          await q.stop();
        }
        const final = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock });
        await final.processAllAvailable();
        ids.add(final.id);
        await final.stop();
        expect(ids.size).toBe(1);
        expect(canonical(await job.harness.readAnswer())).toEqual(canonical(job.harness.expected(added)));
        expect((await inspectCheckpoint(fm)).pendingBatch).toBeNull();
      }),
      { numRuns: 40, seed: 314 + format.length },
    );
  });
});
