/**
 * Untrusted input is bounded, through the real route handlers and a real database: each case is
 * a reproduction that once parsed a 50 MB body, answered 500 with PostgreSQL's or Prisma's text,
 * overflowed the stack, accepted an unbounded duration or name, or let a cookie write through
 * without this app's Origin. Each must now be refused with the JSON envelope, naming the field.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { errorResponse } from './http/http-errors';
import { MAX_BODY_BYTES } from './http/body-limits';
import { filesSpec, setupApiTestKit, type ApiTestKit, type CallResult } from './testing/api-test-kit';

let kit: ApiTestKit;
let dir: string;
beforeAll(async () => {
  kit = await setupApiTestKit();
  dir = await mkdtemp(path.join(tmpdir(), 'weir-limits-'));
});
afterAll(async () => {
  await kit?.teardown();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const jobs = () => import('@/app/api/jobs/route');
const validate = () => import('@/app/api/jobs/validate/route');

function expectEnvelope(r: CallResult, status: number, code: string): void {
  expect(r.status, JSON.stringify(r.body)?.slice(0, 300)).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/application\/json/);
  expect(r.body.error).toMatchObject({ code, message: expect.any(String) });
}

/** The spec's issue on `field` (the 422 of POST /api/jobs). */
async function createRefused(spec: unknown, field: string): Promise<string> {
  const r = await kit.call((await jobs()).POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: { spec } });
  expectEnvelope(r, 422, 'INVALID_JOB_SPEC');
  const issue = r.body.error.details.errors.find((e: { path: string }) => e.path === field);
  expect(issue, JSON.stringify(r.body.error.details.errors)).toBeDefined();
  return issue.message as string;
}

describe('request bodies', () => {
  it('a 50 MB body is 413 from its Content-Length, before it is read', async () => {
    const r = await kit.call((await jobs()).POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: 'x'.repeat(50 * 1024 * 1024), headers: { 'content-length': String(50 * 1024 * 1024) } });
    expectEnvelope(r, 413, 'PAYLOAD_TOO_LARGE');
    expect(r.body.error.details.maxBytes).toBe(MAX_BODY_BYTES);
  });

  it('a streamed body with no length is cut off once it passes 1 MiB: the rest is never pulled', async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled += chunk.byteLength;
        if (pulled > 50 * 1024 * 1024) c.close();
        else c.enqueue(chunk);
      },
    });
    const req = new Request('http://localhost:3000/api/jobs/validate', { method: 'POST', body, headers: { authorization: `Bearer ${kit.tokens.viewer}`, 'content-type': 'application/json' }, duplex: 'half' } as RequestInit);
    const res = await (await validate()).POST(req, { params: Promise.resolve({}) });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(pulled).toBeLessThan(4 * 1024 * 1024);
  });

  it('validating an expensive constant expression never holds the API for the evaluation', async () => {
    // Constant folding used to evaluate this in the API's event loop: over a minute of CPU in one
    // busy spell, in which no other request was answered (string values are bounded since, which
    // cuts the spell to seconds). The plan shows the call unevaluated, and no health request waits
    // anywhere near that long: the bound is above what a loaded machine's ordinary stalls reach
    // (2 s were seen at load 19 on two cores).
    const sql = "SELECT length(regexp_replace(repeat('a', 1000000), 'a', repeat('b', 100))) AS c FROM clicks";
    const health = (await import('@/app/api/health/route')).GET;
    const post = (await validate()).POST;
    let settled = false;
    const validating = kit.call(post, '/api/jobs/validate', { method: 'POST', token: kit.tokens.viewer, body: { spec: { ...filesSpec('costly', dir), sql } } }).finally(() => (settled = true));
    // Health asked every 100 ms for as long as the validation is in flight. Each round is timed
    // whole, less the 100 ms pause: a request arriving while the event loop is busy waits that
    // long, whether the busy spell falls in the answer or in the pause.
    const healthMs: number[] = [];
    do {
      const t = performance.now();
      expect((await kit.call(health, '/api/health', {})).status).toBe(200);
      await new Promise((r) => setTimeout(r, 100));
      healthMs.push(performance.now() - t - 100);
    } while (!settled);
    const r = await validating;
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(true);
    expect(r.body.explain).toContain("length(regexp_replace(repeat('a', 1000000), 'a', repeat('b', 100)))");
    expect(Math.max(...healthMs)).toBeLessThan(15_000);
  });

  it('a 10 MB SQL literal from a viewer is 413, not 30 s of parsing', async () => {
    const spec = { ...filesSpec('big-sql', dir), sql: `SELECT '${'x'.repeat(10 * 1024 * 1024)}' AS s FROM clicks` };
    const r = await kit.call((await validate()).POST, '/api/jobs/validate', { method: 'POST', token: kit.tokens.viewer, body: { spec } });
    expectEnvelope(r, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('a body just under 1 MiB is still read (and refused for what it says, not its size)', async () => {
    const r = await kit.call((await validate()).POST, '/api/jobs/validate', { method: 'POST', token: kit.tokens.viewer, body: { spec: { ...filesSpec('pad', dir), pad: 'x'.repeat(MAX_BODY_BYTES - 2_000) } } });
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(false);
  });

  it('invalid UTF-8, NUL bytes, lone surrogates and deep nesting in a body are 400 naming the field', async () => {
    const post = async (raw: string | Uint8Array<ArrayBuffer>) => {
      const req = new Request('http://localhost:3000/api/jobs', { method: 'POST', body: raw, headers: { authorization: `Bearer ${kit.tokens.admin}`, 'content-type': 'application/json' } });
      const res = await (await jobs()).POST(req, { params: Promise.resolve({}) });
      return { status: res.status, body: await res.json() };
    };
    const badUtf8 = await post(new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
    expect(badUtf8.status).toBe(400);
    expect(badUtf8.body.error.message).toMatch(/UTF-8/);
    const nul = await post(JSON.stringify({ spec: { ...filesSpec('n', dir), name: 'a\u0000b' } }));
    expect(nul.status).toBe(400);
    expect(nul.body.error.details.field).toBe('The body field spec.name');
    const surrogate = await post('{"spec": {"name": "\\ud800"}}');
    expect(surrogate.status).toBe(400);
    expect(surrogate.body.error.message).toMatch(/spec\.name.*surrogate/);
    const deep = await post('['.repeat(10_000) + ']'.repeat(10_000));
    expect(deep.status).toBe(400);
    expect(deep.body.error.message).toMatch(/deeper than 64/);
    expect(await kit.db.job.count()).toBe(0);
  });
});

describe('SQL size and depth', () => {
  const sqlIssue = async (sql: string) => {
    const r = await kit.call((await validate()).POST, '/api/jobs/validate', { method: 'POST', token: kit.tokens.viewer, body: { spec: { ...filesSpec('deep', dir), sql } } });
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(false);
    return r.body.errors.find((e: { path: string }) => e.path === 'sql') as { message: string; line: number; column: number };
  };

  it('a 60,000-term OR and a 5,000-term + are refused with a position, not "Maximum call stack size exceeded"', async () => {
    const or = await sqlIssue('SELECT user FROM clicks WHERE ' + Array.from({ length: 60_000 }, (_, i) => `n = ${i}`).join(' OR '));
    expect(or.message).toMatch(/more than 256 operators/);
    expect(or).toMatchObject({ line: 1, column: expect.any(Number) });
    const plus = await sqlIssue('SELECT ' + Array.from({ length: 5_000 }, () => 'n').join(' + ') + ' AS total FROM clicks');
    expect(plus.message).toMatch(/more than 256 operators/);
    expect(plus.column).toBeGreaterThan(1);
  });

  it('SQL over 64 KiB is refused at the byte where it passes the limit; 1,000 nested brackets likewise', async () => {
    const long = await sqlIssue(`SELECT '${'é'.repeat(40_000)}' AS s FROM clicks`);
    expect(long.message).toMatch(/longer than 65536 bytes/);
    expect(long.column).toBeLessThan(40_000);
    const nested = await sqlIssue('SELECT ' + '('.repeat(1_000) + 'n' + ')'.repeat(1_000) + ' AS x FROM clicks');
    expect(nested.message).toMatch(/nest more than 64 levels/);
    expect(nested.column).toBe(8 + 64);
  });

  it('a query at the limits still validates: 256 operators, 64 brackets, a 5,000-value IN list', async () => {
    const ok = async (sql: string) => {
      const r = await kit.call((await validate()).POST, '/api/jobs/validate', { method: 'POST', token: kit.tokens.viewer, body: { spec: { ...filesSpec('edge', dir), sql } } });
      expect(r.body.errors).toEqual([]);
    };
    await ok('SELECT user, ' + Array.from({ length: 128 }, () => 'n').join(' + ') + ' AS t FROM clicks WHERE ' + Array.from({ length: 64 }, (_, i) => `n = ${i}`).join(' OR '));
    await ok('SELECT user, ' + '('.repeat(64) + 'n' + ')'.repeat(64) + ' AS t FROM clicks');
    await ok(`SELECT user FROM clicks WHERE n IN (${Array.from({ length: 5_000 }, (_, i) => i).join(', ')})`);
  });
});

describe('ids and query parameters', () => {
  const NUL = '\u0000';
  const cases: [string, () => Promise<{ [m: string]: unknown }>, string, string, Record<string, string>][] = [
    ['GET /api/jobs/:id', () => import('@/app/api/jobs/[id]/route'), 'GET', `/api/jobs/%00`, { id: NUL }],
    ['DELETE /api/jobs/:id', () => import('@/app/api/jobs/[id]/route'), 'DELETE', `/api/jobs/%00`, { id: NUL }],
    ['POST /api/jobs/:id/start', () => import('@/app/api/jobs/[id]/start/route'), 'POST', `/api/jobs/%00/start`, { id: NUL }],
    ['GET /api/jobs/:id/runs', () => import('@/app/api/jobs/[id]/runs/route'), 'GET', `/api/jobs/%00/runs`, { id: NUL }],
    ['GET /api/jobs/:id/batches/:batchId', () => import('@/app/api/jobs/[id]/batches/[batchId]/route'), 'GET', `/api/jobs/%00/batches/0`, { id: NUL, batchId: '0' }],
    ['GET /api/jobs/:id/checkpoint', () => import('@/app/api/jobs/[id]/checkpoint/route'), 'GET', `/api/jobs/%00/checkpoint`, { id: NUL }],
    ['GET /api/alerts/:id', () => import('@/app/api/alerts/[id]/route'), 'GET', `/api/alerts/%00`, { id: NUL }],
    ['POST /api/alerts/:id/acknowledge', () => import('@/app/api/alerts/[id]/acknowledge/route'), 'POST', `/api/alerts/%00/acknowledge`, { id: NUL }],
    ['GET /api/alert-rules/:id', () => import('@/app/api/alert-rules/[id]/route'), 'GET', `/api/alert-rules/%00`, { id: NUL }],
    ['DELETE /api/tokens/:id', () => import('@/app/api/tokens/[id]/route'), 'DELETE', `/api/tokens/%00`, { id: NUL }],
    ['GET /api/audit?targetId=%00', () => import('@/app/api/audit/route'), 'GET', `/api/audit?targetId=%00`, {}],
    ['GET /api/alerts?jobId=%00', () => import('@/app/api/alerts/route'), 'GET', `/api/alerts?jobId=%00`, {}],
    ['GET /api/jobs/:id/checkpoint/file?path=%00', () => import('@/app/api/jobs/[id]/checkpoint/file/route'), 'GET', `/api/jobs/x/checkpoint/file?path=%00`, { id: 'x' }],
  ];
  it.each(cases)('a NUL byte in %s is 400 naming the parameter', async (_name, load, method, url, params) => {
    const mod = (await load()) as Record<string, (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>>;
    const r = await kit.call(mod[method], url, { method, token: kit.tokens.admin, params });
    expectEnvelope(r, 400, 'BAD_REQUEST');
    expect(r.body.error.message).toMatch(/(path|query) parameter \w+ contains a NUL byte/);
  });

  // URLSearchParams turns these into U+FFFD without a word: `?q=%FF` once listed jobs with 200.
  const queryReaders: [string, () => Promise<{ [m: string]: unknown }>, Record<string, string>][] = [
    ['/api/jobs', () => import('@/app/api/jobs/route'), {}],
    ['/api/jobs/X/runs', () => import('@/app/api/jobs/[id]/runs/route'), { id: 'X' }],
    ['/api/jobs/X/batches', () => import('@/app/api/jobs/[id]/batches/route'), { id: 'X' }],
    ['/api/jobs/X/charts', () => import('@/app/api/jobs/[id]/charts/route'), { id: 'X' }],
    ['/api/jobs/X/checkpoint/file', () => import('@/app/api/jobs/[id]/checkpoint/file/route'), { id: 'X' }],
    ['/api/jobs/X', () => import('@/app/api/jobs/[id]/route'), { id: 'X' }],
    ['/api/audit', () => import('@/app/api/audit/route'), {}],
    ['/api/alerts', () => import('@/app/api/alerts/route'), {}],
    ['/api/alert-rules', () => import('@/app/api/alert-rules/route'), {}],
    ['/api/contracts', () => import('@/app/api/contracts/route'), {}],
  ];
  it.each(queryReaders)('invalid UTF-8 in the query string of GET %s is 400 naming the parameter, token or not', async (pathname, load, params) => {
    const mod = (await load()) as Record<string, (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>>;
    // The last: `?q=%FF` as `next start` hands it to a route handler, already re-encoded.
    for (const [qs, field] of [['?q=%FF', 'q'], ['?limit=10&path=%ED%A0%80', 'path'], ['?status=a%E2%82', 'status'], ['?%C0%AF=1', 'query'], ['?q=%EF%BF%BD', 'q']]) {
      for (const token of [kit.tokens.viewer, undefined]) {
        const r = await kit.call(mod.GET, pathname + qs, { token, params });
        expectEnvelope(r, 400, 'BAD_REQUEST');
        expect(r.body.error.message).toContain('not valid UTF-8');
        expect(r.body.error.details.field).toBe(field);
      }
    }
  });

  it('a path whose percent-encoding is not UTF-8 is 400 from the handler too (proxy.ts answers first under next start)', async () => {
    const runs = await import('@/app/api/jobs/[id]/runs/route');
    // What a Request could carry if Next ever passed such a path on: its params decoded leniently.
    const r = await kit.call(runs.GET, '/api/jobs/%ED%A0%80/runs', { params: { id: '\ufffd\ufffd\ufffd' } });
    expectEnvelope(r, 400, 'BAD_REQUEST');
    expect(r.body.error.details).toMatchObject({ field: 'path', segment: '%ED%A0%80' });
  });

  it('cursors and numbers that do not parse are 400, and no answer carries the query text', async () => {
    const runs = await import('@/app/api/jobs/[id]/runs/route');
    const batches = await import('@/app/api/jobs/[id]/batches/route');
    const batch = await import('@/app/api/jobs/[id]/batches/[batchId]/route');
    const answers = [
      await kit.call(runs.GET, '/api/jobs/X/runs?before=99999999999999999999999_x', { token: kit.tokens.viewer, params: { id: 'X' } }),
      await kit.call(runs.GET, '/api/jobs/X/runs?before=9999999999999999_x', { token: kit.tokens.viewer, params: { id: 'X' } }),
      await kit.call(batches.GET, '/api/jobs/X/batches?before=99999999999', { token: kit.tokens.viewer, params: { id: 'X' } }),
      await kit.call(batch.GET, '/api/jobs/X/batches/99999999999', { token: kit.tokens.viewer, params: { id: 'X', batchId: '99999999999' } }),
    ];
    for (const r of answers) {
      expectEnvelope(r, 400, 'BAD_REQUEST');
      expect(JSON.stringify(r.body)).not.toMatch(/prisma|SELECT|invocation/i);
    }
  });

  it('an unknown /api path answers a JSON 404 for every method', async () => {
    const mod = (await import('@/app/api/[...path]/route')) as unknown as Record<string, (req: Request) => Response>;
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const res = mod[method](new Request('http://localhost:3000/api/no/such/thing', { method }));
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect((await res.json()).error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining(`${method} /api/no/such/thing`) });
    }
  });

  it('a 500 carries an error id that is in the log line, and none of the error itself', async () => {
    const logged: unknown[][] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args));
    try {
      const internal = Object.assign(new Error('Invalid `prisma.run.findMany()` invocation: SELECT "secret" FROM "Run"'), { stack: 'at secret.ts:1' });
      const res = errorResponse(internal);
      expect(res.status).toBe(500);
      const body = await res.json();
      expect(body.error.code).toBe('INTERNAL');
      expect(body.error.details.errorId).toMatch(/^[0-9a-f]{16}$/);
      expect(JSON.stringify(body)).not.toMatch(/prisma|SELECT|secret/);
      expect(logged).toHaveLength(1);
      expect(String(logged[0][0])).toContain(body.error.details.errorId);
      expect(logged[0][1]).toBe(internal);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('names, identifiers and durations', () => {
  it('a 10,000-character job name is refused; 200 is the limit', async () => {
    expect(await createRefused(filesSpec('n'.repeat(10_000), dir), 'name')).toMatch(/at most 200 characters/);
  });

  it('PostgreSQL identifiers over 63 bytes are refused, not cut: table, schema, key column, output column', async () => {
    const pg = (options: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      filesSpec('pg-ident', dir, { sink: { type: 'postgres', options: { connectionString: 'postgres://w@127.0.0.1:5432/x', table: 'out', ...options } }, ...extra });
    expect(await createRefused(pg({ table: 't'.repeat(64) }), 'sink.options.table')).toMatch(/64 bytes long.*at most 63 bytes/);
    // 32 two-byte characters: 32 characters but 64 bytes.
    expect(await createRefused(pg({ schema: 'é'.repeat(32) }), 'sink.options.schema')).toMatch(/64 bytes/);
    expect(await createRefused(pg({}, { sql: `SELECT user AS ${'c'.repeat(70)} FROM clicks` }), 'sql')).toMatch(/output column .* 70 bytes long/);
    const upsert = filesSpec('pg-upsert', dir, { outputMode: 'update', sink: { type: 'postgres-upsert', options: { connectionString: 'postgres://w@127.0.0.1:5432/x', table: 'out', keyColumns: ['k'.repeat(64)] } } });
    expect(await createRefused(upsert, 'sink.options.keyColumns.0')).toMatch(/at most 63 bytes/);
    // 63 bytes is fine.
    const r = await kit.call((await validate()).POST, '/api/jobs/validate', { method: 'POST', token: kit.tokens.viewer, body: { spec: pg({ table: 't'.repeat(63) }) } });
    expect(r.body.errors).toEqual([]);
  });

  it('trigger.interval "99999999999999999999 seconds" and anything over a day are refused; a day is fine', async () => {
    const withInterval = (interval: string) => filesSpec('interval', dir, { trigger: { type: 'processing-time', interval } });
    expect(await createRefused(withInterval('99999999999999999999 seconds'), 'trigger.interval')).toMatch(/at most 1 day/);
    expect(await createRefused(withInterval('25 hours'), 'trigger.interval')).toMatch(/at most 1 day/);
    expect(await createRefused(withInterval('1'.repeat(400)), 'trigger.interval')).toMatch(/expected a duration|at most/);
    const r = await kit.call((await validate()).POST, '/api/jobs/validate', { method: 'POST', token: kit.tokens.viewer, body: { spec: withInterval('1 day') } });
    expect(r.body.errors).toEqual([]);
  });

  it('a watermark delay over 10000 years, a window over 365 days and a webhook backoff over an hour are refused', async () => {
    const spec = (extra: Record<string, unknown>) => filesSpec('delays', dir, extra);
    const source = (watermarkDelay: string) => ({ ...filesSpec('x', dir).source, schema: [{ name: 'user', type: 'string' }, { name: 'ts', type: 'timestamp' }], eventTime: 'ts', watermarkDelay });
    expect(await createRefused(spec({ source: source('10000 years 1 day') }), 'source.watermarkDelay')).toMatch(/at most 10000 years/);
    expect(await createRefused(spec({ source: source('10 minutes'), sql: "SELECT window(ts, '1000 weeks') AS w, count(*) AS c FROM clicks GROUP BY window(ts, '1000 weeks')", outputMode: 'update' }), 'sql')).toMatch(/at most 365 days/);
    expect(await createRefused(spec({ sink: { type: 'webhook', options: { url: 'https://hooks.example.com/x', initialBackoffMs: 2 ** 31 } } }), 'sink.options.initialBackoffMs')).toBeTruthy();
  });

  it('a restart policy backoff over an hour is a 400 from the API schema', async () => {
    const r = await kit.call((await jobs()).POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: { spec: filesSpec('rp', dir), restartPolicy: { maxRestarts: 1, backoffMs: 99_999_999_999 } } });
    expectEnvelope(r, 400, 'BAD_REQUEST');
    expect(r.body.error.details.issues[0].path).toBe('restartPolicy.backoffMs');
  });
});

describe('cookie-authenticated writes need this app’s Origin', () => {
  let cookie: string;
  beforeAll(async () => {
    const signin = await import('@/app/api/auth/signin/route');
    const res = await kit.call(signin.POST, '/api/auth/signin', { method: 'POST', body: { token: kit.tokens.admin } });
    cookie = res.headers.get('set-cookie')!.split(';')[0];
  });
  const createToken = async (headers: Record<string, string>, auth: { cookie?: string; token?: string }) => {
    const tokens = await import('@/app/api/tokens/route');
    return kit.call(tokens.POST, '/api/tokens', { method: 'POST', ...auth, headers: { host: 'localhost:3000', ...headers }, body: { name: `t-${Math.random()}`, role: 'admin' } });
  };

  it('Origin: null, no Origin, and a foreign Origin are 403 and create nothing', async () => {
    const before = await kit.db.apiToken.count();
    for (const headers of <Record<string, string>[]>[{ origin: 'null' }, {}, { origin: 'https://evil.example' }, { origin: 'null', 'sec-fetch-site': 'same-origin' }, { 'sec-fetch-site': 'cross-site' }, { origin: 'not a url' }]) {
      const r = await createToken(headers, { cookie });
      expectEnvelope(r, 403, 'FORBIDDEN');
      expect(r.body.error.message).toMatch(/bearer token/);
    }
    expect(await kit.db.apiToken.count()).toBe(before);
  });

  it('this app’s Origin, or a browser’s Sec-Fetch-Site: same-origin, passes; a bearer token needs neither', async () => {
    expect((await createToken({ origin: 'http://localhost:3000' }, { cookie })).status).toBe(201);
    expect((await createToken({ 'sec-fetch-site': 'same-origin' }, { cookie })).status).toBe(201);
    // Behind a TLS proxy: the browser's Origin names the public host the proxy forwards.
    expect((await createToken({ origin: 'https://weir.example.com', 'x-forwarded-host': 'weir.example.com' }, { cookie })).status).toBe(201);
    expect((await createToken({}, { token: kit.tokens.admin })).status).toBe(201);
    expect((await createToken({ origin: 'null' }, { token: kit.tokens.admin })).status).toBe(201);
  });

  it('reads with the cookie need no Origin', async () => {
    const me = await import('@/app/api/auth/me/route');
    expect((await kit.call(me.GET, '/api/auth/me', { cookie })).status).toBe(200);
  });
});
