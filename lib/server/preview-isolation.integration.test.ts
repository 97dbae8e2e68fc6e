/**
 * The editor's Preview never evaluates a user's expression in the API process, through the real
 * route handler: each case is an attack that once took the API down or read a file it must not.
 * - explode(split(repeat('x', 1000000), '')) over 60 records ran the dashboard out of heap
 *   (SIGABRT after 78 s); over 12 it blocked /api/health for 10.5 s. regexp_replace over a 1 MB
 *   value took over a minute of the API's CPU. Now health answers meanwhile (within 3 s on a loaded machine), the API's
 *   heap stays put, and the preview is a 4xx (PREVIEW_TIMEOUT at the 5 s limit, or
 *   PREVIEW_RESOURCE_EXHAUSTED).
 * - A record the query could not compute answered 500.
 * - A symlinked file inside an allowed directory (`p.csv -> /etc/passwd`) was read.
 * - A viewer read any source's live records; now that needs admin (a pasted sample does not).
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesSpec, setupApiTestKit, type ApiTestKit, type CallResult } from './testing/api-test-kit';

let kit: ApiTestKit;
let preview: typeof import('@/app/api/jobs/preview/route');
let health: typeof import('@/app/api/health/route');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'weir-preview-iso-'));
  // A small preview heap, so that the greedy query below exhausts it at once rather than at the time limit.
  kit = await setupApiTestKit({ filesRoots: [dir], env: { WEIR_PREVIEW_MEMORY_MB: '64' } });
  preview = await import('@/app/api/jobs/preview/route');
  health = await import('@/app/api/health/route');
  // As the server does at its start (instrumentation.ts): the parser's first parse is not a preview's.
  (await import('@/lib/engine')).warmUpSparkParser();
}, 60_000);

afterAll(async () => {
  await kit?.teardown();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const post = (body: unknown, token = kit.tokens.viewer) => kit.call(preview.POST, '/api/jobs/preview', { method: 'POST', token, body });

/**
 * `request` while health is asked every 100 ms, each round timed whole less its pause (a request
 * arriving while the event loop is busy waits that long), and the API's heap sampled each round.
 */
async function whileAnswering(request: Promise<CallResult>): Promise<{ res: CallResult; slowestHealthMs: number; heapGrowthMb: number }> {
  let settled = false;
  const pending = request.finally(() => (settled = true));
  const heapBefore = process.memoryUsage().heapUsed;
  let heapMax = heapBefore;
  const healthMs: number[] = [];
  do {
    const t = performance.now();
    expect((await kit.call(health.GET, '/api/health', {})).status).toBe(200);
    await new Promise((r) => setTimeout(r, 100));
    healthMs.push(performance.now() - t - 100);
    heapMax = Math.max(heapMax, process.memoryUsage().heapUsed);
  } while (!settled);
  return { res: await pending, slowestHealthMs: Math.max(...healthMs), heapGrowthMb: (heapMax - heapBefore) / 2 ** 20 };
}

describe('an expensive preview runs in a bounded process of its own', () => {
  const cases: [string, string, number][] = [
    ['explode over a million-element split, 60 records', "SELECT explode(split(repeat('x', 1000000), '')) AS c FROM clicks", 60],
    ['regexp_replace over a 1 MB value', "SELECT length(regexp_replace(repeat('a', 1000000), 'a', repeat('b', 100))) AS c FROM clicks", 1],
  ];
  for (const [what, sql, records] of cases) {
    it(`${what}: health keeps answering, the API's heap stays put, the preview is a 4xx`, async () => {
      const spec = { ...filesSpec('costly', dir), sql };
      const { res, slowestHealthMs, heapGrowthMb } = await whileAnswering(post({ spec, sample: Array.from({ length: records }, () => ({})) }));
      expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(422);
      expect(['PREVIEW_TIMEOUT', 'PREVIEW_RESOURCE_EXHAUSTED', 'PREVIEW_BAD_RECORD']).toContain(res.body.error.code);
      expect(res.body.error.message).toMatch(/Preview fewer records|bound the value/);
      // The attack blocked health for 10.5 s and more; a loaded machine delays a free event loop's
      // answer by up to about a second, so the bound is well above that and well below the attack.
      expect(slowestHealthMs).toBeLessThan(3000);
      // In the API process the first one grew the heap until V8 aborted the process.
      expect(heapGrowthMb).toBeLessThan(64);
    }, 60_000);
  }

  it('a preview that runs out of its heap answers PREVIEW_RESOURCE_EXHAUSTED naming the limit', async () => {
    const spec = { ...filesSpec('greedy', dir), sql: "SELECT explode(split(repeat('x', 1000000), '')) AS c FROM clicks" };
    const res = await post({ spec, sample: Array.from({ length: 60 }, () => ({})) });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(422);
    expect(res.body.error.code).toBe('PREVIEW_RESOURCE_EXHAUSTED');
    expect(res.body.error.message).toMatch(/memory limit of 64 MB \(WEIR_PREVIEW_MEMORY_MB\) and was stopped\. Preview fewer records/);
    // The API goes on.
    expect((await kit.call(health.GET, '/api/health', {})).status).toBe(200);
  }, 60_000);
});

describe('a record the query cannot compute', () => {
  it('is a 422 naming the record and the reason, not a 500', async () => {
    const spec = { ...filesSpec('bad-record', dir), sql: 'SELECT repeat(user, n) AS c FROM clicks' };
    const res = await post({ spec, sample: [{ user: 'ok', n: 2 }, { user: 'ab', n: 10_000_000 }] });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error.code).toBe('PREVIEW_BAD_RECORD');
    expect(res.body.error.message).toMatch(/repeat\(\): the result would be 20,000,000 characters/);
    expect(res.body.error.message).toMatch(/"n":10000000/);
    expect(res.body.error.message).toMatch(/Fix or remove the record/);
  });
});

describe('a symlinked file inside an allowed directory', () => {
  it('is not read by a preview of the source: it is listed as not read, saying why', async () => {
    const input = path.join(dir, 'in2');
    await mkdir(input, { recursive: true });
    await writeFile(path.join(input, 'ok.csv'), 'line\nfine\n');
    await symlink('/etc/passwd', path.join(input, 'p.csv'));
    const spec = filesSpec('links', dir, {
      source: { name: 'clicks', type: 'files', options: { path: input, format: 'csv', header: false }, schema: [{ name: 'line', type: 'string' }] },
      sql: 'SELECT line FROM clicks',
    });
    const res = await post({ spec }, kit.tokens.admin);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(JSON.stringify(res.body.rows)).not.toMatch(/root:/);
    expect(res.body.rows.map((r: { line: string }) => r.line)).toEqual(['line', 'fine']);
    expect(res.body.notes.join(' ')).toMatch(/p\.csv: a symbolic link, not read: the files source .* never follows a symbolic link/);
  });
});

describe('who may preview', () => {
  const rate = () => filesSpec('roles', dir, { source: { name: 'clicks', type: 'rate', options: { rowsPerSecond: 1 }, schema: [{ name: 'value', type: 'long' }] }, sql: 'SELECT value FROM clicks' });

  it("a source's live records: admin; a viewer and an operator get 403 naming the role needed", async () => {
    for (const token of [kit.tokens.viewer, kit.tokens.operator]) {
      const res = await post({ spec: rate() }, token);
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(res.body.error.message).toMatch(/may not preview a source's most recent records .*paste a sample.*: that needs admin/);
    }
    expect((await post({ spec: rate() }, kit.tokens.admin)).status).toBe(200);
  });

  it('a pasted sample: any role, the viewer included', async () => {
    for (const token of [kit.tokens.viewer, kit.tokens.operator, kit.tokens.admin]) {
      const res = await post({ spec: rate(), sample: [{ value: 1 }] }, token);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.rows).toEqual([{ value: 1 }]);
    }
  });
});
