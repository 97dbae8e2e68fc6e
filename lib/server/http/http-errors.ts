/**
 * The one place where errors become HTTP responses. Route handlers throw (or let services throw)
 * domain errors (lib/server/errors.ts, the engine's lib/engine/errors.ts); `errorResponse` turns each into a status and a JSON body
 * `{ error: { code, message, details } }`, where `code` is stable (tests and clients match on it)
 * and `message` says what to do next.
 *
 * Mapping:
 * - 400 BAD_REQUEST: the request itself is malformed (zod issues on body/query/params, bad JSON).
 * - 401 UNAUTHENTICATED: no credentials or unknown/revoked/expired ones.
 * - 403 FORBIDDEN: authenticated, but the role may not do this.
 * - 404 NOT_FOUND.
 * - 409 CONFLICT (state clashes: already running, reset while active, duplicate name) and the
 *   engine's CONCURRENT_STREAM_LOG_UPDATE / INCOMPATIBLE_QUERY_CHANGE, and
 *   REPROCESSING_NOT_ACKNOWLEDGED (a checkpoint-losing change on a sink that already holds rows,
 *   sent without acknowledgeReprocessing: true; contracts/reprocessing-guard.ts).
 * - 413 PAYLOAD_TOO_LARGE: the body is over the API's limit (api-handler.ts, MAX_BODY_BYTES).
 * - 422 INVALID_JOB_SPEC / VALIDATION_ERROR / ANALYSIS_ERROR / CORRUPT_CHECKPOINT /
 *   OUTBOUND_REFUSED / PREVIEW_TIMEOUT / PREVIEW_NOT_SUPPORTED / PREVIEW_RESOURCE_EXHAUSTED /
 *   PREVIEW_BAD_RECORD: well-formed request whose content the engine refuses.
 * - 429 PREVIEW_BUSY: this server runs as many preview processes as it may; try again shortly.
 * - 424 PREVIEW_SOURCE_UNAVAILABLE: a preview's source (another system) could not be read; the
 *   message names it. Not a 5xx: nothing is wrong with Weir, and the client can fix or paste.
 * - 503 CHECKPOINT_WRITE_FAILED: the checkpoint storage refused a write or delete (full,
 *   read-only, no permission); the message names the file and what to fix, then try again.
 * - 503 PREVIEW_UNAVAILABLE: the preview process could not start or died without answering.
 * - anything else: 500 INTERNAL (or the WeirError's code) with an error id in `details.errorId`
 *   and a fixed message. The error itself (message, stack, a Prisma query's text) goes to the
 *   server log under that id, never into the body: internals help an attacker, the id is enough
 *   for the operator to find the log line.
 */
import { randomBytes } from 'node:crypto';
import { ZodError } from 'zod';
import { WeirError } from '@/lib/engine/errors';

export class PayloadTooLargeError extends WeirError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('PAYLOAD_TOO_LARGE', message, details);
  }
}

const STATUS_BY_CODE: Record<string, number> = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  CONCURRENT_STREAM_LOG_UPDATE: 409,
  INCOMPATIBLE_QUERY_CHANGE: 409,
  REPROCESSING_NOT_ACKNOWLEDGED: 409,
  INVALID_JOB_SPEC: 422,
  VALIDATION_ERROR: 422,
  ANALYSIS_ERROR: 422,
  CORRUPT_CHECKPOINT: 422,
  CHECKPOINT_WRITE_FAILED: 503,
  OUTBOUND_REFUSED: 422,
  /** The preview's time bound: the request was fine, the sample (or the source) too slow for it. */
  PREVIEW_TIMEOUT: 422,
  /** A preview of a source that cannot look back (a push source): paste a sample. */
  PREVIEW_NOT_SUPPORTED: 422,
  /** The spec's source could not be read for a preview (down, no such table or stream); the message names it. */
  PREVIEW_SOURCE_UNAVAILABLE: 424,
  /** The preview process ran out of its heap (WEIR_PREVIEW_MEMORY_MB), or built a value too large to hold. */
  PREVIEW_RESOURCE_EXHAUSTED: 422,
  /** A record of the preview could not be computed (a value over its size limit); the message names it. */
  PREVIEW_BAD_RECORD: 422,
  /** As many previews as WEIR_PREVIEW_CONCURRENCY allow are running. */
  PREVIEW_BUSY: 429,
  /** The preview process could not start in time or died without answering. */
  PREVIEW_UNAVAILABLE: 503,
};

/** Retry-After (seconds) on answers whose request may simply be sent again. */
const RETRY_AFTER_BY_CODE: Record<string, string> = { PREVIEW_BUSY: '5', PREVIEW_UNAVAILABLE: '5' };

export interface ErrorBody {
  /** `errorClass`: Spark's error class for the same rejection, when it has one. */
  error: { code: string; message: string; errorClass?: string; details?: unknown };
}

/** zod issues as `{path: "a.b", message}` so a client can point at the field. */
function zodIssues(e: ZodError): { path: string; message: string }[] {
  return e.issues.map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message }));
}

function httpStatusOf(e: unknown): number {
  if (e instanceof ZodError) return 400;
  if (e instanceof WeirError) return STATUS_BY_CODE[e.code] ?? 500;
  if (prismaCode(e) === 'P2002') return 409;
  if (prismaCode(e) === 'P2025') return 404;
  if (isDatabaseUnavailable(e)) return 503;
  return 500;
}

/**
 * The database did not answer in time or could not be reached: an interactive transaction that
 * expired (P2028, rolled back), no connection from the pool in time (P2024), the server
 * unreachable (P1001). Nothing was changed, so the client may simply try again.
 */
function isDatabaseUnavailable(e: unknown): boolean {
  const code = prismaCode(e);
  return code === 'P2028' || code === 'P2024' || code === 'P1001' || isPgUnavailable(e);
}

/**
 * The same from the pg pool that the hot reads use without Prisma (prepared-query.ts): a refused
 * or dropped connection, SQLSTATE class 08 (connection exception), the server shutting down or
 * starting up (57P01–57P03), too many connections (53300).
 */
function isPgUnavailable(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', '53300', '57P01', '57P02', '57P03'].includes(code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  return /^Connection terminated|^timeout exceeded when trying to connect/.test(e.message);
}

function prismaCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^P\d{4}$/.test(code) ? code : undefined;
}

/** The body of a 500: a fixed message and the id under which the server logged the error. */
function internalErrorBody(e: unknown, errorId: string): ErrorBody {
  const code = e instanceof WeirError ? e.code : 'INTERNAL';
  return {
    error: {
      code,
      message: `Internal error ${errorId}: the server could not complete this request. Try again; if it keeps failing, give this error id to the operator (the server log has the details under it).`,
      details: { errorId },
    },
  };
}

export function errorBody(e: unknown): ErrorBody {
  if (e instanceof ZodError) {
    const issues = zodIssues(e);
    return {
      error: {
        code: 'BAD_REQUEST',
        message: `Invalid request: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}.`,
        details: { issues },
      },
    };
  }
  if (e instanceof WeirError) {
    // An invalid spec's class is its first error's that has one (each error also carries its own).
    const listed = (e.details as { errors?: { errorClass?: string }[] } | undefined)?.errors;
    const errorClass = e.errorClass ?? (Array.isArray(listed) ? listed.find((x) => x.errorClass)?.errorClass : undefined);
    return { error: { code: e.code, message: e.message, ...(errorClass ? { errorClass } : {}), details: e.details } };
  }
  if (prismaCode(e) === 'P2002') {
    const target = (e as { meta?: { target?: unknown } }).meta?.target;
    return { error: { code: 'CONFLICT', message: `A record with this ${String(target ?? 'key')} already exists; choose another value.`, details: { target } } };
  }
  if (prismaCode(e) === 'P2025') return { error: { code: 'NOT_FOUND', message: 'The record does not exist (it may have just been deleted).' } };
  if (isDatabaseUnavailable(e)) {
    return { error: { code: 'DATABASE_UNAVAILABLE', message: 'The database did not answer in time; nothing was changed. Try again in a few seconds; if it keeps failing, check GET /api/health.' } };
  }
  return internalErrorBody(e, 'unlogged');
}

export function errorResponse(e: unknown): Response {
  const status = httpStatusOf(e);
  if (status === 503 && isDatabaseUnavailable(e)) {
    console.warn(`[weir api] database unavailable (${prismaCode(e) ?? (e as { code?: unknown }).code ?? 'connection'}): ${(e as Error).message.split('\n').filter(Boolean).pop() ?? ''}`);
    return Response.json(errorBody(e), { status, headers: { 'Retry-After': '5' } });
  }
  const retryAfter = e instanceof WeirError ? RETRY_AFTER_BY_CODE[e.code] : undefined;
  if (status !== 500) return Response.json(errorBody(e), { status, ...(retryAfter ? { headers: { 'Retry-After': retryAfter } } : {}) });
  const errorId = randomBytes(8).toString('hex');
  console.error(`[weir api] unexpected error ${errorId}:`, e);
  return Response.json(internalErrorBody(e, errorId), { status });
}
