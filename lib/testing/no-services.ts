/**
 * Setup file of the unit project (vitest.config.ts): a unit test touches no service. A unit test
 * file that connects to PostgreSQL's, Redis's or NATS's port, or starts kcat (the Kafka mock
 * broker) or a PostgreSQL of its own, fails here, naming what it used and what to do, instead of
 * passing on a machine that runs those services and failing on one that does not.
 *
 * The connection is refused at once (as a closed port would be) and the file fails after its tests,
 * so a client that retries quietly (ioredis reconnects forever) still fails the file.
 * It guards this process only: a child process a test starts is not watched (the proof that the
 * whole unit suite needs no service is `npm run test:unit:isolated`, which has no service at all).
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { afterAll } from 'vitest';

const SERVICE_PORTS = new Map([
  [5432, 'PostgreSQL'],
  [6379, 'Redis'],
  [4222, 'NATS'],
]);
const SERVICE_PROGRAMS = new Map([
  ['kcat', 'kcat (the Kafka mock broker)'],
  ['postgres', 'a PostgreSQL server'],
  ['initdb', 'a PostgreSQL server'],
  ['pg_ctl', 'a PostgreSQL server'],
  ['redis-server', 'a Redis server'],
  ['nats-server', 'a NATS server'],
]);

const USED = Symbol.for('weir.unit-test.services-used');
const PATCHED = Symbol.for('weir.unit-test.guard-installed');
type Global = typeof globalThis & { [USED]?: string[]; [PATCHED]?: boolean };
const g = globalThis as Global;

function note(what: string): string {
  const message = `a unit test used ${what}: name its file *.integration.test.ts (see README, "Tests")`;
  g[USED]?.push(message);
  return message;
}

/** The port a `Socket#connect` call is for, whichever of its forms it was called with. */
function portOf(args: unknown[]): number | undefined {
  // net.connect() passes its already-normalised arguments as one array.
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (typeof first === 'object' && first !== null && 'port' in first) return Number((first as { port: unknown }).port);
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) return Number(first);
  return undefined;
}

function install(): void {
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const service = SERVICE_PORTS.get(portOf(args) ?? -1);
    if (service === undefined) return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
    const err = Object.assign(new Error(`connect ECONNREFUSED: ${note(`${service} (port ${portOf(args)})`)}`), { code: 'ECONNREFUSED' });
    process.nextTick(() => this.destroy(err));
    return this;
  } as typeof connect;

  for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync'] as const) {
    const original = childProcess[name] as (...a: unknown[]) => unknown;
    const guarded = function (this: unknown, file: unknown, ...rest: unknown[]) {
      const program = typeof file === 'string' ? SERVICE_PROGRAMS.get(path.basename(file)) : undefined;
      if (program !== undefined) throw new Error(note(program));
      return original.call(this, file, ...rest);
    };
    // execFile's own properties tell util.promisify to resolve with { stdout, stderr }.
    Object.defineProperties(guarded, Object.getOwnPropertyDescriptors(original));
    (childProcess as unknown as Record<string, unknown>)[name] = guarded;
  }
  // `import { spawn } from 'node:child_process'` reads the patched function from now on.
  syncBuiltinESMExports();
}

if (!g[PATCHED]) {
  install();
  g[PATCHED] = true;
}
g[USED] = [];

afterAll(() => {
  const used = [...new Set(g[USED])];
  if (used.length > 0) throw new Error(used.join('\n'));
});
