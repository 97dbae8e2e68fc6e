/**
 * Errors crossing a process boundary (a run's engine process, a preview process, and their
 * hosts): name, stable code, message and details travel; the receiving side revives a WeirError
 * with the same code, so the one HTTP mapper (or a run's exit reason) treats it as if thrown here.
 */

/** An error crossing the process boundary. */
export interface SerializedError {
  name: string;
  message: string;
  code?: string;
  details?: Record<string, unknown>;
  stack?: string;
  /** Set when the error was thrown by a host callback (fence, progress): the host rethrows its original. */
  hostErrorId?: number;
}

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
