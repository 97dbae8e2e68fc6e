/**
 * Messages between a run (worker/run-processor.ts, through engine-host.ts) and its engine
 * process (engine-process.ts). The host asks the engine to start, run and stop; the engine calls
 * back into the host for what needs the database (the lease fence, progress recording) and sends
 * its log lines. Messages travel by Node's IPC with `serialization: 'advanced'` (structured clone).
 */
import type { CrashPlan, EngineLogEvent, JobSpec, OutboundPolicy, StreamingQueryProgress } from '@/lib/engine';
import type { SerializedError } from '@/lib/server/isolation/serialized-error';
import type { TaskOutcome, TaskPayload } from './shuffle';

export { plain, serializeError, type SerializedError } from '@/lib/server/isolation/serialized-error';

interface EngineInit {
  spec: JobSpec;
  /** The run's runId (its Run row's): the engine's progress carries it. */
  runId?: string;
  crash?: CrashPlan;
  /** The worker's outbound policy (allow list, infrastructure), which the run's connectors obey. */
  outbound?: Omit<OutboundPolicy, 'resolve'>;
  /** Where an `lmdb` state store keeps its local copy (the worker's data directory). */
  stateLocalDir?: string;
  /** Whom the query runs as (MicroBatchExecutionOptions.currentUser). */
  currentUser?: string;
  /** WEIR_TASK_SCHEDULER=cluster: reduce tasks go to the workers through the host (`submitTasks` calls). */
  cluster?: boolean;
}

export type EngineCommand = 'start' | 'run' | 'stop';

export type HostToEngine =
  | { t: 'init'; init: EngineInit }
  | { t: 'request'; id: number; command: EngineCommand }
  | { t: 'reply'; id: number; error?: SerializedError; value?: TaskOutcome[] };

export type EngineToHost =
  | { t: 'result'; id: number; queryId?: string; error?: SerializedError }
  | { t: 'call'; id: number; fn: 'fence' }
  | { t: 'call'; id: number; fn: 'progress'; progress: StreamingQueryProgress }
  /** A stateful stage's reduce tasks, for the workers (cluster-task-scheduler.ts); replied with their outcomes. */
  | { t: 'call'; id: number; fn: 'submitTasks'; tasks: TaskPayload[] }
  | { t: 'log'; event: EngineLogEvent }
  /** Spark's QueryIdleEvent: a trigger found no new data (throttled by the engine). */
  | { t: 'idle'; timestampMs: number }
  /** An exception nothing caught (a source's stray rejection): the engine process ends. */
  | { t: 'fatal'; error: SerializedError };
