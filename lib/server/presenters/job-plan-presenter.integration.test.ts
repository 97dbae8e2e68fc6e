/**
 * GET /api/jobs/:id/plan through its route handler on a real database: a saved join job's plan
 * as the editor's explain lists it (the join stateful, both sources under it), for a viewer; an
 * unknown job is 404. What the page draws from it is components/plan-graph*.test.ts's.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupApiTestKit, type ApiTestKit } from '../testing/api-test-kit';

let kit: ApiTestKit;
let plan: typeof import('@/app/api/jobs/[id]/plan/route');
let jobId: string;
const DIR = '/tmp/weir-api-plan';

beforeAll(async () => {
  kit = await setupApiTestKit();
  const jobs = await import('@/app/api/jobs/route');
  plan = await import('@/app/api/jobs/[id]/plan/route');
  const source = (name: string) => ({ name, type: 'files', options: { path: path.join(DIR, name), format: 'json' }, schema: [{ name: 'id', type: 'long' }, { name: 'ts', type: 'timestamp' }], eventTime: 'ts', watermarkDelay: '10 seconds' });
  const spec = {
    name: 'plan-join',
    sources: [source('impressions'), source('clicks')],
    sql: 'SELECT i.id FROM impressions i JOIN clicks c ON i.id = c.id AND c.ts BETWEEN i.ts AND i.ts + INTERVAL 1 MINUTE',
    sink: { type: 'console', options: {} },
    trigger: { type: 'processing-time', interval: '1 second' },
  };
  const res = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: { spec } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  jobId = res.body.job.id;
});
afterAll(async () => kit?.teardown());

describe('GET /api/jobs/:id/plan', () => {
  it("lists a saved join's operators as the explain does: the join stateful with why, both sources under it", async () => {
    const res = await kit.call(plan.GET, `/api/jobs/${jobId}/plan`, { token: kit.tokens.viewer, params: { id: jobId } });
    expect(res.status).toBe(200);
    const { operators, problem } = res.body as { operators: { depth: number; operator: string; kind: string; reason: string | null }[]; problem: string | null };
    expect(problem).toBeNull();
    expect(operators[0].depth).toBe(0);
    const join = operators.find((o) => o.operator.startsWith('Join Inner'))!;
    expect(join).toMatchObject({ kind: 'stateful', reason: expect.stringContaining('buffers both streams by join key') });
    expect(operators.filter((o) => o.kind === 'source').map((o) => [o.operator.split(' ').slice(0, 2).join(' '), o.depth > join.depth])).toEqual([
      ['StreamingRelation impressions', true],
      ['StreamingRelation clicks', true],
    ]);
  });

  it('is 404 for a job that does not exist', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    expect((await kit.call(plan.GET, 'x', { token: kit.tokens.viewer, params: { id } })).status).toBe(404);
  });
});
