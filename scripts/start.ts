/**
 * `npm start`: everything Weir needs on one machine.
 *
 * 1. Configuration from lib/env.ts (a bad variable fails here, named).
 * 2. PostgreSQL: DATABASE_URL if set, else the embedded one under WEIR_DATA_DIR/pg, restarted with
 *    backoff if it dies (see embedded-postgres.ts; one left running by a killed earlier start is
 *    stopped first).
 * 3. Migrations (prisma/migrations), and the first-start admin token/user: from WEIR_ADMIN_TOKEN /
 *    WEIR_ADMIN_PASSWORD, or, with neither, the user `admin` with a one-time password printed
 *    beside the dashboard URL (see lib/server/bootstrap.ts).
 * 4. A production build of the dashboard if there is none, or if its sources changed since
 *    (`next build`; see build-freshness.ts).
 * 5. The Next.js server (the dashboard) and one worker (WEIR_WORKERS=N: N), each restarted with backoff if it dies, as
 *    PostgreSQL is (scripts/supervisor.ts: a dashboard out of heap does not take the rest down; a
 *    drill that kills a worker sees a replacement come back); a dashboard that fails five
 *    restarts in a row stops everything. BullMQ on Redis when REDIS_URL is set, else on PostgreSQL.
 * 6. Waits for /api/health to show the database and a worker, writes the instance file a worker
 *    started beside it joins by (lib/running-instance.ts), then prints the dashboard URL.
 * The terminal gets only what a person needs: the URL (once), the first start's admin
 * credentials, where the data and the log file are, how to stop, and trouble (a child or the
 * database died, is restarting, is back, or was given up). Everything else (Next's build and
 * route table, the worker's JSON log lines, the console sink's frames, migration details) goes to
 * <WEIR_DATA_DIR>/logs/weir.log, whose path it prints; LOG_LEVEL=debug (or trace) shows all of it
 * in the terminal too.
 * Ctrl-C (SIGINT) or SIGTERM stops the server and the worker gracefully, then PostgreSQL (whichever
 * postmaster is current). If this process is killed outright, the server and the worker stop
 * themselves (scripts/lifeline.mjs) and the next start stops the PostgreSQL it left.
 */
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { parseEnv, EnvError, type Env } from '../lib/env';
import { migrate } from '../lib/server/migrate';
import { bootstrapCredentials, type BootstrapResult } from '../lib/server/bootstrap';
import { PrismaClient } from '../lib/generated/prisma/client';
import { PrismaPg } from '@prisma/adapter-pg';
import { buildFreshness, markBuiltAsOf } from './build-freshness';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres';
import { describeExit, supervise, supervisedChild, type Supervised, type Supervisor } from './supervisor';
import { joinedWorkerPids, removeInstanceFile, SHARED_SETTINGS, writeInstanceFile } from '../lib/running-instance';

const ROOT = path.resolve(import.meta.dirname, '..');
/** Above the 60 s idle timeout of the usual load balancers (AWS ALB's default): the proxy, not the server, closes an idle connection. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * Where output goes: `say` to the terminal and the log file, `detail` to the log file (and the
 * terminal with LOG_LEVEL=debug). Until the data directory is known there is no file yet.
 */
const out = {
  fd: undefined as number | undefined,
  verbose: false,
  file(line: string): void {
    if (out.fd !== undefined) writeSync(out.fd, `${new Date().toISOString()} [weir] ${line}\n`);
  },
};
const say = (m: string) => {
  console.log(`[weir] ${m}`);
  out.file(m);
};
const detail = (m: string) => {
  if (out.verbose) console.log(`[weir] ${m}`);
  out.file(m);
};

/**
 * Child processes write straight into the log file (no pipe through this process: if it is
 * killed outright they keep a place to write while their lifeline stops them). With
 * LOG_LEVEL=debug they write to the terminal instead, which is what debug asks for.
 */
function childStdio(): 'inherit' | ['ignore', number, number] {
  return out.verbose || out.fd === undefined ? 'inherit' : ['ignore', out.fd, out.fd];
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { cwd: ROOT, env, stdio: childStdio() });
    p.on('exit', (code) => resolve(code ?? 1));
  });
}

/** The log file's last lines, for a failure the terminal must explain. */
function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

async function waitForHealth(url: string, deadlineMs: number): Promise<unknown> {
  const until = Date.now() + deadlineMs;
  let last: unknown = null;
  while (Date.now() < until) {
    try {
      const res = await fetch(`${url}/api/health`);
      last = await res.json();
      const h = last as { database?: { ok: boolean }; workers?: unknown[] };
      if (h.database?.ok && (h.workers?.length ?? 0) > 0) return last;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`Weir did not become healthy within ${deadlineMs / 1000}s; last health: ${JSON.stringify(last)}`);
}

/**
 * The dashboard is up once its server answers /api/health (whatever the database's state). One
 * that exits first, or does not answer within `deadlineMs` (it is then stopped), did not start;
 * aborted (npm start is stopping), it is handed back at once for the supervisor to stop.
 */
async function untilAnswering(server: Supervised, url: string, signal: AbortSignal, deadlineMs = 120_000): Promise<Supervised> {
  let exit: string | undefined;
  void server.exited.then((e) => (exit = describeExit(e)));
  const until = Date.now() + deadlineMs;
  while (!signal.aborted) {
    if (exit) throw new Error(`the dashboard (pid ${server.pid}) exited before it answered at ${url}: ${exit}; ${server.lastLines()}`);
    if (Date.now() > until) {
      await server.stop();
      throw new Error(`the dashboard (pid ${server.pid}) did not answer at ${url} within ${deadlineMs / 1000}s, and was stopped; ${server.lastLines()}`);
    }
    try {
      await fetch(`${url}/api/health`, { signal: AbortSignal.any([signal, AbortSignal.timeout(5000)]) });
      if (!exit) return server;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return server;
}

async function main() {
  const t0 = Date.now();
  let config: Env;
  try {
    config = parseEnv();
  } catch (e) {
    if (e instanceof EnvError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
  mkdirSync(config.dataDir, { recursive: true });
  const logFile = path.join(config.dataDir, 'logs', 'weir.log');
  mkdirSync(path.dirname(logFile), { recursive: true });
  out.fd = openSync(logFile, 'a');
  out.verbose = config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace';
  out.file(`---- npm start (pid ${process.pid}) ----`);
  say(`starting; details go to ${logFile}`);
  mkdirSync(config.checkpointRoot.startsWith('s3://') ? config.dataDir : config.checkpointRoot, { recursive: true });
  // Files sources, sinks, static tables and dead letters given through the API must lie in these.
  for (const root of config.filesRoots) mkdirSync(root, { recursive: true });

  let embedded: EmbeddedDatabase | undefined;
  // If anything below fails, the detached PostgreSQL must not outlive us (it would hold the port
  // and the data directory for the next start).
  stopOnFailure = () => embedded?.stop();
  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres(config.dataDir, config.WEIR_EMBEDDED_PG_PORT, (m, level) => (level === 'warn' ? say(m) : detail(m)));
    databaseUrl = embedded.url;
    detail(`embedded PostgreSQL on 127.0.0.1:${config.WEIR_EMBEDDED_PG_PORT} (data in ${path.join(config.dataDir, 'pg')})`);
  } else {
    detail('using DATABASE_URL');
  }
  const applied = await migrate(databaseUrl);
  detail(applied.length ? `applied migrations: ${applied.join(', ')}` : 'database schema is up to date');

  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    WEIR_DATA_DIR: config.dataDir,
    WEIR_CHECKPOINT_ROOT: config.checkpointRoot,
    WEIR_FILES_ROOTS: config.filesRoots.join(','),
    NEXT_TELEMETRY_DISABLED: '1',
  };
  let oneTimePassword: BootstrapResult['oneTimePassword'];
  {
    const db = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
    const r = await bootstrapCredentials(db, { adminToken: config.WEIR_ADMIN_TOKEN, adminPassword: config.WEIR_ADMIN_PASSWORD });
    await db.$disconnect();
    if (r.tokenCreated) detail('created the admin API token from WEIR_ADMIN_TOKEN');
    if (r.userCreated && !r.oneTimePassword) detail('created the UI user `admin` from WEIR_ADMIN_PASSWORD');
    oneTimePassword = r.oneTimePassword;
  }

  const build = config.WEIR_SKIP_BUILD ? { state: 'fresh' as const } : buildFreshness(ROOT);
  if (build.state !== 'fresh') {
    say(
      build.state === 'missing'
        ? 'building the dashboard (first start only; takes a few minutes)'
        : `the sources changed since the last build (newest: ${build.newestSource}): building the dashboard again`,
    );
    const buildStarted = Date.now();
    const code = await run(path.join(ROOT, 'node_modules', '.bin', 'next'), ['build'], childEnv);
    if (code !== 0) {
      if (!out.verbose) console.error(tail(logFile, 30));
      throw new Error(`next build failed (its output is above and in ${logFile})`);
    }
    markBuiltAsOf(ROOT, buildStarted);
  }

  // The children watch this process: killed outright (SIGKILL), it cannot stop them, so they stop
  // themselves rather than hold the port and the database for the next start.
  const lifelineEnv: NodeJS.ProcessEnv = {
    ...childEnv,
    WEIR_PARENT_PID: String(process.pid),
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import "${pathToFileURL(path.join(ROOT, 'scripts', 'lifeline.mjs')).href}"`.trim(),
  };
  const url = `http://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${config.PORT}`;
  const spawnChild = (name: string, cmd: string, args: string[]) => {
    // Same process group: a Ctrl-C reaches the children with us (the worker then finishes its
    // running batches; SIGTERM from shutdown() is the same request). Only PostgreSQL is detached,
    // so that it outlives them and is stopped last.
    const child = spawn(cmd, args, { cwd: ROOT, env: lifelineEnv, stdio: childStdio() });
    detail(`${name} started (pid ${child.pid})`);
    return supervisedChild(child, () => `its last lines are in ${logFile}`);
  };

  let stopping = false;
  const supervised: Supervisor[] = [];
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say('stopping: the worker finishes its running batches, then the server and PostgreSQL stop');
    // Workers that joined (npm run worker) see the file go and stop; PostgreSQL waits for them.
    removeInstanceFile(config.dataDir, process.pid);
    // Each stops its current process (SIGTERM, SIGKILL 30 s later) or cancels a pending restart.
    await Promise.all([...supervised.map((s) => s.stop()), untilJoinedWorkersExit(config.dataDir)]);
    await embedded?.stop();
    say('stopped');
    closeSync(out.fd!);
    process.exit(code);
  };
  stopOnFailure = () => shutdown(1);
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

  // The dashboard and the worker are supervised as PostgreSQL is (scripts/supervisor.ts): one
  // that dies (the server out of heap after an expensive request, a killed worker) is restarted
  // with back-off, and the rest (PostgreSQL, the worker's runs, the dashboard) goes on. A
  // dashboard that cannot stay up a minute, five restarts in a row (the port taken, a broken
  // build), is given up and everything stops with exit code 1: with the dashboard down nothing at
  // its URL says what is wrong, and a service manager around npm start sees the failure.
  const dashboard = supervise({
    name: 'the dashboard',
    log: say,
    maxRestarts: 5,
    whileDown: `until it is back, ${url} does not answer`,
    giveUpHint: `Is port ${config.PORT} on ${config.HOST} taken (set PORT to a free one)? Its last lines are in ${logFile}`,
    onGiveUp: () => void shutdown(1),
    // Node closes an idle keep-alive connection after 5 s by default, and a client that sends its
    // next request on it just then gets ECONNRESET (behind a load balancer, a 502): idle
    // connections stay open longer than the proxy keeps them.
    start: (signal) =>
      untilAnswering(
        spawnChild('the dashboard', path.join(ROOT, 'node_modules', '.bin', 'next'), ['start', '-p', String(config.PORT), '-H', config.HOST, '--keepAliveTimeout', String(KEEP_ALIVE_TIMEOUT_MS)]),
        url,
        signal,
      ),
  });
  // A dead worker is replaced, without limit; its runs fail over meanwhile. WEIR_WORKERS=N runs N.
  const workers = Array.from({ length: config.WEIR_WORKERS }, (_, i) => {
    const name = config.WEIR_WORKERS === 1 ? 'the worker' : `worker ${i + 1}`;
    return supervise({
      name,
      log: say,
      start: async () => spawnChild(name, process.execPath, ['--conditions=react-server', '--import', 'tsx', 'worker/main.ts']),
    });
  });
  supervised.push(dashboard, ...workers);
  await Promise.all([dashboard.started, ...workers.map((w) => w.started)]);

  await waitForHealth(url, 120_000);
  // For `npm run worker` from this folder: it joins this instance (lib/running-instance.ts).
  writeInstanceFile(config.dataDir, {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    settings: Object.fromEntries(
      SHARED_SETTINGS.map((k) => [k, childEnv[k] || (config[k] === undefined ? undefined : String(config[k]))]).filter(([, v]) => v !== undefined && v !== ''),
    ),
  });
  detail(`healthy in ${((Date.now() - t0) / 1000).toFixed(1)}s (queue backend: ${config.queueBackend})`);
  say(`dashboard: ${url}`);
  if (oneTimePassword) printOneTimePassword(url, oneTimePassword);
  if (config.WEIR_DEMO) {
    const { setupDemo } = await import('../lib/server/demo/demo-service');
    const { enqueueRun, closeRunQueues } = await import('../lib/queue/run-queue');
    const { queueConfigFrom } = await import('../lib/queue/connection');
    const queue = queueConfigFrom({ DATABASE_URL: databaseUrl, REDIS_URL: config.REDIS_URL });
    const db = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
    const r = await setupDemo(
      {
        db,
        principal: { actor: 'system:demo', role: 'admin', via: 'bearer' },
        checkpointRoot: config.checkpointRoot,
        filesRoots: config.filesRoots,
        enqueue: (p) => enqueueRun(queue, { ...p, attempt: 0 }),
      },
      { filesRoot: config.filesRoots[0], databaseUrl },
    );
    await closeRunQueues();
    await db.$disconnect();
    say(`demo ${r.created ? 'set up' : 'already set up'}: ${url}/demo`);
  }
  say(`data:      ${dataWhere(config, !!embedded)}`);
  say(`log:       ${logFile}${out.verbose ? '' : ' (LOG_LEVEL=debug shows it here too)'}`);
  say('Ctrl-C stops everything.');
}

/**
 * Waits for the workers that joined this instance to exit (they stop on their own once the
 * instance file is gone); one still there after 35 s (its own 30 s bound and a margin) is killed.
 */
async function untilJoinedWorkersExit(dataDir: string): Promise<void> {
  const until = Date.now() + 35_000;
  for (let pids = joinedWorkerPids(dataDir); pids.length > 0; pids = joinedWorkerPids(dataDir)) {
    if (Date.now() > until) {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // exited meanwhile
        }
      }
      say(`joined worker(s) ${pids.join(', ')} did not stop within 35s: killed`);
      return;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Where a person's jobs and their state live, in one line. */
function dataWhere(config: Env, embedded: boolean): string {
  const db = embedded ? `PostgreSQL in ${path.join(config.dataDir, 'pg')}` : 'PostgreSQL at DATABASE_URL';
  return `${config.dataDir} (${db}; checkpoints in ${config.checkpointRoot})`;
}

/**
 * Once, beside the URL, framed so it stands out of the server's log. Nothing else shows it: it
 * is stored only as a hash, and the first sign-in replaces it.
 */
function printOneTimePassword(url: string, otp: NonNullable<BootstrapResult['oneTimePassword']>): void {
  const lines = [
    otp.reissued ? 'The admin has not chosen a password yet: a new one-time password (the earlier one no longer works).' : 'First start: an admin was created for you.',
    '',
    `  Open        ${url}/signin`,
    `  Username    ${otp.username}`,
    `  Password    ${otp.password}   (one-time)`,
    '',
    'After signing in you choose your own password. Until you do, each start prints a new one-time password.',
    'For automation, set WEIR_ADMIN_PASSWORD or WEIR_ADMIN_TOKEN instead (see README).',
  ];
  const width = Math.max(...lines.map((l) => l.length));
  const rule = `+${'-'.repeat(width + 2)}+`;
  console.log(['', rule, ...lines.map((l) => `| ${l.padEnd(width)} |`), rule, ''].join('\n'));
}

let stopOnFailure: () => Promise<void> | undefined = () => undefined;

main().catch(async (e) => {
  console.error(`[weir] start failed: ${(e as Error).message}`);
  out.file(`start failed: ${(e as Error).stack ?? (e as Error).message}`);
  await stopOnFailure();
  process.exit(1);
});
