/**
 * A source schema with Spark's types (written as Spark's DDL: `price DECIMAL(10,2), day DATE,
 * tags ARRAY<STRING>, attrs MAP<STRING,BIGINT>, pos STRUCT<x: DOUBLE, y: DOUBLE>`) through the
 * whole engine: read from JSON lines and CSV, computed on, aggregated in state across a restart,
 * and written by the JSON and CSV file sinks. A value that does not fit its type is a bad record
 * (Spark's PERMISSIVE readers make it NULL; Weir never drops a value silently).
 */
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MicroBatchExecution } from './micro-batch-execution';
import { mustParse, tempDir } from './testing/test-fixtures';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

const SCHEMA = 'id INT, price DECIMAL(10,2), day DATE, tags ARRAY<STRING>, attrs MAP<STRING,BIGINT>, pos STRUCT<x: DOUBLE, y: DOUBLE>';

async function job(format: 'json' | 'csv', schema: unknown, sql: string, sink: Record<string, unknown>, outputMode = 'append', source: Record<string, unknown> = {}) {
  const root = await tempDir('spark-types');
  roots.push(root);
  const input = path.join(root, 'in');
  await mkdir(input);
  const spec = mustParse({
    name: 'spark-types',
    source: { name: 'events', type: 'files', options: { path: input, format, ...(format === 'csv' ? { header: false } : {}) }, schema, ...source },
    sql,
    sink: sink.type ? sink : { type: 'files', options: { path: path.join(root, 'out'), format, ...sink } },
    outputMode,
    trigger: { type: 'available-now' },
    checkpointLocation: path.join(root, 'checkpoint'),
  });
  return { root, input, output: path.join(root, 'out'), spec };
}

async function outputLines(dir: string): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => !f.startsWith('_') && !f.startsWith('.')).sort();
  return (await Promise.all(files.map((f) => readFile(path.join(dir, f), 'utf8')))).join('').split('\n').filter((l) => l !== '');
}

describe('Spark types in a source schema, end to end', () => {
  it('JSON lines: decimals exact, dates, arrays, maps and structs read, computed on and written', async () => {
    const j = await job('json', SCHEMA,
      "SELECT id, price * 3 AS triple, date_add(day, 1) AS next_day, tags[0] AS first_tag, size(tags) AS n_tags, attrs['a'] AS a, pos.x + pos.y AS xy, typeof(price) AS t FROM events", {});
    await writeFile(path.join(j.input, 'a.json'),
      '{"id": 1, "price": 0.1, "day": "2026-02-28", "tags": ["x", "y"], "attrs": {"a": 9223372036854775807}, "pos": {"x": 0.5, "Y": 1.5}}\n' +
      '{"id": 2, "price": "12345678.99", "day": null, "tags": [], "attrs": {}, "pos": null}\n');
    const q = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(0) });
    await q.processAllAvailable();
    await q.stop();
    expect(q.lastProgress!.numBadRecords ?? 0).toBe(0);
    expect(await outputLines(j.output)).toEqual([
      '{"id":1,"triple":0.30,"next_day":"2026-03-01","first_tag":"x","n_tags":2,"a":9223372036854775807,"xy":2.0,"t":"decimal(10,2)"}',
      '{"id":2,"triple":37037036.97,"next_day":null,"first_tag":null,"n_tags":0,"a":null,"xy":null,"t":"decimal(10,2)"}',
    ]);
  });

  it('a value that does not fit its type is a bad record, with the column and the reason', async () => {
    const dir = await tempDir('spark-types-bad');
    roots.push(dir);
    const j = await job('json', SCHEMA, 'SELECT id, price, day, tags, attrs, pos FROM events', {}, 'append', { onBadRecord: 'dead-letter', badRecordsPath: path.join(dir, 'bad') });
    await writeFile(path.join(j.input, 'a.json'), [
      '{"id": 1, "price": 123456789.5}',
      '{"id": 2, "day": "2026-02-30"}',
      '{"id": 3, "tags": "x"}',
      '{"id": 4, "tags": [1]}',
      '{"id": 5, "attrs": {"a": "x"}}',
      '{"id": 6, "pos": {"x": "far"}}',
      '{"id": 7}',
    ].join('\n') + '\n');
    const q = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(0) });
    await q.processAllAvailable();
    await q.stop();
    expect(await outputLines(j.output)).toEqual(['{"id":7,"price":null,"day":null,"tags":null,"attrs":null,"pos":null}']);
    expect(q.lastProgress!.numBadRecords).toBe(6);
    const bad = (await readdir(path.join(dir, 'bad'), { recursive: true })).filter((f) => f.endsWith('.jsonl'));
    const reasons = (await Promise.all(bad.map((f) => readFile(path.join(dir, 'bad', f), 'utf8')))).join('');
    for (const r of [
      'field \\"price\\": 123456789.5 is not a DECIMAL(10,2) (too many digits for its precision)',
      'field \\"day\\": \\"2026-02-30\\" is not a date',
      'field \\"tags\\": \\"x\\" is not an array',
      'field \\"tags\\": element 0: expected a string, got 1',
      'field \\"attrs\\": key \\"a\\": expected a long',
      'field \\"pos\\": field \\"x\\": expected a double',
    ]) expect(reasons).toContain(r);
  });

  it('CSV: decimals and dates from text, written back as Spark writes them', async () => {
    const j = await job('csv', 'id INT, price DECIMAL(12,3), day DATE', 'SELECT id, price + 1 AS p, day FROM events', { header: false });
    await writeFile(path.join(j.input, 'a.csv'), '1,0.125,2026-12-03\n2,-99999.999,\n');
    const q = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(0) });
    await q.processAllAvailable();
    await q.stop();
    expect(await outputLines(j.output)).toEqual(['1,1.125,2026-12-03', '2,-99998.999,']);
  });

  it('sums decimals in state exactly across a restart', async () => {
    const dir = await tempDir('spark-types-table');
    roots.push(dir);
    const table = path.basename(dir);
    const j = await job('json', [{ name: 'user', type: 'string' }, { name: 'price', type: 'decimal(10,2)' }],
      'SELECT user, sum(price) AS total, collect_list(price) AS prices FROM events GROUP BY user', { type: 'memory', options: { table } }, 'complete');
    await writeFile(path.join(j.input, 'a.json'), '{"user": "a", "price": 0.1}\n{"user": "a", "price": 0.2}\n');
    const q1 = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(0) });
    await q1.processAllAvailable();
    await q1.stop();
    await writeFile(path.join(j.input, 'b.json'), '{"user": "a", "price": "99999999.99"}\n');
    const q2 = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(0) });
    await q2.processAllAvailable();
    await q2.stop();
    // sum of DECIMAL(10,2) is DECIMAL(20,2), its values unscaled bigints: 0.1 + 0.2 is 0.30 exactly.
    expect(MemorySinkTable.named(table).rows).toEqual([{ user: 'a', total: 10000000029n, prices: [10n, 20n, 9999999999n] }]);
  });
});
