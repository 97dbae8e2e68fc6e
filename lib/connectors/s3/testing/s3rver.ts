/**
 * s3rver for tests, in a child process of its own (./s3rver-main.mjs, plain node): whatever
 * s3rver throws outside a request handler ends that process, not the test runner, where it
 * would be an uncaught exception that fails the whole run. If the server dies before `stop()`,
 * `assertAlive()` (call it in an `afterEach`) fails the test with its exit status and stderr,
 * rather than leaving only connection errors to explain it.
 *
 *   let s3: S3rverProcess;
 *   beforeAll(async () => { s3 = await startS3rver(); });
 *   afterEach(() => s3.assertAlive());
 *   afterAll(() => s3.stop());
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const MAIN = path.join(import.meta.dirname, 's3rver-main.mjs');

export interface S3rverProcess {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  readonly port: number;
  /** The directory s3rver keeps its buckets in. */
  readonly directory: string;
  /** Throws, with the server's exit status and stderr, if it exited before `stop()`. */
  assertAlive(): void;
  /** Ends the server and removes its directory. */
  stop(): Promise<void>;
}

export async function startS3rver(opts: { readyTimeoutMs?: number } = {}): Promise<S3rverProcess> {
  const directory = await mkdtemp(path.join(tmpdir(), 'weir-s3rver-'));
  // stdin stays an open pipe: the server exits when it closes, so it cannot outlive this process.
  const child = spawn(process.execPath, [MAIN, '--directory', directory, '--port', '0'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c: string) => { stderr = (stderr + c).slice(-8000); });
  child.stdin.on('error', () => undefined); // EPIPE once the child is gone: its exit says why.
  let stopping = false;
  let died: Error | null = null;
  const exited = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      if (!stopping) died = new Error(`s3rver (pid ${child.pid}) exited unexpectedly (${signal ? `signal ${signal}` : `exit code ${code}`}); every S3 request after that fails. Its stderr:\n${stderr.trim() || '(empty)'}`);
      resolve();
    });
  });
  const cleanup = async () => {
    stopping = true;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    }
    await rm(directory, { recursive: true, force: true });
  };

  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`s3rver did not report ready within ${opts.readyTimeoutMs ?? 20_000} ms. Its stderr:\n${stderr.trim() || '(empty)'}`)), opts.readyTimeoutMs ?? 20_000);
      child.stdout.on('data', (c: string) => {
        stdout += c;
        const line = stdout.split('\n').find((l) => l.startsWith('{"ready":true'));
        if (line) { clearTimeout(timer); resolve((JSON.parse(line) as { port: number }).port); }
      });
      child.on('error', (e) => { clearTimeout(timer); reject(e); });
      void exited.then(() => { clearTimeout(timer); reject(died ?? new Error('s3rver exited before it was ready.')); });
    });
  } catch (e) {
    await cleanup();
    throw e;
  }

  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    directory,
    assertAlive() {
      if (died) throw died;
    },
    stop: cleanup,
  };
}
