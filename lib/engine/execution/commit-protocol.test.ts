/**
 * The commit protocol of a stateful batch, as MicroBatchExecution runs it: the stateful operators
 * hear onCommitted(N+1) only once the sink has the batch and the state stores are at N+1, and
 * onAborted (never onCommitted) when the sink write fails; commits/N follows the confirmation.
 * A sink that is down for one batch stands in for the incident: the no-data batch that closes a
 * window fails, and the restart must still close it.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { CommitLog } from '../checkpoint/commit-log';
import { LocalCheckpointFileManager } from '../checkpoint/local-checkpoint-file-manager';
import { StatefulAggregateExec } from '../operators/aggregate';
import { MemorySink, MemorySinkTable } from '../sinks/memory-sink';
import type { SinkBatchContext } from '../sinks/sink';
import { MemoryStream } from '../sources/memory-source';
import type { StateStoreProviderName } from '../spec/job-spec';
import type { Row } from '../types';
import { MicroBatchExecution } from './micro-batch-execution';
import { mustParse, tempDir } from './testing/test-fixtures';

const MIN = 60_000;
const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});
afterEach(() => vi.restoreAllMocks());

/** The memory sink, failing the first write of `failBatch`; every completed write is logged. */
class FlakySink extends MemorySink {
  private failed = false;
  constructor(
    table: MemorySinkTable,
    private readonly events: string[],
    private readonly failBatch?: number,
  ) {
    super(table);
  }

  override async addBatch(batchId: number, rows: Row[], ctx: SinkBatchContext): Promise<void> {
    if (batchId === this.failBatch && !this.failed) {
      this.failed = true;
      this.events.push(`sink failed ${batchId}`);
      throw new Error(`sink down at batch ${batchId}`);
    }
    await super.addBatch(batchId, rows, ctx);
    this.events.push(`sink ${batchId}`);
  }
}

let uniq = 0;
describe.each(['hdfs', 'lmdb'] as StateStoreProviderName[])('commit protocol with a stateful operator (%s state)', (provider) => {
  it('onCommitted follows the sink write and the state commit; a failed sink write aborts, and the restart closes the window', async () => {
    const name = `commit-protocol-${process.pid}-${uniq++}`;
    const checkpoint = await tempDir('commit-protocol');
    const stateLocalDir = await tempDir('commit-protocol-local');
    roots.push(checkpoint, stateLocalDir);
    const spec = mustParse({
      name,
      source: { name: 'events', type: 'memory', options: { stream: name }, schema: [{ name: 'ts', type: 'timestamp' }], eventTime: 'ts', watermarkDelay: '5 minutes' },
      sql: "SELECT window(ts, '10 minutes') AS w, count(*) AS n FROM events GROUP BY window(ts, '10 minutes')",
      sink: { type: 'memory', options: { table: name } },
      outputMode: 'append',
      trigger: { type: 'available-now' },
      checkpointLocation: checkpoint,
      stateStore: { provider },
    });
    const events: string[] = [];
    vi.spyOn(StatefulAggregateExec.prototype, 'onCommitted').mockImplementation(function (this: StatefulAggregateExec, version: number) {
      // commits/N (N = version - 1) is written after the operators confirmed, never before.
      events.push(`onCommitted ${version}${existsSync(path.join(checkpoint, 'commits', String(version - 1))) ? ' (commits written already)' : ''}`);
      return onCommitted.call(this, version);
    });
    vi.spyOn(StatefulAggregateExec.prototype, 'onAborted').mockImplementation(function (this: StatefulAggregateExec) {
      events.push('onAborted');
      return onAborted.call(this);
    });
    const table = MemorySinkTable.named(name);
    const commits = new CommitLog(new LocalCheckpointFileManager(checkpoint));

    // Batch 0 moves the watermark to 35 min; batch 1, a no-data batch, would close [0, 10) but
    // its sink write fails.
    MemoryStream.named(name).addData({ ts: 1 * MIN }, { ts: 40 * MIN });
    const first = new MicroBatchExecution({ spec, sink: new FlakySink(table, events, 1), stateLocalDir });
    await expect(first.run()).rejects.toThrow(/sink down at batch 1/);
    expect(events).toEqual(['sink 0', 'onCommitted 1', 'sink failed 1', 'onAborted']);
    expect(await commits.batchIds()).toEqual([0]);

    // The restart re-runs batch 1 from state version 1 and closes the window.
    events.length = 0;
    const second = new MicroBatchExecution({ spec, sink: new FlakySink(table, events), stateLocalDir });
    await second.run();
    expect(events).toEqual(['sink 1', 'onCommitted 2']);
    expect(await commits.batchIds()).toEqual([0, 1]);
    expect(table.rows).toEqual([{ w: { start: 0, end: 10 * MIN }, n: 1 }]);
    expect(second.lastProgress?.stateOperators[0]).toMatchObject({ numRowsTotal: 1, numRowsRemoved: 1 });
  });
});

const { onCommitted, onAborted } = StatefulAggregateExec.prototype;
