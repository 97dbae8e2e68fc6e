/**
 * Engine errors: each has a stable `code` (for the API's error mapper and for tests) and a
 * message that tells the user what to do next.
 */
export class WeirError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The job spec or query is invalid: caught at validation, before anything runs. */
export class ValidationError extends WeirError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('VALIDATION_ERROR', message, details);
  }
}

/** Spark's AnalysisException: an illegal query shape or output mode. */
export class AnalysisException extends WeirError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('ANALYSIS_ERROR', message, details);
  }
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

/** A checkpoint file cannot be read or parsed. */
export class CorruptCheckpointError extends WeirError {
  constructor(path: string, reason: string) {
    super(
      'CORRUPT_CHECKPOINT',
      `Checkpoint file ${path} is corrupt: ${reason}. Inspect it with \`weir checkpoint inspect\`; ` +
        'restore it from a backup, or start the query on a new checkpoint location (which reprocesses from the source start).',
      { path, reason },
    );
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
