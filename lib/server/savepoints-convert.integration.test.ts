/**
 * A savepoint restored as a new job with the other state store provider, as the Savepoints panel
 * offers it: the new job's spec names the provider, its restored state is converted to it, and a
 * query run on that checkpoint with the new provider (real LMDB) finishes with exactly the result
 * of the uninterrupted run on the old one.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import '@/lib/connectors/index';
import { checkpointFileManagerFor, inspectCheckpoint, MemorySinkTable, MicroBatchExecution, parseJobSpec } from '@/lib/engine';
import { filesSpec } from './testing/api-test-kit';
import { addJsonFile, useSavepointTestKit } from './testing/savepoint-test-kit';

const t = useSavepointTestKit('weir-sp-convert-');
const { dir } = t;

/** Five rows over four users. */
function addFile(inDir: string, no: number): void {
  addJsonFile(inDir, no, Array.from({ length: 5 }, (_, i) => ({ user: `u${(no + i) % 4}`, n: no * 10 + i })));
}

describe('new job from a savepoint with the other state store provider', () => {
  it('converts the restored state, and the new job continues on LMDB with the uninterrupted result', async () => {
    const inDir = path.join(dir, 'in');
    mkdirSync(inDir, { recursive: true });
    const stateful = {
      ...filesSpec('heap-agg', dir),
      source: { name: 'clicks', type: 'files', options: { path: inDir, format: 'json', maxFilesPerTrigger: 1 }, schema: [{ name: 'user', type: 'string' }, { name: 'n', type: 'long' }] },
      sql: 'SELECT user, count(*) AS c, sum(n) AS s FROM clicks GROUP BY user',
      sink: { type: 'console', options: {} },
      outputMode: 'complete',
    };
    const created = await t.kit.call(t.routes.jobs.POST, '/api/jobs', { method: 'POST', token: t.kit.tokens.admin, body: { spec: stateful } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id: string = created.body.job.id;
    const job = await t.kit.db.job.findUniqueOrThrow({ where: { id } });
    const engineSpec = (spec: object, table: string, checkpointLocation: string) => {
      const parsed = parseJobSpec({ ...spec, sink: { type: 'memory', options: { table } }, trigger: { type: 'processing-time', interval: '0 seconds' }, checkpointLocation });
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
      return parsed.spec;
    };

    // Three batches on the heap store, a savepoint at batch 2, then two more batches.
    for (let no = 0; no < 3; no++) addFile(inDir, no);
    const first = new MicroBatchExecution({ spec: engineSpec(job.spec as object, 'heap-run', job.checkpointLocation) });
    await first.processAllAvailable();
    await first.stop();
    const sp = await t.kit.call(t.routes.savepoints.POST, `/api/jobs/${id}/savepoints`, { method: 'POST', token: t.kit.tokens.admin, params: { id }, body: { name: 'at-2' } });
    expect(sp.status, JSON.stringify(sp.body)).toBe(201);
    expect(sp.body.batchId).toBe(2);
    for (let no = 3; no < 5; no++) addFile(inDir, no);
    const rest = new MicroBatchExecution({ spec: engineSpec(job.spec as object, 'heap-run', job.checkpointLocation) });
    await rest.processAllAvailable();
    await rest.stop();
    const expected = MemorySinkTable.named('heap-run').batches.at(-1)!.rows.map((r) => JSON.stringify(r)).sort();
    expect(expected).toHaveLength(4);

    const nj = (body: object) => t.kit.call(t.routes.newJob.POST, `/api/jobs/${id}/savepoints/${sp.body.id}/new-job`, { method: 'POST', token: t.kit.tokens.admin, params: { id, savepointId: sp.body.id }, body });
    expect((await nj({ name: 'bad-provider', acknowledgeReprocessing: true, stateStoreProvider: 'rocksdb' })).status).toBe(400);
    const made = await nj({ name: 'lmdb-copy', acknowledgeReprocessing: true, stateStoreProvider: 'lmdb' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.message).toContain('converted from the hdfs state store to lmdb');
    const copy = await t.kit.db.job.findUniqueOrThrow({ where: { id: made.body.job.id } });
    expect((copy.spec as { stateStore?: object }).stateStore).toEqual({ provider: 'lmdb' });
    const info = await inspectCheckpoint(checkpointFileManagerFor(copy.checkpointLocation));
    expect(info.state.map((op) => op.stateStoreProvider)).toEqual(['lmdb']);
    expect((await t.kit.db.auditEvent.findFirstOrThrow({ where: { targetId: copy.id, action: 'job.new-from-savepoint' } })).after).toMatchObject({ stateStoreProvider: 'lmdb' });

    // The new job's query, on LMDB, continues from batch 3 and ends where the heap run ended.
    const localDir = path.join(dir, 'state-cache');
    const next = new MicroBatchExecution({ spec: engineSpec(copy.spec as object, 'lmdb-run', copy.checkpointLocation), stateLocalDir: localDir });
    await next.processAllAvailable();
    await next.stop();
    const batches = MemorySinkTable.named('lmdb-run').batches;
    expect(batches.map((b) => b.batchId)).toEqual([3, 4]);
    expect(batches.at(-1)!.rows.map((r) => JSON.stringify(r)).sort()).toEqual(expected);

    // Keeping the provider converts nothing.
    const same = await nj({ name: 'heap-copy', acknowledgeReprocessing: true, stateStoreProvider: 'hdfs' });
    expect(same.status, JSON.stringify(same.body)).toBe(201);
    expect(same.body.message).not.toContain('converted');
    const sameInfo = await inspectCheckpoint(checkpointFileManagerFor((await t.kit.db.job.findUniqueOrThrow({ where: { id: same.body.job.id } })).checkpointLocation));
    expect(sameInfo.state.map((op) => op.stateStoreProvider)).toEqual(['hdfs']);
  }, 120_000);
});
