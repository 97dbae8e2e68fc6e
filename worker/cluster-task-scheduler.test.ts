/**
 * The driver's side of cluster tasks, with the queue and the workers stood in for: inputs go out
 * as checkpoint blocks, each result is read from the block its completed attempt returned (a
 * zombie attempt's block is never read), results come back in partition order, the stage's blocks
 * are removed, and each task's figures wait for the batch's progress.
 */
import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager, type JobSpec, type Row } from '@/lib/engine';
import { ClusterTaskScheduler } from './cluster-task-scheduler';
import { attemptOutput, checkPayloadVersion, mapOutputBlock, readBlock, readReduceTaskOutput, reduceTaskOutput, TASK_PAYLOAD_VERSION, writeBlock, type MapTaskOutcome, type ReduceTaskOutcome, type ReduceTaskPayload, type TaskOutcome, type TaskPayload } from './shuffle';

const task = (partitionId: number, rows: Row[]) => ({ batchId: 3, stageId: 1, operatorId: 0, partitionId, batchWatermarkMs: 0, batchTimestampMs: 0, inputs: [rows] });

describe('ClusterTaskScheduler', () => {
  it('reads only the completed attempt’s output, in partition order, and removes the stage’s blocks', async () => {
    const cp = new InMemoryCheckpointFileManager();
    const seen: ReduceTaskPayload[] = [];
    const submit = async (sent: TaskPayload[]): Promise<ReduceTaskOutcome[]> => {
      const payloads = sent as ReduceTaskPayload[];
      seen.push(...payloads);
      expect(await cp.list(payloads[0].outputDir)).toEqual(['0.in', '1.in']);
      const outcomes: ReduceTaskOutcome[] = [];
      for (const p of [...payloads].reverse()) {
        const { value: inputs } = await readBlock<Row[][]>(cp, p.input as string);
        // A first attempt that its worker lost: it wrote a block of its own, wrong on purpose.
        await writeBlock(cp, attemptOutput(p), [{ zombie: true }]);
        const output = attemptOutput(p);
        await writeBlock(cp, output, inputs[0].map((r) => ({ ...r, p: p.task.partitionId })));
        outcomes.unshift({ output, workerId: `w${p.task.partitionId}`, inputRows: inputs[0].length, rows: inputs[0].length, shuffleBytes: 10, durationMs: 5, attempt: 2 });
      }
      return outcomes;
    };
    const source = { name: 'events', type: 'postgres', options: { connectionString: 'postgres://u:secret@db/x' }, schema: [] };
    const spec = { checkpointLocation: 'memory://x', source, sources: [source], sink: { type: 'kafka', options: { 'kafka.sasl.password': 'secret' } } } as unknown as JobSpec;
    const s = new ClusterTaskScheduler({ spec, checkpoint: cp, queryId: () => 'q', submit });
    const results = await s.submitTasks([task(1, [{ k: 'b' }]), task(0, [{ k: 'a' }, { k: 'c' }])]);
    expect(results.map((r) => r.rows)).toEqual([[{ k: 'a', p: 0 }, { k: 'c', p: 0 }], [{ k: 'b', p: 1 }]]);
    const tasks = s.takeTasks();
    // The same stage again at once (a re-run of the batch, its blocks in the same directory): the
    // first run's blocks, deleted after it returned, are gone before it writes its own.
    expect((await s.submitTasks([task(1, [{ k: 'b' }]), task(0, [{ k: 'a' }, { k: 'c' }])])).map((r) => r.rows)).toEqual(results.map((r) => r.rows));
    seen.splice(2);
    expect(s.takeTasks()).toHaveLength(2);
    expect(seen.map((p) => [p.queryId, p.numPartitions, p.task.partitionId])).toEqual([['q', 2, 1], ['q', 2, 0]]);
    expect(seen.every((p) => !('inputs' in p.task))).toBe(true);
    expect(seen.every((p) => p.version === TASK_PAYLOAD_VERSION)).toBe(true);
    // The queue never holds the job's credentials: the task's spec has no source or sink options.
    expect(JSON.stringify(seen)).not.toContain('secret');
    expect(seen[0].spec.checkpointLocation).toBe('memory://x');
    // Deleted after the stage returned, before the next stage starts.
    await s.idle();
    expect(await cp.list(seen[0].outputDir)).toEqual([]);
    expect(tasks.map((t) => [t.partitionId, t.workerId, t.attempt])).toEqual([[1, 'w1', 2], [0, 'w0', 2]]);
    expect(s.takeTasks()).toEqual([]);
  });

  it('sends the reduce tasks only once offsets/N is written, and none when its write fails', async () => {
    for (const outcome of ['written', 'failed'] as const) {
      const cp = new InMemoryCheckpointFileManager();
      const sent: string[] = [];
      let write!: { resolve: () => void; reject: (e: Error) => void };
      const offsetsLogged = new Promise<void>((resolve, reject) => (write = { resolve, reject }));
      const submit = async (payloads: TaskPayload[]): Promise<TaskOutcome[]> =>
        payloads.map((p) => {
          sent.push(p.kind ?? 'reduce');
          if (p.kind === 'map') {
            // The map stage is done: now offsets/N's write settles.
            setTimeout(() => (outcome === 'written' ? write.resolve() : write.reject(new Error('offsets/3: disk full'))), 20);
            return { attemptId: 'a', status: { mapId: 0, numInputRows: 0, badRecords: [], expressionErrors: [], warnings: [], partitionRows: [0] }, workerId: 'w', inputRows: 0, rows: 0, shuffleBytes: 0, durationMs: 1, attempt: 1 } satisfies MapTaskOutcome;
          }
          sent.push(`offsets ${settled}`);
          return { directResult: Buffer.from(serialize([])).toString('base64'), workerId: 'w', inputRows: 0, rows: 0, shuffleBytes: 0, durationMs: 1, attempt: 1 };
        });
      let settled = 'pending';
      offsetsLogged.then(() => (settled = 'written'), () => (settled = 'failed'));
      const spec = { checkpointLocation: 'memory://x', sources: [], sink: { type: 'memory', options: {} } } as unknown as JobSpec;
      const s = new ClusterTaskScheduler({ spec, checkpoint: cp, queryId: () => 'q', submit });
      const mapTask = { batchId: 3, stageId: 1, operatorId: 0, mapId: 0, start: null, end: 1, batchWatermarkMs: 0, batchTimestampMs: 0 };
      const { inputs: _, ...reduceTask } = task(0, []);
      const stage = s.submitMapStage([mapTask], [reduceTask], offsetsLogged);
      if (outcome === 'written') {
        await stage;
        expect(sent).toEqual(['map', 'reduce', 'offsets written']);
      } else {
        await expect(stage).rejects.toThrow('offsets/3: disk full');
        expect(sent).toEqual(['map']);
      }
    }
  });

  it('takes a small output from the task’s outcome and a larger one from its block, values intact (Spark’s direct and indirect results)', async () => {
    const cp = new InMemoryCheckpointFileManager();
    const written: string[] = [];
    const rowsOf = (p: ReduceTaskPayload): Row[] =>
      Array.from({ length: p.task.partitionId === 0 ? 3 : 5_000 }, (_, i) => ({ i, at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)), n: 2n ** 60n + BigInt(i), p: p.task.partitionId }));
    const submit = async (sent: TaskPayload[]): Promise<ReduceTaskOutcome[]> =>
      Promise.all(
        (sent as ReduceTaskPayload[]).map(async (p) => {
          // The worker's own path (task-worker.ts): a zombie attempt's rows first, then the completed one's.
          await reduceTaskOutput(cp, p, [{ zombie: true }]);
          const { bytes, ...output } = await reduceTaskOutput(cp, p, rowsOf(p));
          if ('output' in output) written.push(output.output);
          return { ...output, workerId: 'w', inputRows: 0, rows: 0, shuffleBytes: bytes, durationMs: 1, attempt: 1 };
        }),
      );
    const spec = { checkpointLocation: 'memory://x', sources: [], sink: { type: 'memory', options: {} } } as unknown as JobSpec;
    const s = new ClusterTaskScheduler({ spec, checkpoint: cp, queryId: () => 'q', submit });
    const results = await s.submitTasks([task(0, []), task(1, [])]);
    const want = (partitionId: number) => rowsOf({ task: { partitionId } } as ReduceTaskPayload);
    expect(results.map((r) => r.rows)).toEqual([want(0), want(1)]);
    // Partition 0's three rows came in the outcome; partition 1's 5,000 through a block.
    expect(written).toHaveLength(1);
    expect(written[0]).toContain('/1.out.');
    // A payload from a driver that does not take direct results: always a block.
    const { bytes, ...old } = await reduceTaskOutput(cp, { outputDir: 'shuffle/9/1/d', task: task(0, []) }, want(0));
    expect(Object.keys(old)).toEqual(['output']);
    expect(await readReduceTaskOutput(cp, old)).toEqual(want(0));
    expect(bytes).toBeGreaterThan(0);
  });

  it('hands the driver the commit message of each task that wrote the sink (no output block), with its rows counted', async () => {
    const cp = new InMemoryCheckpointFileManager();
    const submit = async (sent: TaskPayload[]): Promise<ReduceTaskOutcome[]> =>
      (sent as ReduceTaskPayload[]).map((p) => {
        expect(p.task.writesSink).toBe(true);
        const message = [{ path: `part-00003-0000${p.task.partitionId}-a.json` }];
        return { sinkCommit: { message, numOutputRows: 2, expressionErrors: [] }, workerId: 'w', inputRows: 1, rows: 2, shuffleBytes: 1, durationMs: 1, attempt: 1 };
      });
    const spec = { checkpointLocation: 'memory://x', sources: [], sink: { type: 'files', options: {} } } as unknown as JobSpec;
    const s = new ClusterTaskScheduler({ spec, checkpoint: cp, queryId: () => 'q', submit });
    expect(s.tasksWriteSink).toBe(true);
    const results = await s.submitTasks([1, 0].map((p) => ({ ...task(p, [{ k: p }]), writesSink: true })));
    expect(results.map((r) => [r.partitionId, r.rows, r.sinkCommit?.message])).toEqual([
      [0, [], [{ path: 'part-00003-00000-a.json' }]],
      [1, [], [{ path: 'part-00003-00001-a.json' }]],
    ]);
    expect(s.takeTasks().map((t) => t.rows)).toEqual([2, 2]);
  });

  it('runs the map tasks, then each reduce task over its partition’s block of every completed map attempt, in map order', async () => {
    const cp = new InMemoryCheckpointFileManager();
    const reduceInputs: string[][] = [];
    const submit = async (payloads: TaskPayload[]): Promise<TaskOutcome[]> => {
      const out: TaskOutcome[] = [];
      for (const p of payloads) {
        if (p.kind === 'map') {
          const { mapId } = p.task;
          // A zombie attempt wrote its blocks too; the completed attempt is 'good'.
          await writeBlock(cp, mapOutputBlock(p.outputDir, mapId, 'zombie', 0), [{ zombie: true }]);
          await writeBlock(cp, mapOutputBlock(p.outputDir, mapId, 'good', 0), [{ m: mapId }]);
          if (mapId === 0) await writeBlock(cp, mapOutputBlock(p.outputDir, mapId, 'good', 1), [{ m: mapId, p: 1 }]);
          const status = { mapId, numInputRows: 3, badRecords: [], expressionErrors: [], warnings: [], partitionRows: mapId === 0 ? [1, 1] : [1, 0] };
          out.push({ attemptId: 'good', status, workerId: 'w', inputRows: 3, rows: 2, shuffleBytes: 1, durationMs: 1, attempt: 1 } satisfies MapTaskOutcome);
          continue;
        }
        const { mapOutputs } = p.input as { mapOutputs: string[] };
        reduceInputs.push(mapOutputs.map((b) => b.slice(p.outputDir.length + 1)));
        const rows: Row[] = [];
        for (const b of mapOutputs) rows.push(...(await readBlock<Row[]>(cp, b)).value);
        const output = attemptOutput(p);
        await writeBlock(cp, output, rows);
        out.push({ output, workerId: 'w', inputRows: rows.length, rows: rows.length, shuffleBytes: 1, durationMs: 1, attempt: 1 });
      }
      return out;
    };
    const source = { name: 'events', type: 'memory', options: {}, schema: [] };
    const spec = { checkpointLocation: 'memory://x', source, sources: [source], sink: { type: 'memory', options: {} } } as unknown as JobSpec;
    const s = new ClusterTaskScheduler({ spec, checkpoint: cp, queryId: () => 'q', submit });
    const common = { batchId: 3, stageId: 1, operatorId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 };
    const { statuses, results } = await s.submitMapStage(
      [0, 1].map((mapId) => ({ ...common, mapId, start: mapId, end: mapId + 1 })),
      [0, 1].map((partitionId) => ({ ...common, partitionId })),
    );
    expect(statuses.map((st) => st.mapId)).toEqual([0, 1]);
    expect(reduceInputs).toEqual([['map-0.good.0', 'map-1.good.0'], ['map-0.good.1']]);
    expect(results.map((r) => r.rows)).toEqual([[{ m: 0 }, { m: 1 }], [{ m: 0, p: 1 }]]);
    expect(s.takeTasks().map((t) => [t.kind ?? 'reduce', t.partitionId])).toEqual([['map', 0], ['map', 1], ['reduce', 0], ['reduce', 1]]);
  });
});

describe('checkPayloadVersion', () => {
  it('runs this version’s payloads and older ones, and refuses a newer driver’s with the way out', () => {
    expect(() => checkPayloadVersion({ version: TASK_PAYLOAD_VERSION })).not.toThrow();
    expect(() => checkPayloadVersion({})).not.toThrow();
    expect(() => checkPayloadVersion({ version: TASK_PAYLOAD_VERSION + 1 })).toThrow(/newer Weir .*upgrade this worker/);
  });

  it("names each partition's last worker as its reduce task's preferred location, each worker for at most its share of the stage, the rest spread", async () => {
    const cp = new InMemoryCheckpointFileManager();
    const sent: ReduceTaskPayload[][] = [];
    // Where each stage's tasks run: by partition.
    let runOn: string[] = [];
    const submit = async (payloads: TaskPayload[]): Promise<ReduceTaskOutcome[]> => {
      sent.push(payloads as ReduceTaskPayload[]);
      return Promise.all(
        (payloads as ReduceTaskPayload[]).map(async (p) => {
          const output = attemptOutput(p);
          await writeBlock(cp, output, []);
          return { output, workerId: runOn[p.task.partitionId], inputRows: 0, rows: 0, shuffleBytes: 0, durationMs: 1, attempt: 1 };
        }),
      );
    };
    const spec = { checkpointLocation: 'memory://x', sources: [], sink: { type: 'memory', options: {} } } as unknown as JobSpec;
    const s = new ClusterTaskScheduler({ spec, checkpoint: cp, queryId: () => 'q', submit });
    const stage = (batchId: number) => [0, 1, 2, 3].map((p) => ({ ...task(p, []), batchId }));
    const preferred = () => sent.at(-1)!.map((p) => p.preferredLocation);
    // A new driver knows no partition's worker.
    runOn = ['a', 'b', 'a', 'b'];
    await s.submitTasks(stage(0));
    expect(preferred()).toEqual([undefined, undefined, undefined, undefined]);
    runOn = ['a', 'a', 'a', 'b'];
    await s.submitTasks(stage(1));
    expect(preferred()).toEqual(['a', 'b', 'a', 'b']);
    // Three partitions last ran on a: two workers known, so a is preferred by two of the four,
    // and the third is offered to b, which has room, rather than to whichever worker is quicker.
    await s.submitTasks(stage(2));
    expect(preferred()).toEqual(['a', 'a', 'b', 'b']);
    // A stage's partitions no task ran yet are spread over the workers known.
    await s.submitTasks([0, 1, 2, 3].map((p) => ({ ...task(p, []), stageId: 2, batchId: 3 })));
    expect(preferred()).toEqual(['a', 'b', 'a', 'b']);
  });
});

