/**
 * The server's policy from its configuration: the allow list, and the control plane's own
 * endpoints (the metadata database, the embedded PostgreSQL's port, the Redis queue) that no
 * job, preview or webhook may reach.
 */
import { describe, expect, it } from 'vitest';
import { checkDestinationValue } from '@/lib/engine';
import { parseEnv } from '@/lib/env';
import { outboundPolicyFromEnv } from './outbound';
import { demoWarehouseUrl } from './demo/demo-service';

describe('outboundPolicyFromEnv', () => {
  it('the embedded default: no allow list, the embedded PostgreSQL port refused to every kind', () => {
    const p = outboundPolicyFromEnv(parseEnv({}));
    expect(p.allow).toBeUndefined();
    expect(checkDestinationValue('http', 'http://127.0.0.1:54329/', p)?.message).toMatch(/embedded PostgreSQL's port \(WEIR_EMBEDDED_PG_PORT\)/);
    expect(checkDestinationValue('http', 'http://127.0.0.1:8080/', p)).toBeUndefined();
    expect(checkDestinationValue('postgres', 'postgres://u@127.0.0.1:54329/analytics', p)?.rule).toBe('control-plane infrastructure');
    expect(checkDestinationValue('postgres', 'postgres://u@127.0.0.1:5432/analytics', p)).toBeUndefined();
  });

  it('a Unix-socket DATABASE_URL refuses loopback on its port, and multi-host lists every host', () => {
    const p = outboundPolicyFromEnv(parseEnv({ DATABASE_URL: 'postgres://weir@/weir?host=/var/run/postgresql&port=6432' }));
    expect(checkDestinationValue('postgres', 'postgres://u@localhost:6432/other', p)?.message).toMatch(/metadata database \(DATABASE_URL\)/);
    const m = outboundPolicyFromEnv(parseEnv({ DATABASE_URL: 'postgres://weir@/weir?host=db1.internal,db2.internal' }));
    expect(checkDestinationValue('redis', 'redis://db2.internal:5432', m)?.message).toMatch(/metadata database \(DATABASE_URL\)/);
  });

  it("the demo's warehouse database is the one database on the metadata server jobs may use", () => {
    const p = outboundPolicyFromEnv(parseEnv({ DATABASE_URL: 'postgres://weir:pw@127.0.0.1:54329/weir' }));
    expect(checkDestinationValue('postgres', 'postgres://weir:pw@localhost:54329/weir_demo', p)).toBeUndefined();
    expect(checkDestinationValue('postgres', 'postgres://weir:pw@localhost:54329/weir', p)?.rule).toBe('control-plane infrastructure');
    expect(checkDestinationValue('postgres', 'postgres://weir:pw@localhost:54329/postgres', p)?.rule).toBe('control-plane infrastructure');
    expect(checkDestinationValue('http', 'http://localhost:54329/weir_demo', p)?.rule).toBe('control-plane infrastructure');
    expect(demoWarehouseUrl({ filesRoot: '/x', databaseUrl: 'postgres://weir:pw@127.0.0.1:54329/weir' })).toBe('postgres://weir:pw@127.0.0.1:54329/weir_demo');
    // A metadata database named like the warehouse gets no exception.
    const same = outboundPolicyFromEnv(parseEnv({ DATABASE_URL: 'postgres://weir:pw@127.0.0.1:54329/weir_demo' }));
    expect(checkDestinationValue('postgres', 'postgres://weir:pw@localhost:54329/weir_demo', same)?.rule).toBe('control-plane infrastructure');
  });

  it('the test-only seam drops DATABASE_URL and REDIS_URL, and is refused outside NODE_ENV=test', () => {
    const e = { DATABASE_URL: 'postgres://weir@127.0.0.1:5432/weir', REDIS_URL: 'redis://127.0.0.1:6379/9' };
    expect(checkDestinationValue('postgres', 'postgres://u@127.0.0.1:5432/analytics', outboundPolicyFromEnv(parseEnv(e)))?.rule).toBe('control-plane infrastructure');
    expect(checkDestinationValue('redis', 'redis://localhost:6379', outboundPolicyFromEnv(parseEnv(e)))?.rule).toBe('control-plane infrastructure');
    const shared = outboundPolicyFromEnv(parseEnv({ ...e, NODE_ENV: 'test', WEIR_TEST_SHARED_SERVERS: '1' }));
    expect(checkDestinationValue('postgres', 'postgres://u@127.0.0.1:5432/analytics', shared)).toBeUndefined();
    expect(checkDestinationValue('postgres', 'postgres://u@127.0.0.1:54329/analytics', shared)?.rule).toBe('control-plane infrastructure');
    expect(() => parseEnv({ ...e, NODE_ENV: 'production', WEIR_TEST_SHARED_SERVERS: '1' })).toThrow(/WEIR_TEST_SHARED_SERVERS: is for Weir's own test suite only/);
  });

  it('DATABASE_URL, REDIS_URL and WEIR_OUTBOUND_ALLOW', () => {
    const p = outboundPolicyFromEnv(parseEnv({ DATABASE_URL: 'postgres://weir@db.internal:6432/weir', REDIS_URL: 'redis://queue.internal', WEIR_OUTBOUND_ALLOW: '10.0.0.0/8,db.internal,queue.internal' }));
    expect(checkDestinationValue('http', 'http://db.internal:6432/', p)?.message).toMatch(/metadata database \(DATABASE_URL\)/);
    expect(checkDestinationValue('http', 'http://queue.internal:6379/', p)?.message).toMatch(/Redis queue \(REDIS_URL\)/);
    expect(checkDestinationValue('postgres', 'postgres://u@db.internal:6432/other', p)?.message).toMatch(/metadata database \(DATABASE_URL\)/);
    expect(checkDestinationValue('redis', 'redis://queue.internal', p)?.message).toMatch(/Redis queue \(REDIS_URL\)/);
    expect(checkDestinationValue('http', 'http://db.internal:8080/', p)).toBeUndefined();
    expect(checkDestinationValue('http', 'http://192.168.0.1/', p)?.rule).toBe('WEIR_OUTBOUND_ALLOW');
  });
});
