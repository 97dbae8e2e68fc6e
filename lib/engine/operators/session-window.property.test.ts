/**
 * Session windows against a model, under random batch splits, restarts and crashes before the
 * state commit (fast-check): in Complete mode the sessions in state are those of all the rows at
 * once, whatever the batching (merging across batches is exact, nothing is evicted); in Append
 * mode each session comes out once, as a model that replays Spark's rules batch by batch
 * (late rows dropped, merging, closing at the watermark) says.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '@/lib/testing/property-runs';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import type { StreamingRelation } from '../query/logical-plan';
import { StatefulQueryRunner } from '../query/testing/stateful-test-harness';
import type { Row } from '../types';

const SEC = 1000;
const relation: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 'events',
  schema: [{ name: 'id', type: 'long' }, { name: 'user', type: 'string' }, { name: 'ts', type: 'timestamp' }, { name: 'gap', type: 'long' }],
};
/** A per-row gap (0 leaves the row out), so sessions of different lengths meet. */
const SQL = "SELECT user, session_window, count(*) AS n, collect_list(id) AS ids FROM events GROUP BY user, session_window(ts, CAST(gap AS STRING) || ' seconds')";

const scenario = fc
  .array(fc.record({ user: fc.constantFrom('a', 'b', 'c'), t: fc.integer({ min: 0, max: 60 }), gap: fc.integer({ min: 0, max: 12 }) }), { minLength: 8, maxLength: 40 })
  .chain((rows) =>
    fc.record({
      rows: fc.constant(rows.map((r, id) => ({ id, user: r.user, ts: r.t * SEC, gap: r.gap }))),
      cuts: fc.array(fc.integer({ min: 0, max: rows.length }), { maxLength: 6 }),
      restarts: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      crashes: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      delaySec: fc.integer({ min: 0, max: 30 }),
    }),
  );

function batchesOf(rows: Row[], cuts: number[]): Row[][] {
  const at = [...new Set(cuts)].sort((a, b) => a - b);
  const out: Row[][] = [];
  let from = 0;
  for (const c of [...at, rows.length]) {
    out.push(rows.slice(from, c));
    from = c;
  }
  return out;
}

type Session = { user: string; start: number; end: number; rows: Row[] };

/** Spark's merge of sessions (sorted by start, merged when one starts at or before the end) with new rows. */
function merge(sessions: Session[], rows: Row[]): Session[] {
  const all = [...sessions, ...rows.map((r) => ({ user: r.user as string, start: r.ts as number, end: (r.ts as number) + (r.gap as number) * SEC, rows: [r] }))];
  const out: Session[] = [];
  for (const user of new Set(all.map((s) => s.user))) {
    let cur: Session | undefined;
    for (const s of all.filter((x) => x.user === user).sort((a, b) => a.start - b.start)) {
      if (cur && s.start <= cur.end) {
        cur.end = Math.max(cur.end, s.end);
        cur.rows = [...cur.rows, ...s.rows];
      } else {
        if (cur) out.push(cur);
        cur = { ...s };
      }
    }
    if (cur) out.push(cur);
  }
  return out;
}

const asRow = (s: Session): Row => ({
  user: s.user, session_window: { start: s.start, end: s.end }, n: s.rows.length,
  // Event-time order, arrival order among equal times.
  ids: [...s.rows].sort((a, b) => (a.ts as number) - (b.ts as number) || (a.id as number) - (b.id as number)).map((r) => r.id),
});
const canonical = (rows: Row[]) => rows.map((r) => JSON.stringify(r)).sort();

async function run(q: StatefulQueryRunner, batches: Row[][], restarts: boolean[], crashes: boolean[]): Promise<Row[][]> {
  const outputs: Row[][] = [];
  for (const [i, b] of batches.entries()) {
    if (restarts[i]) q.restart();
    if (crashes[i]) {
      await q.runBatch(b, { crashBeforeCommit: true });
      q.restart();
    }
    outputs.push((await q.runBatch(b)).output);
  }
  return outputs;
}

describe('session windows vs a model', () => {
  it('complete: the sessions of all the rows at once, whatever the batching, restarts and crashes', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ rows, cuts, restarts, crashes }) => {
        const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), SQL, relation, 'complete', { minDeltasForSnapshot: 2 });
        const outputs = await run(q, batchesOf(rows, cuts), restarts, crashes);
        const expected = merge([], rows.filter((r) => r.gap > 0)).map(asRow);
        expect(canonical(outputs[outputs.length - 1])).toEqual(canonical(expected));
      }),
      { numRuns: propertyRuns(15, 60), seed: 5151 },
    );
  });

  it('append: each session once, when the watermark passes its end; rows late for their own session dropped', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ rows, cuts, restarts, crashes, delaySec }) => {
        const rel = { ...relation, eventTime: 'ts', watermarkDelayMs: delaySec * SEC };
        const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), SQL, rel, 'append');
        // A last empty batch closes what the final watermark passed (Spark's no-data batch).
        const batches = [...batchesOf(rows, cuts), []];
        const outputs = await run(q, batches, restarts, crashes);
        let wm = 0;
        let open: Session[] = [];
        const expected: Row[] = [];
        for (const b of batches) {
          open = merge(open, b.filter((r) => (r.gap as number) > 0 && (r.ts as number) + (r.gap as number) * SEC > wm));
          for (const s of open.filter((x) => x.end <= wm)) expected.push(asRow(s));
          open = open.filter((x) => x.end > wm);
          if (b.length) wm = Math.max(wm, Math.max(...b.map((r) => r.ts as number)) - delaySec * SEC);
        }
        expect(canonical(outputs.flat())).toEqual(canonical(expected));
      }),
      { numRuns: propertyRuns(15, 60), seed: 5252 },
    );
  });
});
