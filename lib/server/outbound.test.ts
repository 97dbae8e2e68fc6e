/**
 * The server's policy from its configuration: the allow list, and the control plane's own
 * endpoints (the metadata database, the embedded PostgreSQL's port, the Redis queue) that a
 * webhook may not probe.
 */
import { describe, expect, it } from 'vitest';
import { checkDestinationValue } from '@/lib/engine';
import { parseEnv } from '@/lib/env';
import { outboundPolicyFromEnv } from './outbound';

describe('outboundPolicyFromEnv', () => {
  it('the embedded default: no allow list, the embedded PostgreSQL port refused to webhooks only', () => {
    const p = outboundPolicyFromEnv(parseEnv({}));
    expect(p.allow).toBeUndefined();
    expect(checkDestinationValue('http', 'http://127.0.0.1:54329/', p)?.message).toMatch(/embedded PostgreSQL's port \(WEIR_EMBEDDED_PG_PORT\)/);
    expect(checkDestinationValue('http', 'http://127.0.0.1:8080/', p)).toBeUndefined();
    expect(checkDestinationValue('postgres', 'postgres://u@127.0.0.1:54329/analytics', p)).toBeUndefined();
  });

  it('DATABASE_URL, REDIS_URL and WEIR_OUTBOUND_ALLOW', () => {
    const p = outboundPolicyFromEnv(parseEnv({ DATABASE_URL: 'postgres://weir@db.internal:6432/weir', REDIS_URL: 'redis://queue.internal', WEIR_OUTBOUND_ALLOW: '10.0.0.0/8,db.internal,queue.internal' }));
    expect(checkDestinationValue('http', 'http://db.internal:6432/', p)?.message).toMatch(/metadata database \(DATABASE_URL\)/);
    expect(checkDestinationValue('http', 'http://queue.internal:6379/', p)?.message).toMatch(/Redis queue \(REDIS_URL\)/);
    expect(checkDestinationValue('http', 'http://db.internal:8080/', p)).toBeUndefined();
    expect(checkDestinationValue('http', 'http://192.168.0.1/', p)?.rule).toBe('WEIR_OUTBOUND_ALLOW');
  });
});
