/**
 * The console sink (Spark's `console` format): prints each batch as a header and one JSON line
 * per row (timestamps as ISO-8601). At-least-once: a batch re-run after a crash prints again.
 */
import { z } from 'zod';
import type { OutputMode, Row } from '../types';
import { stringifyJson } from '../json-text';
import { renderRow } from './row-rendering';
import type { Sink, SinkBatchContext } from './sink';
import { registerSink } from './sink-registry';

export const ConsoleSinkOptions = z
  .object({
    /** Rows printed per batch (Spark's numRows, default 20). */
    numRows: z.number().int().positive().default(20),
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
    // An empty batch (a no-data batch that only moves the watermark) prints nothing: a frame
    // with no rows in the server log every trigger is noise.
    if (rows.length === 0) return;
    const bar = '-------------------------------------------';
    const lines = [bar, `Batch: ${batchId}`, bar];
    for (const r of rows.slice(0, this.opts.numRows)) lines.push(stringifyJson(renderRow(r, ctx.schema)));
    if (rows.length > this.opts.numRows) lines.push(`only showing top ${this.opts.numRows} of ${rows.length} rows`);
    this.write(lines.join('\n') + '\n');
  }

  async close(): Promise<void> {}
}

registerSink<ConsoleSinkOptions>({
  type: 'console',
  options: ConsoleSinkOptions,
  signature: () => ({ signature: 'at-least-once', reason: 'the console prints a re-run batch again' }),
  supportedOutputModes: () => ['append', 'update', 'complete'],
  create: (o) => new ConsoleSink(o),
});
