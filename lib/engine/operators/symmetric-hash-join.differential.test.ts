/**
 * Stream-stream joins written in SQL against DuckDB: inner, left/right/full outer and left semi
 * joins with a time range, compiled by compileStreamingQuery and run batch by batch over two
 * sources (stores at version N, committed to N+1, restarts from the checkpoint files alone), with
 * the watermark Spark computes (each source's max event time minus its delay, the minimum over
 * the sources that have had data, never going back). Once the streams have ended and a final
 * watermark has passed every row, the output over all batches equals DuckDB's join over the rows
 * that were not late when they arrived (Spark drops those: event time ≤ the batch's watermark).
 */
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import type { StreamingRelation } from '../query/logical-plan';
import { compileStreamingQuery } from '../query/streaming-query';
import { useDuckDB } from '../query/testing/duckdb';
import { FileBackedStateStoreProvider } from '../state/file-backed-state-store-provider';
import { storeKey, type StateStore, type StateStoreId } from '../state/state-store';
import type { Row } from '../types';
import { mulberry32 } from '../../testing/mulberry32';
import { propertyRuns } from '../../testing/property-runs';
import { isStatefulOperator, type OperatorContext } from './physical-operator';
import { StreamingSymmetricHashJoinExec } from './symmetric-hash-join';

const S = 1000;
const T0 = Date.UTC(2026, 0, 1);
const FLUSH = T0 + 1e9;
const LEFT: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 'l',
  schema: [{ name: 'lk', type: 'long' }, { name: 'lt', type: 'timestamp' }, { name: 'lv', type: 'long' }],
  eventTime: 'lt',
  watermarkDelayMs: 5 * S,
};
const RIGHT: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 'r',
  schema: [{ name: 'rk', type: 'long' }, { name: 'rt', type: 'timestamp' }, { name: 'rv', type: 'long' }],
  eventTime: 'rt',
  watermarkDelayMs: 8 * S,
};
const RANGE = 'rk = lk AND rt >= lt - INTERVAL 10 SECONDS AND rt <= lt + INTERVAL 4 SECONDS';
const JOINS = {
  inner: `SELECT * FROM l JOIN r ON ${RANGE}`,
  'left outer': `SELECT * FROM l LEFT OUTER JOIN r ON ${RANGE}`,
  'right outer': `SELECT * FROM l RIGHT OUTER JOIN r ON ${RANGE}`,
  'full outer': `SELECT * FROM l FULL OUTER JOIN r ON ${RANGE}`,
  'left semi': `SELECT * FROM l LEFT SEMI JOIN r ON ${RANGE}`,
  // The range written otherwise, with another condition beside it, and with strict bounds.
  'inner, BETWEEN and another condition': 'SELECT * FROM l JOIN r ON rk = lk AND lt BETWEEN rt - INTERVAL 3 SECONDS AND rt + INTERVAL 7 SECONDS AND lv + rv > 60',
  'left outer, strict bounds': 'SELECT * FROM l LEFT OUTER JOIN r ON rk = lk AND rt > lt - INTERVAL 10 SECONDS AND lt + INTERVAL 4 SECONDS > rt',
};

interface Batch {
  l: Row[];
  r: Row[];
}

/**
 * Batches whose event times mostly move forward, with some rows well behind (late ones among
 * them), keys 0..3 and sometimes NULL.
 */
function randomBatches(seed: number): Batch[] {
  const rnd = mulberry32(seed);
  const n = 1 + Math.floor(rnd() * 8);
  const side = (k: number, p: 'l' | 'r') =>
    Array.from({ length: Math.floor(rnd() * 7) }, (): Row => ({
      [`${p}k`]: rnd() < 0.1 ? null : Math.floor(rnd() * 4),
      [`${p}t`]: T0 + Math.max(0, k * 6 + Math.floor(rnd() * 20) - (rnd() < 0.2 ? 15 : 0)) * S,
      [`${p}v`]: Math.floor(rnd() * 100),
    }));
  return Array.from({ length: n }, (_, k) => ({ l: side(k, 'l'), r: side(k, 'r') }));
}

/** Runs the compiled query over the batches, restarting after the chosen ones; every batch's output and the rows that were on time. */
async function runStreaming(sql: string, batches: Batch[], restartAfter: (n: number) => boolean) {
  const fm = new InMemoryCheckpointFileManager();
  const compile = () => compileStreamingQuery(sql, [LEFT, RIGHT], { outputMode: 'append' });
  let query = compile();
  let providers = new Map<string, FileBackedStateStoreProvider>();
  const provider = (id: StateStoreId) => {
    const key = storeKey(id);
    let p = providers.get(key);
    if (!p) providers.set(key, (p = new FileBackedStateStoreProvider(fm, id, {})));
    return p;
  };
  const output: Row[] = [];
  const onTime: Batch = { l: [], r: [] };
  const sourceWm = new Map<string, number>();
  let wm = 0;
  const all = [...batches, { l: [], r: [] }];
  for (let n = 0; n < all.length; n++) {
    const b = all[n];
    if (n === all.length - 1) wm = FLUSH;
    onTime.l.push(...b.l.filter((r) => (r.lt as number) > wm));
    onTime.r.push(...b.r.filter((r) => (r.rt as number) > wm));
    const stores = new Map<string, StateStore>();
    const stateful = query.operators.filter(isStatefulOperator);
    for (const op of stateful) {
      for (const storeName of op.storeNames ?? [undefined]) {
        const id: StateStoreId = { operatorId: op.operatorId, partitionId: 0, ...(storeName ? { storeName } : {}) };
        stores.set(storeKey(id), await provider(id).getStore(n));
      }
    }
    const ctx: OperatorContext = { batchId: n, batchWatermarkMs: wm, batchTimestampMs: 0, stateStores: stores, inputs: new Map([['l', b.l], ['r', b.r]]) };
    let rows = b.l;
    for (const op of query.operators) rows = await op.execute(rows, ctx);
    for (const s of stores.values()) await s.commit();
    for (const op of stateful) op.onCommitted(n + 1);
    output.push(...rows);
    // Spark's watermark for the next batch: per source max − delay, the minimum over those with data.
    for (const [rel, rs] of [[LEFT, b.l], [RIGHT, b.r]] as const) {
      if (!rs.length) continue;
      const max = Math.max(...rs.map((r) => r[rel.eventTime!] as number));
      sourceWm.set(rel.sourceName, Math.max(sourceWm.get(rel.sourceName) ?? -Infinity, max - rel.watermarkDelayMs!));
    }
    if (sourceWm.size) wm = Math.max(wm, Math.min(...sourceWm.values()));
    if (restartAfter(n)) {
      for (const p of providers.values()) await p.close();
      providers = new Map();
      query = compile();
    }
  }
  return { output, onTime, stateLeft: query.operators.filter(isStatefulOperator).map((op) => op.progress().numRowsTotal) };
}

const duckConn = useDuckDB();
const lit = (v: unknown, ts: boolean) => (v === null ? 'NULL' : ts ? `epoch_ms(${v as number})` : String(v));

async function duck(sql: string, { l, r }: Batch): Promise<Row[]> {
  const c = duckConn();
  await c.run('DROP TABLE IF EXISTS l; DROP TABLE IF EXISTS r; CREATE TABLE l (lk BIGINT, lt TIMESTAMP, lv BIGINT); CREATE TABLE r (rk BIGINT, rt TIMESTAMP, rv BIGINT)');
  for (const [table, rows, p] of [['l', l, 'l'], ['r', r, 'r']] as const) {
    if (rows.length) await c.run(`INSERT INTO ${table} VALUES ${rows.map((x) => `(${lit(x[`${p}k`], false)}, ${lit(x[`${p}t`], true)}, ${lit(x[`${p}v`], false)})`).join(', ')}`);
  }
  // DuckDB spells Spark's LEFT SEMI JOIN as SEMI JOIN; timestamps come back as epoch milliseconds.
  const semi = sql.includes('LEFT SEMI');
  const cols = semi ? 'lk, epoch_ms(lt) AS lt, lv' : 'lk, epoch_ms(lt) AS lt, lv, rk, epoch_ms(rt) AS rt, rv';
  const reader = await c.runAndReadAll(`SELECT ${cols} FROM (${sql.replace('LEFT SEMI JOIN', 'SEMI JOIN')})`);
  return reader.getRowObjectsJS().map((x) => Object.fromEntries(Object.entries(x).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
}

const canon = (rows: Row[]) => rows.map((r) => JSON.stringify(Object.keys(r).sort().map((k) => [k, r[k]]))).sort();

describe('stream-stream joins in SQL against DuckDB, after the final watermark', () => {
  it('gives the join the range of lt − rt its condition bounds, for the probe to pass over rows outside it', () => {
    const join = compileStreamingQuery(JOINS.inner, [LEFT, RIGHT], { outputMode: 'append' }).operators.find((op) => op instanceof StreamingSymmetricHashJoinExec)!;
    expect(join['o'].timeRange).toEqual({ minMs: -4 * S, maxMs: 10 * S });
  });

  it.each(Object.entries(JOINS))('%s', async (_name, sql) => {
    const runs = propertyRuns(25, 200);
    let pairs = 0;
    let late = 0;
    for (let seed = 1; seed <= runs; seed++) {
      const batches = randomBatches(seed * 7919 + sql.length);
      const rnd = mulberry32(seed);
      const restarts = new Set(batches.map((_, i) => i).filter(() => rnd() < 0.3));
      const { output, onTime, stateLeft } = await runStreaming(sql, batches, (n) => restarts.has(n));
      const want = await duck(sql, onTime);
      expect(canon(output), `seed ${seed}`).toEqual(canon(want));
      // The final watermark passed every row: no state is left.
      expect(stateLeft, `seed ${seed}`).toEqual([0]);
      pairs += want.length;
      late += batches.reduce((s, b) => s + b.l.length + b.r.length, 0) - onTime.l.length - onTime.r.length;
    }
    // The inputs exercise what they claim to: rows joined, rows dropped as late.
    expect(pairs).toBeGreaterThan(runs);
    expect(late).toBeGreaterThan(0);
  });
});
