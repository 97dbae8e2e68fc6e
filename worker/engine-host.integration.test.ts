/**
 * EngineHost against real engine processes (the bundled engine-process.ts), over a files source
 * and sink in a temp dir: what run-processor.ts relies on crosses the process boundary intact.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CrashPointError, readCommittedRows, validateJob, WeirError, type CrashPlan, type StreamingQueryProgress } from '@/lib/engine';
import { Worker } from 'node:worker_threads';
import { lmdbKey, openLocalCache } from '@/lib/engine/state/lmdb-environment';
import { readStateFile } from '@/lib/engine/state/state-file-format';
import { EngineHost, engineBundle } from './engine-host';

const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-engine-host-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function filesJob(name: string, files: string[], sql = 'SELECT id FROM events') {
  const base = path.join(dir, name);
  mkdirSync(path.join(base, 'in'), { recursive: true });
  files.forEach((text, i) => writeFileSync(path.join(base, 'in', `part-${i}.json`), text));
  const v = validateJob({
    name,
    source: { name: 'events', type: 'files', options: { path: path.join(base, 'in'), format: 'json', maxFilesPerTrigger: 1 }, schema: [{ name: 'id', type: 'long' }] },
    sql,
    sink: { type: 'files', options: { path: path.join(base, 'out'), format: 'json' } },
    outputMode: 'append',
    trigger: { type: 'available-now' },
    checkpointLocation: path.join(base, 'cp'),
  });
  if (!v.spec) throw new Error(JSON.stringify(v.errors));
  return { spec: v.spec, out: path.join(base, 'out') };
}

function host(spec: ReturnType<typeof filesJob>['spec'], o: { fence?: () => Promise<void>; crash?: CrashPlan; memoryLimitMb?: number; currentUser?: string } = {}) {
  const progress: StreamingQueryProgress[] = [];
  let fences = 0;
  const h = new EngineHost({
    spec,
    currentUser: o.currentUser,
    crash: o.crash,
    memoryLimitMb: o.memoryLimitMb ?? 256,
    fence: async () => {
      fences++;
      await o.fence?.();
    },
    onProgress: async (p) => void progress.push(p),
    log: () => undefined,
  });
  return { h, progress, fences: () => fences };
}

const rows = (ids: number[]) => ids.map((id) => JSON.stringify({ id })).join('\n') + '\n';

describe('EngineHost', () => {
  it('bundles the state snapshot worker beside the engine process, where the state store looks for it', async () => {
    const file = await engineBundle();
    // Without it every snapshot would quietly be built on the batch's thread.
    const w = new Worker(path.join(path.dirname(file), 'state-snapshot-worker.mjs'));
    try {
      const reply = await new Promise<{ id: number; data?: Uint8Array; error?: unknown }>((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
        w.postMessage({ id: 7, version: 1, base: null, deltas: [] });
      });
      expect(reply.error).toBeUndefined();
      expect(reply.id).toBe(7);
      expect(reply.data).toBeInstanceOf(Uint8Array);
    } finally {
      await w.terminate();
    }
  });

  it('the bundled snapshot worker reads an LMDB state store\'s environment', async () => {
    const file = await engineBundle();
    const local = path.join(dir, 'lmdb-env');
    const e = openLocalCache(local);
    e.env.transactionSync(() => {
      e.rows.putSync(lmdbKey('k'), Buffer.from([1, 2]));
      e.meta.putSync('version', { version: 3, checkpoint: 'test', file: null, crc: 0 });
    });
    const w = new Worker(path.join(path.dirname(file), 'state-snapshot-worker.mjs'));
    try {
      const reply = await new Promise<{ id: number; data?: Uint8Array; version?: number; error?: unknown }>((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
        w.postMessage({ id: 8, lmdbPath: local });
      });
      expect(reply.error).toBeUndefined();
      expect(reply.version).toBe(3);
      const got = new Map<string, string>();
      readStateFile('3.snapshot', Buffer.from(reply.data!), { version: 3, kind: 'snapshot' }, (k, v) => void got.set(k, v), () => {});
      expect(got).toEqual(new Map([['k', '\x01\x02']]));
    } finally {
      await w.terminate();
      await e.env.close();
    }
  });

  it("runs the query as the host's currentUser (current_user() in the engine process)", async () => {
    const job = filesJob('current-user', [rows([1])], 'SELECT id, current_user() AS u FROM events');
    const t = host(job.spec, { currentUser: 'alice' });
    await t.h.start();
    await t.h.run();
    expect((await readCommittedRows(job.out, 'json')).flatMap((b) => b.rows)).toEqual([{ id: 1, u: 'alice' }]);
  });

  it('starts, runs and ends as MicroBatchExecution does, fencing and reporting each batch', async () => {
    const job = filesJob('basic', [rows([1, 2]), rows([3])]);
    const t = host(job.spec);
    await t.h.start();
    expect(t.h.id).toMatch(/^[0-9a-f-]{36}$/);
    await t.h.run();
    expect(t.progress.map((p) => [p.batchId, p.numInputRows])).toEqual([
      [0, 2],
      [1, 1],
    ]);
    // Before planning, offsets/N, the sink and commits/N of each batch.
    expect(t.fences()).toBeGreaterThanOrEqual(6);
    expect((await readCommittedRows(job.out, 'json')).flatMap((b) => b.rows.map((r) => Number(r.id)))).toEqual([1, 2, 3]);
    expect(t.h.pid).toBeUndefined(); // the engine process has exited
    await t.h.stop(); // after the end: nothing to do
  });

  it('brings back the very error a host callback threw (a lost lease), and writes nothing after it', async () => {
    class LeaseGone extends Error {
      readonly code = 'LEASE_LOST';
    }
    const gone = new LeaseGone('lease gone');
    const job = filesJob('fenced', [rows([1])]);
    const t = host(job.spec, { fence: async () => Promise.reject(gone) });
    await t.h.start();
    await expect(t.h.run()).rejects.toBe(gone);
    expect(t.progress).toEqual([]);
    expect(await readCommittedRows(job.out, 'json')).toEqual([]);
  });

  it('brings back a drill crash as a CrashPointError, and an engine error with its code and details', async () => {
    const crashing = host(filesJob('crash', [rows([1])]).spec, { crash: { point: 'after-sink', batchId: 0 } });
    await crashing.h.start();
    const crash = await crashing.h.run().catch((e) => e);
    expect(crash).toBeInstanceOf(CrashPointError);
    expect(crash).toMatchObject({ point: 'after-sink', batchId: 0, code: 'CRASH_POINT' });

    const bad = host(filesJob('bad', [rows([1]), '{"id": 2}\nnot json\n']).spec);
    await bad.h.start();
    const err = await bad.h.run().catch((e) => e);
    expect(err).toBeInstanceOf(WeirError);
    expect(err).toMatchObject({ code: 'BAD_RECORD', name: 'BadRecordError', details: { line: 2 } });
    expect(bad.progress.map((p) => p.batchId)).toEqual([0]);
  });

  it('stops gracefully on request, also before the engine process exists', async () => {
    const running = host({ ...filesJob('stop', [rows([1])]).spec, trigger: { type: 'processing-time', interval: '100 milliseconds' } });
    await running.h.start();
    const run = running.h.run();
    while (running.progress.length === 0) await new Promise((r) => setTimeout(r, 50));
    await running.h.stop();
    await run;
    expect(running.h.pid).toBeUndefined();

    const early = host(filesJob('stop-early', [rows([1])]).spec);
    await early.h.stop();
    await early.h.start();
    await early.h.run();
    expect(early.progress).toEqual([]);
    expect(early.h.pid).toBeUndefined();
  });

  it('ends with ENGINE_EXITED when the engine process dies without an answer', async () => {
    const t = host({ ...filesJob('killed', [rows([1])]).spec, trigger: { type: 'processing-time', interval: '100 milliseconds' } });
    await t.h.start();
    const run = t.h.run().catch((e) => e);
    process.kill(t.h.pid!, 'SIGKILL');
    const err = await run;
    expect(err).toMatchObject({ code: 'ENGINE_EXITED', details: { signal: 'SIGKILL' } });
    expect(err.message).toMatch(/signal SIGKILL/);
  });

  it('ends with RESOURCE_EXHAUSTED naming the limit when the engine runs out of heap', async () => {
    const v = validateJob({
      name: 'greedy',
      source: { name: 'ticks', type: 'rate', options: { rowsPerSecond: 2_000_000 }, schema: [{ name: 'timestamp', type: 'timestamp' }, { name: 'value', type: 'long' }] },
      sql: 'SELECT value, count(*) AS n FROM ticks GROUP BY value',
      sink: { type: 'console', options: { numRows: 1 } },
      outputMode: 'update',
      trigger: { type: 'processing-time', interval: '1 second' },
      checkpointLocation: path.join(dir, 'greedy', 'cp'),
    });
    const t = host(v.spec!, { memoryLimitMb: 128 });
    await t.h.start();
    const err = await t.h.run().catch((e) => e);
    expect(err).toMatchObject({ code: 'RESOURCE_EXHAUSTED', details: { resource: 'memory', memoryLimitMb: 128 } });
    expect(err.message).toContain('memory limit of 128 MB (WEIR_RUN_MEMORY_MB)');
  }, 120_000);
});
