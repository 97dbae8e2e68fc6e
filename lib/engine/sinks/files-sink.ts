/**
 * The files sink (Spark's FileStreamSink): JSON-lines, CSV or Parquet files in `path`, plus the batch log
 * `path/_weir_metadata/` modelled on `_spark_metadata` (file-stream-sink-log.ts: a delta per
 * batch with the query id and one SinkFileStatus per data file, compacted every 10 batches).
 *
 * Protocol for addBatch(N):
 *   1. if N <= the latest logged batch: skip ("Skipping already committed batch N"), because a
 *      replay after a crash between the sink write and commits/N already landed; but if that
 *      entry was written by another query id (the checkpoint was deleted or swapped, so batch
 *      ids restarted), fail: skipping would silently lose the new query's rows, which is what
 *      Spark's file sink and Delta's txnAppId do in that case;
 *   2. write the rows as `part-<N>-<runId>.<ext>` (atomic: temp + rename), none for no rows; a
 *      Parquet file is whole or absent, so a reader never meets one without its footer;
 *   3. publish `_weir_metadata/N` create-if-absent; if it exists another runner won the race.
 * A crash between 2 and 3 leaves a stray data file that no log entry names. Readers go through
 * the log (`readCommittedRows`, `weir sink read`) and never see it; the re-run writes a file
 * under a new name. A write that storage refuses (full, read-only, no permission: the local
 * file manager's CHECKPOINT_WRITE_FAILED) leaves no temp file and fails the batch as SINK_ERROR
 * naming the file and the errno.
 */
import path from 'node:path';
import { z } from 'zod';
import { LocalCheckpointFileManager, type LocalCheckpointFileManagerOptions } from '../checkpoint/local-checkpoint-file-manager';
import { CheckpointWriteFailedError, ConcurrentStreamLogUpdateError, SinkError, storageAdvice } from '../errors';
import { coerceField, splitCsvLine } from '../operators/record-parser';
import type { Clock } from '../clock';
import { parseJson } from '../json-text';
import { exactKeys, jsonWriter, renderRow, renderText } from './row-rendering';
import type { OutputMode, Row, Schema } from '../types';
import { readParquetRows } from '../parquet/parquet-reader';
import { encodeParquet } from '../parquet/parquet-writer';
import { FileStreamSinkLog, SINK_LOG_DIR, type SinkFileStatus } from './file-stream-sink-log';
import type { Sink, SinkBatchContext } from './sink';
import { registerSink } from './sink-registry';

const FilesSinkOptions = z
  .object({
    path: z.string().min(1).meta({ title: 'Output directory', examples: ['/data/out'], description: 'Each batch writes its files here and records them in _weir_metadata; readers go through that log.' }),
    format: z
      .enum(['json', 'csv', 'parquet'])
      .default('json')
      .meta({ title: 'Output format', description: 'json: one JSON object per line; csv: comma-separated lines; parquet: one Parquet file per batch, as Spark writes them.' }),
    header: z.boolean().default(true).meta({ description: 'Write a header line in each file.', appliesWhen: { format: ['csv'] } }),
    compression: z
      .enum(['snappy', 'zstd', 'none'])
      .default('snappy')
      .meta({ title: 'Compression', description: 'Parquet page compression: snappy (Spark\'s default), zstd (smaller files), or none.', appliesWhen: { format: ['parquet'] } }),
  })
  .strict();
type FilesSinkOptions = z.infer<typeof FilesSinkOptions>;
/** The options as code constructs the sink with them: compression defaults to snappy. */
type FilesSinkConfig = Omit<FilesSinkOptions, 'compression'> & Partial<Pick<FilesSinkOptions, 'compression'>>;

function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\n\r]|^\s|\s$/.test(s) || s === '' ? `"${s.replace(/"/g, '""')}"` : s;
}


export function encodeRows(rows: Row[], schema: Schema, format: 'json' | 'csv', header: boolean): string {
  const names = schema.map((f) => f.name);
  const json = jsonWriter(schema);
  const parts: string[] = [];
  if (format === 'csv') {
    if (header) parts.push(names.map(csvField).join(','));
    for (const r of rows) parts.push(schema.map((f) => csvField(renderText(r[f.name], f))).join(','));
  } else {
    for (const r of rows) {
      const o = json.row(r);
      // A row of plain columns is written as it is when it has exactly the schema's keys;
      // otherwise in the schema's order, a missing key as null (the rendered row already is).
      parts.push(json.stringify(o !== r || exactKeys(r, names) ? o : renderRow(r, schema)));
    }
  }
  return parts.length ? parts.join('\n') + '\n' : '';
}

export class FilesSink implements Sink {
  readonly signature = 'idempotent' as const;
  readonly signatureReason = 'the _weir_metadata batch log records each batch id; a replayed batch id is skipped';
  readonly supportedOutputModes: readonly OutputMode[] = ['append'];
  readonly description: string;
  private readonly fm: LocalCheckpointFileManager;
  private readonly log: FileStreamSinkLog;
  private latest?: number;

  constructor(
    private readonly opts: FilesSinkConfig,
    private readonly clock: Clock,
    private readonly onLog?: (msg: string) => void,
    /** Tests: the file manager's options (e.g. an fs that injects storage faults). */
    fmOptions: LocalCheckpointFileManagerOptions = {},
  ) {
    this.fm = new LocalCheckpointFileManager(opts.path, fmOptions);
    this.log = new FileStreamSinkLog(this.fm);
    this.description = `FileSink[${path.resolve(opts.path)}]`;
  }

  async addBatch(batchId: number, rows: Row[], ctx: SinkBatchContext): Promise<void> {
    if (this.latest === undefined) this.latest = await this.log.latestBatchId();
    if (batchId <= this.latest) {
      const logged = await this.log.get(batchId);
      if (logged?.queryId && logged.queryId !== ctx.queryId) {
        throw new SinkError(
          `${this.opts.path} already holds batch ${batchId} written by query ${logged.queryId}, but this is query ${ctx.queryId} ` +
            '(its checkpoint was deleted or replaced, so batch ids restarted). Skipping would lose this query’s rows and appending would mix two queries: ' +
            'write to a new sink path, or delete the old output including _weir_metadata to reprocess into it.',
          { batchId, existingQueryId: logged.queryId, queryId: ctx.queryId },
        );
      }
      this.onLog?.(`Skipping already committed batch ${batchId}`);
      return;
    }
    const files: SinkFileStatus[] = [];
    if (rows.length > 0) {
      const { format } = this.opts;
      const attempt = (ctx.runId ?? ctx.queryId).slice(0, 8);
      const name = `part-${String(batchId).padStart(5, '0')}-${attempt}-${this.clock.now().toString(36)}.${format}`;
      const data = format === 'parquet' ? await encodeParquet(rows, ctx.schema, this.opts.compression ?? 'snappy') : encodeRows(rows, ctx.schema, format, this.opts.header);
      try {
        await this.fm.createAtomic(name, data, { overwrite: false });
      } catch (e) {
        throw storageSinkError(e, batchId) ?? new SinkError(`Could not write ${name} in ${this.opts.path}: ${(e as Error).message}. The batch is not committed and will re-run.`, { batchId });
      }
      const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
      files.push({ path: name, size, isDir: false, modificationTime: this.clock.now(), blockReplication: 1, blockSize: size, action: 'add' });
    }
    try {
      await this.log.add(batchId, { queryId: ctx.queryId, files });
    } catch (e) {
      if (e instanceof ConcurrentStreamLogUpdateError) {
        throw new SinkError(`Race while writing batch ${batchId}: another run already logged it in ${SINK_LOG_DIR}. Stop the other run of this query.`, { batchId });
      }
      throw storageSinkError(e, batchId) ?? new SinkError(`Could not log batch ${batchId} in ${path.join(this.opts.path, SINK_LOG_DIR)}: ${(e as Error).message}. The batch is not committed and will re-run.`, { batchId });
    }
    this.latest = batchId;
  }

  async close(): Promise<void> {}
}

/** The file manager's storage failure as the sink's error: the file, the errno, what to do. */
function storageSinkError(e: unknown, batchId: number): SinkError | undefined {
  if (!(e instanceof CheckpointWriteFailedError)) return undefined;
  const { file, errno, cause } = e.details as { file: string; errno: string; cause: string };
  return new SinkError(
    `The files sink could not write ${file}: ${errno} (${cause}). ${storageAdvice(errno, file)} ` +
      `Nothing half-written was left; batch ${batchId} is not committed and re-runs from the last commit when the job runs again (a restart policy retries it with backoff).`,
    { batchId, file, errno },
  );
}

/**
 * The rows of every committed batch, in batch order, read through `_weir_metadata` (never by
 * listing the directory, which may hold stray files from failed attempts). CSV values are typed
 * with `schema` when given; timestamps stay ISO strings. Parquet rows (typed by `schema`, else
 * by the file's own types) come out as the JSON format's would, so callers see one shape.
 */
export async function readCommittedRows(
  dir: string,
  format: 'json' | 'csv' | 'parquet',
  opts: { header?: boolean; schema?: Schema } = {},
): Promise<{ batchId: number; rows: Row[] }[]> {
  const fm = new LocalCheckpointFileManager(dir, { fsync: false });
  const log = new FileStreamSinkLog(fm);
  const out: { batchId: number; rows: Row[] }[] = [];
  for (const { batchId: id, entry } of await log.all()) {
    const rows: Row[] = [];
    for (const f of entry.files) {
      if (f.action !== 'add') continue;
      if (format === 'parquet') {
        const got = await readParquetRows(await fm.read(f.path), opts.schema, path.join(dir, f.path));
        if (got.badRecords.length) throw new Error(got.badRecords[0].reason);
        // As the JSON sink would have written them, so callers see one shape whatever the format.
        for (const l of encodeRows(got.rows, got.schema, 'json', false).split('\n')) if (l !== '') rows.push(parseJson(l) as Row);
        continue;
      }
      const text = (await fm.read(f.path)).toString('utf8');
      const lines = text.split('\n').filter((l) => l !== '');
      if (format === 'json') for (const l of lines) rows.push(parseJson(l) as Row);
      else {
        const header = opts.header === false ? opts.schema?.map((x) => x.name) ?? [] : splitCsvLine(lines.shift() ?? '') ?? [];
        for (const l of lines) {
          const vals = splitCsvLine(l) ?? [];
          const r: Row = {};
          header.forEach((h, i) => {
            const f = opts.schema?.find((x) => x.name === h);
            const v = vals[i] ?? '';
            const c = f && f.type !== 'timestamp' ? coerceField(v, f, true) : { ok: true as const, value: v === '' ? null : v };
            r[h] = c.ok ? c.value : v;
          });
          rows.push(r);
        }
      }
    }
    out.push({ batchId: id, rows });
  }
  return out;
}

registerSink<FilesSinkOptions>({
  type: 'files',
  options: FilesSinkOptions,
  signature: () => ({ signature: 'idempotent', reason: 'the _weir_metadata batch log skips a replayed batch id; readers through the log never see a failed attempt’s files' }),
  supportedOutputModes: () => ['append'],
  create: (o, ctx) => new FilesSink(o, ctx.clock),
});

