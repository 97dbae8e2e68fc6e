/**
 * The crash matrix over a stream-stream join: two files sources (impressions and clicks, each
 * with a watermark), an inner join and a left outer join with a time range, into the
 * transactional PostgreSQL sink and the files sink. A run dies at each point of the write-ahead
 * protocol in the batch that reads the second input, a new run starts on the same checkpoint, more
 * data follows (the last far ahead, so the watermark passes every buffered impression and the
 * left outer join emits its NULL-padded rows), and the sink holds exactly the rows of a run that
 * never crashed: the join's four state stores per partition resume at the version the re-run
 * needs, whatever subset of them had committed when the process died.
 */
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import './index'; // registers every connector, as the worker and the CLI do
import '../engine/sources/index';
import '../engine/sinks/index';
import { ManualClock } from '../engine/clock';
import { CRASH_POINTS, type CrashPointName } from '../engine/execution/crash-points';
import { AddData, Assert, CrashAt, ProcessAllAvailable, StopStream, canonical, testStream, type StreamAction } from '../engine/execution/testing/stream-test';
import { mustParse, seededRandom } from '../engine/execution/testing/test-fixtures';
import { encodeRows, readCommittedRows } from '../engine/sinks/files-sink';
import type { Row, Schema } from '../engine/types';
import { createTestDatabase, type TestDatabase } from '../testing/pg-test-database';

let db: TestDatabase;
const dirs: string[] = [];
beforeAll(async () => {
  db = await createTestDatabase('join_crash');
});
afterAll(async () => {
  await db.drop();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const MIN = 60_000;
const T0 = Date.UTC(2026, 0, 1);
const IMPRESSIONS: Schema = [{ name: 'ad_id', type: 'long' }, { name: 'impression_time', type: 'timestamp' }];
const CLICKS: Schema = [{ name: 'click_ad_id', type: 'long' }, { name: 'click_time', type: 'timestamp' }];
const OUT: Schema = [...IMPRESSIONS, ...CLICKS];
const RANGE = 'click_ad_id = ad_id AND click_time >= impression_time AND click_time <= impression_time + INTERVAL 20 MINUTES';
const JOINS = {
  inner: `SELECT * FROM impressions JOIN clicks ON ${RANGE}`,
  'left outer': `SELECT * FROM impressions LEFT OUTER JOIN clicks ON ${RANGE}`,
};

/**
 * Input batch k: impressions and clicks of six ads with times in [k·30, k·30 + 25) minutes, so no
 * row is late for a watermark 15 minutes behind the previous batch's maximum. A row with `side`
 * 'c' is a click.
 */
function inputs(seed: number): Row[][] {
  const rnd = seededRandom(seed);
  const batch = (k: number, n: number) =>
    Array.from({ length: n }, (): Row => {
      const ad = Math.floor(rnd() * 6);
      const t = T0 + (k * 30 + Math.floor(rnd() * 25)) * MIN;
      return rnd() < 0.5 ? { side: 'i', ad_id: ad, impression_time: t } : { side: 'c', click_ad_id: ad, click_time: t };
    });
  // The last batch is ten hours on: the watermark passes everything before it.
  return [batch(0, 14), batch(1, 14), batch(2, 10), batch(20, 4)];
}

interface SinkCase {
  name: string;
  sink(id: string, dir: string): { type: string; options: Record<string, unknown> };
  read(id: string, dir: string): Promise<Row[]>;
}

const iso = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string | number | Date).toISOString());
/** One shape for both sinks' rows: ids as numbers, timestamps as ISO strings. */
const normalise = (r: Row): Row => ({
  ad_id: r.ad_id === null ? null : Number(r.ad_id),
  impression_time: iso(r.impression_time),
  click_ad_id: r.click_ad_id === null ? null : Number(r.click_ad_id),
  click_time: iso(r.click_time),
});

const sinks: SinkCase[] = [
  {
    name: 'postgres transactional',
    sink: (id) => ({ type: 'postgres', options: { connectionString: db.url, table: id } }),
    read: async (id) => {
      const exists = await db.pool.query('SELECT to_regclass($1) AS t', [`"${id}"`]);
      if (exists.rows[0].t === null) return [];
      return (await db.pool.query(`SELECT ad_id, impression_time, click_ad_id, click_time FROM "${id}"`)).rows.map(normalise);
    },
  },
  {
    name: 'files',
    sink: (_id, dir) => ({ type: 'files', options: { path: path.join(dir, 'out'), format: 'json' } }),
    read: async (_id, dir) => (await readCommittedRows(path.join(dir, 'out'), 'json', { schema: OUT }).catch(() => [])).flatMap((b) => b.rows.map(normalise)),
  },
];

let n = 0;
async function joinRun(join: keyof typeof JOINS, sinkCase: SinkCase, crash?: { point: CrashPointName; batchId: number }) {
  const id = `j${++n}_${process.pid}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-join-crash-'));
  dirs.push(dir);
  const spec = mustParse({
    name: id,
    sources: [
      { name: 'impressions', type: 'files', options: { path: path.join(dir, 'impressions'), format: 'json' }, schema: IMPRESSIONS, eventTime: 'impression_time', watermarkDelay: '15 minutes' },
      { name: 'clicks', type: 'files', options: { path: path.join(dir, 'clicks'), format: 'json' }, schema: CLICKS, eventTime: 'click_time', watermarkDelay: '15 minutes' },
    ],
    sql: JOINS[join],
    sink: sinkCase.sink(id, dir),
    outputMode: 'append',
    trigger: { type: 'available-now' },
    checkpointLocation: path.join(dir, 'checkpoint'),
  });
  let seq = 0;
  const write = async (sub: string, schema: Schema, rows: Row[]) => {
    const d = path.join(dir, sub);
    await mkdir(d, { recursive: true });
    const name = `input-${String(seq).padStart(5, '0')}.json`;
    await writeFile(path.join(d, `.${name}.tmp`), encodeRows(rows, schema, 'json', true));
    await rename(path.join(d, `.${name}.tmp`), path.join(d, name));
  };
  const harness = {
    spec,
    clock: new ManualClock(T0),
    addData: async (rows: Row[]) => {
      await write('impressions', IMPRESSIONS, rows.filter((r) => r.side === 'i'));
      await write('clicks', CLICKS, rows.filter((r) => r.side === 'c'));
      seq++;
    },
    readAnswer: () => sinkCase.read(id, dir),
    expected: () => [],
  };
  const [b0, b1, b2, b3] = inputs(join.length * 7 + 3);
  // The batch that reads b1: the batch after the last one the run made before b1 arrived.
  let b1Batch = -1;
  const actions: StreamAction[] = [
    AddData(b0),
    ProcessAllAvailable(),
    Assert((s) => void (b1Batch = s.progress.at(-1)!.batchId + 1)),
    AddData(b1),
    ...(crash ? [CrashAt(crash.point, crash.batchId)] : [ProcessAllAvailable()]),
    AddData(b2),
    ProcessAllAvailable(),
    AddData(b3),
    ProcessAllAvailable(),
    StopStream(),
  ];
  const state = await testStream(harness, actions);
  return { answer: await harness.readAnswer(), b1Batch, state };
}

describe.each(Object.keys(JOINS) as (keyof typeof JOINS)[])('%s stream-stream join', (join) => {
  describe.each(sinks)('into the $name sink', (sinkCase) => {
    let baseline: Awaited<ReturnType<typeof joinRun>>;
    beforeAll(async () => {
      baseline = await joinRun(join, sinkCase);
    });

    it('an uncrashed run joins rows (and, left outer, pads the unmatched)', () => {
      expect(baseline.answer.filter((r) => r.click_ad_id !== null).length).toBeGreaterThan(3);
      if (join === 'left outer') expect(baseline.answer.some((r) => r.click_ad_id === null)).toBe(true);
      else expect(baseline.answer.every((r) => r.click_ad_id !== null)).toBe(true);
    });

    it.each(CRASH_POINTS)('crash at %s of the batch reading the second input: every row once', async (point) => {
      const crashed = await joinRun(join, sinkCase, { point, batchId: baseline.b1Batch });
      expect(crashed.b1Batch).toBe(baseline.b1Batch);
      expect(crashed.state.crashes).toHaveLength(1);
      expect(canonical(crashed.answer)).toEqual(canonical(baseline.answer));
    });
  });
});
