/**
 * A 64-bit id (a Snowflake-style id, up to Long.MaxValue) through the whole engine: read from
 * JSON lines and CSV, computed on, grouped and summed in state across a restart, and written by
 * the JSON and CSV file sinks with every digit. Spark keeps these as exact BIGINTs; a double
 * would print 9223372036854775807 as 9223372036854775808.
 */
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock';
import { MemorySinkTable } from '../sinks/memory-sink';
import { readCommittedRows } from '../sinks/files-sink';
import { MicroBatchExecution } from './micro-batch-execution';
import { mustParse, tempDir } from './testing/test-fixtures';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

const SCHEMA = [{ name: 'id', type: 'long' }, { name: 'user', type: 'string' }];
const MAX = '9223372036854775807';
const SNOWFLAKE = '1541815603606036480';

async function job(format: 'json' | 'csv', sql: string, sink: Record<string, unknown>, outputMode = 'append') {
  const root = await tempDir('bigint');
  roots.push(root);
  const input = path.join(root, 'in');
  await mkdir(input);
  const spec = mustParse({
    name: 'bigint',
    source: { name: 'events', type: 'files', options: { path: input, format, ...(format === 'csv' ? { header: false } : {}) }, schema: SCHEMA },
    sql,
    sink: sink.type ? sink : { type: 'files', options: { path: path.join(root, 'out'), format, ...sink } },
    outputMode,
    trigger: { type: 'available-now' },
    checkpointLocation: path.join(root, 'checkpoint'),
  });
  return { root, input, output: path.join(root, 'out'), spec };
}

/** Every data line the files sink wrote (not its metadata log). */
async function outputLines(dir: string): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => !f.startsWith('_') && !f.startsWith('.')).sort();
  return (await Promise.all(files.map((f) => readFile(path.join(dir, f), 'utf8')))).join('').split('\n').filter((l) => l !== '');
}

describe('64-bit ids end to end', () => {
  it('JSON lines in, JSON lines out: every digit kept, arithmetic exact and wrapping as Spark', async () => {
    const j = await job('json', 'SELECT id, id - 1 AS prev, id + 1 AS next, user FROM events', {});
    await writeFile(path.join(j.input, 'a.json'), `{"id": ${MAX}, "user": "max"}\n{"id": ${SNOWFLAKE}, "user": "snow"}\n{"id": 7, "user": "small"}\n`);
    const q = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(0) });
    await q.processAllAvailable();
    await q.stop();
    expect(q.lastProgress!.numBadRecords ?? 0).toBe(0);
    expect(await outputLines(j.output)).toEqual([
      `{"id":${MAX},"prev":9223372036854775806,"next":-9223372036854775808,"user":"max"}`,
      `{"id":${SNOWFLAKE},"prev":1541815603606036479,"next":1541815603606036481,"user":"snow"}`,
      '{"id":7,"prev":6,"next":8,"user":"small"}',
    ]);
    // Read back through the sink's log (as `weir sink read` does), the ids are exact values.
    const back = (await readCommittedRows(j.output, 'json')).flatMap((b) => b.rows);
    expect(back.map((r) => r.id)).toEqual([BigInt(MAX), BigInt(SNOWFLAKE), 7]);
  });

  it('CSV in, CSV out', async () => {
    const j = await job('csv', 'SELECT id, id * 2 AS twice FROM events', { header: false });
    await writeFile(path.join(j.input, 'a.csv'), `${SNOWFLAKE},snow\n-${MAX},min\n`);
    const q = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(0) });
    await q.processAllAvailable();
    await q.stop();
    expect(await outputLines(j.output)).toEqual([`${SNOWFLAKE},3083631207212072960`, `-${MAX},2`]);
  });

  it('groups and sums 64-bit values in state, exactly across a restart', async () => {
    const dir = await tempDir('bigint-table');
    roots.push(dir);
    const table = path.basename(dir);
    const j = await job('json', 'SELECT user, count(*) AS n, sum(id) AS total, max(id) AS top FROM events GROUP BY user', { type: 'memory', options: { table } }, 'complete');
    await writeFile(path.join(j.input, 'a.json'), `{"id": ${SNOWFLAKE}, "user": "a"}\n{"id": 4611686018427387904, "user": "a"}\n`);
    const q1 = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(0) });
    await q1.processAllAvailable();
    await q1.stop();
    await writeFile(path.join(j.input, 'b.json'), `{"id": 4611686018427387904, "user": "a"}\n{"id": 1, "user": "b"}\n`);
    const q2 = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(0) });
    await q2.processAllAvailable();
    await q2.stop();
    const total = BigInt.asIntN(64, BigInt(SNOWFLAKE) + 2n * 4611686018427387904n);
    expect(MemorySinkTable.named(table).rows.sort((x, y) => String(x.user).localeCompare(String(y.user)))).toEqual([
      { user: 'a', n: 3, total, top: 4611686018427387904n },
      { user: 'b', n: 1, total: 1, top: 1 },
    ]);
  });
});
