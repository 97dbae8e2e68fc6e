/**
 * The one place that reads process.env. Everything else takes options.
 *
 * Validated with zod at start: a wrong value fails fast with a message naming the variable and
 * what it expects (see formatEnvError).
 */
import path from 'node:path';
import { z } from 'zod';
import { parseAllowList } from './engine/outbound/outbound-policy';
import { DEFAULT_LOCALITY_WAIT_MS } from './queue/queues';
import { readRunningInstance, type RunningInstance } from './running-instance';

const boolish = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const intish = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

const postgresUrl = z
  .string()
  .refine((v) => /^postgres(ql)?:\/\//.test(v), 'a postgres:// or postgresql:// connection URL');
const redisUrl = z.string().refine((v) => /^rediss?:\/\//.test(v), 'a redis:// or rediss:// URL');

const envSchema = z.object({
  /** PostgreSQL for metadata (and BullMQ's Postgres backend). Unset: `npm start` runs an embedded one. */
  DATABASE_URL: postgresUrl.optional(),
  /** Redis for BullMQ. Unset: BullMQ runs on its PostgreSQL backend in DATABASE_URL's database. */
  REDIS_URL: redisUrl.optional(),
  /** HTTP port of the dashboard and API. */
  PORT: intish(3000, 1).refine((p) => p <= 65535, 'a TCP port (1-65535)'),
  /** Interface the dashboard binds to. */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Where `npm start` keeps the embedded PostgreSQL and local checkpoints. */
  WEIR_DATA_DIR: z.string().min(1).default('.data'),
  /** Root under which jobs' checkpoints go by default: a path, a shared volume or s3://bucket/prefix. */
  WEIR_CHECKPOINT_ROOT: z.string().min(1).optional(),
  /**
   * Comma-separated directories that files sources, files sinks, static tables and dead-letter
   * paths given through the API must lie in (default `<WEIR_DATA_DIR>/files`). Set for the CLI,
   * it confines the CLI too.
   */
  WEIR_FILES_ROOTS: z
    .string()
    .refine((v) => v.split(',').some((p) => p.trim() !== ''), 'at least one directory')
    .refine((v) => !v.split(',').some((p) => /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(p.trim())), 'local directories (no URLs), separated by commas')
    .optional(),
  /** Port of the embedded PostgreSQL (never 5432, which the machine's own server may hold). */
  WEIR_EMBEDDED_PG_PORT: intish(54329, 1),
  /** When set at first start, an admin API token with this value is created (for automation). */
  WEIR_ADMIN_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  /**
   * Bearer token a Prometheus scraper sends to GET /metrics (16+ characters). Unset: /metrics
   * asks for any viewer credential (an API token works as a bearer token too).
   */
  WEIR_METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  /** When set at first start, a UI user `admin` with this password is created. */
  WEIR_ADMIN_PASSWORD: z.string().min(8, 'at least 8 characters').optional(),
  /** How often a worker heartbeats. */
  WEIR_WORKER_HEARTBEAT_MS: intish(5000, 100),
  /** A worker silent for this long is dead: dropped from health, its runs fail over. */
  WEIR_WORKER_TIMEOUT_MS: intish(15000, 500),
  /**
   * Failover: a run whose worker died (no BullMQ lock renewal) is handed to another worker after
   * this long; its checkpoint lease (WEIR_LEASE_TTL_MS, shorter) has expired by then.
   */
  WEIR_FAILOVER_MS: intish(15000, 1000),
  /** The checkpoint lease's time to live; renewed every WEIR_LEASE_RENEW_MS and before every write. */
  WEIR_LEASE_TTL_MS: intish(10000, 500),
  WEIR_LEASE_RENEW_MS: intish(1000, 100),
  /** How often each worker's scheduled alert pass runs (no-progress alerts fire at most this late). */
  WEIR_ALERT_INTERVAL_MS: intish(5000, 100),
  /** How many worker processes `npm start` runs (each supervised; more can join with `npm run worker`). */
  WEIR_WORKERS: intish(1, 1).refine((n) => n <= 32, 'at most 32'),
  /** How many runs one worker process drives at once. */
  WEIR_WORKER_CONCURRENCY: intish(50, 1),
  /**
   * Where the reduce tasks of a job with `parallelism` N > 1 run, as Spark's master: `local` (one
   * after the other in the run's own engine process, Spark's local mode) or `cluster` (each task
   * sent to the tasks queue, which every worker consumes, so a batch's partitions run on several
   * workers at once). Read by the worker that drives the run.
   */
  WEIR_TASK_SCHEDULER: z.enum(['local', 'cluster']).default('local'),
  /** Reduce tasks one worker process runs at once (Spark's spark.executor.cores). */
  WEIR_TASK_CONCURRENCY: intish(1, 1),
  /**
   * Spark's spark.locality.wait for reduce tasks (WEIR_TASK_SCHEDULER=cluster): how long a
   * reduce task waits for the worker that holds its state partition before any worker may take it
   * (worker/task-dispatcher.ts; DEFAULT_LOCALITY_WAIT_MS says why 10 ms). 0: no preference.
   */
  WEIR_LOCALITY_WAIT_MS: intish(DEFAULT_LOCALITY_WAIT_MS, 0),
  /**
   * Where jobs' webhooks, database and broker connections and S3 endpoints may connect:
   * comma-separated CIDRs and host names (`10.0.0.0/8,hooks.example.com,*.svc.cluster.local`).
   * Unset: anywhere but the always-refused link-local, unspecified, multicast and broadcast ranges.
   */
  WEIR_OUTBOUND_ALLOW: z
    .string()
    .superRefine((v, ctx) => {
      try {
        parseAllowList(v);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: `comma-separated CIDRs and host names: ${(e as Error).message}` });
      }
    })
    .optional(),
  /**
   * Each run's engine is its own process with this JavaScript heap (V8's old space); a run that
   * needs more ends FAILED with RESOURCE_EXHAUSTED while the worker and its other runs go on.
   */
  WEIR_RUN_MEMORY_MB: intish(512, 128),
  /**
   * Each editor Preview runs in a process of its own with this JavaScript heap, killed at the
   * preview's 5 s limit; one that needs more answers 422 PREVIEW_RESOURCE_EXHAUSTED.
   */
  WEIR_PREVIEW_MEMORY_MB: intish(256, 64),
  /** Previews running at once per API process (each may hold WEIR_PREVIEW_MEMORY_MB); more are 429 PREVIEW_BUSY. */
  WEIR_PREVIEW_CONCURRENCY: intish(4, 1),
  /**
   * Test-only seam, refused unless NODE_ENV=test: the metadata database (DATABASE_URL) and the
   * Redis queue (REDIS_URL) are not counted as Weir's own services by the outbound policy, because
   * the test suite's sources and sinks live on the same PostgreSQL and Redis servers. Tests of the
   * boundary itself leave it unset. Never set it in a deployment: jobs could read Weir's secrets.
   */
  WEIR_TEST_SHARED_SERVERS: boolish.default(false),
  /** Test-only seam, refused unless NODE_ENV=test: each map and reduce task waits this long before it runs (a window to kill its worker in). */
  WEIR_TEST_TASK_DELAY_MS: intish(0, 0),
  /**
   * Test-only seam, refused unless NODE_ENV=test: SIGUSR2 holds the worker from taking tasks and
   * the next SIGUSR2 lets it take them again (worker/task-worker.ts), so that a test can send a
   * run's tasks to the other workers instead of hoping the queue does.
   */
  WEIR_TEST_TASK_HOLD_SIGNAL: boolish.default(false),
  NODE_ENV: z.string().optional(),
  /** Log level for pino. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `npm run demo`: after the start, set up and start the demo jobs (see README, Demo). */
  WEIR_DEMO: boolish.default(false),
  /** Skip `next build` in `npm start` even if no build exists (for development). */
  WEIR_SKIP_BUILD: boolish.default(false),
});

export type Env = z.infer<typeof envSchema> & {
  dataDir: string;
  checkpointRoot: string;
  /** WEIR_FILES_ROOTS as absolute paths (the first one is where relative paths resolve). */
  filesRoots: string[];
  queueBackend: 'postgres' | 'redis';
};

export class EnvError extends Error {
  readonly code = 'INVALID_CONFIGURATION';
}

function formatEnvError(error: z.ZodError): string {
  const lines = error.issues.map((i) => {
    const name = String(i.path[0] ?? '?');
    return `  ${name}: ${i.message}`;
  });
  return `Invalid configuration (environment variables):\n${lines.join('\n')}\nFix these variables (see the configuration table in README.md) and start again.`;
}

/** Parses an environment (process.env by default); throws EnvError naming each bad variable. */
export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  // Empty strings count as unset, as in most dotenv setups.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const result = envSchema.safeParse(cleaned);
  if (!result.success) throw new EnvError(formatEnvError(result.error));
  const e = result.data;
  for (const seam of ['WEIR_TEST_SHARED_SERVERS', 'WEIR_TEST_TASK_DELAY_MS', 'WEIR_TEST_TASK_HOLD_SIGNAL'] as const) {
    if (e[seam] && e.NODE_ENV !== 'test') {
      throw new EnvError(formatEnvError(new z.ZodError([{ code: 'custom', path: [seam], message: "is for Weir's own test suite only (NODE_ENV=test): unset it", input: e[seam] }])));
    }
  }
  const dataDir = path.resolve(e.WEIR_DATA_DIR);
  return {
    ...e,
    dataDir,
    checkpointRoot: e.WEIR_CHECKPOINT_ROOT ?? path.join(dataDir, 'checkpoints'),
    filesRoots: e.WEIR_FILES_ROOTS
      ? e.WEIR_FILES_ROOTS.split(',').map((p) => p.trim()).filter((p) => p !== '').map((p) => path.resolve(p))
      : [path.join(dataDir, 'files')],
    queueBackend: e.REDIS_URL ? 'redis' : 'postgres',
  };
}

let cached: Env | undefined;

/** The validated configuration of this process. */
export function env(): Env {
  cached ??= parseEnv();
  return cached;
}

/** DATABASE_URL, which every server-side process needs once `npm start` has set it up. */
export function databaseUrl(): string {
  const url = env().DATABASE_URL;
  if (!url) {
    throw new EnvError(
      'DATABASE_URL is not set. Start Weir with `npm start` (which runs an embedded PostgreSQL and sets it), or set DATABASE_URL to a postgres:// URL.',
    );
  }
  return url;
}

/**
 * A worker's configuration. With DATABASE_URL set, this process's own. Without it, the settings
 * of the `npm start` running from the same data directory (its instance file,
 * lib/running-instance.ts), so that `npm run worker` beside it joins it; a variable set here
 * still wins. With neither, an EnvError that says what to do.
 */
export function workerEnv(): { config: Env; joined?: RunningInstance } {
  const own = parseEnv();
  if (own.DATABASE_URL) return { config: (cached = own) };
  let instance: RunningInstance | undefined;
  try {
    instance = readRunningInstance(own.dataDir);
  } catch (e) {
    throw new EnvError((e as Error).message);
  }
  if (!instance) {
    throw new EnvError(
      `DATABASE_URL is not set, and no npm start is running from ${own.dataDir}. Start Weir with \`npm start\` in this folder first (a worker started beside it joins it), ` +
        'or set DATABASE_URL (and REDIS_URL, if the other workers use one) as the other workers have them.',
    );
  }
  const config = parseEnv({ ...instance.settings, ...Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined && v !== '')) });
  cached = config;
  return { config, joined: instance };
}
