/**
 * A typed client from the OpenAPI document: every success response has a schema (from
 * api-responses.ts), openapi-typescript turns the document into TypeScript, and calls written
 * against it type-check (and a wrong one does not: the check can fail). Real responses from the
 * handlers, on a real database, validate against the same schemas.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument, OPERATIONS } from './http/openapi';
import { filesSpec, setupApiTestKit, type ApiTestKit } from './testing/api-test-kit';

const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-openapi-client-'));
let kit: ApiTestKit;

beforeAll(async () => {
  kit = await setupApiTestKit();
}, 60_000);

afterAll(async () => {
  await kit?.teardown();
  rmSync(dir, { recursive: true, force: true });
});

/** Type errors of `code` compiled beside the generated client (strict, as this project is). */
function typeErrors(file: string, code: string): string[] {
  const p = path.join(dir, file);
  writeFileSync(p, code);
  const program = ts.createProgram([p], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, skipLibCheck: true, types: [] });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

const CLIENT_HEADER = `import type { paths } from './weir-api';
type Ok<P extends keyof paths, M extends keyof paths[P], S extends number = 200> = paths[P][M] extends { responses: infer R }
  ? R extends Record<S, { content: { 'application/json': infer B } }> ? B : never
  : never;
declare function call<T>(url: string, init?: { method?: string; body?: unknown }): Promise<T>;
`;

describe('the OpenAPI document as a typed client', () => {
  it('gives every success response a schema (only 204s and the event stream have none)', () => {
    const doc = openApiDocument();
    for (const op of OPERATIONS) {
      const res = (doc.paths[op.path][op.method] as { responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }> }).responses[String(op.success.status)];
      if (op.success.status === 204) continue;
      const schema = Object.values(res.content!)[0].schema;
      if (op.success.contentType === 'text/event-stream') expect(schema).toEqual({ type: 'string' });
      else expect(schema.type, `${op.method} ${op.path}`).toBe('object');
    }
  });

  it('generates a TypeScript client with openapi-typescript whose calls type-check, and refuses a wrong one', async () => {
    writeFileSync(path.join(dir, 'weir-api.d.ts'), astToString(await openapiTS(openApiDocument() as never)));
    const good = `${CLIENT_HEADER}
export async function main() {
  const query: NonNullable<paths['/api/jobs']['get']['parameters']['query']> = { limit: 50, q: 'orders', status: 'RUNNING', guarantee: 'exactly-once', firing: 'true', sort: 'lastCommittedAt', dir: 'desc' };
  const page = await call<Ok<'/api/jobs', 'get'>>('/api/jobs?' + new URLSearchParams(query as Record<string, string>));
  const first = page.items[0];
  const name: string = first.name;
  const rate: number | null = first.inputRowsPerSecond;
  const spark: number[] = first.stateRowsSparkline;
  const next: string | null = page.nextCursor;
  const total: number = page.totals.all;
  const job = await call<Ok<'/api/jobs/{id}', 'get'>>('/api/jobs/' + first.id);
  const sql: string = job.sql;
  const created = await call<Ok<'/api/jobs', 'post', 201>>('/api/jobs', { method: 'POST', body: { spec: {} } });
  const createdName: string = created.job.name;
  const runs = await call<Ok<'/api/jobs/{id}/runs', 'get'>>('/api/jobs/' + first.id + '/runs');
  const before: number | null = runs.nextBefore;
  const status: string = runs.items[0].status;
  const alerts = await call<Ok<'/api/alerts', 'get'>>('/api/alerts');
  const state: 'FIRING' | 'RESOLVED' = alerts.items[0].state;
  const draft = await call<Ok<'/api/jobs/draft-check', 'post'>>('/api/jobs/draft-check', { method: 'POST', body: { spec: {}, jobId: first.id } });
  const compatible: boolean | undefined = draft.restartCheck?.compatible;
  return [name, rate, spark, next, total, sql, createdName, before, status, state, compatible];
}
`;
    expect(typeErrors('good.ts', good)).toEqual([]);
    const wrong = `${CLIENT_HEADER}
export async function main() {
  const page = await call<Ok<'/api/jobs', 'get'>>('/api/jobs');
  const next: number = page.nextCursor;
  const nope = page.items[0].noSuchField;
  const badQuery: NonNullable<paths['/api/jobs']['get']['parameters']['query']> = { sort: 'inputRowsPerSecond' };
  return [next, nope, badQuery];
}
`;
    const errors = typeErrors('wrong.ts', wrong);
    expect(errors.some((e) => /not assignable to type 'number'/.test(e))).toBe(true);
    expect(errors.some((e) => /noSuchField/.test(e))).toBe(true);
    expect(errors.some((e) => /inputRowsPerSecond/.test(e))).toBe(true);
  }, 120_000);

  it('real responses validate against the documented schemas', async () => {
    const jobs = await import('@/app/api/jobs/route');
    const job = await import('@/app/api/jobs/[id]/route');
    const me = await import('@/app/api/auth/me/route');
    const summary = await import('@/app/api/alerts/summary/route');
    const runs = await import('@/app/api/jobs/[id]/runs/route');
    const plan = await import('@/app/api/jobs/[id]/plan/route');
    const byPath = (method: string, p: string) => OPERATIONS.find((o) => o.method === method && o.path === p)!.response!;
    const created = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: { spec: filesSpec('typed', dir), description: 'typed client' } });
    expect(created.status).toBe(201);
    const id: string = created.body.job.id;
    const cases: [string, string, Awaited<ReturnType<ApiTestKit['call']>>][] = [
      ['post', '/api/jobs', created],
      ['get', '/api/jobs', await kit.call(jobs.GET, '/api/jobs?limit=5', { token: kit.tokens.viewer })],
      ['get', '/api/jobs/{id}', await kit.call(job.GET, `/api/jobs/${id}`, { token: kit.tokens.viewer, params: { id } })],
      ['get', '/api/jobs/{id}/runs', await kit.call(runs.GET, `/api/jobs/${id}/runs`, { token: kit.tokens.viewer, params: { id } })],
      ['get', '/api/jobs/{id}/plan', await kit.call(plan.GET, `/api/jobs/${id}/plan`, { token: kit.tokens.viewer, params: { id } })],
      ['get', '/api/auth/me', await kit.call(me.GET, '/api/auth/me', { token: kit.tokens.viewer })],
      ['get', '/api/alerts/summary', await kit.call(summary.GET, '/api/alerts/summary', { token: kit.tokens.viewer })],
    ];
    for (const [method, p, res] of cases) {
      expect(res.status, `${method} ${p}`).toBeLessThan(300);
      const parsed = byPath(method, p).safeParse(res.body);
      expect(parsed.success ? [] : parsed.error.issues, `${method} ${p}`).toEqual([]);
    }
  }, 60_000);
});
