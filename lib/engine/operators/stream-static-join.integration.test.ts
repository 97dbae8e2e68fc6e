/**
 * Stream-static joins through MicroBatchExecution: a memory stream joined with a static JSON or
 * CSV file declared in the job's staticTables. Expected answers come from a hand-written nested
 * loop join over the rows the script added.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock';
import { BadRecordError } from '../errors';
import { MicroBatchExecution } from '../execution/micro-batch-execution';
import { AddData, CheckAnswer, CrashAt, StartStream, StopStream, testStream, type StreamHarness } from '../execution/testing/stream-test';
import { mustParse } from '../execution/testing/test-fixtures';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import { getStaticTableReader } from './stream-static-join';
import { timestampOf } from '../query/timestamp-micros';
import { validateJob } from '../spec/validate-job';
import type { OutputMode, Row } from '../types';
import { createTestDatabase } from '../../testing/pg-test-database';
// An engine-with-connector integration test: the postgres connector registers its types here.
import '../../connectors/postgres/index';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

// Two static rows share code "eu" (a multi-match); "xx" matches no stream row; a NULL code never matches.
const REGIONS: Row[] = [
  { code: 'eu', label: 'Europe', tier: 1 },
  { code: 'eu', label: 'EU (alt)', tier: 2 },
  { code: 'us', label: 'United States', tier: 1 },
  { code: 'xx', label: 'Nowhere', tier: 3 },
  { code: null, label: 'null code', tier: 9 },
];
const STREAM_SCHEMA = [{ name: 'id', type: 'long' }, { name: 'region', type: 'string' }, { name: 'amount', type: 'double' }];
const REGION_SCHEMA = [{ name: 'code', type: 'string' }, { name: 'label', type: 'string' }, { name: 'tier', type: 'long' }];

let uniq = 0;
async function job(sql: string, opts: { format?: 'json' | 'csv'; outputMode?: OutputMode; file?: string; staticTable?: Record<string, unknown> } = {}) {
  const name = `join-${process.pid}-${uniq++}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-join-'));
  roots.push(dir);
  const format = opts.format ?? 'json';
  const file = path.join(dir, `regions.${format}`);
  const text = opts.file ?? (format === 'json'
    ? REGIONS.map((r) => JSON.stringify(r)).join('\n') + '\n'
    : 'label,code,tier\n' + REGIONS.map((r) => `"${r.label}",${r.code ?? ''},${r.tier}`).join('\n') + '\n');
  await writeFile(file, text);
  const specJson = {
    name,
    source: { name: 'events', type: 'memory', options: { stream: name }, schema: STREAM_SCHEMA },
    staticTables: [opts.staticTable ?? { name: 'regions', path: file, format, schema: REGION_SCHEMA }],
    sql,
    sink: { type: 'memory', options: { table: name } },
    outputMode: opts.outputMode ?? 'append',
    trigger: { type: 'available-now' },
    checkpointLocation: path.join(dir, 'cp'),
  };
  return { specJson, stream: MemoryStream.named(name), table: MemorySinkTable.named(name) };
}

/** Reference nested-loop join. */
function refJoin(stream: Row[], left: boolean): Row[] {
  const out: Row[] = [];
  for (const s of stream) {
    const m = REGIONS.filter((r) => r.code !== null && s.region !== null && r.code === s.region);
    for (const r of m) out.push({ id: s.id, region: s.region, label: r.label, tier: r.tier });
    if (m.length === 0 && left) out.push({ id: s.id, region: s.region, label: null, tier: null });
  }
  return out;
}

const events = (from: number, n: number): Row[] =>
  Array.from({ length: n }, (_, i) => ({ id: from + i, region: ['eu', 'us', 'apac', null][(from + i) % 4], amount: (from + i) / 2 }));

const harness = (j: Awaited<ReturnType<typeof job>>, expected: (added: Row[]) => Row[]): StreamHarness => ({
  spec: mustParse(j.specJson),
  clock: new ManualClock(0),
  addData: async (rows) => void j.stream.addRows(rows),
  readAnswer: async () => j.table.rows,
  expected,
});

describe('stream-static join', () => {
  it.each(['json', 'csv'] as const)('INNER JOIN a static %s file: one row per match, across a crash and a restart', async (format) => {
    const j = await job('SELECT e.id, e.region, r.label, r.tier FROM events e JOIN regions r ON e.region = r.code', { format });
    await testStream(harness(j, (added) => refJoin(added, false)), [
      AddData(events(0, 10)), CheckAnswer(),
      AddData(events(10, 10)), CrashAt('after-sink', 1),
      StartStream(), CheckAnswer(),
      StopStream(), StartStream(), AddData(events(20, 5)), CheckAnswer(),
    ]);
  });

  it('LEFT JOIN with the stream on the left keeps unmatched stream rows with NULL static columns', async () => {
    const j = await job('SELECT id, region, label, tier FROM events LEFT OUTER JOIN regions ON events.region = regions.code');
    await testStream(harness(j, (added) => refJoin(added, true)), [AddData(events(0, 12)), CheckAnswer()]);
  });

  it('the static side can feed an aggregation (GROUP BY a static column, complete mode)', async () => {
    const j = await job('SELECT r.label, count(*) AS n FROM events e JOIN regions r ON e.region = r.code GROUP BY r.label', { outputMode: 'complete' });
    const expected = (added: Row[]) => {
      const m = new Map<string, number>();
      for (const r of refJoin(added, false)) m.set(r.label as string, (m.get(r.label as string) ?? 0) + 1);
      return [...m].map(([label, n]) => ({ label, n }));
    };
    await testStream(harness(j, expected), [AddData(events(0, 8)), CheckAnswer(), AddData(events(8, 8)), CheckAnswer()]);
  });

  it('refuses the outer joins Spark refuses, with its messages, and bad ON clauses', async () => {
    const errors = async (sql: string) => validateJob((await job(sql)).specJson).errors.map((e) => e.message).join('\n');
    expect(await errors('SELECT id, label FROM events e RIGHT JOIN regions r ON e.region = r.code')).toContain(
      'RightOuter join with a streaming DataFrame/Dataset on the left and a static DataFrame/Dataset on the right is not supported');
    expect(await errors('SELECT id, label FROM events e FULL JOIN regions r ON e.region = r.code')).toContain('FullOuter joins with streaming DataFrames/Datasets on the left and a static DataFrame/Dataset on the right is not supported');
    expect(await errors('SELECT id, label FROM regions r LEFT JOIN events e ON e.region = r.code')).toContain(
      'LeftOuter join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported');
    expect(await errors('SELECT id FROM events e JOIN nope n ON e.region = n.code')).toMatch(/static table from the job's staticTables \(regions\)/);
    const ok = validateJob((await job('SELECT id, label FROM regions r JOIN events e ON e.region = r.code')).specJson);
    expect(ok.errors).toEqual([]);
    expect(ok.explain).toMatch(/Join Inner .*\[stateless: each streaming row looks up the static table\]/);
  });

  it('a static file line that does not parse fails the run, naming the file and line', async () => {
    const j = await job('SELECT id, label FROM events e JOIN regions r ON e.region = r.code', { file: '{"code":"eu","label":"Europe","tier":1}\n{"code":"us","tier":"one"}\n' });
    const q = new MicroBatchExecution({ spec: mustParse(j.specJson), clock: new ManualClock(0) });
    j.stream.addData(...events(0, 3));
    const err = await q.processAllAvailable().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(BadRecordError);
    expect((err as Error).message).toMatch(/Static table regions .* line 2: field "tier"/);
    expect(j.table.rows).toEqual([]);
    await q.stop();
  });

  it('joins a PostgreSQL table (the real server here), and names a row that does not fit its type', async () => {
    const db = await createTestDatabase('static_join');
    try {
      await db.pool.query('CREATE TABLE regions (code text, label text, tier bigint)');
      for (const r of REGIONS) await db.pool.query('INSERT INTO regions VALUES ($1, $2, $3)', [r.code, r.label, r.tier]);
      const staticTable = { name: 'regions', type: 'postgres', connectionString: db.url, table: 'regions', schema: REGION_SCHEMA };
      const j = await job('SELECT e.id, e.region, r.label, r.tier FROM events e LEFT JOIN regions r ON e.region = r.code', { staticTable });
      await testStream(harness(j, (added) => refJoin(added, true)), [AddData(events(0, 9)), CheckAnswer(), StopStream(), StartStream(), AddData(events(9, 4)), CheckAnswer()]);

      await db.pool.query(`INSERT INTO regions VALUES ('bad', 'Bad tier', NULL)`);
      await db.pool.query('ALTER TABLE regions ALTER COLUMN tier TYPE text');
      await db.pool.query(`UPDATE regions SET tier = 'one' WHERE code = 'bad'`);
      const bad = await job('SELECT id, label FROM events e JOIN regions r ON e.region = r.code', { staticTable });
      const q = new MicroBatchExecution({ spec: mustParse(bad.specJson), clock: new ManualClock(0) });
      bad.stream.addData(...events(0, 2));
      const err = await q.processAllAvailable().then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(BadRecordError);
      expect((err as Error).message).toMatch(/Static table regions \(postgres:public.regions\) row \d+, column "tier": "one" is not a long/);
      expect((err as Error).message).not.toContain(db.url);
      await q.stop();
    } finally {
      await db.drop();
    }
  });

  it('queries a PostgreSQL table again at each batch with data: a row updated between batches joins the next; with cache: true it does not', async () => {
    const db = await createTestDatabase('static_reread');
    try {
      await db.pool.query('CREATE TABLE regions (code text, label text, tier bigint)');
      await db.pool.query(`INSERT INTO regions VALUES ('eu', 'Europe', 1), ('us', 'United States', 1)`);
      const run = async (cache: boolean) => {
        const staticTable = { name: 'regions', type: 'postgres', connectionString: db.url, table: 'regions', schema: REGION_SCHEMA, ...(cache ? { cache: true } : {}) };
        const j = await job('SELECT e.id, r.label FROM events e LEFT JOIN regions r ON e.region = r.code', { staticTable });
        const q = new MicroBatchExecution({ spec: mustParse(j.specJson), clock: new ManualClock(0) });
        try {
          j.stream.addData({ id: 1, region: 'eu', amount: 1 }, { id: 2, region: 'apac', amount: 1 });
          await q.processAllAvailable();
          await db.pool.query(`UPDATE regions SET label = 'Europa' WHERE code = 'eu'`);
          await db.pool.query(`INSERT INTO regions VALUES ('apac', 'Asia-Pacific', 2)`);
          j.stream.addData({ id: 3, region: 'eu', amount: 1 }, { id: 4, region: 'apac', amount: 1 });
          await q.processAllAvailable();
          return j.table.rows.map((r) => `${String(r.id)}:${String(r.label)}`).sort();
        } finally {
          await q.stop();
          await db.pool.query('TRUNCATE regions');
          await db.pool.query(`INSERT INTO regions VALUES ('eu', 'Europe', 1), ('us', 'United States', 1)`);
        }
      };
      expect(await run(false)).toEqual(['1:Europe', '2:null', '3:Europa', '4:Asia-Pacific']);
      expect(await run(true)).toEqual(['1:Europe', '2:null', '3:Europe', '4:null']);
    } finally {
      await db.drop();
    }
  });

  it('reads a PostgreSQL table\'s timestamps to the microsecond', async () => {
    const db = await createTestDatabase('static_micros');
    try {
      await db.pool.query('CREATE TABLE t (k text, at timestamptz, wall timestamp)');
      await db.pool.query(`INSERT INTO t VALUES ('a', '2024-01-02 03:04:05.678901+00', '2024-01-02 03:04:05.000001'), ('b', NULL, NULL), ('c', '1969-12-31 23:59:59.999001+00', '2024-01-02 03:04:05')`);
      const rows = await getStaticTableReader('postgres')!.load({
        name: 't', type: 'postgres', connectionString: db.url, table: 't',
        schema: [{ name: 'k', type: 'string' }, { name: 'at', type: 'timestamp' }, { name: 'wall', type: 'timestamp', ntz: true }],
      } as never);
      const base = Date.UTC(2024, 0, 2, 3, 4, 5);
      expect(rows.sort((x, y) => String(x.k).localeCompare(String(y.k)))).toEqual([
        { k: 'a', at: timestampOf(base + 678, 901), wall: timestampOf(base, 1) },
        { k: 'b', at: null, wall: null },
        { k: 'c', at: timestampOf(-1, 1), wall: base },
      ]);
    } finally {
      await db.drop();
    }
  });
});
