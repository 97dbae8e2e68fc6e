/**
 * Runs one editor Preview in a process of its own, so that no user expression is ever evaluated
 * in the API process: a query that takes minutes of CPU or gigabytes of heap costs the API
 * nothing but the wait.
 *
 * The preview process (preview-process.ts) is forked from a bundle of plain JavaScript
 * (child-bundle.ts, as the worker's engine processes are), with a V8 heap of
 * WEIR_PREVIEW_MEMORY_MB. Once it has loaded the engine it says `ready`; from then the preview has
 * its time limit (5 s) for reading the source and running the query, enforced twice: the child's
 * own timers answer PREVIEW_TIMEOUT naming what was slow, and, because a busy child cannot run
 * its timers, this host kills it (SIGKILL) a moment after the limit and answers PREVIEW_TIMEOUT
 * itself. A child that exhausts its heap answers PREVIEW_RESOURCE_EXHAUSTED naming the limit.
 * Either way the child is killed once the preview has its answer: its connections go with it.
 *
 * At most `maxConcurrent` previews run at once in this process (each may hold its whole heap);
 * one more is refused with PREVIEW_BUSY (429) rather than queued behind them.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { WeirError, type QueryPreview } from '@/lib/engine';
import { childBundle } from './child-bundle';
import type { HostToPreview, PreviewRequest, PreviewToHost } from './preview-protocol';
import type { SerializedError } from './serialized-error';

export interface PreviewProcessLimits {
  /** The preview process's JavaScript heap (V8's old space), in MB: WEIR_PREVIEW_MEMORY_MB. */
  memoryLimitMb: number;
  /** Reading the source and running the query, from the moment the process is ready. */
  timeoutMs: number;
  /** Previews running at once in this process: WEIR_PREVIEW_CONCURRENCY. */
  maxConcurrent: number;
  /** The project directory (where lib/ and node_modules/ are); default: the working directory. */
  root?: string;
}

/** How long after the time limit a child that has not answered is killed (its own timer first). */
const KILL_GRACE_MS = 250;
/** Loading the engine; a loaded machine takes a second or two. */
const START_TIMEOUT_MS = 30_000;
const OOM = /JavaScript heap out of memory|Reached heap limit|Fatal process out of memory/;
const ENTRY = path.join('lib', 'server', 'isolation', 'preview-process.ts');

let running = 0;

function timedOut(timeoutMs: number): WeirError {
  return new WeirError(
    'PREVIEW_TIMEOUT',
    `The preview did not finish within ${timeoutMs} ms and was stopped. Preview fewer records, or a cheaper query (a large repeat(), split() or regexp over long values), or paste a smaller sample.`,
    { timeoutMs },
  );
}

function memoryExhausted(memoryLimitMb: number): WeirError {
  return new WeirError(
    'PREVIEW_RESOURCE_EXHAUSTED',
    `The preview needed more than its memory limit of ${memoryLimitMb} MB (WEIR_PREVIEW_MEMORY_MB) and was stopped. Preview fewer records, or a query that builds less per record (explode() over a large split(), repeat() of long values).`,
    { resource: 'memory', memoryLimitMb, setting: 'WEIR_PREVIEW_MEMORY_MB' },
  );
}

function revive(s: SerializedError): Error {
  const e = s.code ? new WeirError(s.code, s.message, s.details) : new Error(s.message);
  e.name = s.name;
  if (s.stack) e.stack = s.stack;
  return e;
}

/** The preview of `request` in a preview process, within `limits`; the process is gone when this settles. */
export async function previewInProcess(request: Omit<PreviewRequest, 'timeoutMs'>, limits: PreviewProcessLimits): Promise<QueryPreview> {
  if (running >= limits.maxConcurrent) {
    throw new WeirError(
      'PREVIEW_BUSY',
      `${running} previews are running on this server, its limit (WEIR_PREVIEW_CONCURRENCY). Try again in a few seconds.`,
      { running, limit: limits.maxConcurrent, setting: 'WEIR_PREVIEW_CONCURRENCY' },
    );
  }
  running++;
  try {
    const file = await childBundle(limits.root ?? process.cwd(), 'preview-process', ENTRY);
    return await runChild(file, { ...request, timeoutMs: limits.timeoutMs }, limits);
  } finally {
    running--;
  }
}

function runChild(file: string, request: PreviewRequest, limits: PreviewProcessLimits): Promise<QueryPreview> {
  return new Promise<QueryPreview>((resolve, reject) => {
    const child = fork(file, [], {
      // Not this process's flags (Next's, or --import tsx under the tests): the bundle is plain JavaScript.
      execArgv: [`--max-old-space-size=${limits.memoryLimitMb}`],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let settled = false;
    let stderrTail = '';
    let timer: NodeJS.Timeout | undefined;
    const settle = (error: unknown, preview?: QueryPreview) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      if (error) reject(error);
      else resolve(preview!);
    };
    const killAfter = (ms: number, error: () => unknown) => {
      clearTimeout(timer);
      timer = setTimeout(() => settle(error()), ms);
    };
    killAfter(START_TIMEOUT_MS, () => new WeirError('PREVIEW_UNAVAILABLE', `The preview process did not start within ${START_TIMEOUT_MS / 1000} s; the server is overloaded. Try again in a moment.`));
    child.stderr!.on('data', (d: Buffer) => {
      process.stderr.write(d);
      stderrTail = (stderrTail + d.toString('utf8')).slice(-8192);
    });
    child.on('message', (m: PreviewToHost) => {
      if (m.t === 'ready') {
        killAfter(request.timeoutMs + KILL_GRACE_MS, () => timedOut(request.timeoutMs));
        child.send({ t: 'preview', request } satisfies HostToPreview);
      } else if (m.t === 'result') {
        settle(m.error ? revive(m.error) : undefined, m.preview);
      }
    });
    child.on('error', (e) => {
      if (child.pid === undefined) settle(e); // could not fork; a failed send or kill is followed by 'exit'
    });
    // Decided once stderr is read to its end (V8's out-of-memory report comes just before the exit).
    const stderrRead = new Promise((r) => child.stderr!.once('close', r));
    child.on('exit', (code, signal) =>
      void stderrRead.then(() => {
        if (OOM.test(stderrTail)) return settle(memoryExhausted(limits.memoryLimitMb));
        const last = stderrTail.trim().split('\n').at(-1);
        settle(
          new WeirError(
            'PREVIEW_UNAVAILABLE',
            `The preview process exited before answering (${signal ? `signal ${signal}` : `exit code ${code}`})${last ? `: ${last}` : ''}. Try again; if it keeps failing, the server log has its output.`,
            { exitCode: code, signal },
          ),
        );
      }),
    );
  });
}
