/**
 * BullMQ wiring: the backend (Redis via ioredis when REDIS_URL is set, otherwise BullMQ's
 * PostgreSQL backend in the metadata database) and constructors bound to it.
 */
import { createRequire } from 'node:module';
import { Queue, QueueEvents, Worker, withBackend, type Processor, type WorkerOptions } from 'bullmq';

type QueueBackendName = 'postgres' | 'redis';

export interface QueueConfig {
  backend: QueueBackendName;
  /** REDIS_URL for redis; DATABASE_URL for postgres. */
  url: string;
  /** Postgres schema holding BullMQ's tables (keeps them apart from Prisma's). */
  schema?: string;
}

const BULLMQ_PG_SCHEMA = 'bullmq';

// BullMQ 6.7's ESM build of the Postgres backend fails to resolve (an extensionless internal
// import); its CJS build loads (toolchain notes).
const require = createRequire(import.meta.url);
function postgresBackend() {
  return require('bullmq/dist/cjs/postgres/index.js') as typeof import('bullmq/dist/esm/postgres/index.js');
}

export function queueConfigFrom(env: { REDIS_URL?: string; DATABASE_URL?: string }): QueueConfig {
  if (env.REDIS_URL) return { backend: 'redis', url: env.REDIS_URL };
  if (!env.DATABASE_URL) throw new Error('Neither REDIS_URL nor DATABASE_URL is set: BullMQ needs one of them.');
  return { backend: 'postgres', url: env.DATABASE_URL, schema: BULLMQ_PG_SCHEMA };
}

function redisConnection(url: string) {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username || undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    tls: u.protocol === 'rediss:' ? {} : undefined,
    maxRetriesPerRequest: null,
  };
}

export function makeQueue<D = unknown>(name: string, cfg: QueueConfig): Queue<D> {
  if (cfg.backend === 'redis') return new Queue<D>(name, { connection: redisConnection(cfg.url) });
  const { createPostgresBackend } = postgresBackend();
  const { Queue: PgQueue } = withBackend(createPostgresBackend);
  return new PgQueue<D>(name, { connection: { connectionString: cfg.url, schema: cfg.schema, migrate: true } }) as unknown as Queue<D>;
}

/**
 * The queue's job events (completed, failed …) as they happen: a Redis stream read with a
 * blocking XREAD, or LISTEN/NOTIFY on the Postgres backend's events channel.
 */
export function makeQueueEvents(name: string, cfg: QueueConfig): QueueEvents {
  if (cfg.backend === 'redis') return new QueueEvents(name, { connection: redisConnection(cfg.url) });
  const { createPostgresBackend } = postgresBackend();
  const { QueueEvents: PgQueueEvents } = withBackend(createPostgresBackend);
  return new PgQueueEvents(name, { connection: { connectionString: cfg.url, schema: cfg.schema, migrate: true } }) as unknown as QueueEvents;
}

/**
 * How a job follows a worker that died: BullMQ renews a job's lock every lockDuration/2, and a
 * job whose lock lapsed (its worker killed) is handed to another after `failoverMs`.
 */
export function failoverLock(failoverMs: number): Pick<WorkerOptions, 'lockDuration' | 'stalledInterval'> {
  return { lockDuration: failoverMs, stalledInterval: Math.max(1000, Math.floor(failoverMs / 2)) };
}

export function makeWorker<D = unknown, R = unknown>(
  name: string,
  processor: Processor<D, R>,
  cfg: QueueConfig,
  opts: Omit<WorkerOptions, 'connection'> = {},
): Worker<D, R> {
  if (cfg.backend === 'redis') return new Worker<D, R>(name, processor, { ...opts, connection: redisConnection(cfg.url) });
  const { createPostgresBackend } = postgresBackend();
  const { Worker: PgWorker } = withBackend(createPostgresBackend);
  return new PgWorker<D, R>(name, processor as never, {
    ...(opts as object),
    connection: { connectionString: cfg.url, schema: cfg.schema, migrate: true },
  }) as unknown as Worker<D, R>;
}
