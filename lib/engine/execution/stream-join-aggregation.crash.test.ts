/**
 * The crash matrix over stateful operators chained into a join (Spark 3.5+'s chain in Append):
 * windowed counts of two streams joined on their window, the same as a LEFT JOIN (padded
 * windows come out when the watermark passes them), and a raw stream keyed by window(…) joined
 * with the other's windowed count. A run dies at each point of the write-ahead protocol of
 * several batches, a new run resumes from the checkpoint (aggregation and join state at their
 * committed versions, or some stores one ahead at mid-state-commit), and the sink (the memory
 * sink, and the files sink read back through its `_weir_metadata` log) ends with exactly the
 * uncrashed run's rows, each once.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { ManualClock } from '../clock';
import { CrashPointError } from '../errors';
import { readCommittedRows } from '../sinks/files-sink';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import { CRASH_POINTS, type CrashPlan } from './crash-points';
import { MicroBatchExecution } from './micro-batch-execution';
import { canonical } from './testing/stream-test';
import { mustParse, tempDir } from './testing/test-fixtures';

const MIN = 60_000;
const T0 = Date.UTC(2026, 0, 1);

const perWindow = (source: string, time: string) =>
  `(SELECT window(${time}, '10 minutes') AS w, count(*) AS n FROM ${source} GROUP BY window(${time}, '10 minutes'))`;

const QUERIES: Record<string, string> = {
  'windowed counts joined on the window': `SELECT a.w, a.n AS impressions, b.n AS clicks FROM ${perWindow('impressions', 'impressionTime')} a JOIN ${perWindow('clicks', 'clickTime')} b ON a.w = b.w`,
  'windowed counts, LEFT JOIN': `SELECT a.w, a.n AS impressions, b.n AS clicks FROM ${perWindow('impressions', 'impressionTime')} a LEFT JOIN ${perWindow('clicks', 'clickTime')} b ON a.w = b.w`,
  'a raw stream keyed by window joined with a windowed count': `SELECT c.w, c.clickId, c.clickTime, a.n AS impressions
    FROM (SELECT window(clickTime, '10 minutes') AS w, clickId, clickTime FROM clicks) c JOIN ${perWindow('impressions', 'impressionTime')} a ON c.w = a.w`,
};

/**
 * Minutes of each step's impressions and clicks: windows close over several batches, a click
 * comes late to a window still open, a window has impressions and no clicks (the LEFT JOIN pads
 * it). Each step is a data batch and then a no-data batch that moves the watermark (batch ids
 * 0 to 9); windows are released in batches 3, 5, 7 and 9.
 */
const STEPS: { impressions: number[]; clicks: number[] }[] = [
  { impressions: [1, 2, 12], clicks: [3, 15] },
  { impressions: [14, 23], clicks: [8, 24] },
  { impressions: [36, 27], clicks: [31, 38, 26] },
  { impressions: [52, 63], clicks: [55, 41] },
  { impressions: [80], clicks: [80] },
];

let n = 0;
const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

type SinkKind = 'memory' | 'files';

/** The job's sink, and how its committed rows are read back. */
async function sinkOf(kind: SinkKind, id: string): Promise<{ sink: Record<string, unknown>; rows: () => Promise<Record<string, unknown>[]> }> {
  if (kind === 'memory') return { sink: { type: 'memory', options: { table: id } }, rows: async () => MemorySinkTable.named(id).rows };
  const root = await tempDir('ssjoin-crash');
  roots.push(root);
  const output = path.join(root, 'out');
  return { sink: { type: 'files', options: { path: output, format: 'json' } }, rows: async () => (await readCommittedRows(output, 'json')).flatMap((b) => b.rows) };
}

/** Runs the steps on a fresh checkpoint, dying once where `crash` says and resuming; the sink's rows. */
async function runSteps(sql: string, kind: SinkKind, crash?: CrashPlan): Promise<{ rows: string[]; crashed: boolean }> {
  const id = `ssjoin-crash-${++n}-${process.pid}`;
  const sink = await sinkOf(kind, id);
  const spec = mustParse({
    name: id,
    sources: [
      { name: 'impressions', type: 'memory', options: { stream: `${id}-i` }, schema: [{ name: 'adId', type: 'long' }, { name: 'impressionTime', type: 'timestamp' }], eventTime: 'impressionTime', watermarkDelay: '5 minutes' },
      { name: 'clicks', type: 'memory', options: { stream: `${id}-c` }, schema: [{ name: 'clickId', type: 'long' }, { name: 'clickTime', type: 'timestamp' }], eventTime: 'clickTime', watermarkDelay: '5 minutes' },
    ],
    sql,
    sink: sink.sink,
    trigger: { type: 'available-now' },
    checkpointLocation: `memory://${id}`,
  });
  const impressions = MemoryStream.named(`${id}-i`);
  const clicks = MemoryStream.named(`${id}-c`);
  const checkpoint = new InMemoryCheckpointFileManager();
  const clock = new ManualClock(T0);
  const start = (plan?: CrashPlan) => new MicroBatchExecution({ spec, checkpoint, clock, crash: plan });
  let q = start(crash);
  let crashed = false;
  let next = 0;
  for (const step of STEPS) {
    impressions.addData(...step.impressions.map((m) => ({ adId: next++, impressionTime: T0 + m * MIN })));
    clicks.addData(...step.clicks.map((m) => ({ clickId: next++, clickTime: T0 + m * MIN })));
    const err = await q.processAllAvailable().then(() => undefined, (e: unknown) => e);
    if (err === undefined) continue;
    expect(err).toBeInstanceOf(CrashPointError);
    crashed = true;
    // A killed process cleans nothing up: the instance is abandoned, a new run takes the checkpoint.
    q = start();
    await q.processAllAvailable();
  }
  await q.stop();
  return { rows: canonical(await sink.rows()), crashed };
}

const CASES = Object.entries(QUERIES).flatMap(([name, sql]) => (['memory', 'files'] as const).map((kind) => ({ name, sql, kind })));

describe.each(CASES)('$name → $kind sink: crash at every point, restart, every row exactly once', ({ sql, kind }) => {
  let expected: string[] | undefined;
  const uncrashed = async () => (expected ??= (await runSteps(sql, kind)).rows);

  it('the uncrashed run answers each window once', async () => {
    const rows = await uncrashed();
    expect(rows.length).toBeGreaterThanOrEqual(5);
    expect(new Set(rows).size).toBe(rows.length);
    // The LEFT JOIN's window [60, 70) has impressions and no clicks: padded, once.
    expect(rows.filter((r) => r.includes('["clicks",null]'))).toHaveLength(sql.includes('LEFT JOIN') ? 1 : 0);
  });

  it.each(CRASH_POINTS.flatMap((point) => [2, 3, 5, 7].map((batchId) => ({ point, batchId }))))('crash at $point of batch $batchId', async (plan) => {
    const run = await runSteps(sql, kind, plan);
    expect(run.crashed).toBe(true);
    expect(run.rows).toEqual(await uncrashed());
  });
});
