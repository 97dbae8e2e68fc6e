/**
 * The e2e admin's view of jobs through the API (playwright.config.ts sets WEIR_ADMIN_TOKEN to this
 * token): creating and starting a job, its state, and stopping and deleting the jobs a spec created, so that the next spec
 * (home.spec.ts expects the empty jobs list) finds the app as it was.
 */
import { expect, type APIRequestContext } from '@playwright/test';

export const auth = { authorization: 'Bearer e2e-admin-token-0123456789abcdef' };

export type JobState = { status: string; lastBatchId: number | null; name: string };

export const jobState = async (request: APIRequestContext, id: string): Promise<JobState> =>
  (await (await request.get(`/api/jobs/${id}`, { headers: auth })).json()) as JobState;

/**
 * Creates a job of `spec` and starts it; its id is added to `created` (for removeJobs) as soon as
 * it exists, so that a failed start still leaves nothing behind.
 */
export async function startedJob(request: APIRequestContext, spec: object, created: string[]): Promise<string> {
  const res = await request.post('/api/jobs', { headers: auth, data: { spec } });
  expect(res.status(), await res.text()).toBe(201);
  const jobId = ((await res.json()) as { job: { id: string } }).job.id;
  created.push(jobId);
  expect((await request.post(`/api/jobs/${jobId}/start`, { headers: auth })).status()).toBe(200);
  return jobId;
}

/** Stops the job and waits until it is STOPPED (or FAILED). */
export async function stopped(request: APIRequestContext, id: string): Promise<void> {
  await request.post(`/api/jobs/${id}/stop`, { headers: auth });
  await expect.poll(async () => ['STOPPED', 'FAILED'].includes((await jobState(request, id)).status), { timeout: 60_000 }).toBe(true);
}

/** Stops and deletes each job, in order. */
export async function removeJobs(request: APIRequestContext, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    await stopped(request, id);
    expect((await request.delete(`/api/jobs/${id}`, { headers: auth })).status()).toBe(204);
  }
}
