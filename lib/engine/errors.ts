/**
 * Engine errors: each has a stable `code` (for the API's error mapper and for tests) and a
 * message that tells the user what to do next.
 */
export class WeirError extends Error {
  /**
   * Spark's error class for the same rejection (`STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE`,
   * `_LEGACY_ERROR_TEMP_3102` for UnsupportedOperationChecker's messages), when Spark has one:
   * a Spark user searches for it, and the API returns it as `errorClass`.
   */
  errorClass?: string;

  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * The Spark error class a message quotes (`[MALFORMED_CHARACTER_CODING] …`, `… (INVALID_INDEX_OF_ZERO)`),
 * so that a refusal whose text names its class carries it for the API as any other does.
 */
export function errorClassNamedIn(message: string): string | undefined {
  const cls = '_?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?:\\.[A-Z][A-Z0-9_]*)?';
  return new RegExp(`\\[(${cls})\\]`).exec(message)?.[1] ?? new RegExp(`\\((${cls})\\)`).exec(message)?.[1];
}

/** The class Spark gives every message of UnsupportedOperationChecker (reference §2). */
export const UNSUPPORTED_OPERATION_CLASS = '_LEGACY_ERROR_TEMP_3102';

/** The job spec or query is invalid: caught at validation, before anything runs. */
export class ValidationError extends WeirError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('VALIDATION_ERROR', message, details);
  }
}

/** Spark's AnalysisException: an illegal query shape or output mode. */
export class AnalysisException extends WeirError {
  constructor(message: string, details?: Record<string, unknown>, errorClass?: string) {
    super('ANALYSIS_ERROR', message, details);
    if (errorClass) this.errorClass = errorClass;
  }
}

/** A query shape Spark's UnsupportedOperationChecker refuses, with its message and class. */
export function unsupportedOperation(message: string, details?: Record<string, unknown>): AnalysisException {
  return new AnalysisException(message, details, UNSUPPORTED_OPERATION_CLASS);
}

/** A log file for this batch already exists: another runner writes this checkpoint. */
export class ConcurrentStreamLogUpdateError extends WeirError {
  constructor(readonly batchId: number, path: string) {
    super(
      'CONCURRENT_STREAM_LOG_UPDATE',
      `Concurrent update to the log. Multiple streaming jobs detected for ${batchId} (${path} already exists). ` +
        'Stop the other run of this query before starting this one; nothing was written.',
      { batchId, path },
    );
  }
}

/**
 * A checkpoint file cannot be read or parsed, or one the checkpoint's other files show must exist
 * is missing. Raised at start before anything is written, so the checkpoint stays as it was found.
 * `checkpoint` (the manager's description) makes the message name the file in full.
 */
export class CorruptCheckpointError extends WeirError {
  constructor(path: string, reason: string, opts: { checkpoint?: string; missing?: boolean } = {}) {
    const file = opts.checkpoint ? `${opts.checkpoint.replace(/\/+$/, '')}/${path}` : path;
    super(
      'CORRUPT_CHECKPOINT',
      `Checkpoint file ${file} is ${opts.missing ? 'missing' : 'corrupt'}: ${reason}. Nothing was written. Inspect it with \`weir checkpoint inspect\`; ` +
        'restore it from a backup of the checkpoint, or start the query on a new checkpoint location (which reprocesses from the source start).',
      { path, reason, ...(opts.checkpoint ? { checkpoint: opts.checkpoint } : {}), ...(opts.missing ? { missing: true } : {}) },
    );
  }
}

/**
 * Storage refused a write under the checkpoint (a log file, a state delta or snapshot, the
 * metadata, a source log, a dead-letter file): full, read-only, no permission, an I/O error.
 * The write left nothing half-done (its temporary file is removed), so the batch is simply not
 * committed and re-runs once storage is fixed.
 */
export class CheckpointWriteFailedError extends WeirError {
  constructor(file: string, errno: string, cause: string) {
    super(
      'CHECKPOINT_WRITE_FAILED',
      `Could not write ${file}: ${errno} (${cause}). ${storageAdvice(errno, file)} ` +
        'Nothing half-written was left; the job resumes from the last committed batch when it runs again (a restart policy retries it with backoff).',
      { file, errno, cause },
    );
  }
}

/** Storage errno values that mean "this storage cannot take the write now" (not a Weir bug). */
export const STORAGE_ERRNOS: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EACCES', 'EPERM', 'EROFS']);

/** What an operator does about a storage errno (shared by the checkpoint and the files sink). */
export function storageAdvice(errno: string, file: string): string {
  switch (errno) {
    case 'ENOSPC':
      return 'The filesystem is full: free space on it (or move the location to a larger volume).';
    case 'EDQUOT':
      return 'The disk quota of the user Weir runs as is used up: free space or raise the quota.';
    case 'EACCES':
    case 'EPERM':
      return `Weir's user may not write there: fix the owner or mode of the directory holding ${file}.`;
    case 'EROFS':
      return 'The filesystem is mounted read-only: remount it read-write (a read-only remount often follows disk errors: check the kernel log).';
    case 'EIO':
      return 'The disk reported an I/O error: check the device and the kernel log (dmesg) before writing to it again.';
    default:
      return 'Check the storage holding it.';
  }
}

/** A restart whose stateful plan differs from the one recorded in the checkpoint. */
export class IncompatibleQueryChangeError extends WeirError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('INCOMPATIBLE_QUERY_CHANGE', message, details);
  }
}

/** A source's data needed for replay is gone (retention, trim). */
export class DataLossError extends WeirError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('DATA_LOSS', message, details);
  }
}

/**
 * A files source's folder does not exist (Spark's PATH_NOT_FOUND, which fails a file stream source
 * whose path is absent at start): a mistyped path would otherwise run forever with no batches.
 */
export class PathNotFoundError extends WeirError {
  constructor(readonly path: string) {
    super(
      'PATH_NOT_FOUND',
      `Path does not exist: ${path}. The files source reads the files that appear in this folder, and a job whose folder is absent fails at start: ` +
        `create the folder (mkdir -p '${path}'), or correct the Input directory (source.options.path).`,
      { path },
    );
    this.errorClass = 'PATH_NOT_FOUND';
  }
}

/** A record the source cannot parse, under onBadRecord=fail. */
export class BadRecordError extends WeirError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('BAD_RECORD', message, details);
  }
}

/**
 * One record's expression cannot be computed: a string value over its size limit, or a regular
 * expression read from a column that RE2 cannot compile. The record is bad, and the job's
 * `onBadRecord` decides: fail the run, or divert the record to the dead letters.
 */
export class RecordExpressionError extends WeirError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('EXPRESSION_ERROR', message, details);
    const named = typeof details?.errorClass === 'string' ? details.errorClass : errorClassNamedIn(message);
    if (named) this.errorClass = named;
  }
}

/** The sink rejected or could not take a batch. The batch is not committed. */
export class SinkError extends WeirError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('SINK_ERROR', message, details);
  }
}

/** Thrown at a named crash point, so tests and drills can kill a run exactly there. */
export class CrashPointError extends WeirError {
  constructor(readonly point: string, readonly batchId: number) {
    super('CRASH_POINT', `Crashed on purpose at ${point} of batch ${batchId}.`, { point, batchId });
  }
}

/** A message with Spark's error class before it, as Spark prints it, once (some messages already start with it). */
export function withErrorClass(message: string, errorClass: string | undefined): string {
  return errorClass && !message.startsWith(`[${errorClass}]`) ? `[${errorClass}] ${message}` : message;
}
