/**
 * hll_sketch_agg and hll_union_agg through MicroBatchExecution: a memory source, a memory sink, a
 * checkpoint on disk, two batches in Update and Complete mode with a stop and a restart between
 * them. Each group's sketch is kept in state and goes on after the restart: its bytes are those of
 * one DataSketches sketch fed every row of the group in order, and its estimate is that sketch's.
 * Over a files source read by map tasks on two executors, the map tasks shuffle rows, not partial
 * sketches (whose merge would estimate differently), so the answer is the driver's.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { ManualClock } from '../clock';
import { MicroBatchExecution } from '../execution/micro-batch-execution';
import { ExecutorsTaskScheduler, recordingExecutors } from '../execution/testing/executors-task-scheduler';
import { AddData, CheckAnswer, StartStream, StopStream, testStream } from '../execution/testing/stream-test';
import { mustParse, tempDir } from '../execution/testing/test-fixtures';
import { hllEstimate, hllUpdateBytes, hllUpdateLong, newHllSketch } from '../query/hll-sketch';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import type { OutputMode, Row } from '../types';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

const SQL =
  'SELECT g, hll_sketch_estimate(hll_sketch_agg(n)) AS est, hex(hll_sketch_agg(n)) AS sk, hll_sketch_estimate(hll_union_agg(b)) AS u FROM events GROUP BY g';

let uniq = 0;
async function job(outputMode: OutputMode, parallelism: number) {
  const name = `hll-stream-${process.pid}-${uniq++}`;
  const checkpoint = await tempDir('hll-stream');
  roots.push(checkpoint);
  const spec = mustParse({
    name,
    source: {
      name: 'events', type: 'memory', options: { stream: name },
      schema: [{ name: 'g', type: 'string' }, { name: 'n', type: 'long' }, { name: 'b', type: 'binary' }],
    },
    sql: SQL,
    sink: { type: 'memory', options: { table: name } },
    outputMode,
    parallelism,
    trigger: { type: 'available-now' },
    checkpointLocation: checkpoint,
  });
  return { spec, stream: MemoryStream.named(name), table: MemorySinkTable.named(name) };
}

/** Rows of two groups; each carries a small sketch of its own (of lgConfigK 10) for hll_union_agg. */
function rows(from: number, count: number): Row[] {
  return Array.from({ length: count }, (_, k) => {
    const n = ((from + k) * 7919) % 5000;
    return { g: (from + k) % 3 === 0 ? 'a' : 'b', n, b: hllUpdateLong(newHllSketch(10), n % 700) };
  });
}

/** The answer of one sketch per group fed every added row in order (hll_union_agg's: of the rows' sketches). */
function expected(added: Row[]): Row[] {
  const groups = new Map<string, { sk: Uint8Array; u: Uint8Array }>();
  for (const r of added) {
    const g = groups.get(r.g as string) ?? { sk: newHllSketch(12), u: newHllSketch(10) };
    g.sk = hllUpdateLong(g.sk, r.n as number);
    g.u = hllUpdateLong(g.u, (r.n as number) % 700);
    groups.set(r.g as string, g);
  }
  return [...groups].map(([g, { sk, u }]) => ({
    g, est: Math.round(hllEstimate(sk)), sk: Buffer.from(sk).toString('hex').toUpperCase(), u: Math.round(hllEstimate(u)),
  }));
}

const latestByGroup = (out: Row[]) => [...new Map(out.map((r) => [r.g, r])).values()];

describe('hll_sketch_agg in a streaming aggregation with state', () => {
  for (const mode of ['update', 'complete'] as const) {
    for (const parallelism of [1, 2]) {
      it(`${mode}, parallelism ${parallelism}: two batches with a restart between, the sketch of every row`, async () => {
        const j = await job(mode, parallelism);
        await testStream(
          {
            spec: j.spec,
            clock: new ManualClock(Date.UTC(2024, 0, 1)),
            addData: async (r) => void j.stream.addRows(r),
            readAnswer: async () => (mode === 'update' ? latestByGroup(j.table.rows) : j.table.rows),
            expected,
          },
          [AddData(rows(0, 600)), CheckAnswer(), StopStream(), StartStream(), AddData(rows(600, 900)), CheckAnswer(), StopStream()],
        );
      });
    }
  }

  it('a sketch of strings keeps its SET table across the restart', async () => {
    const j = await job('complete', 1);
    const strings = (from: number, n: number) => Array.from({ length: n }, (_, k) => ({ g: 'a', n: from + k, b: null }));
    await testStream(
      {
        spec: { ...j.spec, sql: "SELECT g, hex(hll_sketch_agg(concat('v', n))) AS sk FROM events GROUP BY g" },
        clock: new ManualClock(0),
        addData: async (r) => void j.stream.addRows(r),
        readAnswer: async () => j.table.rows,
        expected: (added) => {
          let s = newHllSketch(12);
          for (const r of added) s = hllUpdateBytes(s, Buffer.from(`v${r.n as number}`));
          return [{ g: 'a', sk: Buffer.from(s).toString('hex').toUpperCase() }];
        },
      },
      [AddData(strings(0, 20)), CheckAnswer(), StopStream(), StartStream(), AddData(strings(20, 30)), CheckAnswer(), StopStream()],
    );
  });
});

describe('hll_sketch_agg over a files source in map tasks on two executors', () => {
  /** Each file's rows: values of two groups, some repeated across files. */
  const fileRows = (f: number) => Array.from({ length: 400 }, (_, k) => ({ g: k % 2 === 0 ? 'a' : 'b', n: (f * 300 + k * 13) % 2500 }));

  async function addFiles(dir: string, from: number, files: number) {
    for (let f = from; f < from + files; f++) await writeFile(path.join(dir, `part-${f}.json`), fileRows(f).map((r) => JSON.stringify(r)).join('\n') + '\n');
  }

  async function runTwice(dir: string, mapTasks: boolean) {
    const name = `hll-files-${process.pid}-${uniq++}`;
    const spec = mustParse({
      name,
      source: { name: 'events', type: 'files', options: { path: dir, format: 'json' }, schema: [{ name: 'g', type: 'string' }, { name: 'n', type: 'long' }] },
      sql: 'SELECT g, hex(hll_sketch_agg(n)) AS sk, hll_sketch_estimate(hll_sketch_agg(n)) AS est FROM events GROUP BY g',
      sink: { type: 'memory', options: { table: name } },
      outputMode: 'complete',
      trigger: { type: 'available-now' },
      checkpointLocation: `memory://${name}`,
      parallelism: 2,
    });
    const checkpoint = new InMemoryCheckpointFileManager();
    const partialFlags: unknown[] = [];
    const start = () => {
      const clock = new ManualClock(0);
      const executors = recordingExecutors(clock, partialFlags);
      let i = 0;
      const taskScheduler = mapTasks ? new ExecutorsTaskScheduler({ executors, spec, checkpoint, queryId: () => q.id, pick: () => i++, mapTasks: true }) : undefined;
      const q: MicroBatchExecution = new MicroBatchExecution({ spec, clock, checkpoint, taskScheduler });
      return { q, stop: async () => { await q.stop(); for (const e of executors) await e.close(); } };
    };
    await addFiles(dir, 0, 2);
    let run = start();
    await run.q.processAllAvailable();
    await run.stop();
    await addFiles(dir, 2, 2);
    run = start();
    await run.q.processAllAvailable();
    await run.stop();
    const rows = MemorySinkTable.named(name).rows;
    return { last: latestByGroup(rows).sort((x, y) => String(x.g).localeCompare(String(y.g))), partialFlags };
  }

  it('shuffles rows, not partial sketches: the same sketch as the driver reading the files, across a restart', async () => {
    const dirs = await Promise.all([0, 1].map(() => mkdtemp(path.join(tmpdir(), 'weir-hll-files-'))));
    roots.push(...dirs);
    const driver = await runTwice(dirs[0], false);
    const mapped = await runTwice(dirs[1], true);
    expect(mapped.partialFlags.length).toBeGreaterThanOrEqual(4);
    expect(mapped.partialFlags.every((f) => f === undefined)).toBe(true);
    expect(mapped.last).toEqual(driver.last);
    for (const r of mapped.last) {
      const values = [0, 1, 2, 3].flatMap(fileRows).filter((x) => x.g === r.g).map((x) => x.n);
      expect(Math.abs((r.est as number) / new Set(values).size - 1)).toBeLessThan(0.05);
    }
  });
});
