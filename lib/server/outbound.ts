/**
 * The control plane's outbound policy, from its configuration: WEIR_OUTBOUND_ALLOW, and its own
 * infrastructure (the metadata database and the Redis queue), which webhooks may not probe.
 * The API process and the workers install it into the engine (`installOutboundPolicy`) so that
 * every connector uses it; validation and alert webhooks take it from here.
 */
import { env, type Env } from '@/lib/env';
import { parseAllowList, setOutboundPolicy, type InfrastructureEndpoint, type OutboundPolicy } from '@/lib/engine/outbound/outbound-policy';

function endpointOf(url: string | undefined, defaultPort: number, what: string): InfrastructureEndpoint[] {
  if (!url) return [];
  try {
    const u = new URL(url);
    return [{ host: u.hostname || 'localhost', port: u.port ? Number(u.port) : defaultPort, what }];
  } catch {
    return [];
  }
}

export function outboundPolicyFromEnv(e: Pick<Env, 'DATABASE_URL' | 'REDIS_URL' | 'WEIR_EMBEDDED_PG_PORT' | 'WEIR_OUTBOUND_ALLOW'>): OutboundPolicy {
  return {
    allow: e.WEIR_OUTBOUND_ALLOW ? parseAllowList(e.WEIR_OUTBOUND_ALLOW) : undefined,
    infrastructure: [
      ...endpointOf(e.DATABASE_URL, 5432, 'the metadata database (DATABASE_URL)'),
      { host: '127.0.0.1', port: e.WEIR_EMBEDDED_PG_PORT, what: "the embedded PostgreSQL's port (WEIR_EMBEDDED_PG_PORT)" },
      ...endpointOf(e.REDIS_URL, 6379, 'the Redis queue (REDIS_URL)'),
    ],
  };
}

let cached: OutboundPolicy | undefined;

/** This process's policy (from env(), once). */
export function serverOutboundPolicy(): OutboundPolicy {
  if (!cached) {
    cached = outboundPolicyFromEnv(env());
    setOutboundPolicy(cached);
  }
  return cached;
}

/** Makes the engine's connectors in this process use the server policy. */
export function installOutboundPolicy(): OutboundPolicy {
  return serverOutboundPolicy();
}
