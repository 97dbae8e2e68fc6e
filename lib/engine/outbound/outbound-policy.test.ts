/**
 * The outbound policy at validation (no DNS, no connection): an SSRF table of address spellings
 * that must all be refused for every kind of destination, the allow list, the control plane's
 * own services (for every kind, under every loopback spelling, with or without an allow list),
 * Unix sockets, the schemes a webhook may use, and property tests over random spellings of
 * link-local and loopback addresses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIp, parseHost } from './address';
import { checkDestinationValue, parseDestinations } from './destinations';
import { checkHost, checkResolved, parseAllowList, type DestinationKind, type OutboundPolicy } from './outbound-policy';

const open: OutboundPolicy = {};

// Every spelling a client library could hand to the operating system, and the rule it falls under.
const SSRF_TABLE: [host: string, rule: RegExp][] = [
  ['169.254.169.254', /link-local/],
  ['[::ffff:169.254.169.254]', /link-local/],
  ['[::ffff:a9fe:a9fe]', /link-local/],
  ['[::169.254.169.254]', /link-local/],
  ['[64:ff9b::a9fe:a9fe]', /link-local/],
  ['[2002:a9fe:a9fe::1]', /link-local/],
  ['0xa9fea9fe', /link-local/],
  ['0xA9FEA9FE', /link-local/],
  ['2852039166', /link-local/],
  ['0251.0376.0251.0376', /link-local/],
  ['0251.254.43518', /link-local/],
  ['169.16689662', /link-local/],
  ['0xa9.0xfe.0xa9.0xfe', /link-local/],
  ['169.254.169.254.', /link-local/],
  ['%31%36%39.254.169.254', /link-local/],
  ['[fe80::1]', /link-local/],
  ['[fe80::1%25eth0]', /link-local/],
  ['[febf::1]', /link-local/],
  ['[fd00:ec2::254]', /metadata/],
  ['0.0.0.0', /unspecified/],
  ['0', /unspecified/],
  ['0x0', /unspecified/],
  ['[::]', /unspecified/],
  ['[::ffff:0.0.0.0]', /unspecified/],
  ['224.0.0.1', /multicast/],
  ['[ff02::1]', /multicast/],
  ['[::ffff:224.0.0.1]', /multicast/],
  ['255.255.255.255', /broadcast/],
  ['4294967295', /broadcast/],
  ['1.2.3.256', /invalid host/],
  ['0x1.0x2.0x3.0x4.5', /invalid host/],
  ['08.1.1.1', /invalid host/],
  ['bad_host!', /invalid host/],
];

describe('SSRF table: always refused, whatever the spelling and the scheme', () => {
  const urls = (host: string) => [
    ['http', `http://${host}/hook`],
    ['http', `https://${host}:8443/hook`],
    ['s3', `http://${host}:9000`],
    ['postgres', `postgres://writer:pw@${host}:5432/db`],
    ['postgres', `host=${host.replace(/^\[|\]$/g, '').replace('%25', '%')} port=5432 dbname=db`],
    ['redis', `redis://${host}:6379/0`],
    ['redis', `${host}:6379`],
    ['nats', `nats://127.0.0.1:4222,nats://${host}:4222`],
  ] as const;
  for (const [host, rule] of SSRF_TABLE) {
    it(`refuses ${host}`, () => {
      for (const [kind, value] of urls(host)) {
        const r = checkDestinationValue(kind, value, open);
        // WHATWG URL rejects some of these outright for http(s): refused as unreadable, also fine.
        expect(r, `${kind} ${value}`).toBeDefined();
        if (r!.rule !== 'unreadable destination') expect(`${r!.rule} ${r!.message}`, `${kind} ${value}`).toMatch(rule);
      }
    });
  }

  it('reads the spellings as the address they reach', () => {
    const ip = (h: string) => {
      const p = parseHost(h);
      return p.kind === 'ip' ? formatIp(p.ip) : p.kind;
    };
    expect(ip('0x7f000001')).toBe('127.0.0.1');
    expect(ip('2130706433')).toBe('127.0.0.1');
    expect(ip('0177.0.0.1')).toBe('127.0.0.1');
    expect(ip('127.1')).toBe('127.0.0.1');
    expect(ip('0251.0376.0251.0376')).toBe('169.254.169.254');
    expect(ip('[::ffff:a9fe:a9fe]')).toBe('::ffff:a9fe:a9fe');
    expect(ip('10.0.0.1')).toBe('10.0.0.1');
    expect(ip('hooks.example.com')).toBe('name');
    expect(ip('1e100.net')).toBe('name');
  });

  it('allows private and loopback addresses when no allow list is set (the embedded default)', () => {
    for (const v of ['http://10.0.0.1/hook', 'http://0x7f000001:8080/', 'http://[::1]:8080/', 'http://localhost:8080/', 'https://hooks.example.com/x']) {
      expect(checkDestinationValue('http', v, open), v).toBeUndefined();
    }
    expect(checkDestinationValue('postgres', 'postgres://u@127.0.0.1:5432/analytics', open)).toBeUndefined();
    expect(checkDestinationValue('redis', 'redis://127.0.0.1:6379', open)).toBeUndefined();
    expect(checkDestinationValue('nats', 'nats://127.0.0.1:4222', open)).toBeUndefined();
  });

  it('property: any spelling of any 169.254.0.0/16 address is refused for every kind', () => {
    const spell = (b: number[], style: number): string => {
      const n = ((b[0] << 24) >>> 0) + (b[1] << 16) + (b[2] << 8) + b[3];
      const part = (x: number, s: number) => (s === 0 ? String(x) : s === 1 ? `0x${x.toString(16)}` : `0${x.toString(8)}`);
      switch (style % 6) {
        case 0: return b.map((x, i) => part(x, (style + i) % 3)).join('.');
        case 1: return part(n, style % 3);
        case 2: return `${part(b[0], style % 3)}.${part((b[1] << 16) + (b[2] << 8) + b[3], (style + 1) % 3)}`;
        case 3: return `${b[0]}.${b[1]}.${part((b[2] << 8) + b[3], style % 3)}`;
        case 4: return `[::ffff:${b.join('.')}]`;
        default: return `[::ffff:${((b[0] << 8) | b[1]).toString(16)}:${((b[2] << 8) | b[3]).toString(16)}]`;
      }
    };
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 35 }), (c, d, style) => {
        const host = spell([169, 254, c, d], style);
        for (const kind of ['http', 'postgres', 'redis'] as const) {
          const value = kind === 'http' ? `http://${host}/` : kind === 'postgres' ? `postgres://${host}/db` : `redis://${host}`;
          const r = checkDestinationValue(kind, value, open);
          expect(r?.rule, `${kind} ${value}`).toMatch(/link-local/);
        }
      }),
      { numRuns: 400, seed: 17 },
    );
  });
});

describe('schemes', () => {
  it('a webhook is http or https only', () => {
    for (const v of ['gopher://127.0.0.1:70/_x', 'file:///etc/passwd', 'ftp://127.0.0.1/', 'javascript:alert(1)', 'dict://127.0.0.1:6379/info', 'ws://127.0.0.1/']) {
      const r = checkDestinationValue('http', v, open);
      expect(r?.message, v).toMatch(/only http:\/\/ and https:\/\//);
    }
  });
  it('connection strings keep to their own schemes', () => {
    expect(checkDestinationValue('redis', 'http://127.0.0.1:6379', open)?.message).toMatch(/redis:\/\//);
    expect(checkDestinationValue('nats', 'http://127.0.0.1:4222', open)?.message).toMatch(/nats:\/\//);
    expect(checkDestinationValue('postgres', 'not a connection string', open)?.message).toMatch(/postgres:\/\//);
  });
});

describe('WEIR_OUTBOUND_ALLOW', () => {
  const policy: OutboundPolicy = { allow: parseAllowList('10.0.0.0/8, fd00::/8, hooks.example.com, *.svc.cluster.local') };

  it('limits destinations to its CIDRs and names', () => {
    expect(checkDestinationValue('http', 'https://hooks.example.com/x', policy)).toBeUndefined();
    expect(checkDestinationValue('http', 'https://HOOKS.example.com./x', policy)).toBeUndefined();
    expect(checkDestinationValue('postgres', 'postgres://u@pg.db.svc.cluster.local/app', policy)).toBeUndefined();
    expect(checkDestinationValue('redis', 'redis://10.1.2.3:6379', policy)).toBeUndefined();
    expect(checkDestinationValue('redis', 'redis://012.1.2.3:6379', policy)).toBeUndefined(); // 012 = 10
    expect(checkDestinationValue('http', 'http://[fd12::1]/', policy)).toBeUndefined();
    expect(checkDestinationValue('http', 'http://[::ffff:10.0.0.7]/', policy)).toBeUndefined();
    const outside = checkDestinationValue('http', 'http://192.168.1.5/hook', policy);
    expect(outside?.rule).toBe('WEIR_OUTBOUND_ALLOW');
    expect(outside?.message).toMatch(/192\.168\.1\.5 is not in WEIR_OUTBOUND_ALLOW \(10\.0\.0\.0\/8.*Add it to WEIR_OUTBOUND_ALLOW/);
  });

  it('excludes loopback unless listed, in any spelling, localhost included', () => {
    for (const v of ['http://127.0.0.1:8080/', 'http://0x7f000001:8080/', 'http://[::1]:8080/', 'http://localhost:8080/', 'http://app.localhost/']) {
      expect(checkDestinationValue('http', v, policy)?.rule, v).toBe('WEIR_OUTBOUND_ALLOW');
    }
    expect(checkDestinationValue('http', 'http://localhost:8080/', { allow: parseAllowList('127.0.0.0/8') })).toBeUndefined();
  });

  it('never allows the always-refused ranges, even when listed', () => {
    const wide: OutboundPolicy = { allow: parseAllowList('0.0.0.0/0,::/0') };
    expect(checkDestinationValue('http', 'http://169.254.169.254/', wide)?.rule).toMatch(/link-local/);
    expect(checkDestinationValue('http', 'http://[::ffff:a9fe:a9fe]/', wide)?.rule).toMatch(/link-local/);
    expect(checkDestinationValue('http', 'http://8.8.8.8/', wide)).toBeUndefined();
  });

  it('an unlisted name passes validation only when CIDRs could hold it; its address is checked at connect', () => {
    expect(checkDestinationValue('http', 'https://other.example.com/', policy)).toBeUndefined();
    expect(checkResolved('http', 'other.example.com', '10.2.3.4', 443, policy)).toBeUndefined();
    expect(checkResolved('http', 'other.example.com', '93.184.216.34', 443, policy)?.message).toMatch(/other\.example\.com resolved to 93\.184\.216\.34, which is not in WEIR_OUTBOUND_ALLOW/);
    expect(checkResolved('http', 'hooks.example.com', '93.184.216.34', 443, policy)).toBeUndefined();
    expect(checkResolved('http', 'hooks.example.com', '169.254.169.254', 443, policy)?.rule).toMatch(/link-local/);
    const namesOnly: OutboundPolicy = { allow: parseAllowList('hooks.example.com') };
    expect(checkDestinationValue('http', 'https://other.example.com/', namesOnly)?.message).toMatch(/host name other\.example\.com is not in WEIR_OUTBOUND_ALLOW/);
  });

  it('a wildcard matches names under it, never a name that only ends with the same letters', () => {
    const namesOnly: OutboundPolicy = { allow: parseAllowList('*.svc.cluster.local') };
    expect(checkDestinationValue('http', 'http://api.svc.cluster.local/', namesOnly)).toBeUndefined();
    expect(checkDestinationValue('http', 'http://pg.db.svc.cluster.local/', namesOnly)).toBeUndefined();
    for (const v of ['http://evilsvc.cluster.local/', 'http://svc.cluster.local.evil.com/', 'http://xsvc.cluster.local/', 'http://cluster.local/']) {
      expect(checkDestinationValue('http', v, namesOnly)?.rule, v).toBe('WEIR_OUTBOUND_ALLOW');
    }
    // A listed name is trusted wherever it resolves; a near-miss must be held to the CIDRs.
    expect(checkResolved('http', 'api.svc.cluster.local', '93.184.216.34', 443, policy)).toBeUndefined();
    expect(checkResolved('http', 'evilsvc.cluster.local', '93.184.216.34', 443, policy)?.rule).toBe('WEIR_OUTBOUND_ALLOW');
  });

  it('a bad entry is an error naming it', () => {
    expect(() => parseAllowList('10.0.0.0/33')).toThrow(/"10\.0\.0\.0\/33"/);
    expect(() => parseAllowList('http://x')).toThrow(/neither a CIDR/);
    expect(() => parseAllowList(' , ')).toThrow(/lists no CIDR/);
  });
});

describe("Weir's own services, for every kind, whatever WEIR_OUTBOUND_ALLOW says", () => {
  const infrastructure = [
    { host: '127.0.0.1', port: 54329, what: "the embedded PostgreSQL's port (WEIR_EMBEDDED_PG_PORT)" },
    { host: 'localhost', port: 5432, what: 'the metadata database (DATABASE_URL)' },
    { host: 'redis.internal', port: 6379, what: 'the Redis queue (REDIS_URL)' },
  ];
  const policy: OutboundPolicy = { infrastructure };
  // Loopback listed, and everything else: the infrastructure rule comes before the allow list.
  const allowAll: OutboundPolicy = { infrastructure, allow: parseAllowList('127.0.0.0/8,::1/128,0.0.0.0/0,::/0,localhost,redis.internal') };

  it('refuses a webhook to the metadata database or the queue, in any loopback spelling', () => {
    for (const v of ['http://127.0.0.1:54329/', 'http://localhost:54329/', 'http://[::1]:54329/', 'http://0x7f000001:54329/', 'https://127.0.0.2:5432/', 'http://redis.internal:6379/']) {
      const r = checkDestinationValue('http', v, policy);
      expect(r?.rule, v).toBe('control-plane infrastructure');
      expect(r?.message).toMatch(/one of Weir's own services, which jobs, previews and webhooks never reach, whatever WEIR_OUTBOUND_ALLOW says/);
    }
    expect(checkDestinationValue('s3', 'http://127.0.0.1:54329', policy)?.rule).toBe('control-plane infrastructure');
    expect(checkResolved('http', 'hooks.test', '127.0.0.1', 54329, policy)?.rule).toBe('control-plane infrastructure');
  });

  it('refuses database, Redis, NATS and Kafka connections there, under every spelling', () => {
    const values: [DestinationKind, string][] = [
      ['postgres', 'postgres://postgres:pw@127.0.0.1:54329/weir'],
      ['postgres', 'postgres://postgres:pw@LOCALHOST.:54329/weir'],
      ['postgres', 'postgres://postgres:pw@[::1]:54329/weir'],
      ['postgres', 'postgres://postgres:pw@[::ffff:127.0.0.1]:54329/weir'],
      ['postgres', 'postgres://postgres:pw@127.9.8.7:54329/weir'],
      ['postgres', 'postgres://postgres:pw@2130706433:54329/weir'],
      ['postgres', 'postgres://postgres:pw@10.0.0.1:54329/weir?host=127.0.0.1'],
      ['postgres', 'postgres://postgres:pw@10.0.0.1:54329/weir?hostaddr=127.0.0.1'],
      ['postgres', 'postgres://postgres:pw@10.0.0.1/weir?host=10.0.0.2,localhost&port=54329'],
      ['postgres', 'postgres://postgres:pw@10.0.0.1:1/weir?port=54329&host=localhost'],
      ['postgres', 'postgres:///weir?port=54329'],
      ['postgres', 'postgres://postgres@/weir?port=54329'],
      ['postgres', 'postgres://postgres:pw@localhost/weir'],
      ['postgres', 'postgres://postgres:pw@10.0.0.1/weir?host=&port=54329&host=127.0.0.1'],
      ['postgres', 'postgres://postgres:pw@localhost:1/weir?port=&port=54329'],
      ['postgres', 'postgres://postgres:pw@10.0.0.1:1/weir?port=5432&port=54329&host=::1'],
      ['postgres', 'postgres://postgres:pw@localhost/weir?application_name=%zz x'],
      ['redis', 'redis://redis.internal:6379'],
      ['redis', 'redis.internal'],
      ['redis', 'redis://127.0.0.1:54329'],
      ['nats', 'nats://10.0.0.1:4222,nats://localhost:54329'],
      ['kafka', '10.0.0.1:9092,[::1]:54329'],
      ['http', 'http://app.localhost:5432/'],
    ];
    for (const p of [policy, allowAll]) {
      for (const [kind, v] of values) {
        const r = checkDestinationValue(kind, v, p);
        expect(r?.rule, `${kind} ${v}`).toBe('control-plane infrastructure');
      }
    }
    expect(checkResolved('postgres', 'db.attacker.example', '127.0.0.1', 5432, allowAll)?.rule).toBe('control-plane infrastructure');
    expect(checkResolved('redis', 'db.attacker.example', '::1', 54329, allowAll)?.rule).toBe('control-plane infrastructure');
    expect(checkResolved('kafka', 'db.attacker.example', '::ffff:127.0.0.1', 54329, allowAll)?.rule).toBe('control-plane infrastructure');
  });

  it('refuses Unix sockets for every kind, whatever the allow list', () => {
    const values: [DestinationKind, string][] = [
      ['postgres', 'postgres://postgres:pw@10.0.0.1:5432/weir?host=/tmp'],
      ['postgres', 'postgres://postgres:pw@10.0.0.1:5432/weir?host=/var/run/postgresql'],
      ['postgres', 'postgres://postgres@%2Ftmp/weir'],
      ['postgres', 'postgres:///weir?host=10.0.0.1,/tmp'],
      ['postgres', '/var/run/postgresql weir'],
      ['postgres', 'socket:/var/run/postgresql?db=weir'],
      ['redis', '/var/run/redis/redis.sock'],
    ];
    for (const p of [open, allowAll]) {
      for (const [kind, v] of values) {
        const r = checkDestinationValue(kind, v, p);
        expect(r?.rule, `${kind} ${v}`).toBe('unix socket');
        expect(r?.message).toMatch(/Unix socket path; Weir connects .* over TCP only/);
      }
    }
  });

  it('property: any loopback spelling of an infrastructure port is refused for every kind, allow list or not', () => {
    const spell = (b: number[], style: number): string => {
      const n = ((b[0] << 24) >>> 0) + (b[1] << 16) + (b[2] << 8) + b[3];
      const part = (x: number, s: number) => (s === 0 ? String(x) : s === 1 ? `0x${x.toString(16)}` : `0${x.toString(8)}`);
      switch (style % 8) {
        case 0: return b.map((x, i) => part(x, (style + i) % 3)).join('.');
        case 1: return part(n, style % 3);
        case 2: return `[::ffff:${b.join('.')}]`;
        case 3: return `[::ffff:${((b[0] << 8) | b[1]).toString(16)}:${((b[2] << 8) | b[3]).toString(16)}]`;
        case 4: return ['localhost', 'LOCALHOST.', 'LocalHost', 'weir.localhost'][style % 4];
        case 5: return style % 2 ? '[::1]' : '[0:0:0:0:0:0:0:1]';
        case 6: return `${b[0]}.${part((b[1] << 16) + (b[2] << 8) + b[3], style % 3)}`;
        default: return `${b.join('.')}.`;
      }
    };
    const bare = (h: string) => h.replace(/^\[|\]$/g, '');
    const forms = (host: string, port: number): [DestinationKind, string][] => [
      ['postgres', `postgres://u:pw@${host}:${port}/weir`],
      ['postgres', `postgres://u:pw@10.0.0.1/weir?host=${encodeURIComponent(bare(host))}&port=${port}`],
      ['postgres', `postgres://u:pw@10.0.0.1/weir?hostaddr=${encodeURIComponent(bare(host))}&port=${port}`],
      ['postgres', `postgres://u:pw@10.0.0.1/weir?host=10.0.0.2,${encodeURIComponent(bare(host))}&port=${port}`],
      ['postgres', `host=${bare(host)} port=${port} dbname=weir`],
      ['redis', `redis://${host}:${port}`],
      ['nats', `nats://${host}:${port}`],
      ['kafka', `${host}:${port}`],
      ['http', `http://${host}:${port}/`],
      ['s3', `http://${host}:${port}`],
    ];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 254 }), fc.integer({ min: 0, max: 63 }), fc.boolean(), fc.constantFrom(5432, 54329), (a, b, c, style, allow, port) => {
        const host = spell([127, a, b, c], style);
        for (const [kind, value] of forms(host, port)) {
          const r = checkDestinationValue(kind, value, allow ? allowAll : policy);
          // WHATWG URL rejects a few spellings outright for http(s): refused as unreadable.
          expect(r?.rule === 'control-plane infrastructure' || r?.rule === 'unreadable destination', `${kind} ${value}: ${r?.rule}`).toBe(true);
        }
      }),
      { numRuns: 300, seed: 29 },
    );
  });

  it("lets postgres connections use a server's listed job databases only (the demo's warehouse)", () => {
    const demo: OutboundPolicy = { infrastructure: [{ host: '127.0.0.1', port: 5432, what: 'the metadata database (DATABASE_URL)', jobDatabases: ['weir_demo'] }] };
    expect(checkDestinationValue('postgres', 'postgres://u@localhost:5432/weir_demo', demo)).toBeUndefined();
    expect(checkResolved('postgres', 'pg.test', '127.0.0.1', 5432, demo, 'weir_demo')).toBeUndefined();
    for (const v of ['postgres://u@localhost:5432/weir', 'postgres://u@localhost:5432/', 'postgres://u@localhost:5432/weir_demo2', 'postgres://u@localhost:5432/Weir_Demo']) {
      expect(checkDestinationValue('postgres', v, demo)?.rule, v).toBe('control-plane infrastructure');
    }
    expect(checkDestinationValue('redis', 'redis://localhost:5432/0', demo)?.rule).toBe('control-plane infrastructure');
    expect(checkResolved('postgres', 'pg.test', '127.0.0.1', 5432, demo)?.rule).toBe('control-plane infrastructure');
    expect(checkResolved('http', 'pg.test', '127.0.0.1', 5432, demo, 'weir_demo')?.rule).toBe('control-plane infrastructure');
  });

  it('leaves other ports and other hosts alone', () => {
    expect(checkDestinationValue('http', 'http://127.0.0.1:8080/', policy)).toBeUndefined();
    expect(checkDestinationValue('http', 'http://10.0.0.1:5432/', policy)).toBeUndefined();
    expect(checkDestinationValue('postgres', 'postgres://u@127.0.0.1:6543/analytics', policy)).toBeUndefined();
    expect(checkDestinationValue('postgres', 'postgres://u@10.0.0.1:54329/analytics', policy)).toBeUndefined();
    expect(checkDestinationValue('redis', 'redis://127.0.0.1:6379', policy)).toBeUndefined();
  });
});

describe('destinations', () => {
  it('parses scheme, host, default port and database', () => {
    expect(parseDestinations('http', 'https://Hooks.Example.com/x?t=1')).toEqual([{ kind: 'http', scheme: 'https', host: 'hooks.example.com', port: 443 }]);
    expect(parseDestinations('postgres', 'postgresql://u:p@db:6543/shop?sslmode=require')).toEqual([{ kind: 'postgres', scheme: 'postgres', host: 'db', port: 6543, database: 'shop' }]);
    // node-postgres reads no libpq key/value form (it would connect to a host named "base").
    expect(() => parseDestinations('postgres', "host=db.internal port=5433 dbname=shop password='x y'")).toThrow(/postgres:\/\/ or postgresql:\/\/ URL/);
    expect(parseDestinations('postgres', 'postgres:///shop?host=/var/run/postgresql')).toEqual([{ kind: 'postgres', scheme: 'postgres', host: '/var/run/postgresql', port: 5432, database: 'shop' }]);
    expect(parseDestinations('postgres', 'postgres://u@/shop?host=a,b&port=6543').map((d) => `${d.host}:${d.port}`)).toEqual(['a:6543', 'b:6543']);
    expect(parseDestinations('redis', 'rediss://:pw@cache:6380/2')).toEqual([{ kind: 'redis', scheme: 'rediss', host: 'cache', port: 6380, database: '2' }]);
    expect(parseDestinations('nats', 'nats://a:4222, b')).toEqual([
      { kind: 'nats', scheme: 'nats', host: 'a', port: 4222 },
      { kind: 'nats', scheme: 'nats', host: 'b', port: 4222 },
    ]);
  });
  it('checkHost names the destination as given', () => {
    expect(checkHost('http', '169.254.169.254', 80, open, 'http://169.254.169.254:80')?.message).toMatch(/^http:\/\/169\.254\.169\.254:80 is refused: 169\.254\.169\.254 is one of the link-local/);
    expect(checkHost('http', '0xa9fea9fe', 80, open)?.message).toMatch(/0xa9fea9fe \(= 169\.254\.169\.254\)/);
  });
});

describe('connection parameters, by allow list', () => {
  it('accepts the parameters node-postgres uses to shape the connection', () => {
    for (const v of ['postgres://u:p@db.example.com:5432/shop?sslmode=verify-full&application_name=weir&connect_timeout=5', 'postgresql://u@db.example.com:5433/shop?user=u&sslmode=require']) {
      expect(checkDestinationValue('postgres', v, open), v).toBeUndefined();
    }
    expect(checkDestinationValue('redis', 'redis://:pw@cache.example.com:6380/2', open)).toBeUndefined();
  });

  it('refuses file-reading parameters by name, the same answer whether the path exists or not', () => {
    for (const name of ['sslrootcert', 'sslcert', 'sslkey', 'sslcrl', 'passfile', 'service', 'servicefile', 'SSLROOTCERT']) {
      const answers = ['/dev/zero', '/nonexistent', '/etc/passwd'].flatMap((f) => [
        checkDestinationValue('postgres', `postgres://u@db.example.com/shop?${name}=${f}`, open),
        checkDestinationValue('postgres', `postgres://u@db.example.com/shop?sslmode=require&${name}=${encodeURIComponent(f)}`, open),
        // A stray % makes pg re-encode the string before parsing: the same parameters still count.
        checkDestinationValue('postgres', `postgres://u@db.example.com/shop?application_name=a%zz b&${name}=${f}`, open),
      ]);
      expect(answers[0]?.rule, name).toBe('connection option');
      expect(answers[0]?.message, name).toMatch(new RegExp(`postgres connection parameter "${name.toLowerCase()}" is refused: it makes the client read a file on Weir's machine`));
      for (const a of answers) {
        expect(a?.message).toBe(answers[0]?.message);
        expect(a?.message).not.toMatch(/dev|nonexistent|passwd/);
      }
    }
  });

  it('an unknown parameter is refused naming it and listing the accepted ones', () => {
    expect(checkDestinationValue('postgres', 'postgres://u@db.example.com/shop?options=-c%20session_preload_libraries%3Dx', open)?.message).toMatch(/"options" is refused/);
    const r = checkDestinationValue('postgres', 'postgres://u@db.example.com/shop?replication=database', open);
    expect(r?.message).toMatch(/postgres connection parameter "replication" is refused: Weir does not accept it\. Accepted parameters: host, hostaddr, port, user, password, sslmode/);
    expect(checkDestinationValue('postgres', 'postgres://u@db.example.com/shop?sslmode=require&krbsrvname=x', open)?.message).toMatch(/"krbsrvname" is refused/);
    // The libpq form pg would misread (a path on host "base", and still the ?sslrootcert in it).
    const kv = checkDestinationValue('postgres', 'host=db.example.com dbname=x?sslrootcert=/dev/zero', open);
    expect(kv?.rule).toBe('unreadable destination');
    expect(kv?.message).toMatch(/postgres:\/\/ or postgresql:\/\/ URL/);
    expect(checkDestinationValue('redis', 'redis://cache.example.com:6379/?path=/tmp/redis.sock', open)?.message).toMatch(/redis connection parameter "path" is refused: a Redis URL takes no query parameters here/);
    expect(checkDestinationValue('redis', 'cache.example.com:6379?family=6', open)?.rule).toBe('connection option');
  });
});
