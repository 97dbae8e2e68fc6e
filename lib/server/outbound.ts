/**
 * The control plane's outbound policy, from its configuration: WEIR_OUTBOUND_ALLOW, and its own
 * infrastructure (the metadata database, the embedded PostgreSQL's port and the Redis queue),
 * which no job, preview or webhook may reach.
 * The API process and the workers install it into the engine (`installOutboundPolicy`) so that
 * every connector uses it; validation and alert webhooks take it from here.
 */
import { env, type Env } from '@/lib/env';
import { parseDestinations } from '@/lib/engine/outbound/destinations';
import { isUnixSocketHost, parseAllowList, setOutboundPolicy, type InfrastructureEndpoint, type OutboundPolicy } from '@/lib/engine/outbound/outbound-policy';

/**
 * Every host:port a URL of Weir's own reaches, read as a job's connection string would be (all
 * of a multi-host list). A Unix socket counts as loopback on its port: the server behind it
 * listens there too, and jobs never reach a Unix socket anyway.
 */
function endpointsOf(kind: 'postgres' | 'redis', url: string | undefined, what: string, jobDatabases?: readonly string[]): InfrastructureEndpoint[] {
  if (!url) return [];
  try {
    return parseDestinations(kind, url).map((d) => ({ host: isUnixSocketHost(d.host) ? '127.0.0.1' : d.host, port: d.port, what, ...(jobDatabases ? { jobDatabases } : {}) }));
  } catch {
    return [];
  }
}

/**
 * The demo's warehouse: a database of its own on the metadata database's server, the one
 * database there that jobs may use (its sinks write the demo's orders into it). Never the
 * metadata database itself: if DATABASE_URL names this database, no exception is made.
 */
export const DEMO_DATABASE = 'weir_demo';

function demoDatabases(databaseUrl: string | undefined): readonly string[] {
  try {
    if (databaseUrl && parseDestinations('postgres', databaseUrl).some((d) => d.database === DEMO_DATABASE)) return [];
  } catch {
    // an unreadable DATABASE_URL fails elsewhere
  }
  return [DEMO_DATABASE];
}

export function outboundPolicyFromEnv(e: Pick<Env, 'DATABASE_URL' | 'REDIS_URL' | 'WEIR_EMBEDDED_PG_PORT' | 'WEIR_OUTBOUND_ALLOW' | 'WEIR_TEST_SHARED_SERVERS'>): OutboundPolicy {
  // Test-only seam (env.ts refuses it outside NODE_ENV=test): the suite's own sources and sinks
  // live on the same PostgreSQL and Redis as its metadata database and queue.
  const shared = e.WEIR_TEST_SHARED_SERVERS;
  return {
    allow: e.WEIR_OUTBOUND_ALLOW ? parseAllowList(e.WEIR_OUTBOUND_ALLOW) : undefined,
    infrastructure: [
      ...(shared ? [] : endpointsOf('postgres', e.DATABASE_URL, 'the metadata database (DATABASE_URL)', demoDatabases(e.DATABASE_URL))),
      { host: '127.0.0.1', port: e.WEIR_EMBEDDED_PG_PORT, what: "the embedded PostgreSQL's port (WEIR_EMBEDDED_PG_PORT)", jobDatabases: demoDatabases(e.DATABASE_URL) },
      ...(shared ? [] : endpointsOf('redis', e.REDIS_URL, 'the Redis queue (REDIS_URL)')),
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
