/**
 * A source column that was a BIGINT and is now an INT (Kafka's partition and timestampType, which
 * Weir gave as BIGINT before it had Spark's INT for them): a query that kept state keyed by it and
 * aggregating it restarts on its checkpoint and goes on from the same state, as the values are
 * the same numbers and an older Weir's state schema file is compared by the column kinds. A
 * file this Weir wrote is compared as Spark compares it: INT is not BIGINT.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock';
import { IncompatibleQueryChangeError } from '../errors';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MicroBatchExecution } from './micro-batch-execution';
import { mustParse, tempDir } from './testing/test-fixtures';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

describe('a BIGINT source column become INT', () => {
  it('restarts on the state the BIGINT wrote and adds to it', async () => {
    const root = await tempDir('int-restart');
    roots.push(root);
    const input = path.join(root, 'in');
    await mkdir(input);
    const table = path.basename(root);
    const spec = (width: 'BIGINT' | 'INT') => mustParse({
      name: 'int-restart',
      source: { name: 'events', type: 'files', options: { path: input, format: 'json' }, schema: `partition ${width}, timestampType ${width}, offset BIGINT` },
      sql: 'SELECT partition, count(*) AS n, max(timestampType) AS tt, sum(partition) AS s, max(offset) AS o FROM events GROUP BY partition',
      sink: { type: 'memory', options: { table } },
      outputMode: 'complete',
      trigger: { type: 'available-now' },
      checkpointLocation: path.join(root, 'checkpoint'),
    });
    const run = async (width: 'BIGINT' | 'INT') => {
      const q = new MicroBatchExecution({ spec: spec(width), clock: new ManualClock(0) });
      await q.processAllAvailable();
      await q.stop();
      expect(q.lastProgress!.numBadRecords ?? 0).toBe(0);
    };
    await writeFile(path.join(input, 'a.json'), '{"partition": 0, "timestampType": 0, "offset": 10}\n{"partition": 1, "timestampType": 0, "offset": 11}\n');
    await run('BIGINT');
    // As Spark refuses it, on the file this Weir wrote.
    const err = await run('INT').then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(IncompatibleQueryChangeError);
    expect((err as IncompatibleQueryChangeError).errorClass).toBe('STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE');
    // The file as a Weir from before INT wrote it.
    const schemaFile = path.join(root, 'checkpoint', 'state/0/_metadata/schema');
    const { sparkTypes, ...older } = JSON.parse(await readFile(schemaFile, 'utf8')) as { sparkTypes?: true };
    expect(sparkTypes).toBe(true);
    await writeFile(schemaFile, JSON.stringify(older));
    await writeFile(path.join(input, 'b.json'), '{"partition": 1, "timestampType": 1, "offset": 12}\n{"partition": 2, "timestampType": 0, "offset": 13}\n');
    await run('INT');
    expect(MemorySinkTable.named(table).rows.sort((x, y) => Number(x.partition) - Number(y.partition))).toEqual([
      { partition: 0, n: 1, tt: 0, s: 0, o: 10 },
      { partition: 1, n: 2, tt: 1, s: 2, o: 12 },
      { partition: 2, n: 1, tt: 0, s: 2, o: 13 },
    ]);
  });
});
