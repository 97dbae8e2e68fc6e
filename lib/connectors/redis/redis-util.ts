/**
 * Shared Redis helpers for the redis-stream source and sink: a client that fails a command fast
 * while Redis is down (so a batch fails instead of hanging) but keeps reconnecting in the
 * background (so the next attempt succeeds once Redis is back).
 * The URL is a secret (it may carry a password): callers redact it from every message.
 */
import { Redis } from 'ioredis';
import { guardedRedisConnector } from './guarded-redis';
import { assertConnectionOptions, outboundPolicy, type OutboundPolicy } from '../../engine';

/** Every connection (and reconnection) goes through the outbound policy (see guarded-redis.ts). */
export function createRedis(url: string, policy: OutboundPolicy = outboundPolicy()): Redis {
  // ioredis turns query parameters into client options (`?path=` a Unix socket): none accepted.
  assertConnectionOptions('redis', url);
  const client = new Redis(url, {
    Connector: guardedRedisConnector(policy),
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  // Errors surface on the command that needed the connection; an unhandled 'error' event would
  // crash the process instead.
  client.on('error', () => {});
  return client;
}
