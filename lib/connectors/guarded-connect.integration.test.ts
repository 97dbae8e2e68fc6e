/**
 * The check on the address actually connected to (DNS rebinding), for every client Weir uses:
 * the webhook POST (node:http with a checked lookup), pg (a checked socket through its `stream`
 * option), ioredis (a checked Connector), NATS (resolve and check before connecting) and the S3
 * agents. Names resolve through an injected resolver, so no test needs DNS; a refused address is
 * refused before any socket opens, and the only connections made are to loopback (this
 * machine's PostgreSQL and Redis, and a node:http receiver started here).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SystemClock } from '../engine/clock';
import { SinkError } from '../engine/errors';
import { createPool } from './postgres/pg-util';
import { createTestDatabase, type TestDatabase } from '../testing/pg-test-database';
import { WebhookSink, webhookSinkOptions } from './http/webhook-sink';
import { createRedis } from './redis/redis-util';
import { checkBeforeConnect, guardedAgents, MAX_RESPONSE_BYTES, outboundFetch } from '../engine/outbound/guarded-connect';
import { OutboundRefusedError, parseAllowList, type OutboundPolicy, type ResolveAll } from '../engine/outbound/outbound-policy';

/** A resolver for made-up names; records what it was asked. A name it does not know fails as DNS would. */
function resolver(table: Record<string, string[]>): ResolveAll & { asked: string[] } {
  const asked: string[] = [];
  const fn = async (host: string) => {
    asked.push(host);
    const addrs = table[host];
    if (!addrs) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addrs.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(fn, { asked });
}

let receiver: http.Server;
let port = 0;
const received: { path: string; auth: string | undefined }[] = [];
beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    received.push({ path: req.url ?? '', auth: req.headers.authorization });
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  port = (receiver.address() as AddressInfo).port;
});
afterAll(async () => new Promise((r) => receiver.close(r)));

describe('outboundFetch (webhooks)', () => {
  it('connects to the address its lookup checked: a name resolving to loopback reaches the receiver', async () => {
    const resolve = resolver({ 'hooks.test': ['127.0.0.1'] });
    const res = await outboundFetch(`http://hooks.test:${port}/ok`, { method: 'POST', body: '{}' }, { resolve });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('ok');
    expect(resolve.asked).toEqual(['hooks.test']);
    expect(received.some((r) => r.path === '/ok')).toBe(true);
  });

  it('refuses a name that resolves to the metadata address (rebinding): nothing is sent', async () => {
    const before = received.length;
    const resolve = resolver({ 'rebind.test': ['169.254.169.254'] });
    const err = await outboundFetch(`http://rebind.test:${port}/x`, { method: 'POST', headers: { authorization: 'Bearer s3cret' }, body: '{}' }, { resolve }).catch((e) => e);
    expect(err).toBeInstanceOf(OutboundRefusedError);
    expect(err.message).toMatch(/rebind\.test resolved to 169\.254\.169\.254, which is one of the link-local addresses/);
    expect(received.length).toBe(before);
  });

  it('refuses a name if any of its addresses is refused', async () => {
    const resolve = resolver({ 'mixed.test': ['127.0.0.1', '::ffff:169.254.169.254'] });
    await expect(outboundFetch(`http://mixed.test:${port}/`, {}, { resolve })).rejects.toThrow(/link-local/);
  });

  it('refuses localhost and loopback names under an allow list that excludes loopback', async () => {
    const policy: OutboundPolicy = { allow: parseAllowList('10.0.0.0/8'), resolve: resolver({ 'hooks.internal': ['127.0.0.1'] }) };
    // Passes validation (an unlisted name may resolve into 10.0.0.0/8), refused on its address.
    await expect(outboundFetch(`http://hooks.internal:${port}/`, {}, policy)).rejects.toThrow(/hooks\.internal resolved to 127\.0\.0\.1, which is not in WEIR_OUTBOUND_ALLOW/);
    await expect(outboundFetch(`http://localhost:${port}/`, {}, policy)).rejects.toThrow(/localhost \(loopback\) is not in WEIR_OUTBOUND_ALLOW/);
    await expect(outboundFetch(`http://127.0.0.1:${port}/`, {}, policy)).rejects.toThrow(/127\.0\.0\.1 is not in WEIR_OUTBOUND_ALLOW/);
    // A listed name is trusted to resolve where its DNS says.
    const listed: OutboundPolicy = { allow: parseAllowList('10.0.0.0/8,hooks.internal'), resolve: resolver({ 'hooks.internal': ['127.0.0.1'] }) };
    expect((await outboundFetch(`http://hooks.internal:${port}/listed`, {}, listed)).status).toBe(200);
  });

  it('does not follow redirects, and refuses non-http schemes before connecting', async () => {
    const redirecting = http.createServer((_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end());
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
    try {
      const res = await outboundFetch(`http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/`, { method: 'POST' }, {});
      expect(res.status).toBe(302);
    } finally {
      await new Promise((r) => redirecting.close(r));
    }
    await expect(outboundFetch('gopher://127.0.0.1:70/_', {}, {})).rejects.toThrow(/only http:\/\/ and https:\/\//);
  });

  it('a status Response cannot hold (600-999) is an error, not a crash', async () => {
    const odd = http.createServer((_req, res) => res.writeHead(799).end());
    await new Promise<void>((r) => odd.listen(0, '127.0.0.1', r));
    try {
      await expect(outboundFetch(`http://127.0.0.1:${(odd.address() as AddressInfo).port}/`, { method: 'POST' }, {})).rejects.toThrow(/HTTP status 799/);
    } finally {
      await new Promise((r) => odd.close(r));
    }
  });

  it('reads at most MAX_RESPONSE_BYTES of a receiver\'s answer', async () => {
    const big = http.createServer((_req, res) => {
      res.writeHead(200);
      res.end(Buffer.alloc(3 * MAX_RESPONSE_BYTES, 120));
    });
    await new Promise<void>((r) => big.listen(0, '127.0.0.1', r));
    try {
      const res = await outboundFetch(`http://127.0.0.1:${(big.address() as AddressInfo).port}/`, { method: 'POST' }, {});
      expect(res.status).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBe(MAX_RESPONSE_BYTES);
    } finally {
      big.closeAllConnections();
      await new Promise((r) => big.close(r));
    }
  });

  it('the webhook sink fails the batch at once on a refused destination, without retrying', async () => {
    const resolve = resolver({ 'rebind.test': ['169.254.169.254'] });
    const sink = new WebhookSink(webhookSinkOptions.parse({ url: `http://rebind.test:${port}/hook`, maxRetries: 3, initialBackoffMs: 1 }), new SystemClock(), 'j', { resolve });
    const err = await sink.addBatch(0, [{ a: 1 }], { outputMode: 'append', schema: [], queryId: 'q' }).catch((e) => e);
    expect(err).toBeInstanceOf(SinkError);
    expect(err.message).toMatch(/link-local.*fix sink\.options\.url or the outbound policy/);
    expect(sink.attempts).toBe(1);
  });
});

describe('database and broker clients', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('outbound');
  });
  afterAll(async () => db?.drop());
  const dbName = () => new URL(db.url).pathname.slice(1);

  it('pg: the pool connects through the checked lookup, and refuses a rebinding name and a hex literal', async () => {
    const ok = createPool(`postgres://postgres@pg.test:5432/${dbName()}`, 1, { resolve: resolver({ 'pg.test': ['127.0.0.1'] }) });
    try {
      expect((await ok.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await ok.end();
    }
    const bad = createPool(`postgres://postgres@pg.test:5432/${dbName()}`, 1, { resolve: resolver({ 'pg.test': ['169.254.169.254'] }) });
    try {
      await expect(bad.query('SELECT 1')).rejects.toThrow(/pg\.test resolved to 169\.254\.169\.254/);
    } finally {
      await bad.end();
    }
    const hex = createPool(`postgres://postgres@0x7f000001:5432/${dbName()}`, 1, { allow: parseAllowList('10.0.0.0/8') });
    try {
      await expect(hex.query('SELECT 1')).rejects.toThrow(/0x7f000001 \(= 127\.0\.0\.1\)|127\.0\.0\.1 is not in WEIR_OUTBOUND_ALLOW/);
    } finally {
      await hex.end();
    }
  });

  it("pg: Weir's own database is refused at connect under a rebinding name, and a Unix socket never opens", async () => {
    const infra: OutboundPolicy = { infrastructure: [{ host: '127.0.0.1', port: 5432, what: 'the metadata database (DATABASE_URL)' }], allow: parseAllowList('127.0.0.0/8'), resolve: resolver({ 'pg.test': ['127.0.0.1'] }) };
    const rebound = createPool(`postgres://postgres@pg.test:5432/${dbName()}`, 1, infra);
    try {
      await expect(rebound.query('SELECT 1')).rejects.toThrow(/pg\.test resolved to 127\.0\.0\.1: .*the metadata database \(DATABASE_URL\), one of Weir's own services/);
    } finally {
      await rebound.end();
    }
    // A database the server's endpoint lists as a job database (the demo's warehouse) is let through, at connect too.
    const listed: OutboundPolicy = { ...infra, infrastructure: [{ ...infra.infrastructure![0], jobDatabases: [dbName()] }] };
    const warehouse = createPool(`postgres://postgres@pg.test:5432/${dbName()}`, 1, listed);
    try {
      expect((await warehouse.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await warehouse.end();
    }
    const other = createPool('postgres://postgres@pg.test:5432/postgres', 1, listed);
    try {
      await expect(other.query('SELECT 1')).rejects.toThrow(/the metadata database \(DATABASE_URL\), one of Weir's own services/);
    } finally {
      await other.end();
    }
    // This machine's PostgreSQL listens on /var/run/postgresql: without the guard this connects.
    for (const cs of [`postgres:///${dbName()}?host=/var/run/postgresql`, `postgres://postgres@%2Fvar%2Frun%2Fpostgresql/${dbName()}`]) {
      const socket = createPool(cs, 1, {});
      try {
        await expect(socket.query('SELECT 1'), cs).rejects.toThrow(/Unix socket path; Weir connects .* over TCP only/);
      } finally {
        await socket.end();
      }
    }
  });

  it('ioredis: a Unix socket path is refused before any connection; query parameters before ioredis reads them', async () => {
    const r = createRedis('/var/run/redis/redis-server.sock', {});
    try {
      const e = await r.connect().catch((x) => x);
      expect(String(e?.message ?? e)).toMatch(/Unix socket path; Weir connects .* over TCP only/);
    } finally {
      r.disconnect();
    }
    expect(() => createRedis('redis://127.0.0.1:6379/?path=/var/run/redis/redis-server.sock', {})).toThrow(/redis connection parameter "path" is refused: a Redis URL takes no query parameters here/);
  });

  it('pg: a file-reading parameter is refused before pg parses the string, whether or not the file exists', () => {
    const messages = ['/dev/zero', '/nonexistent', '/etc/passwd'].map((f) => {
      try {
        createPool(`postgres://postgres@127.0.0.1:5432/${dbName()}?sslrootcert=${f}`, 1, {});
        return 'created';
      } catch (e) {
        return (e as Error).message;
      }
    });
    expect(messages[0]).toMatch(/postgres connection parameter "sslrootcert" is refused: it makes the client read a file on Weir's machine/);
    expect(new Set(messages).size).toBe(1);
  });

  it('ioredis: connects through the checked Connector, refuses a rebinding name', async () => {
    const ok = createRedis('redis://redis.test:6379', { resolve: resolver({ 'redis.test': ['127.0.0.1'] }) });
    try {
      expect(await ok.ping()).toBe('PONG');
    } finally {
      ok.disconnect();
    }
    const bad = createRedis('redis://redis.test:6379', { resolve: resolver({ 'redis.test': ['169.254.169.254'] }) });
    const errors: string[] = [];
    bad.on('error', (e) => errors.push(e.message));
    try {
      // The command fails; the connection's error (each reconnect is checked again) says why.
      await expect(bad.ping()).rejects.toThrow();
      expect(errors.some((m) => /redis\.test resolved to 169\.254\.169\.254, which is one of the link-local addresses/.test(m))).toBe(true);
    } finally {
      bad.disconnect();
    }
    const literal = createRedis('redis://[::ffff:169.254.169.254]:6379', {});
    try {
      const e = await literal.connect().catch((x) => x);
      expect(String(e?.message ?? e)).toMatch(/link-local/);
    } finally {
      literal.disconnect();
    }
  });

  it('NATS: servers are resolved and checked just before connecting', async () => {
    await expect(checkBeforeConnect('nats', 'nats://127.0.0.1:4222,nats://nats.test:4222', { resolve: resolver({ 'nats.test': ['169.254.169.254'] }) })).rejects.toThrow(/nats\.test resolved to 169\.254\.169\.254/);
    await expect(checkBeforeConnect('nats', 'nats://nats.test:4222', { resolve: resolver({ 'nats.test': ['127.0.0.1'] }) })).resolves.toBeUndefined();
    await expect(checkBeforeConnect('nats', '0xa9fea9fe:4222', {})).rejects.toThrow(/link-local/);
  });

  it('S3: the agents refuse a refused endpoint host and check what a name resolves to', async () => {
    const { httpAgent } = guardedAgents({ resolve: resolver({ 's3.test': ['169.254.169.254'] }) }, 's3');
    const get = (host: string) =>
      new Promise<unknown>((resolve, reject) => {
        const req = http.request({ host, port, path: '/', agent: httpAgent }, (res) => {
          res.resume();
          resolve(res.statusCode);
        });
        req.on('error', reject);
        req.end();
      }).catch((e) => e);
    expect(String(await get('s3.test'))).toMatch(/s3\.test resolved to 169\.254\.169\.254/);
    expect(String(await get('0251.0376.0251.0376'))).toMatch(/link-local/);
    expect(await get('127.0.0.1')).toBe(200);
    httpAgent.destroy();
  });
});
