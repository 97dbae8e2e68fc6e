/**
 * A static table changed while the query runs: Spark re-runs a static DataFrame's plan at each
 * micro-batch, so the batch after the change joins the new rows; a table with `cache: true`
 * (Spark's `.cache()`) keeps the rows of its first read for the whole run. Each script: batch 0,
 * the file rewritten, batch 1.
 */
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock';
import { BadRecordError } from '../errors';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import { validateJob } from '../spec/validate-job';
import type { Row } from '../types';
import { MicroBatchExecution } from './micro-batch-execution';
import { mustParse } from './testing/test-fixtures';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

const EVENTS = [{ name: 'id', type: 'long' }, { name: 'region', type: 'string' }];
const REGIONS = [{ name: 'region', type: 'string' }, { name: 'weight', type: 'long' }];
const BLOCKED = [{ name: 'user', type: 'string' }, { name: 'region', type: 'string' }];
const lines = (rows: Row[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
const V1 = [{ region: 'eu', weight: 1 }, { region: 'us', weight: 2 }];
// eu reweighted, us gone, mars added.
const V2 = [{ region: 'eu', weight: 10 }, { region: 'mars', weight: 30 }];

let n = 0;
/** A run of `sql` over `regions` (and `blocked`) files: batch 0, `change`, batch 1; the rows of each batch. */
async function twoBatches(sql: string, change: (files: { regions: string; blocked: string }) => Promise<void>, opts: { cache?: boolean; outputMode?: string } = {}) {
  const name = `reread-${process.pid}-${n++}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-reread-'));
  roots.push(dir);
  const files = { regions: path.join(dir, 'regions.json'), blocked: path.join(dir, 'blocked.json') };
  await writeFile(files.regions, lines(V1));
  await writeFile(files.blocked, lines([{ user: 'ann', region: 'eu' }]));
  const cache = opts.cache ? { cache: true } : {};
  const spec = {
    name,
    source: { name: 'events', type: 'memory', options: { stream: name }, schema: EVENTS },
    staticTables: [
      { name: 'regions', path: files.regions, format: 'json', schema: REGIONS, ...cache },
      { name: 'blocked', path: files.blocked, format: 'json', schema: BLOCKED, ...cache },
    ],
    sql,
    outputMode: opts.outputMode ?? 'append',
    sink: { type: 'memory', options: { table: name } },
    checkpointLocation: path.join(dir, 'cp'),
  };
  const q = new MicroBatchExecution({ spec: mustParse(spec), clock: new ManualClock(0) });
  const stream = MemoryStream.named(name);
  const sink = MemorySinkTable.named(name);
  const batch = async (rows: Row[]) => {
    const before = sink.rows.length;
    stream.addData(...rows);
    await q.processAllAvailable();
    return sink.rows.slice(before).map((r) => JSON.stringify(r)).sort();
  };
  try {
    const first = await batch([{ id: 1, region: 'eu' }, { id: 2, region: 'us' }, { id: 3, region: 'mars' }]);
    await change(files);
    const second = await batch([{ id: 4, region: 'eu' }, { id: 5, region: 'us' }, { id: 6, region: 'mars' }]);
    return { first, second, explain: validateJob(spec).explain ?? '' };
  } finally {
    await q.stop();
  }
}

/** Rewrites a file as a writer should, atomically: the new text under another name, renamed over it. */
const replace = async (file: string, text: string) => {
  await writeFile(`${file}.tmp`, text);
  await rename(`${file}.tmp`, file);
};

describe('a static table changed between batches', () => {
  const sql = 'SELECT e.id, r.weight FROM events e LEFT JOIN regions r ON e.region = r.region';

  it('is read again: the next batch joins the new rows (Spark re-runs the static plan each micro-batch)', async () => {
    const r = await twoBatches(sql, (f) => replace(f.regions, lines(V2)));
    expect(r.first).toEqual(['{"id":1,"weight":1}', '{"id":2,"weight":2}', '{"id":3,"weight":null}']);
    expect(r.second).toEqual(['{"id":4,"weight":10}', '{"id":5,"weight":null}', '{"id":6,"weight":30}']);
    expect(r.explain).toContain('[static table, read at each batch with data]');
  });

  it('rewritten in place (same inode) is seen too', async () => {
    const r = await twoBatches(sql, (f) => writeFile(f.regions, lines([...V2, { region: 'apac', weight: 40 }])));
    expect(r.second).toEqual(['{"id":4,"weight":10}', '{"id":5,"weight":null}', '{"id":6,"weight":30}']);
  });

  it('with cache: true, is read once per run (Spark\'s .cache()): the next batch joins the first read\'s rows', async () => {
    const r = await twoBatches(sql, (f) => replace(f.regions, lines(V2)), { cache: true });
    expect(r.second).toEqual(['{"id":4,"weight":1}', '{"id":5,"weight":2}', '{"id":6,"weight":null}']);
    expect(r.explain).toContain('[static table, cached: read once per run]');
  });

  it('a static side\'s batch plan runs again over the new rows, a table its inner join reads included', async () => {
    const agg = 'SELECT e.id, r.w FROM events e JOIN (SELECT region, max(weight) AS w FROM regions GROUP BY region) r ON e.region = r.region';
    const r = await twoBatches(agg, (f) => replace(f.regions, lines(V2)));
    expect(r.second).toEqual(['{"id":4,"w":10}', '{"id":6,"w":30}']);
    expect(r.explain).toContain('[static: the batch plan below, run again at each batch with data]');
    expect((await twoBatches(agg, (f) => replace(f.regions, lines(V2)), { cache: true })).explain).toContain('[static: the batch plan below, run once per run: its tables are cached]');
    // Only the inner join's right side changes: ann now blocked in mars too.
    const joined = 'SELECT e.id, x.user FROM events e JOIN (SELECT r.region, b.user FROM regions r JOIN blocked b ON r.region = b.region) x ON e.region = x.region';
    const changeBlocked = (f: { regions: string; blocked: string }) => Promise.all([replace(f.regions, lines([...V1, { region: 'mars', weight: 3 }])), replace(f.blocked, lines([{ user: 'ann', region: 'eu' }, { user: 'bo', region: 'mars' }]))]).then(() => undefined);
    expect((await twoBatches(joined, changeBlocked)).second).toEqual(['{"id":4,"user":"ann"}', '{"id":6,"user":"bo"}']);
    expect((await twoBatches(joined, changeBlocked, { cache: true })).second).toEqual(['{"id":4,"user":"ann"}']);
  });

  it('an IN subquery and a scalar subquery read the new rows too', async () => {
    const semi = await twoBatches('SELECT e.id FROM events e WHERE e.region IN (SELECT region FROM regions)', (f) => replace(f.regions, lines(V2)));
    expect(semi.second).toEqual(['{"id":4}', '{"id":6}']);
    const scalar = await twoBatches('SELECT e.id, (SELECT max(weight) FROM regions) AS top FROM events e WHERE e.id IN (1, 4)', (f) => replace(f.regions, lines(V2)));
    expect([scalar.first, scalar.second]).toEqual([['{"id":1,"top":2}'], ['{"id":4,"top":30}']]);
    const cached = await twoBatches('SELECT e.id, (SELECT max(weight) FROM regions) AS top FROM events e WHERE e.id IN (1, 4)', (f) => replace(f.regions, lines(V2)), { cache: true });
    expect(cached.second).toEqual(['{"id":4,"top":2}']);
  });

  it('a bad line in the new file fails the run, naming the file and line', async () => {
    const err = await twoBatches(sql, (f) => replace(f.regions, lines(V2) + '{"region":"x","weight":"heavy"}\n')).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(BadRecordError);
    expect((err as Error).message).toMatch(/Static table regions \(.*regions\.json\) line 3: field "weight"/);
  });
});
