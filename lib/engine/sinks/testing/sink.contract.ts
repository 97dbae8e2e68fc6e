/**
 * The sink contract suite: every Sink implementation calls `sinkContractSuite` from its own test
 * file with a harness over a real destination. It checks what the Sink port's TSDoc promises:
 *
 * - a batch written is what readers of the destination see;
 * - a replay of the same batch id is recognized exactly as `signature` declares: idempotent and
 *   transactional sinks end as if the batch ran once; an at-least-once sink holds the replayed
 *   batch's rows exactly twice, and the test asserts that count rather than hiding it;
 * - a property (fast-check): for any sequence of batches with replays, the destination equals a
 *   model of the output mode (append: every distinct batch once, or every attempt for
 *   at-least-once; update: last row per key; complete: the last batch);
 * - a sink whose destination is down fails the batch with SinkError and writes nothing, and the
 *   same batch then goes through once the destination is back;
 * - secrets (e.g. connection strings) never appear in descriptions, reasons or error messages.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SinkError } from '../../errors';
import type { OutputMode, Row, Schema } from '../../types';
import type { Sink, SinkBatchContext } from '../sink';

export const contractSchema: Schema = [
  { name: 'id', type: 'long' },
  { name: 'name', type: 'string' },
  { name: 'amount', type: 'double' },
];

export interface SinkContractHarness {
  sink: Sink;
  /** Every row the destination holds now, as its readers see it, in the contract schema's types. */
  readAll(): Promise<Row[]>;
  /** Close the sink and drop whatever the harness created. */
  cleanup(): Promise<void>;
}

export interface SinkContractOptions {
  outputMode: OutputMode;
  /** Fresh, empty destination per call. */
  make(): Promise<SinkContractHarness>;
  /** A sink of the same type whose destination is unreachable (e.g. a closed port). */
  makeDown?(): Promise<Sink>;
  /** Strings that must never appear in descriptions, reasons or errors. */
  secrets?: string[];
  /** fast-check runs for the property (real services are slow; keep it modest). */
  numRuns?: number;
  seed?: number;
}

const sortKey = (r: Row) => JSON.stringify([r.id, r.name, r.amount]);
const sorted = (rows: Row[]) => [...rows].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));

function ctxFor(outputMode: OutputMode): SinkBatchContext {
  return { outputMode, schema: contractSchema, queryId: 'contract-query' };
}

function rowsFor(batchId: number, n: number, keySpace?: number): Row[] {
  // Deterministic rows; with keySpace, ids repeat across batches so update mode overwrites.
  return Array.from({ length: n }, (_, i) => {
    const id = keySpace ? (batchId * 7 + i * 3) % keySpace : batchId * 1000 + i;
    return { id, name: `b${batchId}-r${i} "quoted" 'x'`, amount: batchId + i / 4 };
  }).filter((r, i, all) => !keySpace || all.findIndex((o) => o.id === r.id) === i);
}

/** The destination a model of the output mode expects after these attempts (in order). */
function expectedRows(mode: OutputMode, exactlyOnce: boolean, attempts: { batchId: number; rows: Row[] }[]): Row[] {
  if (mode === 'complete') return attempts.length ? attempts[attempts.length - 1].rows : [];
  if (mode === 'update') {
    const byKey = new Map<unknown, Row>();
    for (const a of attempts) for (const r of a.rows) byKey.set(r.id, r);
    return [...byKey.values()];
  }
  const seen = new Set<number>();
  const out: Row[] = [];
  for (const a of attempts) {
    if (exactlyOnce && seen.has(a.batchId)) continue;
    seen.add(a.batchId);
    for (const r of a.rows) out.push(r);
  }
  return out;
}

export function sinkContractSuite(name: string, opts: SinkContractOptions): void {
  const mode = opts.outputMode;
  const keySpace = mode === 'append' ? undefined : 12;

  describe(`${name}: sink contract (${mode})`, () => {
    it('declares a signature with a reason and supports the output mode', async () => {
      const h = await opts.make();
      try {
        expect(['idempotent', 'transactional', 'at-least-once']).toContain(h.sink.signature);
        expect(h.sink.signatureReason.length).toBeGreaterThan(10);
        expect(h.sink.supportedOutputModes).toContain(mode);
        for (const s of opts.secrets ?? []) {
          expect(h.sink.description).not.toContain(s);
          expect(h.sink.signatureReason).not.toContain(s);
        }
      } finally {
        await h.cleanup();
      }
    });

    it('writes a batch that readers then see', async () => {
      const h = await opts.make();
      try {
        const rows = rowsFor(0, 5, keySpace);
        await h.sink.addBatch(0, rows, ctxFor(mode));
        expect(sorted(await h.readAll())).toEqual(sorted(rows));
      } finally {
        await h.cleanup();
      }
    });

    it('recognizes a replayed batch id exactly as its signature declares', async () => {
      const h = await opts.make();
      try {
        const b0 = rowsFor(0, 4, keySpace);
        const b1 = rowsFor(1, 3, keySpace);
        await h.sink.addBatch(0, b0, ctxFor(mode));
        await h.sink.addBatch(1, b1, ctxFor(mode));
        await h.sink.addBatch(1, b1, ctxFor(mode)); // the crash-after-sink replay
        const got = await h.readAll();
        const exactlyOnce = h.sink.signature !== 'at-least-once';
        const attempts = [{ batchId: 0, rows: b0 }, { batchId: 1, rows: b1 }, { batchId: 1, rows: b1 }];
        expect(sorted(got)).toEqual(sorted(expectedRows(mode, exactlyOnce, attempts)));
        if (mode === 'append') {
          // The duplicates an at-least-once sink holds are exactly the replayed batch, once more.
          expect(got.length).toBe(b0.length + b1.length + (exactlyOnce ? 0 : b1.length));
        }
      } finally {
        await h.cleanup();
      }
    });

    it('matches the output-mode model for any sequence of batches and replays (property)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ size: fc.integer({ min: 0, max: 6 }), replays: fc.integer({ min: 0, max: 2 }) }), { minLength: 1, maxLength: 4 }),
          async (plan) => {
            const h = await opts.make();
            try {
              const attempts: { batchId: number; rows: Row[] }[] = [];
              for (const [batchId, step] of plan.entries()) {
                const rows = rowsFor(batchId, step.size, keySpace);
                for (let k = 0; k <= step.replays; k++) {
                  await h.sink.addBatch(batchId, rows, ctxFor(mode));
                  attempts.push({ batchId, rows });
                }
              }
              const want = expectedRows(mode, h.sink.signature !== 'at-least-once', attempts);
              expect(sorted(await h.readAll())).toEqual(sorted(want));
            } finally {
              await h.cleanup();
            }
          },
        ),
        { numRuns: opts.numRuns ?? 8, seed: opts.seed ?? 42 },
      );
    });

    if (opts.makeDown) {
      const makeDown = opts.makeDown;
      it('fails a batch with SinkError while the destination is down, then takes it once it is back', async () => {
        const h = await opts.make();
        const down = await makeDown();
        try {
          const rows = rowsFor(0, 3, keySpace);
          const err = await down.addBatch(0, rows, ctxFor(mode)).then(() => null, (e: unknown) => e);
          expect(err).toBeInstanceOf(SinkError);
          for (const s of opts.secrets ?? []) expect((err as Error).message).not.toContain(s);
          expect(await h.readAll()).toEqual([]);
          await h.sink.addBatch(0, rows, ctxFor(mode));
          expect(sorted(await h.readAll())).toEqual(sorted(rows));
        } finally {
          await down.close();
          await h.cleanup();
        }
      });
    }
  });
}
