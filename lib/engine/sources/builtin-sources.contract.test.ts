/** The files and memory sources through the shared source contract suite (source.contract.ts). */
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { ManualClock } from '../clock';
import { encodeParquet } from '../parquet/parquet-writer';
import { encodeRows } from '../sinks/files-sink';
import type { Row } from '../types';
import { FilesSource } from './files-source';
import { MemorySource, MemoryStream } from './memory-source';
import { sourceContractSchema, sourceContractSuite, type SourceContractHarness } from './testing/source.contract';

for (const format of ['json', 'csv', 'parquet'] as const) {
  sourceContractSuite(`files source (${format})`, {
    make: async (): Promise<SourceContractHarness> => {
      const dir = await mkdtemp(path.join(tmpdir(), 'weir-src-contract-'));
      const checkpoint = new InMemoryCheckpointFileManager();
      const open = () =>
        new FilesSource({ path: dir, format, header: true }, { name: 'src', schema: sourceContractSchema, checkpoint, metadataPath: 'sources/0', clock: new ManualClock() });
      let seq = 0;
      return {
        source: open(),
        append: async (rows: Row[]) => {
          const name = `part-${String(seq++).padStart(5, '0')}.${format}`;
          await writeFile(path.join(dir, `.${name}`), format === 'parquet' ? await encodeParquet(rows, sourceContractSchema, 'snappy') : encodeRows(rows, sourceContractSchema, format, true));
          await rename(path.join(dir, `.${name}`), path.join(dir, name));
        },
        reopen: async () => open(),
        cleanup: () => rm(dir, { recursive: true, force: true }),
      };
    },
  });
}

let n = 0;
sourceContractSuite('memory source', {
  make: async (): Promise<SourceContractHarness> => {
    const stream = MemoryStream.named(`contract-${process.pid}-${++n}`);
    return {
      source: new MemorySource(stream, sourceContractSchema),
      append: async (rows) => void stream.addRows(rows),
      reopen: async () => new MemorySource(stream, sourceContractSchema),
      cleanup: async () => MemoryStream.drop(stream.name),
    };
  },
});
