/**
 * The console sink (Spark's `console` format): prints each batch as Spark's ConsoleWrite does,
 * a `Batch: N` header between two lines of dashes, then the batch's rows as `Dataset.show()`
 * prints them (show-string.ts: numRows rows, cells cut at 20 characters unless truncate is
 * false, `NULL` for NULL) and a blank line. Every batch that runs prints, as Spark's ConsoleWrite
 * prints in each commit: a batch with no rows (its rows filtered out, or a no-data batch that only
 * moves the watermark) prints its header and the table's empty frame. At-least-once: a batch
 * re-run after a crash prints again.
 */
import { z } from 'zod';
import type { OutputMode, Row } from '../types';
import { showString } from './show-string';
import type { Sink, SinkBatchContext } from './sink';
import { registerSink } from './sink-registry';

export const ConsoleSinkOptions = z
  .object({
    /** Rows printed per batch (Spark's numRows, default 20). */
    numRows: z.number().int().positive().default(20),
    /** Cells longer than 20 characters cut to 17 and `...` (Spark's truncate, default true). */
    truncate: z.boolean().default(true),
    stream: z.enum(['stdout', 'stderr']).default('stdout'),
  })
  .strict();
export type ConsoleSinkOptions = z.infer<typeof ConsoleSinkOptions>;

export class ConsoleSink implements Sink {
  readonly description = 'ConsoleSink';
  readonly signature = 'at-least-once' as const;
  readonly signatureReason = 'the console cannot take back lines: a re-run batch prints again';
  readonly supportedOutputModes: readonly OutputMode[] = ['append', 'update', 'complete'];

  constructor(
    private readonly opts: ConsoleSinkOptions,
    private readonly write: (s: string) => void = (s) => void (opts.stream === 'stderr' ? process.stderr : process.stdout).write(s),
  ) {}

  async addBatch(batchId: number, rows: Row[], ctx: SinkBatchContext): Promise<void> {
    const bar = '-------------------------------------------';
    // show() prints its table with println: a blank line after it.
    this.write(`${bar}\nBatch: ${batchId}\n${bar}\n${showString(rows, ctx.schema, this.opts.numRows, this.opts.truncate ? 20 : 0)}\n`);
  }

  async close(): Promise<void> {}
}

registerSink<ConsoleSinkOptions>({
  type: 'console',
  options: ConsoleSinkOptions,
  signature: () => ({ signature: 'at-least-once', reason: 'the console prints a re-run batch again' }),
  supportedOutputModes: () => ['append', 'update', 'complete'],
  create: (o) => new ConsoleSink(o),
  repeatedColumnNames: true,
});
