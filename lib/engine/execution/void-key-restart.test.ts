/**
 * A stream aggregation grouped by a column of NULLs (Spark's VOID), with an aggregate of it: its
 * output keeps the column VOID, and a checkpoint whose state schema file an older Weir wrote (the
 * key a plain STRING, before the aggregation kept VOID) restarts on that state and adds to it.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock';
import { simpleTypeString } from '../query/data-types';
import { compileStreamingQuery } from '../query/streaming-query';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MicroBatchExecution } from './micro-batch-execution';
import { mustParse, tempDir } from './testing/test-fixtures';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

const SQL = 'SELECT n, count(*) AS c, max(n) AS m FROM (SELECT NULL AS n, v FROM events) GROUP BY n';

describe('a stream aggregation of a VOID key', () => {
  it('restarts on the state schema an older Weir wrote (the key a plain STRING) and adds to its state', async () => {
    const root = await tempDir('void-restart');
    roots.push(root);
    const input = path.join(root, 'in');
    await mkdir(input);
    const table = path.basename(root);
    const spec = mustParse({
      name: 'void-restart',
      source: { name: 'events', type: 'files', options: { path: input, format: 'json' }, schema: 'v BIGINT' },
      sql: SQL,
      sink: { type: 'memory', options: { table } },
      outputMode: 'complete',
      trigger: { type: 'available-now' },
      checkpointLocation: path.join(root, 'checkpoint'),
    });
    const run = async () => {
      const q = new MicroBatchExecution({ spec, clock: new ManualClock(0) });
      await q.processAllAvailable();
      await q.stop();
    };
    await writeFile(path.join(input, 'a.json'), '{"v": 1}\n{"v": 2}\n');
    await run();
    const schemaFile = path.join(root, 'checkpoint', 'state/0/_metadata/schema');
    const stored = JSON.parse(await readFile(schemaFile, 'utf8')) as { keySchema: { void?: true }[]; valueSchema: { void?: true }[] };
    expect(stored.keySchema.map((f) => f.void)).toEqual([true]);
    // The file as a Weir that typed the key and max(n) STRING wrote it.
    for (const f of [...stored.keySchema, ...stored.valueSchema]) delete f.void;
    await writeFile(schemaFile, JSON.stringify(stored));
    await writeFile(path.join(input, 'b.json'), '{"v": 3}\n');
    await run();
    expect(MemorySinkTable.named(table).rows).toEqual([{ n: null, c: 3, m: null }]);
  });

  it('types the key and max of NULLs VOID in the output', () => {
    const rel = { kind: 'StreamingRelation' as const, sourceName: 'events', schema: [{ name: 'v', type: 'long' as const }] };
    expect(compileStreamingQuery(SQL, rel, { outputMode: 'complete' }).outputSchema.map(simpleTypeString)).toEqual(['void', 'bigint', 'void']);
  });
});
