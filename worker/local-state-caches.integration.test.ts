/**
 * The lmdb state store's local caches through the worker's heartbeat and the checkpoint
 * inspector: a worker reports the caches on its machine, the inspector shows them for the job
 * (machine, version, bytes, whether the next start reuses them), and a cache whose job was deleted
 * or whose checkpoint was reset is removed by the next sweep. Real PostgreSQL, real LMDB.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointFileManagerFor } from '@/lib/engine';
import { LmdbStateStoreProvider } from '@/lib/engine/state/lmdb-state-store-provider';
import { filesSpec, setupApiTestKit, type ApiTestKit } from '@/lib/server/testing/api-test-kit';
import { Heartbeat } from './heartbeat';
import { sweepStateCaches } from './local-state-caches';

let kit: ApiTestKit;
let cacheDir: string;
let jobs: typeof import('@/app/api/jobs/route');
let job: typeof import('@/app/api/jobs/[id]/route');
let checkpoint: typeof import('@/app/api/jobs/[id]/checkpoint/route');
let reset: typeof import('@/app/api/jobs/[id]/reset-checkpoint/route');
const errors: unknown[] = [];

beforeAll(async () => {
  kit = await setupApiTestKit();
  cacheDir = await mkdtemp(path.join(tmpdir(), 'weir-state-cache-'));
  jobs = await import('@/app/api/jobs/route');
  job = await import('@/app/api/jobs/[id]/route');
  checkpoint = await import('@/app/api/jobs/[id]/checkpoint/route');
  reset = await import('@/app/api/jobs/[id]/reset-checkpoint/route');
});
afterAll(async () => {
  await rm(cacheDir, { recursive: true, force: true });
  await kit?.teardown();
});

/** A job whose run committed `versions` state versions with the lmdb store, its cache under `cacheDir/<queryId>`. */
async function jobWithCache(name: string, queryId: string, versions: number): Promise<string> {
  const res = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: filesSpec(name, path.join(tmpdir(), name)) });
  expect(res.status).toBe(201);
  const id: string = res.body.job.id;
  const row = await kit.db.job.findUniqueOrThrow({ where: { id } });
  const fm = checkpointFileManagerFor(row.checkpointLocation);
  await fm.createAtomic('metadata', JSON.stringify({ id: queryId }));
  const p = new LmdbStateStoreProvider(fm, { operatorId: 0, partitionId: 0 }, {}, { localDir: path.join(cacheDir, queryId) });
  for (let v = 0; v < versions; v++) {
    const s = await p.getStore(v);
    s.put(`k${v}`, Buffer.alloc(1000, v));
    await s.commit();
    await fm.createAtomic(`offsets/${v}`, 'v1\n{}\n{"logOffset":0}');
    await fm.createAtomic(`commits/${v}`, 'v1\n{"nextBatchWatermarkMs":0}');
  }
  await p.close();
  await kit.db.job.update({ where: { id }, data: { queryId, lastBatchId: versions - 1 } });
  return id;
}

const inspect = async (id: string) => (await kit.call(checkpoint.GET, `/api/jobs/${id}/checkpoint`, { token: kit.tokens.viewer, params: { id } })).body;
const exists = (p: string) => stat(p).then(() => true, () => false);

describe('local state caches', () => {
  it('a worker reports its caches at each heartbeat; the inspector shows the job\'s, and whether a start reuses them', async () => {
    const id = await jobWithCache('cache-shown', 'q-shown', 3);
    // Before any worker reported: nothing to show (the control plane does not read worker disks).
    expect((await inspect(id)).localCaches).toEqual([]);

    const hb = new Heartbeat(kit.db, 'w-cache-1', 'postgres', 60_000, (e) => errors.push(e), cacheDir);
    await hb.start();
    try {
      await hb.beat(); // the report follows the liveness write
      const row = await kit.db.worker.findUniqueOrThrow({ where: { id: 'w-cache-1' } });
      expect(row.stateCacheDir).toBe(cacheDir);
      const [c] = (await inspect(id)).localCaches;
      expect(c).toMatchObject({ workerIds: ['w-cache-1'], path: path.join(cacheDir, 'q-shown'), nextVersion: 3 });
      expect(c.bytes).toBeGreaterThan(0);
      expect(c.stores).toEqual([expect.objectContaining({ dir: 'state/0/0', version: 3, reuse: true })]);

      // One more batch committed elsewhere (another worker): this cache now rebuilds.
      const fm = checkpointFileManagerFor((await kit.db.job.findUniqueOrThrow({ where: { id } })).checkpointLocation);
      const elsewhere = await mkdtemp(path.join(tmpdir(), 'weir-state-cache-other-'));
      const p = new LmdbStateStoreProvider(fm, { operatorId: 0, partitionId: 0 }, {}, { localDir: elsewhere });
      const s = await p.getStore(3);
      s.put('k3', Buffer.alloc(10));
      await s.commit();
      await p.close();
      await rm(elsewhere, { recursive: true, force: true });
      await fm.createAtomic('offsets/3', 'v1\n{}\n{"logOffset":0}');
      await fm.createAtomic('commits/3', 'v1\n{"nextBatchWatermarkMs":0}');
      await hb.beat();
      const [after] = (await inspect(id)).localCaches;
      expect(after.nextVersion).toBe(4);
      expect(after.stores[0]).toMatchObject({ version: 3, reuse: false, reason: expect.stringContaining('Holds version 3, the next start loads 4') });
    } finally {
      await hb.stop();
    }
    // A stopped worker's report is not shown: it may be stale.
    expect((await inspect(id)).localCaches).toEqual([]);
    // A report naming files outside a state store's is not read.
    const cp = checkpointFileManagerFor((await kit.db.job.findUniqueOrThrow({ where: { id } })).checkpointLocation).description;
    const local = { version: 4, checkpoint: cp, file: '../../metadata', crc: 0 };
    await kit.db.worker.create({
      data: { id: 'w-odd', hostname: 'h', pid: 1, queueBackend: 'postgres', stateCacheDir: '/x', stateCaches: [{ queryId: 'q-shown', path: '/x/q-shown', bytes: 1, modifiedAt: 0, stores: [{ dir: 'state/0/0', local, bytes: 1, fromThisBoot: true }] }] },
    });
    expect((await inspect(id)).localCaches).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('removes the cache of a deleted job and of a reset checkpoint, keeps the others and a cache too new to be named', async () => {
    const deleted = await jobWithCache('cache-deleted', 'q-deleted', 2);
    const resetJob = await jobWithCache('cache-reset', 'q-reset', 2);
    const kept = await jobWithCache('cache-kept', 'q-kept', 2);
    const later = Date.now() + 120_000;
    expect((await sweepStateCaches(kit.db, cacheDir, { now: later })).map((c) => c.queryId)).toEqual(expect.arrayContaining(['q-deleted', 'q-kept', 'q-reset']));

    expect((await kit.call(job.DELETE, `/api/jobs/${deleted}`, { method: 'DELETE', token: kit.tokens.admin, params: { id: deleted } })).status).toBeLessThan(300);
    const r = await kit.call(reset.POST, `/api/jobs/${resetJob}/reset-checkpoint`, { method: 'POST', token: kit.tokens.admin, params: { id: resetJob }, body: { confirm: 'cache-reset' } });
    expect(r.status).toBe(200);
    expect(await exists(path.join(cacheDir, 'q-deleted'))).toBe(true);

    // Within the grace a cache no job names stays: a first start writes it before the job records its query id.
    expect((await sweepStateCaches(kit.db, cacheDir)).map((c) => c.queryId)).toEqual(expect.arrayContaining(['q-deleted', 'q-reset']));
    const left = await sweepStateCaches(kit.db, cacheDir, { now: later });
    expect(left.map((c) => c.queryId)).not.toContain('q-deleted');
    expect(left.map((c) => c.queryId)).not.toContain('q-reset');
    expect(left.map((c) => c.queryId)).toContain('q-kept');
    expect(await exists(path.join(cacheDir, 'q-deleted'))).toBe(false);
    expect(await exists(path.join(cacheDir, 'q-reset'))).toBe(false);
    expect(await exists(path.join(cacheDir, 'q-kept'))).toBe(true);
    expect(kept).toBeTruthy();
  });
});
