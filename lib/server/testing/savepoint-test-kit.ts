/**
 * What the savepoint tests share: a temporary directory that is both the checkpoint root's parent
 * and an allowed files root, the API test kit over it, the savepoint routes loaded after the kit
 * has set the environment they read, and the one way these tests write a source file (hidden,
 * then renamed, so the files source never lists a half-written file). Call it at a test file's
 * top level: it registers the file's beforeAll and afterAll.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { setupApiTestKit, type ApiTestKit } from './api-test-kit';

interface SavepointRoutes {
  jobs: typeof import('@/app/api/jobs/route');
  savepoints: typeof import('@/app/api/jobs/[id]/savepoints/route');
  restore: typeof import('@/app/api/jobs/[id]/savepoints/[savepointId]/restore/route');
  newJob: typeof import('@/app/api/jobs/[id]/savepoints/[savepointId]/new-job/route');
  diagnosis: typeof import('@/app/api/jobs/[id]/duplicate-diagnosis/route');
}

export interface SavepointTestKit {
  readonly dir: string;
  /** Set by beforeAll. */
  kit: ApiTestKit;
  /** Set by beforeAll. */
  routes: SavepointRoutes;
  /** Creates a job through the API as an admin and returns its id. */
  createJob(spec: object): Promise<string>;
}

export function useSavepointTestKit(prefix: string): SavepointTestKit {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const t: SavepointTestKit = {
    dir,
    kit: undefined as unknown as ApiTestKit,
    routes: undefined as unknown as SavepointRoutes,
    async createJob(spec) {
      const res = await t.kit.call(t.routes.jobs.POST, '/api/jobs', { method: 'POST', token: t.kit.tokens.admin, body: { spec } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.job.id as string;
    },
  };
  beforeAll(async () => {
    t.kit = await setupApiTestKit({ checkpointRoot: path.join(dir, 'cp'), filesRoots: [dir] });
    mkdirSync(path.join(dir, 'cp'), { recursive: true });
    t.routes = {
      jobs: await import('@/app/api/jobs/route'),
      savepoints: await import('@/app/api/jobs/[id]/savepoints/route'),
      restore: await import('@/app/api/jobs/[id]/savepoints/[savepointId]/restore/route'),
      newJob: await import('@/app/api/jobs/[id]/savepoints/[savepointId]/new-job/route'),
      diagnosis: await import('@/app/api/jobs/[id]/duplicate-diagnosis/route'),
    };
  }, 60_000);
  afterAll(async () => {
    await t.kit?.teardown();
    rmSync(dir, { recursive: true, force: true });
  });
  return t;
}

/** Writes `part-NNN.json` (JSON lines) into a files source's folder in one rename. */
export function addJsonFile(inDir: string, no: number, rows: object[]): void {
  const f = `part-${String(no).padStart(3, '0')}.json`;
  writeFileSync(path.join(inDir, `.${f}`), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  renameSync(path.join(inDir, `.${f}`), path.join(inDir, f));
}
