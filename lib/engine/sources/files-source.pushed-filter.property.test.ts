/**
 * The files source applying the query's pushed filter (PushedFilters) must not change a run:
 * the same random JSON lines (typed, NULL, wrongly typed, malformed, blank) and the same random
 * WHERE run twice through MicroBatchExecution, once with the filter pushed into the source and
 * once with the same source built without it (the Filter alone drops the rows). Every batch's
 * output rows, numInputRows, event times and watermark, and every dead-lettered record (line,
 * raw text, reason) must be equal. The windowed append-mode query only emits a window once the
 * watermark passes it, so a watermark folded over the kept rows only would show.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalCheckpointFileManager } from '../checkpoint/local-checkpoint-file-manager';
import { ManualClock } from '../clock';
import { MicroBatchExecution } from '../execution/micro-batch-execution';
import { relationsOf } from '../execution/query-runtime';
import { mustParse } from '../execution/testing/test-fixtures';
import type { StreamingQueryProgress } from '../progress';
import { compileStreamingQuery } from '../query/streaming-query';
import { MemorySinkTable } from '../sinks/memory-sink';
import type { Row, Schema } from '../types';
import { FilesSource } from './files-source';
import { propertyRuns } from '@/lib/testing/property-runs';

const SCHEMA: Schema = [
  { name: 'k', type: 'long' },
  { name: 'cat', type: 'string' },
  { name: 'v', type: 'double' },
  { name: 'junk', type: 'string' },
  { name: 'ts', type: 'timestamp' },
];

const WHERES = [
  'k > 2',
  "cat = 'a' OR v < 0",
  'k IS NULL',
  "cat <> 'b' AND k BETWEEN 1 AND 3",
  'k IN (1, 4) AND v IS NOT NULL',
  "NOT (cat = 'a')",
  "CASE WHEN k > 3 THEN cat = 'b' ELSE v >= 1 END",
  "cat LIKE 'a%'",
];

const QUERIES = [
  (w: string) => ({ sql: `SELECT k, cat, v * 2 AS v2, ts FROM ev WHERE ${w}`, outputMode: 'append' }),
  (w: string) => ({ sql: `SELECT window(ts, '10 seconds') AS w, count(*) AS n, sum(v) AS s FROM ev WHERE ${w} GROUP BY window(ts, '10 seconds')`, outputMode: 'append' }),
  (w: string) => ({ sql: `SELECT cat, count(*) AS n FROM ev WHERE ${w} GROUP BY cat`, outputMode: 'update' }),
];

const line = fc.oneof(
  { weight: 6, arbitrary: fc.record({
    k: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }),
    cat: fc.constantFrom('a', 'b', 'ab', null),
    v: fc.option(fc.integer({ min: -4, max: 4 }).map((n) => n / 2), { nil: null }),
    junk: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()),
    dt: fc.integer({ min: 0, max: 8_000 }),
  }) },
  // A wrongly typed column the filter reads, and a malformed line: both dead-lettered.
  { weight: 1, arbitrary: fc.constant({ bad: '{"k":"seven","cat":"a","v":1,"junk":"","ts":1}' }) },
  { weight: 1, arbitrary: fc.constant({ bad: '{"k": 1, "cat": ' }) },
  { weight: 1, arbitrary: fc.constant({ bad: '   ' }) },
  // No event time: does not move the watermark.
  { weight: 1, arbitrary: fc.constant({ bad: '{"k":3,"cat":"b","v":2}' }) },
);

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'weir-pushed-filter-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

interface Outcome {
  batches: { rows: Row[]; numInputRows: number; eventTime: unknown; numBadRecords: number }[];
  dead: unknown[];
}

let runs = 0;
async function runOnce(input: string, q: { sql: string; outputMode: string }, pushed: boolean): Promise<Outcome> {
  const id = runs++;
  const table = `pushed-filter-${process.pid}-${id}`;
  const badRecordsPath = path.join(root, `bad-${id}`);
  const spec = mustParse({
    name: 'pushed-filter',
    source: { name: 'ev', type: 'files', options: { path: input, format: 'json', maxFilesPerTrigger: 1 }, schema: SCHEMA, eventTime: 'ts', watermarkDelay: '5 seconds', onBadRecord: 'dead-letter', badRecordsPath },
    sql: q.sql,
    sink: { type: 'memory', options: { table } },
    outputMode: q.outputMode,
    trigger: { type: 'available-now' },
    checkpointLocation: path.join(root, `cp-${id}`),
  });
  const compiled = compileStreamingQuery(spec.sql, relationsOf(spec), { outputMode: spec.outputMode });
  // The scenario must exercise the pushed path, or the comparison says nothing.
  expect(compiled.scanFilter).toBeDefined();
  const checkpoint = new LocalCheckpointFileManager(spec.checkpointLocation);
  const source = pushed
    ? undefined
    : new FilesSource(
        { path: input, format: 'json', header: true, maxFilesPerTrigger: 1 },
        { name: 'ev', schema: SCHEMA, requiredColumns: compiled.sourceColumns, eventTime: 'ts', checkpoint, metadataPath: 'sources/0', clock: new ManualClock() },
      );
  const progress: StreamingQueryProgress[] = [];
  const exec = new MicroBatchExecution({ spec, checkpoint, clock: new ManualClock(Date.UTC(2024, 5, 1)), source, onProgress: (p) => void progress.push(p) });
  const out: Outcome = { batches: [], dead: [] };
  try {
    await exec.processAllAvailable();
    let seen = 0;
    const rows = MemorySinkTable.named(table).rows as Row[];
    for (const p of progress) {
      out.batches.push({ rows: rows.slice(seen, seen + p.sink.numOutputRows), numInputRows: p.numInputRows, eventTime: p.eventTime, numBadRecords: p.numBadRecords });
      seen += p.sink.numOutputRows;
    }
    const dir = path.join(badRecordsPath, exec.id);
    const files = await readdir(dir).catch(() => [] as string[]);
    for (const f of files.sort()) {
      for (const l of (await readFile(path.join(dir, f), 'utf8')).split('\n').filter(Boolean)) {
        const d = JSON.parse(l) as Record<string, unknown>;
        out.dead.push({ batchId: d.batchId, line: d.line, record: d.record, reason: d.reason, source: d.source });
      }
    }
  } finally {
    await exec.stop();
    MemorySinkTable.drop(table);
  }
  return out;
}

describe('files source with a pushed filter', () => {
  it('gives every batch the rows, input counts, watermarks and dead letters of the unpushed run (property)', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(line, { maxLength: 12 }), { minLength: 1, maxLength: 3 }),
        fc.constantFrom(...WHERES),
        fc.constantFrom(...QUERIES),
        async (files, where, query) => {
          const input = path.join(root, `in-${n++}`);
          await mkdir(input);
          let t = 100_000;
          for (let f = 0; f < files.length; f++) {
            const text = files[f].map((r) => {
              if ('bad' in r) return r.bad;
              const { dt, ...rest } = r;
              return JSON.stringify({ ...rest, ts: (t += 1_500) - dt });
            });
            await writeFile(path.join(input, `part-${f}.json`), text.join('\n') + '\n');
          }
          const q = query(where);
          const withPush = await runOnce(input, q, true);
          const without = await runOnce(input, q, false);
          expect(withPush).toEqual(without);
        },
      ),
      { numRuns: propertyRuns(8, 30) },
    );
  }, 240_000);
});
