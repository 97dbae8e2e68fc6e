/**
 * ScalarSubqueryExec keeps its values out of the logical plan: a run's values are its own (Spark's
 * physical ScalarSubquery holds its result; the logical one stays immutable), so a plan frozen
 * after compiling runs, and two compilations of one query each read their own run's tables.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LogicalPlan } from '../query/logical-plan';
import { compileStreamingQuery } from '../query/streaming-query';
import type { Row } from '../types';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

const events = { kind: 'StreamingRelation' as const, sourceName: 'events', schema: [{ name: 'id', type: 'long' as const }] };
const SQL = 'SELECT id, (SELECT max(weight) FROM regions) AS mx FROM events';

async function regions(weights: number[]) {
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-scalar-subquery-'));
  roots.push(dir);
  const file = path.join(dir, 'regions.json');
  await writeFile(file, weights.map((weight) => JSON.stringify({ weight })).join('\n') + '\n');
  return [{ name: 'regions', path: file, format: 'json' as const, schema: [{ name: 'weight', type: 'long' as const }] }];
}

function deepFreeze<T>(x: T, seen = new Set<unknown>()): T {
  if (x === null || typeof x !== 'object' || seen.has(x)) return x;
  seen.add(x);
  for (const v of Object.values(x)) deepFreeze(v, seen);
  return Object.freeze(x);
}

async function run(q: ReturnType<typeof compileStreamingQuery>, rows: Row[]): Promise<Row[]> {
  let out = rows;
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  return out;
}

describe('ScalarSubqueryExec', () => {
  it('runs with the logical plan frozen: the value is the run\'s, not the plan\'s', async () => {
    const q = compileStreamingQuery(SQL, events, { staticTables: await regions([3, 7]) });
    deepFreeze<LogicalPlan>(q.plan);
    expect(await run(q, [{ id: 1 }])).toEqual([{ id: 1, mx: 7 }]);
  });

  it('a watermark\'s condition (the read\'s WHERE) reads the run\'s value too', async () => {
    const timed = { ...events, schema: [...events.schema, { name: 'ts', type: 'timestamp' as const }], eventTime: 'ts', watermarkDelayMs: 1000 };
    const q = compileStreamingQuery('SELECT id FROM events WHERE id > (SELECT max(weight) FROM regions)', timed, { staticTables: await regions([3]) });
    expect(await run(q, [{ id: 5, ts: 1000 }, { id: 1, ts: 2000 }])).toEqual([{ id: 5 }]);
    const filter = q.eventTimeWatermarks[0].filter!;
    expect([filter({ id: 5, ts: 1000 }, { batchTimestampMs: 0 }), filter({ id: 1, ts: 2000 }, { batchTimestampMs: 0 })]).toEqual([true, false]);
  });

  it('one without FROM reads one row (Spark\'s OneRowRelation), not the stream', async () => {
    const q = compileStreamingQuery('SELECT id, (SELECT 200) AS c FROM events WHERE id > (SELECT 1 + 1)', events, {});
    expect(await run(q, [{ id: 1 }, { id: 3 }])).toEqual([{ id: 3, c: 200 }]);
  });

  it('two runs of one query hold their own values', async () => {
    const a = compileStreamingQuery(SQL, events, { staticTables: await regions([1, 2]) });
    const b = compileStreamingQuery(SQL, events, { staticTables: await regions([5]) });
    expect(await run(a, [{ id: 1 }])).toEqual([{ id: 1, mx: 2 }]);
    expect(await run(b, [{ id: 2 }])).toEqual([{ id: 2, mx: 5 }]);
    expect(await run(a, [{ id: 3 }])).toEqual([{ id: 3, mx: 2 }]);
  });
});
