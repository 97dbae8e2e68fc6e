// `npm start` as a user runs it: the embedded default (fresh data dir), Ctrl-C, and a second start
// that finds the same jobs; its supervision of the embedded PostgreSQL (killed: restarted; left
// behind by a killed npm start: stopped by the next) and of the dashboard (killed: restarted while
// PostgreSQL and the worker go on; failing after every restart: given up); then DATABASE_URL +
// REDIS_URL pointing at this machine's services.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../lib/server/testing/database';
import { waitFor } from '../lib/testing/wait-for';

const ROOT = path.resolve(import.meta.dirname, '..');
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

interface Started {
  child: ChildProcess;
  output: () => string;
  health: { database: { ok: boolean }; queue: { backend: string; ok: boolean }; workers: unknown[] };
}

async function start(env: Record<string, string>, port: number): Promise<Started> {
  // Detached so that, like a terminal's Ctrl-C, a signal to the group reaches every process at once.
  const child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', 'scripts/start.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', PORT: String(port), ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  cleanups.push(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group has already gone
    }
    // The embedded PostgreSQL is detached from the group on purpose; end it too if a test failed.
    if (env.WEIR_DATA_DIR) {
      const pid = postmasterPid(env.WEIR_DATA_DIR);
      if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });
  const until = Date.now() + 240_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`npm start exited early:\n${out}`);
    try {
      const health = await (await fetch(`http://127.0.0.1:${port}/api/health`)).json();
      // Ready means both: healthy, and npm start has printed the dashboard URL (it polls health
      // itself, so it may print a moment after we first see a worker).
      if (health.workers?.length > 0 && /\[weir\] dashboard: /.test(out)) return { child, output: () => out, health };
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`not healthy in time:\n${out}`);
}

/** The terminal's lines, without blank ones. */
function terminalLines(output: string): string[] {
  return output.split('\n').filter((l) => l.trim() !== '');
}

async function ctrlC(s: Started): Promise<number | null> {
  const exited = new Promise<number | null>((r) => s.child.once('exit', (code) => r(code)));
  process.kill(-s.child.pid!, 'SIGINT');
  return exited;
}

/** The pid in the embedded PostgreSQL's lock file, if there is one. */
function postmasterPid(dataDir: string): number | undefined {
  const f = path.join(dataDir, 'pg', 'postmaster.pid');
  return existsSync(f) ? Number(readFileSync(f, 'utf8').split('\n')[0]) : undefined;
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/** Live processes whose command line names this data directory (the postmaster is `postgres -D <dir>/pg`). */
function processesOf(dataDir: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(dataDir) && alive(Number(d));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** npm start's children whose command line contains `needle` (the dashboard: `next-server`, the title Next gives its process; the worker: `worker/main.ts`). */
function childrenOf(ppid: number, needle: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return parent === ppid && alive(Number(d)) && readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(needle);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The one live child of npm start matching `needle`. */
function onlyChild(s: Started, needle: string): number {
  const pids = childrenOf(s.child.pid!, needle);
  expect(pids, `npm start's children running ${needle}`).toHaveLength(1);
  return pids[0];
}

/** Waits for `re` in the terminal; npm start exiting meanwhile fails at once, with its output. */
function untilSaid(s: Started, re: RegExp): Promise<true> {
  return until(`${re} in the terminal`, () => {
    if (re.test(s.output())) return true;
    if (s.child.exitCode !== null || s.child.signalCode !== null) throw new Error(`npm start exited (${s.child.exitCode ?? s.child.signalCode}) before saying ${re}:\n${s.output()}`);
    return false;
  });
}

async function health(port: number): Promise<{ status: string; database: { ok: boolean } } | null> {
  try {
    return await (await fetch(`http://127.0.0.1:${port}/api/health`)).json();
  } catch {
    return null;
  }
}

/** Generous: on a loaded machine a restart and the worker's next heartbeat can take a while. */
const until = <T>(what: string, fn: () => Promise<T | undefined | null | false> | T | undefined | null | false) => waitFor(what, fn, 120_000);

/**
 * A port free now, chosen by the OS. PostgreSQL's ports here would otherwise sit in the kernel's
 * ephemeral range (32768–60999), where any outgoing connection of a busy machine may hold a fixed
 * one for a moment: a start then fails with "could not create any TCP/IP sockets".
 */
function freePort(): Promise<string> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(String(port)));
    });
  });
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.once('connect', () => (sock.destroy(), resolve(true)));
    sock.once('error', () => resolve(false));
  });
}

/** Sends a request on one keep-alive connection, leaves it idle for `idleMs`, then another on it. */
async function answersAfterIdle(port: number, idleMs: number): Promise<boolean> {
  const socket = net.connect(port, '127.0.0.1');
  let closed = false;
  let received = '';
  socket.on('close', () => (closed = true));
  socket.on('error', () => (closed = true));
  socket.on('data', (d) => (received += d.toString()));
  const ask = async () => {
    const before = (received.match(/HTTP\/1\.1 /g) ?? []).length;
    socket.write('GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
    return until('an answer on the kept connection', () => closed || (received.match(/HTTP\/1\.1 /g) ?? []).length > before);
  };
  await new Promise((r) => socket.once('connect', r));
  await ask();
  await new Promise((r) => setTimeout(r, idleMs));
  const open = !closed;
  if (open) await ask();
  socket.destroy();
  return open && !closed;
}

describe('npm start', () => {
  it('starts the embedded default, stops cleanly on Ctrl-C, and finds the same jobs on the next start', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'weir-start-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const token = 'start-test-admin-token-0123456789';
    const pgPort = await freePort();
    const env = { WEIR_DATA_DIR: dataDir, WEIR_EMBEDDED_PG_PORT: pgPort, WEIR_ADMIN_TOKEN: token };

    const first = await start(env, 3211);
    expect(first.health.database.ok).toBe(true);
    expect(first.health.queue).toEqual({ backend: 'postgres', ok: true });
    expect(first.health.workers).toHaveLength(1);
    expect(first.output()).toMatch(/dashboard: http:\/\/127\.0\.0\.1:3211/);
    // The terminal says only what a person needs, each once: no route table, no JSON log lines.
    const logFile = path.join(dataDir, 'logs', 'weir.log');
    await until('the last line', () => /Ctrl-C stops everything/.test(first.output()));
    // (A build line appears when the sources changed since the last build: this checkout's edits.)
    expect(terminalLines(first.output()).filter((l) => !/^\[weir\] (building the dashboard|the sources changed since the last build)/.test(l))).toEqual([
      `[weir] starting; details go to ${logFile}`,
      '[weir] dashboard: http://127.0.0.1:3211',
      `[weir] data:      ${dataDir} (PostgreSQL in ${path.join(dataDir, 'pg')}; checkpoints in ${path.join(dataDir, 'checkpoints')})`,
      `[weir] log:       ${logFile} (LOG_LEVEL=debug shows it here too)`,
      '[weir] Ctrl-C stops everything.',
    ]);
    // The detail is in the log file it names: Next's banner, the worker's JSON lines, the migrations.
    // (The worker logs "worker started" just after its first heartbeat, which health waits for.)
    const logged = await until('the worker in the log file', () => {
      const text = readFileSync(logFile, 'utf8');
      return /"msg":"worker started"/.test(text) && text;
    });
    expect(logged).toMatch(/Next\.js/);
    expect(logged).toMatch(/\[weir\] applied migrations: /);
    expect(logged).toMatch(new RegExp(`\\[weir\\] embedded PostgreSQL on 127\\.0\\.0\\.1:${pgPort}`));

    // The data directory's own password, kept owner-only beside its data.
    expect(statSync(path.join(dataDir, 'pg-password')).mode & 0o777).toBe(0o600);
    const url = `postgres://postgres:${readFileSync(path.join(dataDir, 'pg-password'), 'utf8').trim()}@127.0.0.1:${pgPort}/weir`;
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(
      `INSERT INTO "Job" (id, name, spec, sql, "sourceType", "sinkType", "outputMode", trigger, "checkpointLocation", "updatedAt")
       VALUES (gen_random_uuid(), 'kept-across-restarts', '{}', 'SELECT 1', 'files', 'files', 'append', '{}', '/tmp/x', now())`,
    );
    await c.end();

    expect(await ctrlC(first)).toBe(0);
    expect(first.output()).toMatch(/\[weir\] stopped/);
    // Everything is down: the dashboard and the embedded PostgreSQL.
    expect(await portOpen(3211)).toBe(false);
    expect(await portOpen(Number(pgPort))).toBe(false);

    const second = await start(env, 3211);
    const jobs = await (await fetch('http://127.0.0.1:3211/api/jobs', { headers: { authorization: `Bearer ${token}` } })).json();
    expect(JSON.stringify(jobs)).toContain('kept-across-restarts');
    expect(readFileSync(path.join(dataDir, 'logs', 'weir.log'), 'utf8')).toMatch(/database schema is up to date/);
    expect(second.output()).not.toMatch(/database schema/);
    // An idle keep-alive connection outlives Node's 5 s default, so a client reusing it then gets
    // an answer rather than a reset (ECONNRESET: a 502 behind a load balancer).
    expect(await answersAfterIdle(3211, 6_000)).toBe(true);
    expect(await ctrlC(second)).toBe(0);
  }, 300_000);

  it('restarts a killed embedded PostgreSQL (health degraded, then ok), and Ctrl-C stops the restarted one', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'weir-start-pg-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = { WEIR_DATA_DIR: dataDir, WEIR_EMBEDDED_PG_PORT: await freePort(), WEIR_ADMIN_TOKEN: 'start-test-admin-token-0123456789' };
    const s = await start(env, 3501);
    const first = postmasterPid(dataDir)!;
    expect(alive(first)).toBe(true);

    process.kill(first, 'SIGKILL');
    // Until it is back, health says so (the restart waits at least a second).
    await until('health degraded', async () => (await health(3501))?.status === 'degraded');
    await until('the restart', () => /embedded PostgreSQL is back/.test(s.output()));
    expect(s.output()).toMatch(new RegExp(`embedded PostgreSQL \\(pid ${first}\\) died: killed by SIGKILL`));
    expect(s.output()).toMatch(/restarting the embedded PostgreSQL in 1s/);
    const second = postmasterPid(dataDir)!;
    expect(second).not.toBe(first);
    await until('health ok again', async () => (await health(3501))?.status === 'ok');

    expect(await ctrlC(s)).toBe(0);
    expect(alive(second)).toBe(false);
    expect(processesOf(dataDir)).toEqual([]);
    expect(await portOpen(54501)).toBe(false);
  }, 300_000);

  it('restarts a dashboard that died, leaving PostgreSQL and the worker running; Ctrl-C in the back-off wait stops everything', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'weir-start-dash-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = { WEIR_DATA_DIR: dataDir, WEIR_EMBEDDED_PG_PORT: await freePort(), WEIR_ADMIN_TOKEN: 'start-test-admin-token-0123456789' };
    const s = await start(env, 3505);
    const logFile = path.join(dataDir, 'logs', 'weir.log');
    const dashboard = onlyChild(s, 'next-server');
    const worker = onlyChild(s, 'worker/main.ts');
    const postgres = postmasterPid(dataDir)!;

    // As the server dies when an expensive request exhausts its heap: the rest must stay up.
    process.kill(dashboard, 'SIGKILL');
    await untilSaid(s, /the dashboard is back/);
    const out = s.output();
    expect(out).toContain(`[weir] the dashboard (pid ${dashboard}) died: killed by SIGKILL; its last lines are in ${logFile}`);
    expect(out).toContain('[weir] restarting the dashboard in 1s (attempt 1); until it is back, http://127.0.0.1:3505 does not answer');
    expect(out).not.toMatch(/stopping/);
    const h = await until('health ok again, with the worker', async () => {
      const r = (await health(3505)) as { status: string; workers?: unknown[] } | null;
      return r?.status === 'ok' && (r.workers?.length ?? 0) > 0 && r;
    });
    expect(h.workers).toHaveLength(1);
    const restarted = onlyChild(s, 'next-server');
    expect(restarted).not.toBe(dashboard);
    expect(out).toContain(`[weir] the dashboard is back (pid ${restarted})`);
    // PostgreSQL and the worker were never stopped: the same processes.
    expect(onlyChild(s, 'worker/main.ts')).toBe(worker);
    expect(postmasterPid(dataDir)).toBe(postgres);
    expect(alive(postgres)).toBe(true);

    // Dead again, and Ctrl-C while npm start waits to restart it: everything stops, cleanly.
    process.kill(restarted, 'SIGKILL');
    await untilSaid(s, new RegExp(`the dashboard \\(pid ${restarted}\\) died[^]*restarting the dashboard in`));
    expect(await ctrlC(s)).toBe(0);
    expect(s.output()).toMatch(/\[weir\] stopped/);
    expect(s.output().match(/the dashboard is back/g)).toHaveLength(1);
    expect(alive(worker)).toBe(false);
    expect(processesOf(dataDir)).toEqual([]);
    expect(await portOpen(3505)).toBe(false);
    expect(await portOpen(54504)).toBe(false);
  }, 300_000);

  it('gives up on a dashboard that fails right after each restart (its port taken), and stops everything with exit code 1', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'weir-start-dash-port-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = { WEIR_DATA_DIR: dataDir, WEIR_EMBEDDED_PG_PORT: await freePort(), WEIR_ADMIN_TOKEN: 'start-test-admin-token-0123456789' };
    const s = await start(env, 3506);
    const dashboard = onlyChild(s, 'next-server');
    const worker = onlyChild(s, 'worker/main.ts');
    // npm start is paused while its dashboard dies and another process takes the port, so that
    // every restart finds the port taken (as when something else grabs it after a crash).
    const squatter = net.createServer((sock) => sock.destroy());
    cleanups.push(() => new Promise<void>((r) => squatter.close(() => r())));
    process.kill(s.child.pid!, 'SIGSTOP');
    try {
      process.kill(dashboard, 'SIGKILL');
      await until('the port free', async () => !(await portOpen(3506)));
      await new Promise<void>((resolve, reject) => squatter.once('error', reject).listen(3506, '127.0.0.1', () => resolve()));
    } finally {
      process.kill(s.child.pid!, 'SIGCONT');
    }
    const code = await new Promise<number | null>((r) => (s.child.exitCode !== null ? r(s.child.exitCode) : s.child.once('exit', (c) => r(c))));
    const out = s.output();
    expect(code, out).toBe(1);
    expect(out).toContain(`[weir] the dashboard (pid ${dashboard}) died: killed by SIGKILL`);
    expect(out.match(/\[weir\] the dashboard did not restart: the dashboard \(pid \d+\) exited before it answered at http:\/\/127\.0\.0\.1:3506: exit code \d+/g)).toHaveLength(5);
    for (const [attempt, delay] of [[1, 1], [2, 2], [3, 4], [4, 8], [5, 16]]) expect(out).toContain(`restarting the dashboard in ${delay}s (attempt ${attempt})`);
    expect(out).toContain('[weir] the dashboard failed 6 times in a row, each within 60s of starting: giving up. Is port 3506 on 127.0.0.1 taken (set PORT to a free one)?');
    expect(out).toMatch(/\[weir\] stopped/);
    expect(alive(worker)).toBe(false);
    expect(processesOf(dataDir)).toEqual([]);
    expect(await portOpen(54505)).toBe(false);
  }, 300_000);

  it('after npm start is killed with SIGKILL, its server and worker stop themselves and the next start stops the PostgreSQL it left', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'weir-start-kill-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = { WEIR_DATA_DIR: dataDir, WEIR_EMBEDDED_PG_PORT: await freePort(), WEIR_ADMIN_TOKEN: 'start-test-admin-token-0123456789' };
    const killed = await start(env, 3502);
    const leftover = postmasterPid(dataDir)!;
    const exited = new Promise((r) => killed.child.once('exit', r));
    process.kill(killed.child.pid!, 'SIGKILL'); // npm start alone, as a supervisor's timeout would
    await exited;
    // The dashboard and the worker notice and stop; the detached postmaster lives on.
    await until('the dashboard gone', async () => !(await portOpen(3502)));
    expect(alive(leftover)).toBe(true);

    const next = await start(env, 3502);
    expect(readFileSync(path.join(dataDir, 'logs', 'weir.log'), 'utf8')).toMatch(new RegExp(`found PostgreSQL \\(pid ${leftover}\\) still running`));
    expect(alive(leftover)).toBe(false);
    expect(next.health.database.ok).toBe(true);
    // The killed start's worker stops too: soon only the new one heartbeats. Waited for, not
    // asserted at once: on a loaded machine the old worker may still be finishing its shutdown
    // when the new start is up. A worker that went on running would keep the count at 2.
    await until('only the new worker heartbeats', async () => ((await health(3502)) as { workers?: unknown[] } | null)?.workers?.length === 1);
    const current = postmasterPid(dataDir)!;
    expect(await ctrlC(next)).toBe(0);
    expect(alive(current)).toBe(false);
    expect(processesOf(dataDir)).toEqual([]);
  }, 300_000);

  it('refuses to start on a data directory another running npm start uses, naming it', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'weir-start-twice-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = { WEIR_DATA_DIR: dataDir, WEIR_EMBEDDED_PG_PORT: await freePort(), WEIR_ADMIN_TOKEN: 'start-test-admin-token-0123456789' };
    const running = await start(env, 3503);
    const pg = postmasterPid(dataDir)!;
    const second = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', 'scripts/start.ts'], {
      cwd: ROOT,
      env: { ...process.env, ...env, DATABASE_URL: '', REDIS_URL: '', PORT: '3504' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    second.stdout!.on('data', (d) => (out += d));
    second.stderr!.on('data', (d) => (out += d));
    expect(await new Promise((r) => second.once('exit', r))).toBe(1);
    expect(out).toMatch(new RegExp(`Another npm start \\(pid ${running.child.pid}\\) is running from this data directory`));
    // The running one is untouched.
    expect(alive(pg)).toBe(true);
    expect((await health(3503))?.status).toBe('ok');
    expect(await ctrlC(running)).toBe(0);
  }, 300_000);

  it('uses DATABASE_URL and runs BullMQ on Redis when REDIS_URL is set; LOG_LEVEL=debug shows the detail in the terminal', async () => {
    const db = await createTestDatabase('weir_start', { migrate: false });
    cleanups.push(() => db.drop());
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'weir-start-url-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const s = await start({ DATABASE_URL: db.url, REDIS_URL: 'redis://127.0.0.1:6379', WEIR_DATA_DIR: dataDir, LOG_LEVEL: 'debug' }, 3212);
    expect(s.health.queue).toEqual({ backend: 'redis', ok: true });
    expect(s.health.workers).toHaveLength(1);
    await until('the last line', () => /Ctrl-C stops everything/.test(s.output()));
    expect(s.output()).toMatch(/\[weir\] data: +\S+ \(PostgreSQL at DATABASE_URL; /);
    // Debug: what normally goes only to the log file is in the terminal too.
    expect(s.output()).toMatch(/\[weir\] using DATABASE_URL/);
    // The worker logs this just after its first heartbeat, which health may see first.
    await until('the worker\'s start line', () => /"msg":"worker started"/.test(s.output()));
    expect(s.output()).toMatch(/Next\.js/);
    expect(s.output()).toMatch(/\[weir\] log: +\S+weir\.log\n/);
    expect(await ctrlC(s)).toBe(0);
  }, 300_000);

  it('fails at once on a bad variable, naming it', async () => {
    const child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', 'scripts/start.ts'], {
      cwd: ROOT,
      env: { ...process.env, PORT: 'not-a-port' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stderr!.on('data', (d) => (out += d));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(2);
    expect(out).toMatch(/PORT: /);
  });
  it('a worker started beside npm start joins it (WEIR_WORKERS=2 starts two); a killed worker\'s transactional job fails over with every row once', async () => {
    // Each step says when it began: a step that hangs is then named by the test's output.
    const step = (what: string) => console.log(`${new Date().toISOString()} join test: ${what}`);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'weir-start-join-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const sinkDb = await createTestDatabase('weir_start_join', { migrate: false });
    cleanups.push(() => sinkDb.drop());
    const token = 'start-test-admin-token-join-0123456789';
    // Short failover so the test waits seconds, not the default 15 s, for the dead worker's run.
    const timing = { WEIR_FAILOVER_MS: '3000', WEIR_LEASE_TTL_MS: '2000', WEIR_LEASE_RENEW_MS: '300', WEIR_WORKER_HEARTBEAT_MS: '500', WEIR_WORKER_TIMEOUT_MS: '3000' };
    step('npm start');
    const s = await start({ WEIR_DATA_DIR: dataDir, WEIR_EMBEDDED_PG_PORT: await freePort(), WEIR_ADMIN_TOKEN: token, WEIR_WORKERS: '2', ...timing }, 3508);
    const supervisedWorkers = childrenOf(s.child.pid!, 'worker/main.ts');
    expect(supervisedWorkers).toHaveLength(2);
    // The instance file holds the database password: owner-only.
    const instance = path.join(dataDir, 'instance.json');
    await until('the instance file', () => existsSync(instance));
    expect(statSync(instance).mode & 0o777).toBe(0o600);

    step('a worker with nothing to join');
    // Nothing to join in another folder: a clear refusal, no stack trace.
    const lonely = mkdtempSync(path.join(os.tmpdir(), 'weir-start-nojoin-'));
    cleanups.push(() => rmSync(lonely, { recursive: true, force: true }));
    const refused = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', 'worker/main.ts'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', WEIR_DATA_DIR: lonely }, stdio: ['ignore', 'pipe', 'pipe'] });
    let refusal = '';
    refused.stderr!.on('data', (d) => (refusal += d));
    expect(await new Promise((r) => refused.once('exit', r))).toBe(2);
    expect(refusal).toMatch(/DATABASE_URL is not set, and no npm start is running from .*weir-start-nojoin-.*Start Weir with `npm start` in this folder first/);
    expect(refusal).not.toMatch(/\n\s+at /);

    step('a worker that joins');
    // `npm run worker` from the same folder, without DATABASE_URL: it joins (as the user types it, only the data directory in common).
    // Its exit is awaited from the moment it starts, so an exit is never missed (the kill below
    // may pick it).
    const joinWorker = () => {
      const child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', 'worker/main.ts'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', WEIR_DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      const w = { child, out: '', exit: new Promise<number | null>((r) => child.once('exit', (code) => r(code))) };
      child.stdout!.on('data', (d) => (w.out += d));
      child.stderr!.on('data', (d) => (w.out += d));
      cleanups.push(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // gone
        }
      });
      return w;
    };
    let joined = joinWorker();
    await until('three workers in health', async () => ((await health(3508)) as { workers?: unknown[] } | null)?.workers?.length === 3);
    // It heartbeats (health) just before it says so.
    await until('the joined worker\'s line', () => /joined the npm start/.test(joined.out));
    expect(joined.out).toMatch(new RegExp(`joined the npm start \\(pid ${s.child.pid}\\) running from ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));

    step('the job');
    // A transactional files -> postgres job, fed a file at a time.
    const api = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`http://127.0.0.1:3508${url}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = await res.json();
      expect(res.status, JSON.stringify(json)).toBeLessThan(300);
      return json;
    };
    const inDir = path.join(dataDir, 'files', 'orders');
    mkdirSync(inDir, { recursive: true });
    let files = 0;
    const ROWS = 5;
    const addFile = () => {
      const name = `part-${String(files).padStart(3, '0')}.json`;
      const lines = Array.from({ length: ROWS }, (_, i) => JSON.stringify({ order_id: files * ROWS + i, amount: 1 }));
      writeFileSync(path.join(inDir, `.${name}`), lines.join('\n') + '\n');
      renameSync(path.join(inDir, `.${name}`), path.join(inDir, name));
      files++;
    };
    const spec = {
      name: 'failover-orders',
      source: { name: 'orders', type: 'files', options: { path: inDir, format: 'json', maxFilesPerTrigger: 1 }, schema: [{ name: 'order_id', type: 'long' }, { name: 'amount', type: 'double' }] },
      sql: 'SELECT order_id, amount FROM orders',
      sink: { type: 'postgres', options: { connectionString: sinkDb.url, table: 'orders_out', mode: 'transactional' } },
      outputMode: 'append',
      trigger: { type: 'processing-time', interval: '200 milliseconds' },
      checkpointLocation: path.join(dataDir, 'checkpoints', 'failover-orders'),
    };
    const { job } = await api('POST', '/api/jobs', { spec });
    for (let i = 0; i < 3; i++) addFile();
    await api('POST', `/api/jobs/${job.id}/start`);
    const sinkRows = async () => {
      try {
        return (await sinkDb.pool.query<{ n: number; d: number }>('SELECT count(*)::int AS n, count(DISTINCT order_id)::int AS d FROM orders_out')).rows[0];
      } catch {
        return { n: 0, d: 0 }; // the table is made with the first batch
      }
    };
    await until('the first batches in the sink', async () => (await sinkRows()).n >= ROWS);

    step('the kill');
    // Kill the worker running it, whichever of the three it is.
    type Run = { runId: string; workerId: string | null; status: string };
    const runs = async () => ((await api('GET', `/api/jobs/${job.id}/runs`)) as { items: Run[] }).items;
    const running = await until('the running run', async () => (await runs()).find((r) => r.status === 'RUNNING' && r.workerId));
    const victim = Number(running.workerId!.split('-').at(-2));
    expect([...supervisedWorkers, joined.child.pid]).toContain(victim);
    process.kill(victim, 'SIGKILL');
    step(`killed ${victim === joined.child.pid ? 'the joined worker' : 'a worker npm start supervises'}`);
    for (let i = 0; i < 3; i++) addFile();

    step('the failover');
    // Another run takes over from the checkpoint, on another worker, and every row arrives once.
    await until('a run on another worker', async () => (await runs()).find((r) => r.status === 'RUNNING' && r.runId !== running.runId && r.workerId && !r.workerId.includes(`-${victim}-`)));
    const all = await until('every row in the sink', async () => {
      const r = await sinkRows();
      return r.d === files * ROWS && r;
    });
    expect(all).toEqual({ n: files * ROWS, d: files * ROWS });

    step('Ctrl-C');
    // Ctrl-C: npm start stops, and the worker that joined it leaves with it. If the kill took the
    // joined worker, another joins first.
    if (victim === joined.child.pid) {
      joined = joinWorker();
      await until('a second joined worker\'s line', () => /joined the npm start/.test(joined.out));
    }
    expect(await ctrlC(s)).toBe(0);
    expect(await joined.exit, joined.out).toBe(0);
    expect(joined.out).toMatch(/the npm start this worker joined \(pid \d+\) is stopping: stopping/);
    // It stopped gracefully before PostgreSQL did (npm start waited for it): its own exit line.
    expect(joined.out).toMatch(/"msg":"worker stopped"/);
    expect(existsSync(instance)).toBe(false);
  }, 600_000);
});
