/**
 * BadRecordPolicy: what a batch does with records it cannot use (`source.onBadRecord`).
 *
 * A batch meets bad records in two places: the source could not parse them
 * (`SourceBatch.badRecords`), or their expressions failed while the operators ran (a value over
 * its size limit; Filter and Project leave the row out and hand it to `onRecordError`).
 *
 * - `fail` (the default): the first one fails the batch with a BadRecordError that names it; the
 *   batch is not committed and re-runs after the record is fixed. A source's bad record fails
 *   the batch before any operator runs.
 * - `dead-letter`: every one of the batch goes to `<badRecordsPath>/<queryId>/batch-<N>.jsonl`
 *   (dead-letter-writer.ts) after the operators ran and before the sink write, so a committed
 *   batch has its dead letters on disk and a re-run rewrites the same file.
 *
 * A failing expression inside an aggregation cannot be set aside (the row is already folded in
 * with others): it fails the run whatever the policy says.
 */
import { BadRecordError, RecordExpressionError } from '../errors';
import { stringifyRow } from '../json-text';
import type { BadRecord } from '../sources/source';
import type { Row } from '../types';
import { DeadLetterWriter } from './dead-letter-writer';

export interface BadRecordPolicyOptions {
  onBadRecord?: 'fail' | 'dead-letter';
  badRecordsPath?: string;
  queryId: string;
  /** The source's description, named in errors and dead letters. */
  source: string;
}

export class BadRecordPolicy {
  private readonly deadLetters?: DeadLetterWriter;

  constructor(private readonly o: BadRecordPolicyOptions) {
    if (o.onBadRecord === 'dead-letter' && o.badRecordsPath) this.deadLetters = new DeadLetterWriter(o.badRecordsPath, o.queryId);
  }

  /**
   * Starts batch `batchId` with the records its source could not parse. Under `fail` the first
   * one throws here, before any operator runs.
   */
  beginBatch(batchId: number, sourceBadRecords: BadRecord[]): BatchBadRecords {
    if (sourceBadRecords.length > 0 && !this.deadLetters) {
      const r = sourceBadRecords[0];
      throw new BadRecordError(
        `Bad record in ${r.location.source}${r.location.line !== undefined ? ` line ${r.location.line}` : ''}: ${r.reason}. ${unfixed(batchId)}`,
        { batchId, file: r.location.source, line: r.location.line, reason: r.reason, count: sourceBadRecords.length },
      );
    }
    return new BatchBadRecords(batchId, this.o.source, sourceBadRecords, this.deadLetters);
  }
}

/** One batch's bad records, from beginBatch until `settle`. */
export class BatchBadRecords {
  private readonly expressionBad: BadRecord[] = [];

  constructor(
    private readonly batchId: number,
    private readonly source: string,
    private readonly sourceBad: BadRecord[],
    private readonly deadLetters?: DeadLetterWriter,
  ) {}

  /** OperatorContext.onRecordError: a row whose expressions failed is a bad record too. */
  readonly onRecordError = (row: Row, e: RecordExpressionError): void => {
    this.expressionBad.push({ raw: stringifyRow(row), location: { source: this.source }, reason: e.message });
  };

  /**
   * For a failure of the operators: a RecordExpressionError there was raised where a row cannot
   * be set aside (inside an aggregation), so the batch cannot go on; any other error is rethrown.
   */
  readonly rethrow = (e: unknown): never => {
    if (e instanceof RecordExpressionError) {
      throw new BadRecordError(
        `Bad record in ${this.source}: ${e.message} The expression is part of an aggregation, where a record cannot be set aside, so this fails the run whatever onBadRecord says; ` +
          `bound the value in the query (batch ${this.batchId} is not committed and will re-run).`,
        { batchId: this.batchId, file: this.source, reason: e.message, count: 1 },
      );
    }
    throw e;
  };

  /**
   * After the operators ran: under `fail` the first failed row throws; under `dead-letter` every
   * bad record of the batch is written. Returns how many there were (numBadRecords).
   */
  async settle(): Promise<number> {
    const { batchId, expressionBad } = this;
    if (expressionBad.length > 0 && !this.deadLetters) {
      const r = expressionBad[0];
      throw new BadRecordError(`Bad record in ${r.location.source}: ${r.reason} ${unfixed(batchId)}`, {
        batchId, file: r.location.source, reason: r.reason, count: expressionBad.length, record: r.raw.length > 1000 ? `${r.raw.slice(0, 1000)}…` : r.raw,
      });
    }
    const all = this.sourceBad.length > 0 ? [...this.sourceBad, ...expressionBad] : expressionBad;
    if (all.length > 0) await this.deadLetters!.write(batchId, all);
    return all.length;
  }
}

function unfixed(batchId: number): string {
  return `Fix or remove the record, or set source.onBadRecord to "dead-letter" with a badRecordsPath to divert such records (batch ${batchId} is not committed and will re-run).`;
}
