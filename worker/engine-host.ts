/**
 * Runs one run's engine in a process of its own, so that one run can never take down another.
 *
 * The engine (MicroBatchExecution, its source, sink and state) lives in engine-process.ts, forked
 * with a V8 heap of WEIR_RUN_MEMORY_MB. A run that exhausts it dies alone: its run ends FAILED with
 * RESOURCE_EXHAUSTED naming the limit, while this worker process (its heartbeat, its lease
 * renewals, its other runs) goes on. A process, not a worker thread: with `resourceLimits`, a
 * thread whose Map (an aggregation's state) or array grows past the limit in one allocation
 * aborts the whole process (V8's fatal OOM; Node gives a dying thread 16 MB of leeway), and that
 * is exactly the query that needs containing.
 *
 * EngineHost has the surface of MicroBatchExecution that run-processor.ts drives (start, id,
 * run, stop) with the same meaning; fence(), progress and log lines are calls back from the
 * engine process, awaited there exactly as the in-process callbacks were. An error thrown by a
 * callback here (LeaseLostError, a failed progress write) comes back out of run() as the same
 * object; an engine error comes back with its name, code, message and details, and a
 * CrashPointError as a CrashPointError (drills).
 *
 * CPU: the engine runs on its own process, so however long a record takes (the expression limits
 * bound that), this process's event loop stays free: heartbeats, lease renewals and the other
 * runs' calls keep their time, and the operating system shares the cores between the runs.
 *
 * The engine process is plain JavaScript bundled once per worker process (engineBundle, through
 * the child-bundle helper the API's preview processes use too): loading TypeScript through tsx in
 * each run's process tripled its memory (147 MB against 50 MB idle).
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { CrashPointError, WeirError, type CrashPlan, type EngineLogEvent, type JobSpec, type OutboundPolicy, type StreamingQueryProgress } from '@/lib/engine';
import { childBundle } from '@/lib/server/isolation/child-bundle';
import { serializeError, type EngineCommand, type EngineToHost, type HostToEngine, type SerializedError } from './engine-protocol';
import type { TaskOutcome, TaskPayload } from './shuffle';

const ROOT = path.resolve(import.meta.dirname, '..');

/** The engine process's entry as one JavaScript file, built once per process (lib/server/isolation/child-bundle.ts). */
export function engineBundle(): Promise<string> {
  return childBundle(ROOT, 'engine-process', path.join('worker', 'engine-process.ts'));
}

export interface EngineHostOptions {
  spec: JobSpec;
  /** The run's runId (its Run row's), which the engine's progress carries. */
  runId?: string;
  crash?: CrashPlan;
  /** Installed in the engine process, whose sinks and sources make the connections. */
  outbound?: OutboundPolicy;
  fence: () => Promise<void>;
  onProgress: (p: StreamingQueryProgress) => Promise<void>;
  /** A trigger found no new data in the source (at most every 10 s while idle); not awaited. */
  onQueryIdle?: (timestampMs: number) => void;
  log: (event: EngineLogEvent) => void;
  /** The engine process's JavaScript heap (V8's old space), in MB. */
  memoryLimitMb: number;
  /** MicroBatchExecutionOptions.stateLocalDir. */
  stateLocalDir?: string;
  /** MicroBatchExecutionOptions.currentUser: whom the query runs as (current_user()). */
  currentUser?: string;
  /**
   * WEIR_TASK_SCHEDULER=cluster: the run's reduce tasks go to the workers through this
   * (task-dispatcher.ts); `signal` aborts when the engine process is gone. Unset: local tasks.
   */
  submitTasks?: (payloads: TaskPayload[], signal: AbortSignal) => Promise<TaskOutcome[]>;
}

const OOM = /JavaScript heap out of memory|Reached heap limit/;

function memoryExhausted(memoryLimitMb: number): WeirError {
  return new WeirError(
    'RESOURCE_EXHAUSTED',
    `The run exceeded its memory limit of ${memoryLimitMb} MB (WEIR_RUN_MEMORY_MB) and was stopped; the worker and its other runs go on. ` +
      'Raise WEIR_RUN_MEMORY_MB on the workers, or make the query hold less: a watermark or fewer distinct keys for its state, a smaller batch (maxFilesPerTrigger, maxSecondsPerTrigger, rowsPerSecond, …).',
    { resource: 'memory', memoryLimitMb, setting: 'WEIR_RUN_MEMORY_MB' },
  );
}

export class EngineHost {
  /** The query id from the checkpoint, set by start(). */
  id = '';
  private spawned?: Promise<ChildProcess>;
  private child?: ChildProcess;
  private readonly requests = new Map<number, { resolve: () => void; reject: (e: unknown) => void }>();
  private readonly hostErrors = new Map<number, unknown>();
  private nextId = 0;
  private stopRequested = false;
  /** Set once this host asked the engine process to exit (after the engine closed). */
  private closing = false;
  private gone = false;
  /** Why the engine process ended on its own, if it did. */
  private death?: unknown;
  private fatal?: SerializedError;
  private stderrTail = '';
  private exited!: Promise<void>;
  /** Aborted when the engine process is gone: its pending task waits end. */
  private readonly lifetime = new AbortController();

  constructor(private readonly o: EngineHostOptions) {}

  /** The engine process's pid while it lives. */
  get pid(): number | undefined {
    return this.gone ? undefined : this.child?.pid;
  }

  /** Opens the checkpoint, source and sink in the engine process and recovers the position. */
  async start(): Promise<void> {
    try {
      await this.request('start');
    } catch (e) {
      await this.end();
      throw e;
    }
  }

  /** Runs until the trigger is done or stop(); then the engine process exits. */
  async run(): Promise<void> {
    try {
      await this.request('run');
    } finally {
      await this.end();
    }
  }

  /** Graceful stop: the running batch finishes and commits; then the engine process exits. */
  async stop(): Promise<void> {
    this.stopRequested = true;
    if (!this.spawned) return;
    await this.request('stop').catch(() => undefined);
    // A run() still waiting gets its own result first (the engine settles run before stop).
    if (this.requests.size === 0) await this.end();
  }

  private spawn(): Promise<ChildProcess> {
    this.spawned ??= engineBundle().then((file) => {
      const child = fork(file, [], {
        // Not this process's flags (--import tsx): the bundle is plain JavaScript.
        execArgv: [`--max-old-space-size=${this.o.memoryLimitMb}`],
        serialization: 'advanced',
        stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      });
      this.child = child;
      let exited!: () => void;
      this.exited = new Promise((r) => (exited = r));
      child.stderr!.on('data', (d: Buffer) => {
        process.stderr.write(d);
        this.stderrTail = (this.stderrTail + d.toString('utf8')).slice(-8192);
      });
      child.on('message', (m: EngineToHost) => this.onMessage(child, m));
      const gone = (code: number | null, signal: NodeJS.Signals | null, error?: Error) => {
        if (this.gone) return;
        this.gone = true;
        this.lifetime.abort();
        if (!this.closing) this.death = this.deathError(code, signal, error);
        for (const r of this.requests.values()) {
          if (this.death) r.reject(this.death);
          else r.resolve();
        }
        this.requests.clear();
        exited();
      };
      // Settled once stderr is read to the end too (V8's out-of-memory report). Not on 'close':
      // that never comes after this process disconnected the channel.
      const stderrRead = new Promise((r) => child.stderr!.once('close', r));
      child.on('exit', (code, signal) => void stderrRead.then(() => gone(code, signal)));
      child.on('error', (e) => {
        if (child.pid !== undefined) return; // a failed send or kill; 'close' follows
        gone(null, null, e);
      });
      const outbound = this.o.outbound && { allow: this.o.outbound.allow, infrastructure: this.o.outbound.infrastructure };
      this.send(child, { t: 'init', init: { spec: this.o.spec, runId: this.o.runId, crash: this.o.crash, outbound, stateLocalDir: this.o.stateLocalDir, currentUser: this.o.currentUser, cluster: this.o.submitTasks !== undefined } });
      return child;
    });
    return this.spawned;
  }

  private async request(command: EngineCommand): Promise<void> {
    const first = !this.spawned;
    const child = await this.spawn();
    // stop() before the engine process existed: the engine is told first, as in MicroBatchExecution.
    if (first && this.stopRequested && command !== 'stop') void this.request('stop').catch(() => undefined);
    if (this.gone) {
      if (this.death) throw this.death;
      return; // the engine already closed (stopped): nothing more to do, as in MicroBatchExecution
    }
    const id = this.nextId++;
    const done = new Promise<void>((resolve, reject) => this.requests.set(id, { resolve, reject }));
    this.send(child, { t: 'request', id, command });
    return done;
  }

  private onMessage(child: ChildProcess, m: EngineToHost): void {
    if (m.t === 'result') {
      const r = this.requests.get(m.id);
      this.requests.delete(m.id);
      if (m.queryId) this.id = m.queryId;
      if (m.error) r?.reject(this.revive(m.error));
      else r?.resolve();
    } else if (m.t === 'call') {
      const called: Promise<TaskOutcome[] | void> =
        m.fn === 'fence' ? this.o.fence()
        : m.fn === 'progress' ? this.o.onProgress(m.progress)
        : this.o.submitTasks ? this.o.submitTasks(m.tasks, this.lifetime.signal)
        : Promise.reject(new Error('Internal: reduce tasks submitted by a run not started with WEIR_TASK_SCHEDULER=cluster'));
      called.then(
        (value) => this.send(child, { t: 'reply', id: m.id, ...(value ? { value } : {}) }),
        (e) => {
          const hostErrorId = this.hostErrors.size;
          this.hostErrors.set(hostErrorId, e);
          this.send(child, { t: 'reply', id: m.id, error: { ...serializeError(e), hostErrorId } });
        },
      );
    } else if (m.t === 'log') {
      this.o.log(m.event);
    } else if (m.t === 'idle') {
      this.o.onQueryIdle?.(m.timestampMs);
    } else if (m.t === 'fatal') {
      this.fatal = m.error;
    }
  }

  private send(child: ChildProcess, m: HostToEngine): void {
    if (!child.connected) return;
    try {
      child.send(m);
    } catch {
      // The engine process is going away; its 'exit' settles what is pending.
    }
  }

  /** Asks the engine process to exit (its engine is closed or never opened) and waits until it has. */
  private async end(): Promise<void> {
    if (!this.spawned) return;
    const child = await this.spawned;
    if (!this.gone && !this.closing) {
      this.closing = true;
      if (child.connected) child.disconnect(); // the engine process exits when its channel closes
      else child.kill('SIGKILL');
    }
    await this.exited;
  }

  private revive(s: SerializedError): unknown {
    if (s.hostErrorId !== undefined && this.hostErrors.has(s.hostErrorId)) return this.hostErrors.get(s.hostErrorId);
    if (s.name === 'CrashPointError' && s.details) return new CrashPointError(String(s.details.point), Number(s.details.batchId));
    const e = s.code ? new WeirError(s.code, s.message, s.details) : new Error(s.message);
    e.name = s.name;
    if (s.stack) e.stack = s.stack;
    return e;
  }

  private deathError(code: number | null, signal: NodeJS.Signals | null, error?: Error): unknown {
    if (OOM.test(this.stderrTail)) return memoryExhausted(this.o.memoryLimitMb);
    if (this.fatal) return this.revive(this.fatal);
    const how = error ? `could not start (${error.message})` : `exited unexpectedly (${signal ? `signal ${signal}` : `exit code ${code}`})`;
    const last = this.stderrTail.trim().split('\n').at(-1);
    return new WeirError(
      'ENGINE_EXITED',
      `The run's engine process ${how}${last ? `: ${last}` : ''}. The worker and its other runs go on; the job's restart policy decides whether it runs again.`,
      { exitCode: code, signal },
    );
  }
}
