/**
 * Weir's own services are out of reach of jobs and previews, through the real API as an admin
 * (the one role that may preview a source's records; a viewer is refused before any of this),
 * with WEIR_OUTBOUND_ALLOW listing loopback (so only the infrastructure rule stands in the way)
 * and REDIS_URL set: a preview whose source is the metadata database (DATABASE_URL, this kit's
 * database on 127.0.0.1:5432) or the Redis queue, under every spelling (addresses, names, `host=`
 * and `hostaddr=` parameters, several hosts, no host, Unix sockets), answers 4xx and never
 * returns a row. Connection parameters are taken by allow list: a file-reading one
 * (sslrootcert=/dev/zero froze the API; =/nonexistent answered ENOENT, a file-existence oracle)
 * gets one 422 whatever the path, and an unknown one a 422 listing the accepted ones. The seam that lets the rest of the suite use this PostgreSQL for its sources
 * (WEIR_TEST_SHARED_SERVERS) is off here, as in a deployment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesSpec, setupApiTestKit, type ApiTestKit } from './testing/api-test-kit';

const REDIS_URL = 'redis://127.0.0.1:6379/12';
const SECRET = 'Bearer infra-test-s3cret-token';
let kit: ApiTestKit;
let preview: typeof import('@/app/api/jobs/preview/route');
let jobs: typeof import('@/app/api/jobs/route');
const dir = '/tmp/weir-outbound-infra-test';

beforeAll(async () => {
  kit = await setupApiTestKit({ infrastructure: 'refused', env: { WEIR_OUTBOUND_ALLOW: '127.0.0.0/8,::1/128,10.0.0.0/8,localhost', REDIS_URL } });
  preview = await import('@/app/api/jobs/preview/route');
  jobs = await import('@/app/api/jobs/route');
  // A job whose spec holds a secret: what a preview of the Job table would have shown.
  const created = await kit.call(jobs.POST, '/api/jobs', {
    method: 'POST',
    token: kit.tokens.admin,
    body: { spec: filesSpec('holds-a-secret', dir, { sink: { type: 'webhook', options: { url: 'http://10.0.0.9/hook', headers: { authorization: SECRET } } } }) },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
}, 120_000);
afterAll(async () => kit?.teardown());

const sourcePreview = (source: Record<string, unknown>) =>
  kit.call(preview.POST, '/api/jobs/preview', {
    method: 'POST',
    token: kit.tokens.admin,
    body: { spec: filesSpec('steal', dir, { source: { name: 'j', schema: [{ name: 'id', type: 'string' }, { name: 'spec', type: 'string' }], ...source }, sql: 'SELECT id, spec FROM j' }) },
  });

function expectRefused(res: Awaited<ReturnType<typeof sourcePreview>>, what: string, rule: RegExp) {
  const text = JSON.stringify(res.body);
  expect(res.status, `${what}: ${text}`).toBeGreaterThanOrEqual(400);
  expect(res.status, what).toBeLessThan(500);
  expect(res.body.rows, what).toBeUndefined();
  expect(text, what).not.toContain(SECRET);
  expect(text, what).toMatch(rule);
}

describe('a preview never reaches the metadata database', () => {
  it('refuses a postgres source on DATABASE_URL\'s server under every spelling, naming the rule', async () => {
    const db = kit.database.name;
    const infra = /one of Weir's own services, which jobs, previews and webhooks never reach, whatever WEIR_OUTBOUND_ALLOW says/;
    const unix = /Unix socket path; Weir connects .* over TCP only/;
    const spellings: [string, RegExp][] = [
      [kit.database.url, infra],
      [`postgres://postgres@127.0.0.1:5432/${db}`, infra],
      [`postgres://postgres@localhost:5432/${db}`, infra],
      [`postgres://postgres@LOCALHOST.:5432/${db}`, infra],
      [`postgres://postgres@[::1]:5432/${db}`, infra],
      [`postgres://postgres@[::ffff:127.0.0.1]:5432/${db}`, infra],
      [`postgres://postgres@127.0.0.2/${db}`, infra],
      [`postgres://postgres@/${db}`, infra],
      [`postgres:///${db}`, infra],
      [`postgres://postgres@/${db}?hostaddr=127.0.0.1&port=5432`, infra],
      [`postgres://postgres@10.0.0.1:5432/${db}?host=127.0.0.1`, infra],
      [`postgres://postgres@/${db}?host=10.0.0.1,localhost`, infra],
      [`postgres://postgres@10.0.0.1:1/${db}?port=5432&host=&host=localhost`, infra],
      // The libpq form, which pg misreads: it would connect to this ?host=, not to host=10.0.0.1.
      [`host=10.0.0.1 dbname=${db}?host=127.0.0.1&port=5432&user=postgres`, /is a postgres:\/\/ or postgresql:\/\/ URL/],
      [`host=10.0.0.1,127.0.0.1 port=5432 dbname=${db} user=postgres`, /is a postgres:\/\/ or postgresql:\/\/ URL/],
      [`postgres://postgres@10.0.0.1:5432/${db}?host=/var/run/postgresql`, unix],
      [`postgres://postgres@10.0.0.1:5432/${db}?host=/tmp`, unix],
      [`postgres://postgres@%2Fvar%2Frun%2Fpostgresql/${db}`, unix],
      [`socket:/var/run/postgresql?db=${db}`, unix],
    ];
    for (const [connectionString, rule] of spellings) {
      const res = await sourcePreview({ type: 'postgres', options: { connectionString, table: 'Job', offsetColumn: 'id' } });
      expectRefused(res, connectionString, rule);
    }
  });

  it('refuses a redis source on REDIS_URL\'s server under every spelling', async () => {
    for (const url of ['redis://127.0.0.1:6379/12', 'redis://localhost:6379', 'redis://[::1]:6379/0', 'redis://0x7f000001:6379', '127.0.0.1:6379', 'redis://:pw@LOCALHOST.:6379/3']) {
      const res = await sourcePreview({ type: 'redis-stream', options: { url, stream: 'bull:weir-runs:events' } });
      expectRefused(res, url, /the Redis queue \(REDIS_URL\), one of Weir's own services/);
    }
    const socket = await sourcePreview({ type: 'redis-stream', options: { url: '/var/run/redis/redis-server.sock', stream: 'x' } });
    expectRefused(socket, 'redis unix socket', /Unix socket path/);
  });

  it('the same refusal at job creation, for a sink too', async () => {
    const res = await kit.call(jobs.POST, '/api/jobs', {
      method: 'POST',
      token: kit.tokens.admin,
      body: { spec: filesSpec('write-into-weir', dir, { sink: { type: 'postgres', options: { connectionString: `postgres://postgres@[::1]:5432/${kit.database.name}`, table: 'ApiToken' } } }) },
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toMatch(/sink\.options\.connectionString.*the metadata database \(DATABASE_URL\)/);
    expect(await kit.db.job.count({ where: { name: 'write-into-weir' } })).toBe(0);
  });
});

describe('connection parameters that read files', () => {
  it('sslrootcert=/dev/zero and sslrootcert=/nonexistent get the same 4xx, at once, without reading the file', async () => {
    const answers = [];
    for (const file of ['/nonexistent', '/dev/zero', '/etc/passwd']) {
      // A host other than Weir's own, so that only the parameter is in question.
      const res = await sourcePreview({ type: 'postgres', options: { connectionString: `postgres://reader@10.0.0.1:5432/shop?sslmode=verify-full&sslrootcert=${file}`, table: 'orders', offsetColumn: 'id' } });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.rows).toBeUndefined();
      answers.push(JSON.stringify(res.body));
    }
    expect(answers[0]).toMatch(/postgres connection parameter \\"sslrootcert\\" is refused: it makes the client read a file on Weir's machine/);
    expect(answers[0]).not.toMatch(/ENOENT|nonexistent/);
    expect(new Set(answers).size).toBe(1);
  });

  it('a file-reading parameter hidden in a libpq-form string (which pg would still read) is refused too', async () => {
    const res = await sourcePreview({ type: 'postgres', options: { connectionString: 'host=10.0.0.1 dbname=shop?sslrootcert=/nonexistent', table: 'orders', offsetColumn: 'id' } });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).not.toMatch(/ENOENT/);
  });

  it('an unknown parameter is a 422 naming it and listing the accepted ones', async () => {
    const res = await sourcePreview({ type: 'postgres', options: { connectionString: 'postgres://reader@10.0.0.1:5432/shop?krbsrvname=x', table: 'orders', offsetColumn: 'id' } });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toMatch(/"krbsrvname\\" is refused: Weir does not accept it\. Accepted parameters: host, hostaddr, port/);
  });
});
