/** The files, memory and console sinks through the shared sink contract suite (sink.contract.ts). */
import { describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ManualClock } from '../clock';
import type { Row } from '../types';
import { ConsoleSink } from './console-sink';
import { FilesSink, readCommittedRows } from './files-sink';
import { MemorySink, MemorySinkTable } from './memory-sink';
import { contractSchema, sinkContractSuite, type SinkContractHarness } from './testing/sink.contract';

for (const format of ['json', 'csv', 'parquet'] as const) {
  sinkContractSuite(`files sink (${format})`, {
    outputMode: 'append',
    make: async (): Promise<SinkContractHarness> => {
      const dir = await mkdtemp(path.join(tmpdir(), 'weir-sink-contract-'));
      const sink = new FilesSink({ path: dir, format, header: true }, new ManualClock(1));
      return {
        sink,
        readAll: async () => (await readCommittedRows(dir, format, { schema: contractSchema })).flatMap((b) => b.rows),
        cleanup: async () => {
          await sink.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
    makeDown: async () => {
      // A path under a regular file can never be created.
      const file = path.join(await mkdtemp(path.join(tmpdir(), 'weir-sink-down-')), 'not-a-dir');
      await writeFile(file, '');
      return new FilesSink({ path: path.join(file, 'out'), format, header: true }, new ManualClock(1));
    },
  });
}

let n = 0;
for (const outputMode of ['append', 'complete'] as const) {
  sinkContractSuite('memory sink', {
    outputMode,
    make: async (): Promise<SinkContractHarness> => {
      const table = MemorySinkTable.named(`sink-contract-${process.pid}-${++n}`);
      return { sink: new MemorySink(table), readAll: async () => table.rows, cleanup: async () => MemorySinkTable.drop(table.name) };
    },
  });
}

sinkContractSuite('console sink', {
  outputMode: 'append',
  make: async (): Promise<SinkContractHarness> => {
    const lines: string[] = [];
    const sink = new ConsoleSink({ numRows: 1000, stream: 'stdout' }, (s) => void lines.push(...s.split('\n')));
    return {
      sink,
      readAll: async () => lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Row),
      cleanup: () => sink.close(),
    };
  },
});

describe('console sink output', () => {
  it('prints a frame for a batch with rows and nothing for an empty one', async () => {
    const out: string[] = [];
    const sink = new ConsoleSink({ numRows: 20, stream: 'stdout' }, (s) => void out.push(s));
    const ctx = { schema: [{ name: 'a', type: 'long' as const, nullable: true }] } as unknown as Parameters<ConsoleSink['addBatch']>[2];
    await sink.addBatch(0, [], ctx);
    expect(out).toEqual([]);
    await sink.addBatch(1, [{ a: 1 }], ctx);
    expect(out.join('')).toMatch(/Batch: 1\n-+\n\{"a":1\}\n$/);
  });
});
