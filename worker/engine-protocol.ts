/**
 * Messages between a run (worker/run-processor.ts, through engine-host.ts) and its engine
 * process (engine-process.ts). The host asks the engine to start, run and stop; the engine calls
 * back into the host for what needs the database (the lease fence, progress recording) and sends
 * its log lines. Messages travel by Node's IPC with `serialization: 'advanced'` (structured clone).
 */
import type { CrashPlan, EngineLogEvent, JobSpec, OutboundPolicy, StreamingQueryProgress } from '@/lib/engine';

interface EngineInit {
  spec: JobSpec;
  crash?: CrashPlan;
  /** The worker's outbound policy (allow list, infrastructure), which the run's connectors obey. */
  outbound?: Omit<OutboundPolicy, 'resolve'>;
}

/** An error crossing the process boundary: what run-processor.ts and toRunError read. */
export interface SerializedError {
  name: string;
  message: string;
  code?: string;
  details?: Record<string, unknown>;
  stack?: string;
  /** Set when the error was thrown by a host callback (fence, progress): the host rethrows its original. */
  hostErrorId?: number;
}

export type EngineCommand = 'start' | 'run' | 'stop';

export type HostToEngine =
  | { t: 'init'; init: EngineInit }
  | { t: 'request'; id: number; command: EngineCommand }
  | { t: 'reply'; id: number; error?: SerializedError };

export type EngineToHost =
  | { t: 'result'; id: number; queryId?: string; error?: SerializedError }
  | { t: 'call'; id: number; fn: 'fence' } 
  | { t: 'call'; id: number; fn: 'progress'; progress: StreamingQueryProgress }
  | { t: 'log'; event: EngineLogEvent }
  /** Spark's QueryIdleEvent: a trigger found no new data (throttled by the engine). */
  | { t: 'idle'; timestampMs: number }
  /** An exception nothing caught (a source's stray rejection): the engine process ends. */
  | { t: 'fatal'; error: SerializedError };

export function serializeError(e: unknown): SerializedError {
  const err = e as { name?: unknown; message?: unknown; code?: unknown; details?: unknown; stack?: unknown; hostErrorId?: unknown };
  const out: SerializedError = {
    name: typeof err?.name === 'string' ? err.name : 'Error',
    message: typeof err?.message === 'string' ? err.message : String(e),
  };
  if (typeof err?.code === 'string') out.code = err.code;
  if (err?.details && typeof err.details === 'object') out.details = plain(err.details) as Record<string, unknown>;
  if (typeof err?.stack === 'string') out.stack = err.stack;
  if (typeof err?.hostErrorId === 'number') out.hostErrorId = err.hostErrorId;
  return out;
}

/** A value that structured clone accepts (details and log fields may hold anything). */
export function plain(v: unknown): unknown {
  try {
    structuredClone(v);
    return v;
  } catch {
    try {
      return JSON.parse(JSON.stringify(v));
    } catch {
      return String(v);
    }
  }
}
