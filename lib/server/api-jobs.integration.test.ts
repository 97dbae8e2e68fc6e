/**
 * Jobs CRUD and validate through the route handlers, against a real database: the engine's
 * validation errors name the field (422), secrets are masked on every read and kept on a
 * round-trip edit, every change leaves an AuditEvent with before and after.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupApiTestKit, filesSpec, postgresSinkSpec, PG_SECRET_PASSWORD, type ApiTestKit } from './testing/api-test-kit';

let kit: ApiTestKit;
let jobs: typeof import('@/app/api/jobs/route');
let job: typeof import('@/app/api/jobs/[id]/route');
let validate: typeof import('@/app/api/jobs/validate/route');
let audit: typeof import('@/app/api/audit/route');
const dir = '/tmp/weir-api-jobs-test';

beforeAll(async () => {
  kit = await setupApiTestKit();
  jobs = await import('@/app/api/jobs/route');
  job = await import('@/app/api/jobs/[id]/route');
  validate = await import('@/app/api/jobs/validate/route');
  audit = await import('@/app/api/audit/route');
});
afterAll(async () => kit?.teardown());

describe('POST /api/jobs', () => {
  it('creates a stopped job with the default checkpoint location, the guarantee and the contract', async () => {
    const res = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: { spec: filesSpec('create-ok', dir), description: 'd' } });
    expect(res.status).toBe(201);
    const j = res.body.job;
    expect(j).toMatchObject({ name: 'create-ok', status: 'STOPPED', desiredState: 'STOPPED', sourceType: 'files', sinkType: 'files', outputMode: 'append', guarantee: 'exactly-once', description: 'd' });
    expect(j.checkpointLocation).toBe(`${kit.checkpointRoot}/${j.id}`);
    expect(j.spec.checkpointLocation).toBe(j.checkpointLocation);
    expect(j.contract.guarantee).toBe('exactly-once');
    const row = await kit.db.job.findUniqueOrThrow({ where: { id: j.id } });
    expect(row.createdBy).toBe('token:admin-token');
    expect(row.trigger).toEqual({ type: 'processing-time', interval: '1 second' });
  });

  it('accepts a bare job spec as the body and keeps a checkpoint location the spec names', async () => {
    const res = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: filesSpec('bare', dir, { checkpointLocation: `${kit.checkpointRoot}/cp-bare` }) });
    expect(res.status).toBe(201);
    expect(res.body.job.checkpointLocation).toBe(`${kit.checkpointRoot}/cp-bare`);
  });

  it('answers 422 with the engine errors naming path, line and column', async () => {
    const bad = filesSpec('bad-sql', dir, { sql: 'SELECT user,\n  nosuch FROM clicks' });
    const res = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: { spec: bad } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('INVALID_JOB_SPEC');
    const e = res.body.error.details.errors.find((x: { path: string }) => x.path === 'sql');
    expect(e.message).toMatch(/nosuch/);
    expect(e.line).toBe(2);
    expect(typeof e.column).toBe('number');
    expect(await kit.db.job.count({ where: { name: 'bad-sql' } })).toBe(0);
  });

  it('names the option field of a bad sink option, and the JSON position of bad JSON text', async () => {
    const res = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: { spec: filesSpec('bad-opt', dir, { sink: { type: 'files', options: { path: 7 } } }) } });
    expect(res.status).toBe(422);
    expect(res.body.error.details.errors.map((e: { path: string }) => e.path)).toContain('sink.options.path');
    const text = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: { spec: '{\n  "name": "x",\n  oops }' } });
    expect(text.status).toBe(422);
    expect(text.body.error.details.errors[0]).toMatchObject({ path: '(root)', line: 3 });
  });

  it('answers 400 naming the field for a malformed body, and for body that is not JSON', async () => {
    const res = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: { spec: filesSpec('x', dir), restartPolicy: { maxRestarts: -1, backoffMs: 10 } } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    expect(JSON.stringify(res.body.error.details.issues)).toMatch(/maxRestarts/);
    const notJson = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: '{"spec": ' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.message).toMatch(/not valid JSON/);
  });

  it('answers 409 for a duplicate name', async () => {
    await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: filesSpec('dup', dir) });
    const res = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: filesSpec('dup', dir) });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/already exists/);
  });
});

describe('POST /api/jobs/validate', () => {
  it('returns the analysis and contract without saving, ok or not', async () => {
    const before = await kit.db.job.count();
    const good = await kit.call(validate.POST, '/api/jobs/validate', { method: 'POST', token: kit.tokens.viewer, body: { spec: filesSpec('v', dir) } });
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ ok: true, guarantee: 'exactly-once', errors: [] });
    expect(good.body.explain).toEqual(expect.any(String));
    expect(good.body.outputSchema.map((c: { name: string }) => c.name)).toEqual(['user', 'n']);
    const console_ = await kit.call(validate.POST, '/api/jobs/validate', { method: 'POST', token: kit.tokens.viewer, body: filesSpec('v', dir, { sink: { type: 'console', options: {} } }) });
    expect(console_.body).toMatchObject({ ok: true, guarantee: 'at-least-once' });
    const bad = await kit.call(validate.POST, '/api/jobs/validate', { method: 'POST', token: kit.tokens.viewer, body: filesSpec('v', dir, { outputMode: 'complete' }) });
    expect(bad.body.ok).toBe(false);
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toContain('outputMode');
    expect(await kit.db.job.count()).toBe(before);
  });

  it('puts an unknown column first, with its position, in every output mode, and judges no mode on it', async () => {
    for (const outputMode of ['append', 'update', 'complete']) {
      const r = await kit.call(validate.POST, '/api/jobs/validate', {
        method: 'POST',
        token: kit.tokens.viewer,
        body: filesSpec('v', dir, { outputMode, sink: { type: 'console', options: {} }, sql: 'SELECT usr, count(*) FROM clicks GROUP BY usr' }),
      });
      expect(r.status, outputMode).toBe(200);
      expect(r.body.ok, outputMode).toBe(false);
      // At GROUP BY's `usr`, resolved first (Spark's order: the grouping expressions, then the select list).
      expect(r.body.errors[0], outputMode).toMatchObject({ path: 'sql', line: 1, column: 43, errorClass: 'UNRESOLVED_COLUMN.WITH_SUGGESTION', message: expect.stringMatching(/Column "usr" does not exist/) });
      expect(r.body.errors.filter((e: { path: string }) => e.path === 'outputMode'), outputMode).toEqual([]);
    }
  });
});

describe('secrets are masked on every read', () => {
  it('in the job read, the list, the create/update responses and the audit log; an edit round-trip keeps the secret', async () => {
    const created = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: postgresSinkSpec('pg-secret', dir) });
    expect(created.status).toBe(201);
    const id = created.body.job.id;
    const stored = await kit.db.job.findUniqueOrThrow({ where: { id } });
    expect(JSON.stringify(stored.spec)).toContain(PG_SECRET_PASSWORD); // the worker needs it
    const read = await kit.call(job.GET, `/api/jobs/${id}`, { token: kit.tokens.viewer, params: { id } });
    expect(read.body.spec.sink.options.connectionString).toBe('********');
    const edited = { ...read.body.spec, sql: 'SELECT user, n FROM clicks' };
    const put = await kit.call(job.PUT, `/api/jobs/${id}`, { method: 'PUT', token: kit.tokens.admin, params: { id }, body: { spec: edited } });
    expect(put.status).toBe(200);
    const after = await kit.db.job.findUniqueOrThrow({ where: { id } });
    expect((after.spec as { sink: { options: { connectionString: string } } }).sink.options.connectionString).toContain(PG_SECRET_PASSWORD);
    expect(after.sql).toBe('SELECT user, n FROM clicks');
    const events = await kit.call(audit.GET, `/api/audit?targetId=${id}`, { token: kit.tokens.viewer });
    for (const body of [created.body, read.body, put.body, events.body, (await kit.call(jobs.GET, '/api/jobs', { token: kit.tokens.viewer })).body]) {
      expect(JSON.stringify(body)).not.toContain(PG_SECRET_PASSWORD);
    }
  });
});

describe('GET/PUT/DELETE /api/jobs/:id', () => {
  it('404 names the missing job; PUT refuses an active job with 409; DELETE removes a stopped one', async () => {
    const missing = await kit.call(job.GET, '/api/jobs/nope', { token: kit.tokens.viewer, params: { id: 'nope' } });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'NOT_FOUND', details: { id: 'nope' } });
    const { body } = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: filesSpec('to-delete', dir) });
    const id = body.job.id;
    await kit.db.job.update({ where: { id }, data: { status: 'RUNNING', desiredState: 'RUNNING' } });
    const put = await kit.call(job.PUT, `/api/jobs/${id}`, { method: 'PUT', token: kit.tokens.admin, params: { id }, body: filesSpec('to-delete', dir) });
    expect(put.status).toBe(409);
    const del409 = await kit.call(job.DELETE, `/api/jobs/${id}`, { method: 'DELETE', token: kit.tokens.admin, params: { id } });
    expect(del409.status).toBe(409);
    await kit.db.job.update({ where: { id }, data: { status: 'STOPPED', desiredState: 'STOPPED' } });
    const del = await kit.call(job.DELETE, `/api/jobs/${id}`, { method: 'DELETE', token: kit.tokens.admin, params: { id } });
    expect(del.status).toBe(204);
    expect(await kit.db.job.findUnique({ where: { id } })).toBeNull();
  });
});

describe('audit', () => {
  it('records create, update and delete with who, before and after', async () => {
    const c = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: filesSpec('audited', dir) });
    const id = c.body.job.id;
    await kit.call(job.PUT, `/api/jobs/${id}`, { method: 'PUT', token: kit.tokens.admin, params: { id }, body: { spec: filesSpec('audited-2', dir), description: 'renamed' } });
    await kit.call(job.DELETE, `/api/jobs/${id}`, { method: 'DELETE', token: kit.tokens.admin, params: { id } });
    const res = await kit.call(audit.GET, `/api/audit?targetType=job&targetId=${id}`, { token: kit.tokens.viewer });
    const events = res.body.items.slice().reverse();
    expect(events.map((e: { action: string }) => e.action)).toEqual(['job.create', 'job.update', 'job.delete']);
    for (const e of events) expect(e).toMatchObject({ actor: 'token:admin-token', actorRole: 'admin', targetType: 'job', targetId: id });
    expect(events[0].before).toBeNull();
    expect(events[0].after.name).toBe('audited');
    expect(events[1].before.name).toBe('audited');
    expect(events[1].after).toMatchObject({ name: 'audited-2', description: 'renamed' });
    expect(events[2].before.name).toBe('audited-2');
    expect(events[2].after).toBeNull();
  });
});

describe('GET /api/audit pages', () => {
  it('keyset pages newest first cover every event exactly once; a forged cursor is 400', async () => {
    const all = await kit.db.auditEvent.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
    expect(all.length).toBeGreaterThan(5);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `?limit=3&cursor=${encodeURIComponent(cursor)}` : '?limit=3';
      const res = await kit.call(audit.GET, `/api/audit${q}`, { token: kit.tokens.viewer });
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((e: { id: string }) => e.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.map((e) => e.id));
    const bad = await kit.call(audit.GET, '/api/audit?cursor=yesterday', { token: kit.tokens.viewer });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.path).toBe('cursor');
  });
});

describe('a failed job’s error', () => {
  it('is redacted where it quotes the sink’s connection string', async () => {
    const created = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: postgresSinkSpec('pg-failed', dir) });
    const id = created.body.job.id;
    const stored = await kit.db.job.findUniqueOrThrow({ where: { id } });
    const conn = (stored.spec as { sink: { options: { connectionString: string } } }).sink.options.connectionString;
    await kit.db.job.update({ where: { id }, data: { status: 'FAILED', lastError: { code: 'SINK_ERROR', message: `connect ${conn} refused`, details: { password: PG_SECRET_PASSWORD } } } });
    const res = await kit.call(job.GET, `/api/jobs/${id}`, { token: kit.tokens.viewer, params: { id } });
    expect(res.body.lastError.code).toBe('SINK_ERROR');
    expect(res.body.lastError.message).toBe('connect ******** refused');
    expect(JSON.stringify(res.body)).not.toContain(PG_SECRET_PASSWORD);
  });
});
