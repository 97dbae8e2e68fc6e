/**
 * The pipelined stage (QueryRuntime.runPipelinedStage: the source hands its rows over in pieces,
 * each going through the row-at-a-time operators and into the first stateful operator's fold
 * as it is read) must not change a run: the same random JSON-lines files (typed, NULL, wrongly
 * typed, malformed, blank, without event time, and long runs of rows so that a batch spans
 * several pieces and a piece ends anywhere in a file) and the same query run twice through
 * MicroBatchExecution, once with the files source reading in pieces and once with the same
 * source reading each batch whole. Every batch's output rows, numInputRows, event times,
 * watermark and bad-record count, every dead-lettered record, and under onBadRecord "fail" the
 * error and what was committed, must be equal.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalCheckpointFileManager } from '../checkpoint/local-checkpoint-file-manager';
import { ManualClock } from '../clock';
import type { StreamingQueryProgress } from '../progress';
import { MemorySinkTable } from '../sinks/memory-sink';
import type { Row, Schema } from '../types';
import { MicroBatchExecution } from './micro-batch-execution';
import { compileQuery, createSource } from './query-runtime';
import { mustParse } from './testing/test-fixtures';
import { propertyRuns } from '@/lib/testing/property-runs';

const SCHEMA: Schema = [
  { name: 'k', type: 'long' },
  { name: 'cat', type: 'string' },
  { name: 'v', type: 'double' },
  { name: 'ts', type: 'timestamp' },
];

const QUERIES = [
  // A stream-static join, then count and sum per (group, tumbling window): the tuple fold.
  { sql: "SELECT c.grp, window(e.ts, '10 seconds') AS w, count(*) AS n, sum(e.v) AS s FROM ev e JOIN codes c ON e.cat = c.cat WHERE e.k > 1 GROUP BY c.grp, window(e.ts, '10 seconds')", outputMode: 'update' },
  // One key, numbers only: the columnar fold by value.
  { sql: 'SELECT cat, count(*) AS n, max(v) AS m, avg(v) AS a FROM ev WHERE k IS NOT NULL GROUP BY cat', outputMode: 'update' },
  // count(*) alone by one key: the counting fold; the file each row came from.
  { sql: 'SELECT input_file_name() AS f, count(*) AS n FROM ev GROUP BY input_file_name()', outputMode: 'update' },
  // Append: a window is emitted once the watermark passes it, so a wrong watermark shows.
  { sql: "SELECT window(ts, '10 seconds') AS w, count(*) AS n, sum(v) AS s FROM ev WHERE cat <> 'b' GROUP BY window(ts, '10 seconds')", outputMode: 'append' },
  // Sliding windows through a projection: the general fold.
  { sql: "SELECT window(t, '10 seconds', '5 seconds') AS w, g, collect_set(k) AS ks FROM (SELECT ts AS t, upper(cat) AS g, k FROM ev) GROUP BY window(t, '10 seconds', '5 seconds'), g", outputMode: 'update' },
];

const line = fc.oneof(
  { weight: 6, arbitrary: fc.record({
    k: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }),
    cat: fc.constantFrom('a', 'b', 'ab', null),
    v: fc.option(fc.integer({ min: -4, max: 4 }).map((n) => n / 2), { nil: null }),
    dt: fc.integer({ min: 0, max: 8_000 }),
  }) },
  // Many rows at once: a batch of several pieces, a piece ending anywhere.
  { weight: 1, arbitrary: fc.record({ run: fc.integer({ min: 1, max: 9_000 }) }) },
  { weight: 1, arbitrary: fc.constant({ bad: '{"k":"seven","cat":"a","v":1,"ts":1}' }) },
  { weight: 1, arbitrary: fc.constant({ bad: '{"k": 1, "cat": ' }) },
  { weight: 1, arbitrary: fc.constant({ bad: '   ' }) },
  { weight: 1, arbitrary: fc.constant({ bad: '{"k":3,"cat":"b","v":2}' }) },
);

let root: string;
let codes: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'weir-pipelined-'));
  codes = path.join(root, 'codes.json');
  await writeFile(codes, ['{"cat":"a","grp":"x"}', '{"cat":"ab","grp":"x"}', '{"cat":"b","grp":"y"}', '{"cat":"b","grp":"z"}'].join('\n') + '\n');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

interface Outcome {
  batches: { rows: Row[]; numInputRows: number; eventTime: unknown; watermark: unknown; numBadRecords: number }[];
  dead: unknown[];
  error?: string;
  committed: string[];
  /** Everything the sink holds (a failed run's last committed batch may not have reported its progress yet). */
  sink: Row[];
}

let runs = 0;
async function runOnce(input: string, q: { sql: string; outputMode: string }, onBadRecord: string, pieces: number[] | null): Promise<Outcome> {
  const id = runs++;
  const table = `pipelined-${process.pid}-${id}`;
  const badRecordsPath = path.join(root, `bad-${id}`);
  const spec = mustParse({
    name: 'pipelined',
    source: { name: 'ev', type: 'files', options: { path: input, format: 'json', maxFilesPerTrigger: 2 }, schema: SCHEMA, eventTime: 'ts', watermarkDelay: '5 seconds', onBadRecord, ...(onBadRecord === 'dead-letter' ? { badRecordsPath } : {}) },
    staticTables: [{ name: 'codes', path: codes, format: 'json', schema: [{ name: 'cat', type: 'string' }, { name: 'grp', type: 'string' }] }],
    sql: q.sql,
    sink: { type: 'memory', options: { table } },
    outputMode: q.outputMode,
    trigger: { type: 'available-now' },
    checkpointLocation: path.join(root, `cp-${id}`),
  });
  const checkpoint = new LocalCheckpointFileManager(spec.checkpointLocation);
  const clock = new ManualClock(Date.UTC(2024, 5, 1));
  // The source the runtime would build (the pushed filter, the columns read), read in pieces or whole.
  const source = createSource(spec, 0, compileQuery(spec, 1), { checkpoint, clock, queryId: `q-${id}` });
  const inPieces = source.getBatchInPieces!.bind(source);
  source.getBatchInPieces = pieces === null
    ? undefined
    : (start, end, onRows) => inPieces(start, end, (rows) => {
        pieces.push(rows.length);
        return onRows(rows);
      });
  const progress: StreamingQueryProgress[] = [];
  const exec = new MicroBatchExecution({ spec, checkpoint, clock, source, onProgress: (p) => void progress.push(p) });
  const out: Outcome = { batches: [], dead: [], committed: [], sink: [] };
  try {
    await exec.processAllAvailable().catch((e: Error) => (out.error = `${e.name}: ${e.message}`));
    let seen = 0;
    const rows = MemorySinkTable.named(table).rows as Row[];
    out.sink = rows;
    // onProgress follows a batch's commit in the background: after a failure the list may lack the last one.
    for (const p of out.error === undefined ? progress : []) {
      out.batches.push({ rows: rows.slice(seen, seen + p.sink.numOutputRows), numInputRows: p.numInputRows, eventTime: p.eventTime, watermark: p.eventTime?.watermark, numBadRecords: p.numBadRecords });
      seen += p.sink.numOutputRows;
    }
    out.committed = (await readdir(path.join(spec.checkpointLocation, 'commits')).catch(() => [] as string[])).filter((f) => !f.startsWith('.')).sort();
    const dir = path.join(badRecordsPath, exec.id);
    for (const f of (await readdir(dir).catch(() => [] as string[])).sort()) {
      for (const l of (await readFile(path.join(dir, f), 'utf8')).split('\n').filter(Boolean)) {
        const d = JSON.parse(l) as Record<string, unknown>;
        out.dead.push({ batchId: d.batchId, line: d.line, record: d.record, reason: d.reason, source: d.source });
      }
    }
  } finally {
    await exec.stop().catch(() => undefined);
    MemorySinkTable.drop(table);
  }
  return out;
}

describe('the pipelined stage', () => {
  it('gives every batch the rows, input counts, watermarks, bad records and failures of the whole-batch run (property)', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(line, { maxLength: 10 }), { minLength: 1, maxLength: 4 }),
        // Rows ahead of the first file's: enough that the first batch's kept rows make two pieces or more.
        fc.integer({ min: 7_000, max: 9_000 }),
        fc.constantFrom(...QUERIES),
        fc.constantFrom('dead-letter', 'fail'),
        async (files, lead, query, onBadRecord) => {
          files[0] = [{ run: lead }, ...files[0]];
          const input = path.join(root, `in-${n++}`);
          await mkdir(input);
          let t = 100_000;
          for (let f = 0; f < files.length; f++) {
            const text: string[] = [];
            for (const r of files[f]) {
              if ('bad' in r) text.push(r.bad);
              else if ('run' in r) {
                for (let i = 0; i < r.run; i++) text.push(JSON.stringify({ k: i % 6, cat: ['a', 'b', 'ab'][i % 3], v: (i % 9) - 4, ts: (t += 3) - (i % 700) }));
              } else {
                const { dt, ...rest } = r;
                text.push(JSON.stringify({ ...rest, ts: (t += 1_500) - dt }));
              }
            }
            await writeFile(path.join(input, `part-${f}.json`), text.join('\n') + '\n');
          }
          const pieces: number[] = [];
          const piecewise = await runOnce(input, query, onBadRecord, pieces);
          const whole = await runOnce(input, query, onBadRecord, null);
          expect(piecewise).toEqual(whole);
          // The comparison says something only if a batch was read in several pieces.
          expect(pieces.length).toBeGreaterThan(1);
          expect(Math.max(...pieces)).toBeLessThanOrEqual(4096);
        },
      ),
      { numRuns: propertyRuns(10, 40) },
    );
  }, 600_000);
});
