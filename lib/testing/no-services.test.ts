/**
 * The unit project's guard (no-services.ts, its setup file) refuses what a unit test must not
 * use. Each case here clears what it recorded, or the guard would fail this file after its tests.
 */
import { execFile, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';

const used = () => (globalThis as Record<symbol, string[]>)[Symbol.for('weir.unit-test.services-used')];
afterEach(() => void used().splice(0));

describe('the unit tests’ service guard', () => {
  it('refuses PostgreSQL’s port as a closed port would, naming the fix', async () => {
    const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
    await expect(client.connect()).rejects.toThrow(/ECONNREFUSED: a unit test used PostgreSQL \(port 5432\): name its file \*\.integration\.test\.ts/);
    expect(used()).toHaveLength(1);
  });

  it('refuses Redis’s and NATS’s ports through net.connect too', async () => {
    for (const port of [6379, 4222]) {
      const err = await new Promise<Error>((resolve) => net.connect({ port, host: '127.0.0.1' }).once('error', resolve));
      expect(err.message).toMatch(port === 6379 ? /Redis/ : /NATS/);
    }
    expect(used()).toHaveLength(2);
  });

  it('refuses to start kcat, the Kafka mock broker, however it is named', () => {
    expect(() => spawn('kcat', ['-V'])).toThrow(/kcat \(the Kafka mock broker\)/);
    expect(() => spawn('/usr/bin/kcat', ['-V'])).toThrow(/kcat/);
    expect(used()).toHaveLength(2);
  });

  it('lets every other connection and program through, promisified execFile included', async () => {
    const server = http.createServer((_, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(await res.text()).toBe('ok');
    } finally {
      server.close();
    }
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', 'process.stdout.write("hi")']);
    expect(stdout).toBe('hi');
    expect(used()).toEqual([]);
  });
});
