/**
 * Masking: for any secret value in any secret slot (source, sink, static table), the masked spec
 * and any text quoting it never contain it, and unmask(mask(spec)) is the spec again.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MASKED, maskSpec, redactSecrets, secretValues, unmaskSpec } from './secret-masking';

const secretArb = fc.string({ minLength: 6, maxLength: 24 }).filter((s) => s.trim().length >= 6 && !s.includes('*'));

function spec(pw: string, token: string) {
  return {
    name: 'j',
    source: { name: 's', type: 'nats-jetstream', options: { servers: 'nats://127.0.0.1:4222', stream: 'x', subject: 'x.>', token }, schema: [{ name: 'a', type: 'string' }] },
    sql: 'SELECT a FROM s',
    sink: { type: 'postgres', options: { connectionString: `postgres://u:${encodeURIComponent(pw)}@h:5432/d`, table: 't' } },
    staticTables: [{ name: 'dim', type: 'postgres', connectionString: `postgres://v:${encodeURIComponent(pw)}@h/d`, table: 'dim', schema: [{ name: 'a', type: 'string' }] }],
    checkpointLocation: '/tmp/cp',
  };
}

describe('secret masking', () => {
  it('masks every declared secret slot and redacts the secrets from any text (property)', () => {
    fc.assert(
      fc.property(secretArb, secretArb, (pw, token) => {
        const s = spec(pw, token);
        const masked = maskSpec(s);
        expect(masked.sink.options.connectionString).toBe(MASKED);
        expect(masked.source.options.token).toBe(MASKED);
        expect(masked.source.options.servers).toBe(MASKED);
        expect(masked.staticTables[0].connectionString).toBe(MASKED);
        expect(masked.sink.options.table).toBe('t');
        const text = JSON.stringify(masked);
        expect(text).not.toContain(s.sink.options.connectionString);
        const message = { error: `auth failed for ${pw} at ${s.sink.options.connectionString}; token=${token}` };
        const redacted = JSON.stringify(redactSecrets(message, secretValues(s)));
        expect(redacted).not.toContain(pw);
        expect(redacted).not.toContain(token);
        expect(unmaskSpec(masked, s)).toEqual(s);
      }),
      { numRuns: 200, seed: 11 },
    );
  });

  it('does not hand a stored secret to a spec that changed the sink type', () => {
    const s = spec('password-1', 'token-123');
    const edited = { ...maskSpec(s), sink: { type: 'webhook', options: { url: MASKED } } };
    const out = unmaskSpec(edited, s) as { sink: { options: Record<string, unknown> } };
    expect(out.sink.options.url).toBeUndefined();
    expect(JSON.stringify(out.sink)).not.toContain('password-1');
  });
});

describe("a static table's masked connection string", () => {
  const pg = (name: string, host: string) => ({ name, type: 'postgres', connectionString: `postgres://u:pw-${name}@${host}:5432/d`, table: name, schema: [{ name: 'a', type: 'string' }] });
  const stored = { ...spec('password-1', 'token-123'), staticTables: [pg('regions', 'db-a'), pg('users', 'db-b'), pg('tiers', 'db-c')] };
  const tablesOf = (s: unknown) => (s as { staticTables: { name: string; connectionString?: string }[] }).staticTables.map((t) => `${t.name} ${t.connectionString ?? '(none)'}`);

  it('is the stored table of its name, whatever tables were removed or reordered before it', () => {
    const masked = maskSpec(stored);
    const edited = { ...masked, staticTables: [masked.staticTables[2], masked.staticTables[1]] };
    expect(tablesOf(unmaskSpec(edited, stored))).toEqual(['tiers postgres://u:pw-tiers@db-c:5432/d', 'users postgres://u:pw-users@db-b:5432/d']);
  });

  it('of a renamed table, or one whose name no stored PostgreSQL table has, is none: the client sends it again', () => {
    const masked = maskSpec(stored);
    const renamed = { ...masked, staticTables: [{ ...masked.staticTables[0], name: 'areas' }] };
    expect(tablesOf(unmaskSpec(renamed, stored))).toEqual(['areas (none)']);
  });
});

describe("a source's masked secret", () => {
  const nats = (name: string, token: string) => ({ name, type: 'nats-jetstream', options: { servers: 'nats://127.0.0.1:4222', stream: name, subject: `${name}.>`, token }, schema: [{ name: 'a', type: 'string' }] });
  const { source: _one, ...rest } = spec('password-1', 'token-123');
  const stored = { ...rest, sources: [nats('clicks', 'token-clicks'), nats('views', 'token-views')], sql: 'SELECT a FROM clicks' };
  const tokensOf = (s: unknown) => (s as { sources: { name: string; options: { token?: string } }[] }).sources.map((x) => `${x.name} ${x.options.token ?? '(none)'}`);

  it('is the stored source of its name, whatever sources were removed or reordered before it', () => {
    const masked = maskSpec(stored) as typeof stored;
    expect(tokensOf(unmaskSpec({ ...masked, sources: [masked.sources[1], masked.sources[0]] }, stored))).toEqual(['views token-views', 'clicks token-clicks']);
    expect(tokensOf(unmaskSpec({ ...masked, sources: [masked.sources[1]] }, stored))).toEqual(['views token-views']);
  });

  it('of a renamed source is none: the client sends it again', () => {
    const masked = maskSpec(stored) as typeof stored;
    expect(tokensOf(unmaskSpec({ ...masked, sources: [{ ...masked.sources[0], name: 'taps' }, masked.sources[1]] }, stored))).toEqual(['taps (none)', 'views token-views']);
  });
});

describe('a masked secret is kept only while its destination is unchanged', () => {
  const hook = (url: string, headers: unknown) => ({ name: 'h', source: { name: 's', type: 'rate', options: {}, schema: [] }, sql: 'SELECT 1', sink: { type: 'webhook', options: { url, headers } } });
  const stored = hook('https://hooks.example.com:8443/weir/tok', { authorization: 'Bearer tok-123456' });

  it('property: any other scheme, host or port refuses the masked headers; a new path keeps them', () => {
    const hostArb = fc.constantFrom('hooks.example.com', 'HOOKS.example.com', 'evil.example.com', '127.0.0.1', '[::1]', '10.0.0.1');
    fc.assert(
      fc.property(fc.constantFrom('http', 'https'), hostArb, fc.constantFrom(443, 8443, 80, 9000), fc.constantFrom('/weir/tok', '/other', '/'), (scheme, host, port, path) => {
        const url = `${scheme}://${host}:${port}${path}`;
        const same = scheme === 'https' && host.toLowerCase() === 'hooks.example.com' && port === 8443;
        const run = () => unmaskSpec(hook(url, MASKED), stored) as { sink: { options: { headers: unknown } } };
        if (same) expect(run().sink.options.headers).toEqual({ authorization: 'Bearer tok-123456' });
        else expect(run).toThrow(/sink\.options\.headers: was sent masked/);
      }),
      { numRuns: 150, seed: 5 },
    );
  });

  it('keeps everything when the URL itself is sent back masked too', () => {
    expect(unmaskSpec(hook(MASKED, MASKED), stored)).toEqual(stored);
  });
});
