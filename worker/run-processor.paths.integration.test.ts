/**
 * The worker checks a job's paths again at run start, against its own roots (its environment
 * may differ from the API's): a path that escapes them ends the run FAILED with
 * PATH_OUTSIDE_ROOTS before the engine touches anything. The processor runs in this process on
 * the API test kit's database; a run job is handed to it as BullMQ would.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Job as BullJob } from 'bullmq';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { env } from '@/lib/env';
import { queueConfigFrom } from '@/lib/queue/connection';
import type { RunPayload } from '@/lib/queue/queues';
import { filesSpec, setupApiTestKit, type ApiTestKit } from '@/lib/server/testing/api-test-kit';
import { RunProcessor } from './run-processor';

const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'weir-run-paths-')));
const apiFiles = path.join(base, 'api-files');
const workerFiles = path.join(base, 'worker-files');
for (const d of [apiFiles, workerFiles]) mkdirSync(d);

let kit: ApiTestKit;
let jobs: typeof import('@/app/api/jobs/route');

beforeAll(async () => {
  kit = await setupApiTestKit({ filesRoots: [apiFiles] });
  jobs = await import('@/app/api/jobs/route');
});
afterAll(async () => {
  await kit?.teardown();
  rmSync(base, { recursive: true, force: true });
});

function processor(filesRoots: string[]) {
  return new RunProcessor({
    db: kit.db,
    workerId: 'test-worker',
    log: pino({ level: 'silent' }),
    queue: queueConfigFrom(env()),
    leaseTtlMs: 5000,
    renewMs: 1000,
    roots: { checkpointRoot: kit.checkpointRoot, filesRoots },
    runMemoryMb: 512,
  });
}

describe('the worker at run start', () => {
  it('fails the run with PATH_OUTSIDE_ROOTS when a path is outside its roots, before the engine starts', async () => {
    const res = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: { spec: filesSpec('elsewhere', path.join(apiFiles, 'elsewhere')) } });
    expect(res.status).toBe(201);
    const { id, checkpointLocation } = res.body.job;
    await kit.db.job.update({ where: { id }, data: { desiredState: 'RUNNING', status: 'PENDING' } });

    // This worker's files root is another directory than the API's.
    const outcome = await processor([workerFiles]).process({ data: { jobId: id, reason: 'start', attempt: 0 } satisfies RunPayload } as BullJob<RunPayload>);
    expect(outcome).toBe('failed: PATH_OUTSIDE_ROOTS');
    const job = await kit.db.job.findUniqueOrThrow({ where: { id } });
    expect(job.status).toBe('FAILED');
    expect(job.desiredState).toBe('STOPPED');
    const err = job.lastError as { code: string; message: string; details: { errors: { path: string; resolved: string; roots: string[] }[] } };
    expect(err.code).toBe('PATH_OUTSIDE_ROOTS');
    expect(err.message).toContain('WEIR_FILES_ROOTS');
    expect(err.details.errors.map((e) => e.path)).toEqual(['source.options.path', 'sink.options.path']);
    expect(err.details.errors[0]).toMatchObject({ resolved: path.join(apiFiles, 'elsewhere', 'in'), roots: [workerFiles] });
    const run = await kit.db.run.findFirstOrThrow({ where: { jobId: id } });
    expect(run.status).toBe('FAILED');
    // The engine never started: no checkpoint was written.
    expect(existsSync(path.join(checkpointLocation, 'metadata'))).toBe(false);
  });
});
