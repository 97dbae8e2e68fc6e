/**
 * The outbound policy through the real API (route handlers, a real database), with this
 * process's default policy: no WEIR_OUTBOUND_ALLOW, DATABASE_URL the test database on
 * 127.0.0.1:5432, the embedded PostgreSQL's port 54329. Validation only: nothing here connects
 * anywhere but this machine's PostgreSQL.
 * - webhook sinks, postgres/redis/nats connections, static tables and S3 endpoints to the
 *   always-refused spellings answer 422 naming the field, the destination and the rule;
 * - webhooks and database connections to the metadata database's server, and non-http webhook
 *   schemes, are refused (this file runs without the suite's WEIR_TEST_SHARED_SERVERS seam);
 * - a masked secret is kept on an edit only while its destination is unchanged (job webhook
 *   headers, alert-rule webhook secret), otherwise 422 asking for the secret again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesSpec, setupApiTestKit, type ApiTestKit } from './testing/api-test-kit';
import { createJob as createAlertJob } from './alerts/testing/alert-fixtures';

let kit: ApiTestKit;
let jobs: typeof import('@/app/api/jobs/route');
let job: typeof import('@/app/api/jobs/[id]/route');
let validate: typeof import('@/app/api/jobs/validate/route');
let draft: typeof import('@/app/api/jobs/draft-check/route');
let rules: typeof import('@/app/api/alert-rules/route');
let rule: typeof import('@/app/api/alert-rules/[id]/route');
const dir = '/tmp/weir-outbound-api-test';

beforeAll(async () => {
  kit = await setupApiTestKit({ infrastructure: 'refused' });
  jobs = await import('@/app/api/jobs/route');
  job = await import('@/app/api/jobs/[id]/route');
  validate = await import('@/app/api/jobs/validate/route');
  draft = await import('@/app/api/jobs/draft-check/route');
  rules = await import('@/app/api/alert-rules/route');
  rule = await import('@/app/api/alert-rules/[id]/route');
});
afterAll(async () => kit?.teardown());

const webhookSpec = (name: string, url: string, headers: unknown = { authorization: 'Bearer hook-s3cret-token' }) =>
  filesSpec(name, dir, { sink: { type: 'webhook', options: { url, headers } } });

let n = 0;
async function create(spec: unknown) {
  return kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: { spec } });
}
function errorAt(res: { body: { error: { details: { errors: { path: string; message: string }[] } } } }, path: string): string {
  return res.body.error.details.errors.find((e) => e.path === path)?.message ?? '(no error at ' + path + ')';
}

describe('webhook sink URLs', () => {
  const refused: [string, RegExp][] = [
    ['http://169.254.169.254/latest/meta-data/', /link-local/],
    ['http://[::ffff:169.254.169.254]/', /link-local/],
    ['http://[::ffff:a9fe:a9fe]/', /link-local/],
    ['http://0xa9fea9fe/', /link-local/],
    ['http://2852039166/', /link-local/],
    ['http://0251.0376.0251.0376/', /link-local/],
    ['http://0.0.0.0:8080/', /unspecified/],
    ['http://[::]:8080/', /unspecified/],
    ['http://224.0.0.1/', /multicast/],
    ['http://255.255.255.255/', /broadcast/],
    ['http://[fe80::1]/', /link-local/],
    ['gopher://127.0.0.1:70/_hello', /only http:\/\/ and https:\/\//],
    ['file:///etc/passwd', /only http:\/\/ and https:\/\//],
    ['http://127.0.0.1:5432/', /metadata database \(DATABASE_URL\)/],
    ['http://localhost:54329/', /embedded PostgreSQL's port/],
    ['http://0x7f000001:54329/', /embedded PostgreSQL's port/],
  ];
  for (const [url, rule] of refused) {
    it(`POST /api/jobs refuses ${url} with 422 naming sink.options.url`, async () => {
      const name = `hook-${n++}`;
      const res = await create(webhookSpec(name, url));
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('INVALID_JOB_SPEC');
      const message = errorAt(res, 'sink.options.url');
      expect(message).toMatch(rule);
      expect(message).toMatch(/is refused: .*outbound rule: /);
      expect(await kit.db.job.count({ where: { name } })).toBe(0);
    });
  }

  it('accepts 10.0.0.1 and loopback receivers (no allow list set), and says why in validate otherwise', async () => {
    expect((await create(webhookSpec('hook-private', 'http://10.0.0.1/hook'))).status).toBe(201);
    expect((await create(webhookSpec('hook-loopback', 'http://127.0.0.1:9/hook'))).status).toBe(201);
    const v = await kit.call(validate.POST, '/api/jobs/validate', { method: 'POST', token: kit.tokens.viewer, body: { spec: webhookSpec('v', 'http://169.254.169.254/') } });
    expect(v.status).toBe(200);
    expect(v.body.ok).toBe(false);
    expect(v.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'sink.options.url', message: expect.stringMatching(/169\.254\.169\.254 is one of the link-local addresses/) })]));
    const d = await kit.call(draft.POST, '/api/jobs/draft-check', { method: 'POST', token: kit.tokens.viewer, body: { spec: webhookSpec('d', 'http://0xa9fea9fe/') } });
    // WHATWG URL has already turned the http URL's 0xa9fea9fe into 169.254.169.254.
    expect(JSON.stringify(d.body)).toMatch(/169\.254\.169\.254 is one of the link-local addresses/);
  });
});

describe('connection strings and endpoints given through the API', () => {
  it('refuses postgres, redis, nats, static table and S3 destinations in refused ranges, naming each field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ sink: { type: 'postgres', options: { connectionString: 'postgres://w:pw@169.254.169.254:5432/db', table: 't' } } }, 'sink.options.connectionString'],
      [{ sink: { type: 'postgres', options: { connectionString: 'postgres://w:pw@0xa9fea9fe/db', table: 't' } } }, 'sink.options.connectionString'],
      [{ sink: { type: 'redis-stream', options: { url: 'redis://[::ffff:a9fe:a9fe]:6379', stream: 's' } } }, 'sink.options.url'],
      [{ source: { name: 'clicks', type: 'nats-jetstream', options: { servers: 'nats://127.0.0.1:4222,nats://2852039166:4222', stream: 'x', subject: 'x.>' }, schema: [{ name: 'user', type: 'string' }, { name: 'n', type: 'long' }] } }, 'source.options.servers'],
      [{ checkpointLocation: 's3://bucket/cp?endpoint=http://169.254.169.254:9000' }, 'checkpointLocation'],
    ];
    for (const [extra, path] of cases) {
      const res = await create(filesSpec(`conn-${n++}`, dir, extra));
      expect(res.status, JSON.stringify(extra)).toBe(422);
      expect(errorAt(res, path), path).toMatch(/link-local/);
    }
  });

  it('refuses database connections to the metadata database\'s server, whichever database they name', async () => {
    const res = await create(filesSpec('pg-local', dir, { sink: { type: 'postgres', options: { connectionString: 'postgres://w@127.0.0.1:5432/analytics', table: 't' } } }));
    expect(res.status).toBe(422);
    expect(errorAt(res, 'sink.options.connectionString')).toMatch(/the metadata database \(DATABASE_URL\), one of Weir's own services/);
    expect((await create(filesSpec('pg-other-port', dir, { sink: { type: 'postgres', options: { connectionString: 'postgres://w@127.0.0.1:6543/analytics', table: 't' } } }))).status).toBe(201);
  });
});

describe('a masked secret never follows a changed destination', () => {
  it('job webhook sink: headers sent back masked are kept for the same URL, refused for a new host, port or scheme', async () => {
    const created = await create(webhookSpec('masked-hook', 'http://127.0.0.1:9/hook'));
    expect(created.status).toBe(201);
    const id = created.body.job.id;
    const read = await kit.call(job.GET, `/api/jobs/${id}`, { token: kit.tokens.viewer, params: { id } });
    const masked = read.body.spec;
    expect(masked.sink.options).toMatchObject({ url: '********', headers: '********' });
    const put = (spec: unknown) => kit.call(job.PUT, `/api/jobs/${id}`, { method: 'PUT', token: kit.tokens.admin, params: { id }, body: { spec } });
    const stored = async () => ((await kit.db.job.findUniqueOrThrow({ where: { id } })).spec as { sink: { options: { url: string; headers: unknown } } }).sink.options;

    // Round trip of what was read: kept.
    expect((await put(masked)).status).toBe(200);
    expect(await stored()).toMatchObject({ url: 'http://127.0.0.1:9/hook', headers: { authorization: 'Bearer hook-s3cret-token' } });
    // Same destination, another path: kept.
    expect((await put({ ...masked, sink: { type: 'webhook', options: { url: 'http://127.0.0.1:9/other', headers: '********' } } })).status).toBe(200);
    expect((await stored()).headers).toEqual({ authorization: 'Bearer hook-s3cret-token' });

    for (const url of ['http://127.0.0.2:9/hook', 'http://127.0.0.1:10/hook', 'https://127.0.0.1:9/hook', 'http://attacker.example/hook']) {
      const res = await put({ ...masked, sink: { type: 'webhook', options: { url, headers: '********' } } });
      expect(res.status, url).toBe(422);
      expect(errorAt(res, 'sink.options.headers')).toMatch(/was sent masked .* sink\.options\.url now points at .* \(it was http:\/\/127\.0\.0\.1:9\)\. .*send sink\.options\.headers again/);
    }
    expect(await stored()).toMatchObject({ url: 'http://127.0.0.1:9/other', headers: { authorization: 'Bearer hook-s3cret-token' } });

    // The secret given again with the new destination: accepted.
    const again = await put({ ...masked, sink: { type: 'webhook', options: { url: 'http://127.0.0.2:9/hook', headers: { authorization: 'Bearer new-token' } } } });
    expect(again.status).toBe(200);
    expect(await stored()).toEqual({ url: 'http://127.0.0.2:9/hook', headers: { authorization: 'Bearer new-token' } });
  });

  it('job postgres sink: a masked connection string stays whole; a nats token masked next to new servers is refused', async () => {
    const spec = filesSpec('masked-nats', dir, {
      source: { name: 'clicks', type: 'nats-jetstream', options: { servers: 'nats://127.0.0.1:4222', stream: 'x', subject: 'x.>', token: 'nats-secret-token' }, schema: [{ name: 'user', type: 'string' }, { name: 'n', type: 'long' }] },
    });
    const created = await create(spec);
    expect(created.status).toBe(201);
    const id = created.body.job.id;
    const masked = (await kit.call(job.GET, `/api/jobs/${id}`, { token: kit.tokens.viewer, params: { id } })).body.spec;
    const put = (s: unknown) => kit.call(job.PUT, `/api/jobs/${id}`, { method: 'PUT', token: kit.tokens.admin, params: { id }, body: { spec: s } });
    expect((await put(masked)).status).toBe(200);
    const moved = await put({ ...masked, source: { ...masked.source, options: { ...masked.source.options, servers: 'nats://127.0.0.1:4223' } } });
    expect(moved.status).toBe(422);
    expect(errorAt(moved, 'source.options.token')).toMatch(/source\.options\.servers now points at nats:\/\/127\.0\.0\.1:4223/);
  });

  it('alert rule webhook: the secret is kept for the same destination, refused for a new one (masked or omitted)', async () => {
    const alertJob = await createAlertJob(kit.db, 'outbound-alert-job');
    const body = { name: 'rows', jobId: alertJob.id, kind: 'state-rows', params: { threshold: 10 }, webhookUrl: 'http://127.0.0.1:9/hook', webhookSecret: 'hook-secret-123' };
    for (const url of ['http://169.254.169.254/', 'http://[::ffff:169.254.169.254]/', 'http://0xa9fea9fe/', 'http://127.0.0.1:5432/']) {
      const bad = await kit.call(rules.POST, '/api/alert-rules', { method: 'POST', token: kit.tokens.admin, body: { ...body, webhookUrl: url } });
      expect(bad.status, url).toBe(422);
      expect(bad.body.error.details.issues[0].path).toBe('webhookUrl');
      expect(bad.body.error.message).toMatch(/webhookUrl: .* is refused: .*outbound rule/);
    }
    const created = await kit.call(rules.POST, '/api/alert-rules', { method: 'POST', token: kit.tokens.admin, body });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const put = (b: unknown) => kit.call(rule.PUT, `/api/alert-rules/${id}`, { method: 'PUT', token: kit.tokens.admin, params: { id }, body: b });
    const secret = async () => (await kit.db.alertRule.findUniqueOrThrow({ where: { id } })).webhookSecret;

    expect((await put({ webhookUrl: 'http://127.0.0.1:9/other-path', webhookSecret: '********' })).status).toBe(200);
    expect(await secret()).toBe('hook-secret-123');
    for (const b of [{ webhookUrl: 'http://127.0.0.2:9/hook', webhookSecret: '********' }, { webhookUrl: 'https://attacker.example/hook' }]) {
      const res = await put(b);
      expect(res.status, JSON.stringify(b)).toBe(422);
      expect(res.body.error.details.issues[0].path).toBe('webhookSecret');
      expect(res.body.error.message).toMatch(/now points at .* \(it was http:\/\/127\.0\.0\.1:9\)\. Send webhookSecret again/);
    }
    const row = await kit.db.alertRule.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ webhookUrl: 'http://127.0.0.1:9/other-path', webhookSecret: 'hook-secret-123' });
    const again = await put({ webhookUrl: 'http://127.0.0.2:9/hook', webhookSecret: 'a-new-secret-456' });
    expect(again.status).toBe(200);
    expect(await secret()).toBe('a-new-secret-456');
    const refusedUpdate = await put({ webhookUrl: 'http://[fe80::1]/', webhookSecret: 'a-new-secret-456' });
    expect(refusedUpdate.status).toBe(422);
  });
});
