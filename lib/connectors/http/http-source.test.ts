// The http source through its real HTTP listener on loopback: the source contract suite (which
// checks that a restart really loses an uncommitted range, as the label says), request formats,
// back-pressure, bad records, and release on commit.
import { describe, expect, it } from 'vitest';
import { sourceContractSchema, sourceContractSuite } from '../../engine/sources/testing/source.contract';
import { HttpSource, httpSourceOptions } from './http-source';
import { MicroBatchExecution } from '../../engine/execution/micro-batch-execution';
import { parseJobSpec } from '../../engine/spec/job-spec';
import { MemorySinkTable } from '../../engine/sinks/memory-sink';
import '../../engine/sinks/index';
import type { Row } from '../../engine/types';

const make = (extra = {}) => new HttpSource(httpSourceOptions.parse({ port: 0, path: '/ingest', ...extra }), sourceContractSchema);
const post = (src: HttpSource, body: string, method = 'POST', path = '/ingest') =>
  fetch(`http://127.0.0.1:${src.listeningPort}${path}`, { method, body: method === 'GET' ? undefined : body });

sourceContractSuite('http', {
  async make() {
    const source = make();
    const opened = [source];
    await source.open();
    return {
      source,
      append: async (rows: Row[]) => {
        const res = await post(source, JSON.stringify(rows));
        if (res.status !== 202) throw new Error(`POST failed: ${res.status}`);
      },
      reopen: async () => { const s = make({ port: undefined }); opened.push(s); return s; },
      cleanup: async () => { for (const s of opened) await s.stop(); },
    };
  },
});

describe('http source specifics', () => {
  it('accepts a JSON array, one object, or JSON lines, and answers with the new offset', async () => {
    const src = make();
    await src.open();
    try {
      expect(await (await post(src, '[{"id":1,"name":"a","amount":1}]')).json()).toEqual({ accepted: 1, offset: 1 });
      expect((await post(src, '{"id":2,"name":"b","amount":2}')).status).toBe(202);
      expect((await post(src, '{"id":3,"name":"c","amount":3}\n{"id":4,"name":"d","amount":4}\n')).status).toBe(202);
      const b = await src.getBatch(null, await src.latestOffset());
      expect(b.rows.map((r) => r.id)).toEqual([1, 2, 3, 4]);
      expect(src.description).toMatch(/^HttpSource\[http:\/\/127\.0\.0\.1:\d+\/ingest\]$/);
    } finally {
      await src.stop();
    }
  });

  it('refuses what it cannot take instead of dropping it: bad JSON 400, full buffer 503, wrong method/path', async () => {
    const src = make({ maxBufferedRecords: 2 });
    await src.open();
    try {
      expect((await post(src, '{"id":1,')).status).toBe(400);
      expect(await src.latestOffset()).toBeNull();
      expect((await post(src, '[{"id":1},{"id":2}]')).status).toBe(202);
      expect((await post(src, '[{"id":3}]')).status).toBe(503);
      expect((await post(src, '', 'GET')).status).toBe(405);
      expect((await post(src, '[]', 'POST', '/other')).status).toBe(404);
      // Committing the batch frees the buffer, and the sender's retry is accepted.
      const o2 = await src.latestOffset();
      await src.commit(o2!);
      expect((await post(src, '[{"id":3}]')).status).toBe(202);
      expect((await src.getBatch(o2, (await src.latestOffset())!)).rows.map((r) => r.id)).toEqual([3]);
    } finally {
      await src.stop();
    }
  });

  it('with a token, refuses a POST without the bearer token (401) and accepts one with it', async () => {
    const src = make({ token: 'tok-12345678' });
    await src.open();
    try {
      expect((await post(src, '[{"id":1}]')).status).toBe(401);
      const url = `http://127.0.0.1:${src.listeningPort}/ingest`;
      expect((await fetch(url, { method: 'POST', body: '[{"id":1}]', headers: { authorization: 'Bearer tok-00000000' } })).status).toBe(401);
      expect((await fetch(url, { method: 'POST', body: '[{"id":1}]', headers: { authorization: 'Bearer tok-12345678' } })).status).toBe(202);
      expect((await src.latestOffset()) as { count: number }).toMatchObject({ count: 1 });
      expect(src.description).not.toContain('tok-12345678');
    } finally {
      await src.stop();
    }
  });

  it('reports a record that does not fit the schema as a bad record with its offset', async () => {
    const src = make({ port: undefined });
    src.push([{ id: 1, name: 'a', amount: 1 }, { id: 'two', name: 'b', amount: 2 }, 7]);
    const b = await src.getBatch(null, (await src.latestOffset())!);
    expect(b.rows).toEqual([{ id: 1, name: 'a', amount: 1 }]);
    expect(b.badRecords.map((r) => [r.location.offset, r.reason])).toEqual([
      [expect.objectContaining({ count: 2 }), expect.stringMatching(/field "id"/)],
      [expect.objectContaining({ count: 3 }), 'not a JSON object'],
    ]);
  });

  it('is labelled not replayable, with the reason', () => {
    const src = make({ port: undefined });
    expect(src.replayable).toBe(false);
    expect(src.replayableReason).toMatch(/crash/);
  });
});

describe('http source through the engine, across a restart', () => {
  it('records pushed to a new process after a restart are read, not mistaken for committed ones', async () => {
    const r = parseJobSpec({
      name: 'http-restart',
      source: { name: 'hits', type: 'http', options: {}, schema: sourceContractSchema },
      sql: 'SELECT id FROM hits',
      sink: { type: 'memory', options: { table: 'http-restart' } },
      trigger: { type: 'available-now' },
      checkpointLocation: 'memory://http-restart',
    });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const first = make({ port: undefined });
    first.push([1, 2, 3].map((id) => ({ id, name: 'a', amount: 1 })));
    const run1 = new MicroBatchExecution({ spec: r.spec, source: first });
    await run1.processAllAvailable();
    await run1.stop();
    const second = make({ port: undefined });
    second.push([4, 5].map((id) => ({ id, name: 'b', amount: 2 })));
    const run2 = new MicroBatchExecution({ spec: r.spec, source: second });
    await run2.processAllAvailable();
    await run2.stop();
    expect(MemorySinkTable.named('http-restart').rows.map((x) => x.id)).toEqual([1, 2, 3, 4, 5]);
  });
});
