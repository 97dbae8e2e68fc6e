/**
 * The worker process: heartbeats, takes run jobs from BullMQ and drives lib/engine.
 * `npm run worker` starts one more against the same configuration (scale out by hand): with
 * DATABASE_URL set, that one; without it, the `npm start` running from the same folder's (its
 * instance file), which the worker then joins, and leaves when that `npm start` stops.
 * SIGTERM/SIGINT stop it gracefully: running batches finish and commit, then it exits.
 */
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { warmUpSparkParser } from '@/lib/engine';
import { EnvError, workerEnv } from '@/lib/env';
import { instanceRunning, registerJoinedWorker } from '@/lib/running-instance';
import { prisma } from '@/lib/server/db';
import { startAlertScheduler } from '@/lib/server/alerts/alert-scheduler';
import { installOutboundPolicy } from '@/lib/server/outbound';
import { Heartbeat } from './heartbeat';
import { stateCacheDirOf } from './local-state-caches';
import { startRunWorker } from './run-worker';
import { jobSinkOptions, jobSourceOptions, startTaskWorker } from './task-worker';

async function main() {
  let config;
  let joined;
  try {
    ({ config, joined } = workerEnv());
  } catch (e) {
    if (e instanceof EnvError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
  const log = pino({ level: config.LOG_LEVEL, base: { component: 'worker' } });
  // Every connection a run opens (sinks, sources, S3 checkpoints) obeys WEIR_OUTBOUND_ALLOW.
  installOutboundPolicy();
  // Every run's spec is validated here, on the worker's event loop: the SQL parser's first parse
  // builds its prediction cache (about a second), paid now rather than by the first run.
  warmUpSparkParser();
  const db = prisma();
  const workerId = `${os.hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const heartbeat = new Heartbeat(
    db,
    workerId,
    config.queueBackend,
    config.WEIR_WORKER_HEARTBEAT_MS,
    (e) => log.warn({ err: e }, 'heartbeat failed'),
    stateCacheDirOf(config.dataDir),
  );
  await heartbeat.start();
  // Every worker runs reduce tasks for the runs whose tasks go to the workers (WEIR_TASK_SCHEDULER=cluster, on any worker).
  const roots = { checkpointRoot: config.checkpointRoot, filesRoots: config.filesRoots };
  const tasks = await startTaskWorker({ config, workerId, log, sourceOptions: jobSourceOptions(db, roots), sinkOptions: jobSinkOptions(db, roots) });
  const runs = await startRunWorker({ db, config, workerId, log });
  const alerts = startAlertScheduler({ db, intervalMs: config.WEIR_ALERT_INTERVAL_MS, log });
  log.info({ workerId, queueBackend: config.queueBackend, joined: joined && { pid: joined.pid, dataDir: config.dataDir } }, 'worker started');
  // npm start waits for a registered joined worker before it stops PostgreSQL.
  const unregister = joined ? registerJoinedWorker(config.dataDir, process.pid) : () => undefined;
  process.on('exit', unregister);
  if (joined) {
    console.error(`[weir] worker ${workerId} joined the npm start (pid ${joined.pid}) running from ${config.dataDir}`);
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'worker stopping: letting running batches finish');
    await runs.close();
    await tasks.close();
    await alerts.stop();
    await heartbeat.stop();
    await db.$disconnect();
    log.info('worker stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  if (joined) {
    // The embedded database goes with the npm start that runs it: leave with it. It removes its
    // instance file as it begins to stop, and waits for this worker before stopping PostgreSQL.
    const instance = joined;
    const watch = setInterval(() => {
      if (instanceRunning(config.dataDir, instance.pid)) return;
      clearInterval(watch);
      console.error(`[weir] the npm start this worker joined (pid ${instance.pid}) is stopping: stopping`);
      // As npm start's own shutdown does: a worker that has not finished 30 s later is ended.
      setTimeout(() => process.exit(1), 30_000).unref();
      void shutdown('instance stopped');
    }, 500);
    watch.unref();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
