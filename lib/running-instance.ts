/**
 * The instance file: what a running `npm start` leaves in its data directory so that a worker
 * started beside it (`npm run worker` from the same folder) joins it rather than failing for want
 * of a DATABASE_URL. On the embedded default only `npm start` knows the database's address and
 * its password (random per data directory), so it writes them here, with the settings every
 * worker of one installation must share, and removes the file when it stops.
 *
 * The file is owner-only (0600): it holds the database password. A file whose `npm start` is no
 * longer alive (killed outright) is stale and ignored.
 *
 * Stopping: a joined worker needs the database until its running batches have committed, so the
 * order is npm start's. It removes the instance file first (a joined worker sees that within a
 * second and stops gracefully), waits for its own workers and for every worker registered under
 * `joined-workers/` to exit, and only then stops PostgreSQL.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The variables a joining worker takes from the instance, when it does not set them itself. */
export const SHARED_SETTINGS = [
  'DATABASE_URL',
  'REDIS_URL',
  'WEIR_DATA_DIR',
  'WEIR_CHECKPOINT_ROOT',
  'WEIR_FILES_ROOTS',
  'WEIR_EMBEDDED_PG_PORT',
  'WEIR_OUTBOUND_ALLOW',
  'WEIR_RUN_MEMORY_MB',
  'WEIR_WORKER_HEARTBEAT_MS',
  'WEIR_WORKER_TIMEOUT_MS',
  'WEIR_FAILOVER_MS',
  'WEIR_LEASE_TTL_MS',
  'WEIR_LEASE_RENEW_MS',
] as const;

export interface RunningInstance {
  /** The `npm start` process. */
  pid: number;
  startedAt: string;
  /** Values of SHARED_SETTINGS, as npm start gave them to its own worker. */
  settings: Partial<Record<(typeof SHARED_SETTINGS)[number], string>>;
}

function instanceFile(dataDir: string): string {
  return path.join(dataDir, 'instance.json');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: alive, someone else's.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Written whole (a temporary file renamed over it), owner-only from its first byte. */
export function writeInstanceFile(dataDir: string, instance: RunningInstance): void {
  const file = instanceFile(dataDir);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(instance, null, 2) + '\n', { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** Whether the instance file names `pid` (false when it is missing or unreadable). */
function fileNames(dataDir: string, pid: number): boolean {
  try {
    return (JSON.parse(readFileSync(instanceFile(dataDir), 'utf8')) as RunningInstance).pid === pid;
  } catch {
    return false;
  }
}

/** Removes the file if it is this instance's (a later `npm start` may have written its own). */
export function removeInstanceFile(dataDir: string, pid: number): void {
  if (fileNames(dataDir, pid)) rmSync(instanceFile(dataDir), { force: true });
}

/**
 * The `npm start` running from this data directory, or undefined when there is none (no file, a
 * stale one, or one that is not Weir's). A file others may read is not trusted: it says so.
 */
export function readRunningInstance(dataDir: string): RunningInstance | undefined {
  const file = instanceFile(dataDir);
  let text: string;
  try {
    if (statSync(file).mode & 0o077) throw new Error(`${file} is readable by others; only the npm start that wrote it should be able to read it. Stop Weir, delete the file and start again.`);
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  let parsed: RunningInstance;
  try {
    parsed = JSON.parse(text) as RunningInstance;
  } catch {
    return undefined;
  }
  if (!Number.isInteger(parsed?.pid) || typeof parsed.settings !== 'object' || parsed.settings === null) return undefined;
  if (!alive(parsed.pid)) return undefined;
  const settings = Object.fromEntries(SHARED_SETTINGS.filter((k) => typeof parsed.settings[k] === 'string').map((k) => [k, parsed.settings[k]!]));
  return { pid: parsed.pid, startedAt: String(parsed.startedAt), settings };
}

/** Whether the instance a worker joined is still running: its process alive, its file still its own. */
export function instanceRunning(dataDir: string, pid: number): boolean {
  return alive(pid) && fileNames(dataDir, pid);
}

const joinedDir = (dataDir: string) => path.join(dataDir, 'joined-workers');

/** A joined worker says it is there, for npm start to wait for it before stopping PostgreSQL. */
export function registerJoinedWorker(dataDir: string, pid: number): () => void {
  mkdirSync(joinedDir(dataDir), { recursive: true, mode: 0o700 });
  const file = path.join(joinedDir(dataDir), String(pid));
  writeFileSync(file, '');
  return () => rmSync(file, { force: true });
}

/** The joined workers still alive (the files of dead ones are removed). */
export function joinedWorkerPids(dataDir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(joinedDir(dataDir));
  } catch {
    return [];
  }
  return names
    .map(Number)
    .filter((pid) => {
      if (Number.isInteger(pid) && pid > 0 && alive(pid)) return true;
      rmSync(path.join(joinedDir(dataDir), String(pid)), { force: true });
      return false;
    });
}
