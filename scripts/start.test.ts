// `npm start` as a user runs it: the embedded default (fresh data dir), Ctrl-C, and a second start
// that finds the same jobs; then DATABASE_URL + REDIS_URL pointing at this machine's services.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../lib/server/testing/database';

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
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', PORT: String(port), ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  cleanups.push(() => {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    // The embedded PostgreSQL is detached from the group on purpose; end it too if a test failed.
    if (env.WEIR_DATA_DIR) spawn('pkill', ['-f', env.WEIR_DATA_DIR]);
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

async function ctrlC(s: Started): Promise<number | null> {
  const exited = new Promise<number | null>((r) => s.child.once('exit', (code) => r(code)));
  process.kill(-s.child.pid!, 'SIGINT');
  return exited;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.once('connect', () => (sock.destroy(), resolve(true)));
    sock.once('error', () => resolve(false));
  });
}

describe('npm start', () => {
  it('starts the embedded default, stops cleanly on Ctrl-C, and finds the same jobs on the next start', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'weir-start-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const token = 'start-test-admin-token-0123456789';
    const env = { WEIR_DATA_DIR: dataDir, WEIR_EMBEDDED_PG_PORT: '54349', WEIR_ADMIN_TOKEN: token };

    const first = await start(env, 3211);
    expect(first.health.database.ok).toBe(true);
    expect(first.health.queue).toEqual({ backend: 'postgres', ok: true });
    expect(first.health.workers).toHaveLength(1);
    expect(first.output()).toMatch(/dashboard: http:\/\/127\.0\.0\.1:3211/);

    const url = 'postgres://postgres:weir-embedded@127.0.0.1:54349/weir';
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
    expect(await portOpen(54349)).toBe(false);

    const second = await start(env, 3211);
    const jobs = await (await fetch('http://127.0.0.1:3211/api/jobs', { headers: { authorization: `Bearer ${token}` } })).json();
    expect(JSON.stringify(jobs)).toContain('kept-across-restarts');
    expect(second.output()).toMatch(/database schema is up to date/);
    expect(await ctrlC(second)).toBe(0);
  }, 300_000);

  it('uses DATABASE_URL and runs BullMQ on Redis when REDIS_URL is set', async () => {
    const db = await createTestDatabase('weir_start', { migrate: false });
    cleanups.push(() => db.drop());
    const s = await start({ DATABASE_URL: db.url, REDIS_URL: 'redis://127.0.0.1:6379' }, 3212);
    expect(s.health.queue).toEqual({ backend: 'redis', ok: true });
    expect(s.health.workers).toHaveLength(1);
    expect(s.output()).toMatch(/using DATABASE_URL/);
    expect(await ctrlC(s)).toBe(0);
  }, 300_000);

  it('fails at once on a bad variable, naming it', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
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
});
