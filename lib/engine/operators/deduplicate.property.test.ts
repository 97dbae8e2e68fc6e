/**
 * Property tests of streaming deduplication against a hand-written model: random rows, random
 * batch splits, restarts and crashes before the state commit (then a re-run of the batch).
 * - dropDuplicates(keys) without a watermark: exactly the first row of each key, once.
 * - dropDuplicates(key, ts) with a watermark: the first on-time row of each key; a row is late
 *   when its event time is ≤ the watermark its batch ran with (computed by the model).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import type { StreamingRelation } from '../query/logical-plan';
import { split } from '../query/testing/batch-scenario';
import { StatefulQueryRunner } from '../query/testing/stateful-test-harness';
import type { Row } from '../types';
import { propertyRuns } from '@/lib/testing/property-runs';

const MIN = 60_000;
const relation: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 'events',
  schema: [
    { name: 'id', type: 'long' },
    { name: 'user', type: 'string' },
    { name: 'ts', type: 'timestamp' },
  ],
};

const scenario = fc.record({
  rows: fc.array(fc.record({ user: fc.constantFrom('a', 'b', 'c', 'd', null), minute: fc.integer({ min: 0, max: 40 }) }), { maxLength: 50 }),
  cuts: fc.array(fc.integer({ min: 0, max: 10 }), { minLength: 1, maxLength: 8 }),
  restarts: fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
  crashes: fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
  delayMin: fc.constantFrom(0, 3, 10),
});

function batchesOf(rows: { user: string | null; minute: number }[], cuts: number[]): Row[][] {
  const all = rows.map((r, id) => ({ id, user: r.user, ts: r.minute * MIN }));
  return split(all, cuts);
}

async function run(q: StatefulQueryRunner, batches: Row[][], restarts: boolean[], crashes: boolean[]): Promise<Row[]> {
  const emitted: Row[] = [];
  for (const [i, b] of batches.entries()) {
    if (restarts[i]) q.restart();
    if (crashes[i]) {
      await q.runBatch(b, { crashBeforeCommit: true });
      q.restart();
    }
    emitted.push(...(await q.runBatch(b)).output);
  }
  return emitted;
}

const ids = (rows: Row[]) => rows.map((r) => r.id as number).sort((a, b) => a - b);

describe('streaming deduplication vs a model', () => {
  it('without a watermark: the first row of every key, exactly once, whatever the batching and crashes', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ rows, cuts, restarts, crashes }) => {
        const batches = batchesOf(rows, cuts);
        const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), 'SELECT id, user, ts FROM events', relation, 'append', { minDeltasForSnapshot: 2 }, { dedup: { keys: ['user'] } });
        const emitted = await run(q, batches, restarts, crashes);
        const seen = new Set<unknown>();
        const expected = batches.flat().filter((r) => (seen.has(r.user) ? false : (seen.add(r.user), true)));
        expect(ids(emitted)).toEqual(ids(expected));
      }),
      { numRuns: propertyRuns(15, 60), seed: 424242 },
    );
  });

  it('with the event time in the keys: the first on-time row of every (user, ts); late rows dropped', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ rows, cuts, restarts, crashes, delayMin }) => {
        const batches = batchesOf(rows, cuts);
        const rel = { ...relation, eventTime: 'ts', watermarkDelayMs: delayMin * MIN };
        const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), 'SELECT id, user, ts FROM events', rel, 'append', {}, { dedup: { keys: ['user', 'ts'] } });
        const emitted = await run(q, batches, restarts, crashes);
        let wm = 0;
        const seen = new Set<string>();
        const expected: Row[] = [];
        for (const b of batches) {
          for (const r of b) {
            if ((r.ts as number) <= wm) continue;
            const k = JSON.stringify([r.user, r.ts]);
            if (!seen.has(k)) {
              seen.add(k);
              expected.push(r);
            }
          }
          if (b.length) wm = Math.max(wm, Math.max(...b.map((r) => r.ts as number)) - delayMin * MIN);
        }
        expect(ids(emitted)).toEqual(ids(expected));
      }),
      { numRuns: propertyRuns(15, 60), seed: 4343 },
    );
  });
});
