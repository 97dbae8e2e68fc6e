// The redis-stream source and sink against this machine's real Redis (unique key per case):
// the source and sink contract suites, trim detection, failOnDataLoss=false, and secrets.
import { RENDERED_JSON, RENDERING_ROW, RENDERING_SCHEMA } from '../../engine/sinks/testing/rendering-fixture';
import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { sourceContractSchema, sourceContractSuite } from '../../engine/sources/testing/source.contract';
import { sinkContractSuite } from '../../engine/sinks/testing/sink.contract';
import { RedisStreamSource } from './redis-stream-source';
import { RedisStreamSink } from './redis-stream-sink';
import { DataLossError } from '../../engine/errors';
import type { Row } from '../../engine/types';

const URL = 'redis://127.0.0.1:6379';
const admin = new Redis(URL);
const prefix = `weir:test:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
let n = 0;
const created: string[] = [];
const key = () => { const k = `${prefix}:${++n}`; created.push(k); return k; };
afterAll(async () => { if (created.length) await admin.del(...created); admin.disconnect(); });

const opts = (stream: string) => ({ url: URL, stream, format: 'json' as const, jsonField: 'data', failOnDataLoss: true, pageSize: 3 });

async function harness(maxEntriesPerTrigger?: number) {
  const stream = key();
  const opened: RedisStreamSource[] = [];
  const open = () => { const s = new RedisStreamSource({ ...opts(stream), maxEntriesPerTrigger }, sourceContractSchema); opened.push(s); return s; };
  return {
    source: open(),
    append: async (rows: Row[]) => { for (const r of rows) await admin.xadd(stream, '*', 'data', JSON.stringify(r)); },
    reopen: async () => open(),
    trimOldest: async (k: number) => { await admin.xtrim(stream, 'MAXLEN', (await admin.xlen(stream)) - k); },
    cleanup: async () => { for (const s of opened) await s.stop(); },
  };
}

sourceContractSuite('redis-stream', { make: () => harness(), makeLimited: (max) => harness(max) });

sinkContractSuite('redis-stream', {
  outputMode: 'append',
  async make() {
    const stream = key();
    const sink = new RedisStreamSink({ url: URL, stream });
    return {
      sink,
      readAll: async () => ((await admin.xrange(stream, '-', '+')) as [string, string[]][]).map(([, f]) => JSON.parse(f[f.indexOf('data') + 1])),
      cleanup: async () => { await sink.close(); },
    };
  },
  makeDown: async () => new RedisStreamSink({ url: 'redis://:red1s-secret@127.0.0.1:1', stream: 'x' }),
  secrets: ['red1s-secret'],
});

describe('redis-stream sink rendering', () => {
  it('writes every column type as the files sink and Spark’s JSON writer do', async () => {
    const stream = key();
    const sink = new RedisStreamSink({ url: URL, stream });
    try {
      await sink.addBatch(0, [RENDERING_ROW], { outputMode: 'append', schema: RENDERING_SCHEMA, queryId: 'q-render' });
      const entries = (await admin.xrange(stream, '-', '+')) as [string, string[]][];
      expect(entries.map(([, f]) => f[f.indexOf('data') + 1])).toEqual([RENDERED_JSON]);
    } finally {
      await sink.close();
    }
  });
});

describe('redis-stream source specifics', () => {
  it('a first batch does not count entries trimmed before the query started as lost', async () => {
    const stream = key();
    for (let i = 0; i < 6; i++) await admin.xadd(stream, '*', 'data', JSON.stringify({ id: i, name: 'x', amount: 1 }));
    await admin.xtrim(stream, 'MAXLEN', 2);
    const src = new RedisStreamSource(opts(stream), sourceContractSchema);
    try {
      const end = await src.latestOffset();
      expect((await src.getBatch(null, end)).rows.map((r) => r.id)).toEqual([4, 5]);
      // ...but a trim after the offsets were recorded loses part of that range: a replay fails.
      await admin.xtrim(stream, 'MAXLEN', 1);
      await expect(src.getBatch(null, end)).rejects.toBeInstanceOf(DataLossError);
    } finally {
      await src.stop();
    }
  });

  it('detects an XDEL in the middle of a recorded range, not only trims', async () => {
    const stream = key();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await admin.xadd(stream, '*', 'data', JSON.stringify({ id: i, name: 'x', amount: 1 }))) as string);
    const src = new RedisStreamSource(opts(stream), sourceContractSchema);
    try {
      const mid = await src.latestOffset();
      for (let i = 5; i < 8; i++) await admin.xadd(stream, '*', 'data', JSON.stringify({ id: i, name: 'x', amount: 1 }));
      const end = await src.latestOffset();
      await admin.xdel(stream, ids[2]);
      expect((await src.getBatch(mid, end)).rows.map((r) => r.id)).toEqual([5, 6, 7]);
      const err = await src.getBatch(null, mid).catch((e: Error) => e);
      expect(err).toBeInstanceOf(DataLossError);
      expect((err as Error).message).toMatch(/held 5 entries .* only 4 are left/);
    } finally {
      await src.stop();
    }
  });

  it('with failOnDataLoss false, continues with what is left', async () => {
    const stream = key();
    for (let i = 0; i < 4; i++) await admin.xadd(stream, '*', 'data', JSON.stringify({ id: i, name: 'x', amount: 1 }));
    const src = new RedisStreamSource({ ...opts(stream), failOnDataLoss: false }, sourceContractSchema);
    try {
      const end = await src.latestOffset();
      await admin.xtrim(stream, 'MAXLEN', 1);
      expect((await src.getBatch(null, end)).rows.map((r) => r.id)).toEqual([3]);
    } finally {
      await src.stop();
    }
  });

  it('reports entries that are not JSON objects of the schema as bad records with their id', async () => {
    const stream = key();
    await admin.xadd(stream, '*', 'data', '{"id":1,"name":"a","amount":2}');
    const badId = await admin.xadd(stream, '*', 'data', 'not json');
    await admin.xadd(stream, '*', 'other', 'x');
    const src = new RedisStreamSource(opts(stream), sourceContractSchema);
    try {
      const b = await src.getBatch(null, await src.latestOffset());
      expect(b.rows).toEqual([{ id: 1, name: 'a', amount: 2 }]);
      expect(b.badRecords.map((r) => r.location.offset)).toEqual([{ id: badId }, expect.anything()]);
      expect(b.badRecords[1].reason).toMatch(/no field "data"/);
    } finally {
      await src.stop();
    }
  });

  it('reads entries whose fields are the record (format fields)', async () => {
    const stream = key();
    await admin.xadd(stream, '*', 'id', '7', 'name', 'seven', 'amount', '3.5');
    const src = new RedisStreamSource({ ...opts(stream), format: 'fields' }, sourceContractSchema);
    try {
      expect((await src.getBatch(null, await src.latestOffset())).rows).toEqual([{ id: 7, name: 'seven', amount: 3.5 }]);
    } finally {
      await src.stop();
    }
  });
});
