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
    const sink = new ConsoleSink({ numRows: 1000, truncate: false, stream: 'stdout' }, (s) => void lines.push(...s.split('\n')));
    return {
      sink,
      readAll: async () => tableRows(lines),
      cleanup: () => sink.close(),
    };
  },
});

/**
 * The rows of the tables the console printed (the contract's columns id, name, amount), read
 * back from their cells: the first `|` line after each `Batch:` is the header.
 */
function tableRows(lines: string[]): Row[] {
  const rows: Row[] = [];
  let header = false;
  for (const l of lines) {
    if (l.startsWith('Batch: ')) header = true;
    else if (l.startsWith('|') && header) header = false;
    else if (l.startsWith('|')) {
      // Not truncated, so cells are left-aligned: padding follows the value.
      const [id, name, amount] = l.slice(1, -1).split('|').map((c) => c.trimEnd());
      rows.push({ id: Number(id), name, amount: Number(amount) });
    }
  }
  return rows;
}

describe('console sink output', () => {
  it("prints every batch, an empty one as its header and the table's empty frame (Spark's ConsoleWrite.commit and show())", async () => {
    const out: string[] = [];
    const sink = new ConsoleSink({ numRows: 20, truncate: true, stream: 'stdout' }, (s) => void out.push(s));
    const ctx = { schema: [{ name: 'a', type: 'long' as const, nullable: true }] } as unknown as Parameters<ConsoleSink['addBatch']>[2];
    await sink.addBatch(0, [], ctx);
    expect(out.join('')).toBe('-------------------------------------------\nBatch: 0\n-------------------------------------------\n+---+\n|  a|\n+---+\n+---+\n\n');
    out.length = 0;
    await sink.addBatch(1, [{ a: 1 }], ctx);
    expect(out.join('')).toBe('-------------------------------------------\nBatch: 1\n-------------------------------------------\n+---+\n|  a|\n+---+\n|  1|\n+---+\n\n');
  });

  it("prints the rows as Spark's Dataset.show(): right-aligned, cut at 20 characters, NULL, nested values, the top numRows", async () => {
    const out: string[] = [];
    const sink = new ConsoleSink({ numRows: 2, truncate: true, stream: 'stdout' }, (s) => void out.push(s));
    const schema = [
      { name: 'id', type: 'long' as const, nullable: true },
      { name: 'name', type: 'string' as const, nullable: true },
      { name: 'ts', type: 'timestamp' as const, nullable: true },
      { name: 'xs', type: 'array' as const, nullable: true, elementType: { name: 'element', type: 'double' as const, nullable: true } },
      { name: 's', type: 'struct' as const, nullable: true, fields: [{ name: 'a', type: 'long' as const, nullable: true }, { name: 'b', type: 'string' as const, nullable: true }] },
    ];
    const ctx = { schema } as unknown as Parameters<ConsoleSink['addBatch']>[2];
    await sink.addBatch(3, [
      { id: 1, name: 'a name longer than twenty', ts: Date.UTC(2024, 0, 2, 3, 4, 5), xs: [1, null], s: { a: 1, b: null } },
      { id: null, name: 'line\nbreak', ts: null, xs: null, s: null },
      { id: 3, name: 'c', ts: null, xs: [], s: null },
    ], ctx);
    expect(out.join('')).toBe([
      '-------------------------------------------',
      'Batch: 3',
      '-------------------------------------------',
      '+----+--------------------+-------------------+-----------+---------+',
      '|  id|                name|                 ts|         xs|        s|',
      '+----+--------------------+-------------------+-----------+---------+',
      '|   1|a name longer tha...|2024-01-02 03:04:05|[1.0, NULL]|{1, NULL}|',
      '|NULL|         line\\nbreak|               NULL|       NULL|     NULL|',
      '+----+--------------------+-------------------+-----------+---------+',
      'only showing top 2 rows',
      '',
      '',
    ].join('\n'));
  });
});
