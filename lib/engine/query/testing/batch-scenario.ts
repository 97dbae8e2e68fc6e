/**
 * Test support for property tests of stateful queries: rows split into batches at chosen cuts,
 * run through a StatefulQueryRunner with a restart and/or a crash before the state commit (then
 * a re-run) before chosen batches. The streaming answer must not depend on any of that.
 */
import fc from 'fast-check';
import type { Row } from '../../types';
import type { StatefulQueryRunner } from './stateful-test-harness';

/** Rows, batch sizes, and per batch: restart before it? crash once before its commit? */
export const scenarioOf = <T>(row: fc.Arbitrary<T>, maxRows = 60) =>
  fc.record({
    rows: fc.array(row, { maxLength: maxRows }),
    cuts: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 12 }),
    restarts: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
    crashes: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
  });

/** The rows cut into batches of the given sizes, the rest in a last batch. */
export function split<T>(rows: T[], cuts: number[]): T[][] {
  const out: T[][] = [];
  let i = 0;
  for (const c of cuts) {
    out.push(rows.slice(i, i + c));
    i += c;
  }
  out.push(rows.slice(i));
  return out;
}

/** Runs the batches, restarting and crashing where told; the output of each batch. */
export async function runScenario(q: StatefulQueryRunner, batches: Row[][], restarts: boolean[], crashes: boolean[]): Promise<Row[][]> {
  const outputs: Row[][] = [];
  for (const [i, b] of batches.entries()) {
    if (restarts[i % restarts.length]) q.restart();
    if (crashes[i % crashes.length]) {
      await q.runBatch(b, { crashBeforeCommit: true });
      q.restart();
    }
    outputs.push((await q.runBatch(b)).output);
  }
  return outputs;
}
