/**
 * Every API route, every exported method, fuzzed: random ids (NUL, lone surrogates, huge
 * numbers, path traversal, real ids, raw path segments whose percent-encoding is not UTF-8),
 * random query strings (some with such raw pieces) and random bodies (any JSON, broken JSON,
 * near-valid specs with one field swapped for junk), sent as an admin, a viewer, a signed-in
 * admin's cookie (with this app's Origin) and nobody, through proxy.ts and then the real handlers
 * over a real database, the order `next start` runs them in. Every answer must be a non-500 with
 * a JSON body, and every refusal the `{error: {code, message}}` envelope; a URL that is not UTF-8
 * once decoded is a 400 BAD_REQUEST whoever sends it. The routes are found by walking app/api, so a new route is fuzzed the day
 * it is added.
 *
 * Nothing here can reach the network: the only destinations a body could name are validated,
 * never called (no worker runs, and alert webhooks are only called by the alert evaluator).
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { proxy } from '@/proxy';
import { filesSpec, setupApiTestKit, type ApiTestKit, type Handler } from './testing/api-test-kit';

const API_DIR = path.resolve(import.meta.dirname, '../../app/api');
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** Runs per route and method; each run sends one request per caller (4). */
const RUNS = Number(process.env.WEIR_FUZZ_RUNS ?? 60);

interface Route {
  file: string;
  /** `/api/jobs/[id]/start` */
  pattern: string;
  params: string[];
  handlers: Partial<Record<(typeof METHODS)[number], Handler>>;
  /** Wrapped in apiRoute/publicRoute, which check the query string (the others never read it). */
  checksQuery: boolean;
}

async function routeFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await routeFiles(p)));
    else if (e.name === 'route.ts') out.push(p);
  }
  return out.sort();
}

let kit: ApiTestKit;
let dataDir: string;
const routes: Route[] = [];
const realIds: string[] = [];
let adminCookie = '';
const stats = { requests: 0, status500: 0, byStatus: new Map<number, number>() };
const failures: string[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'weir-fuzz-data-'));
  process.env.WEIR_DATA_DIR = dataDir;
  kit = await setupApiTestKit();
  for (const file of await routeFiles(API_DIR)) {
    const mod = (await import(file)) as Record<string, unknown>;
    const pattern = '/' + path.relative(path.resolve(API_DIR, '..'), path.dirname(file)).split(path.sep).join('/');
    const params = [...pattern.matchAll(/\[(?:\.\.\.)?(\w+)\]/g)].map((m) => m[1]);
    const handlers: Route['handlers'] = {};
    for (const m of METHODS) if (typeof mod[m] === 'function') handlers[m] = mod[m] as Handler;
    routes.push({ file, pattern, params, handlers, checksQuery: /\b(apiRoute|publicRoute)\(/.test(await readFile(file, 'utf8')) });
  }
  // Real rows, so some requests get past "not found" into the services.
  const jobs = await import('@/app/api/jobs/route');
  const job = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: filesSpec('fuzz-job', dataDir) });
  realIds.push(job.body.job.id);
  const rules = await import('@/app/api/alert-rules/route');
  const rule = await kit.call(rules.POST, '/api/alert-rules', { method: 'POST', token: kit.tokens.admin, body: { name: 'fuzz rule', kind: 'run-failed' } });
  realIds.push(rule.body.id ?? rule.body.rule?.id);
  // A token the fuzz may revoke (the kit's own must keep working).
  const spare = await kit.db.apiToken.create({ data: { name: 'spare', role: 'viewer', tokenHash: 'fuzz-spare-hash' } });
  realIds.push(spare.id);
  const signin = await import('@/app/api/auth/signin/route');
  // A user session, not one made from the admin token, so the fuzz's sign-out cannot revoke a token.
  await kit.db.user.create({ data: { username: 'fuzz-admin', role: 'admin', passwordHash: (await kit.db.user.findFirstOrThrow({ where: { username: 'alice' } })).passwordHash } });
  const res = await kit.call(signin.POST, '/api/auth/signin', { method: 'POST', body: { username: 'fuzz-admin', password: 'alice-password' } });
  adminCookie = res.headers.get('set-cookie')!.split(';')[0];
  expect(realIds.every(Boolean)).toBe(true);
}, 120_000);

afterAll(async () => {
  const byStatus = [...stats.byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}:${n}`).join(' ');
  console.log(`[api fuzz] ${stats.requests} requests over ${routes.length} routes, ${stats.status500} answered 500 (${byStatus})`);
  await kit?.teardown();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const SPECIAL_STRINGS = [
  '\u0000', 'a\u0000b', '%00', '\ud800', 'x\udfffy', '\ud83d\ude00', '', ' ', '..', '../../etc/passwd', '..%2F..%2Fetc%2Fpasswd', '/etc/ssh/ssh_config', 'file:///etc',
  '99999999999999999999999', '99999999999999999999999_x', '1e400', '-1', '0', '2147483648', '9007199254740993', 'NaN', 'Infinity', 'null', 'true', '[]', '{}',
  "' OR 1=1 --", '"; DROP TABLE "Job"; --', '<script>alert(1)</script>', 'x'.repeat(5_000), '\u202e\u0301', 'offsets/0', 'metadata', '1_x', `${Date.now()}_abc`,
];
const specialString = fc.constantFrom(...SPECIAL_STRINGS);
const anyString = fc.oneof(specialString, fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }));
/** Percent-encodings that are not UTF-8: a stray byte, a lone surrogate, cut and overlong sequences, past U+10FFFF. */
const BAD_ENCODINGS = ['%FF', '%ED%A0%80', '%E2%82', '%C0%AF', '%F4%90%80%80', 'x%FEy', '%'];
/** A path segment sent as it is, not encoded again. */
interface RawSegment {
  raw: string;
}
const idArb: fc.Arbitrary<string | RawSegment> = fc.oneof(
  { arbitrary: specialString, weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }), weight: 3 },
  { arbitrary: fc.uuid(), weight: 3 },
  { arbitrary: fc.constant('REAL'), weight: 3 },
  { arbitrary: fc.constantFrom(...BAD_ENCODINGS).map((raw): RawSegment => ({ raw })), weight: 1 },
);

const QUERY_KEYS = ['before', 'limit', 'cursor', 'targetId', 'targetType', 'jobId', 'state', 'status', 'path', 'from', 'to', 'points', 'deleteCheckpoint', 'confirm', 'x'];
const queryArb = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), anyString), fc.oneof(anyString, fc.integer().map(String), fc.double().map(String))), { maxLength: 4 });
/** Appended to the encoded query as it is: `key=%FF`, or a bad name. */
const rawQueryArb = fc.oneof(
  { arbitrary: fc.constant(null), weight: 8 },
  { arbitrary: fc.tuple(fc.constantFrom(...QUERY_KEYS), fc.constantFrom(...BAD_ENCODINGS)).map(([k, v]) => `${k}=${v}`), weight: 1 },
  { arbitrary: fc.constantFrom(...BAD_ENCODINGS).map((k) => `${k}=1`), weight: 1 },
);

const jsonish: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: 'small' },
  fc.jsonValue({ maxDepth: 4 }),
  fc.dictionary(fc.constantFrom('spec', 'name', 'role', 'confirm', 'point', 'kind', 'params', 'addFiles', 'token', 'username', 'password', 'enabled', 'description', 'restartPolicy'), fc.oneof(anyString, fc.jsonValue({ maxDepth: 2 }), fc.integer(), fc.double()), { maxKeys: 5 }),
  specialString,
);
/** A valid files spec with one field replaced by junk: gets past the shape checks into the engine. */
const nearSpec = fc
  .tuple(fc.constantFrom('name', 'sql', 'checkpointLocation', 'trigger', 'source', 'sink', 'outputMode', 'dedup', 'staticTables', 'minBatchesToRetain'), fc.oneof(anyString, fc.jsonValue({ maxDepth: 3 })))
  .map(([k, v]) => ({ spec: { ...filesSpec('fuzz-near', '/tmp/weir-fuzz-never'), [k]: v } }));
const bodyArb = fc.oneof(
  jsonish.map((v) => JSON.stringify(v)),
  nearSpec.map((v) => JSON.stringify(v)),
  fc.constantFrom('', '{', 'not json', '{"spec":', '[]', 'null', '"\\ud800"', '{"name":"\\u0000"}', '['.repeat(200) + ']'.repeat(200)),
);

type Caller = 'admin' | 'viewer' | 'cookie' | 'anonymous';
const CALLERS: Caller[] = ['admin', 'viewer', 'cookie', 'anonymous'];

function safeEncode(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return 'bad-surrogate';
  }
}

async function send(route: Route, method: string, caller: Caller, ids: (string | RawSegment)[], query: [string, string][], rawQuery: string | null, body: string | undefined): Promise<void> {
  const params: Record<string, string> = {};
  let url = route.pattern;
  let badUrl = false;
  route.params.forEach((name, i) => {
    const id = ids[i];
    let segment: string;
    if (typeof id === 'object') {
      // The handler is never reached with it under next start (proxy.ts answers); decoded leniently if it were.
      params[name] = id.raw.replace(/%[0-9A-F]{2}/g, '\ufffd');
      segment = id.raw;
      badUrl = true;
    } else {
      const raw = id === 'REAL' ? realIds[i % realIds.length] : id;
      const value = name === 'batchId' && raw === realIds[i % realIds.length] ? '0' : raw;
      params[name] = value;
      segment = safeEncode(value) || 'empty';
    }
    url = url.replace(new RegExp(`\\[(?:\\.\\.\\.)?${name}\\]`), segment);
  });
  const qs = [new URLSearchParams(query).toString(), rawQuery ?? ''].filter(Boolean).join('&');
  if (rawQuery !== null && route.checksQuery) badUrl = true;
  const headers: Record<string, string> = { host: 'localhost:3000' };
  if (caller === 'admin') headers.authorization = `Bearer ${kit.tokens.admin}`;
  if (caller === 'viewer') headers.authorization = `Bearer ${kit.tokens.viewer}`;
  if (caller === 'cookie') Object.assign(headers, { cookie: adminCookie, origin: 'http://localhost:3000' });
  if (body !== undefined) headers['content-type'] = 'application/json';
  const ac = new AbortController();
  const req = new Request(new URL(url + (qs ? `?${qs}` : ''), 'http://localhost:3000'), { method, headers, body: method === 'GET' ? undefined : body, signal: ac.signal });
  // As under next start: the proxy first (it only answers a path it cannot decode), then the route.
  const res = proxy(req) ?? (await route.handlers[method as keyof Route['handlers']]!(req, { params: Promise.resolve(params) }));
  stats.requests++;
  stats.byStatus.set(res.status, (stats.byStatus.get(res.status) ?? 0) + 1);
  const what = `${method} ${url}${qs ? `?${qs}` : ''} as ${caller} body=${JSON.stringify(body)?.slice(0, 200)} → ${res.status}`;
  if (res.status >= 500) {
    stats.status500++;
    failures.push(`${what}: ${(await res.text()).slice(0, 300)}`);
    return;
  }
  if (badUrl && res.status !== 400) failures.push(`${what}: a URL that is not UTF-8 once decoded must be 400`);
  if (res.status === 204) return;
  const type = res.headers.get('content-type') ?? '';
  if (type.startsWith('text/event-stream')) {
    // The progress stream answers 200 and stays open: its headers are the answer.
    ac.abort();
    await res.body?.cancel();
    return;
  }
  const text = await res.text();
  if (!type.includes('application/json')) return void failures.push(`${what}: content-type ${type}: ${text.slice(0, 200)}`);
  let json: { error?: { code?: unknown; message?: unknown } };
  try {
    json = JSON.parse(text);
  } catch {
    return void failures.push(`${what}: not JSON: ${text.slice(0, 200)}`);
  }
  if (res.status >= 400 && (typeof json.error?.code !== 'string' || typeof json.error?.message !== 'string')) failures.push(`${what}: no error envelope: ${text.slice(0, 200)}`);
  if (badUrl && json.error?.code !== 'BAD_REQUEST') failures.push(`${what}: a URL that is not UTF-8 once decoded must be BAD_REQUEST: ${text.slice(0, 200)}`);
}

describe('API fuzz', () => {
  it('finds the routes', () => {
    expect(routes.length).toBeGreaterThan(30);
  });

  it('no route answers 500 or anything but JSON to random ids, query strings and bodies, for any caller', async () => {
    let routeMethods = 0;
    for (const route of routes) {
      for (const method of METHODS) {
        if (!route.handlers[method]) continue;
        routeMethods++;
        await fc.assert(
          fc.asyncProperty(fc.array(idArb, { minLength: 3, maxLength: 3 }), queryArb, rawQueryArb, bodyArb, async (ids, query, rawQuery, body) => {
            for (const caller of CALLERS) await send(route, method, caller, ids, query, rawQuery, method === 'GET' ? undefined : body);
          }),
          { numRuns: RUNS },
        );
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
    expect(stats.status500).toBe(0);
    expect(stats.requests).toBe(routeMethods * RUNS * CALLERS.length);
  }, 1_200_000);
});
