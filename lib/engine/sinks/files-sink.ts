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
 * under a new name.
 *
 * When the batch's last stage runs as reduce tasks on the workers (WEIR_TASK_SCHEDULER=cluster),
 * step 2 is the tasks' (`commitProtocol`, Spark's ManifestFileCommitProtocol): each task writes
 * its partition as `part-<N>-<partition>-<attempt id>.<ext>` and returns its SinkFileStatus, and
 * the driver does 1 and 3 once with the completed attempts' statuses. A retried task's zombie
 * attempt wrote a file under another attempt id that no entry lists; a re-run of a batch already
 * logged deletes the files its tasks wrote, which no entry lists either. A write that storage refuses (full, read-only, no permission: the local
 * file manager's CHECKPOINT_WRITE_FAILED) leaves no temp file and fails the batch as SINK_ERROR
 * naming the file and the errno.
 */
import path from 'node:path';
import { z } from 'zod';
import { LocalCheckpointFileManager, type LocalCheckpointFileManagerOptions } from '../checkpoint/local-checkpoint-file-manager';
import { AnalysisException, CheckpointWriteFailedError, ConcurrentStreamLogUpdateError, SinkError, storageAdvice } from '../errors';
import { typeText } from '../query/data-types';
import { coerceField, csvField, splitCsvLine } from '../operators/record-parser';
import type { Clock } from '../clock';
import { parseJson } from '../json-text';
import { exactKeys, jsonWriter, renderRow, renderText } from './row-rendering';
import type { Field, OutputMode, Row, Schema } from '../types';
import { readParquetRows } from '../parquet/parquet-reader';
import { encodeParquet } from '../parquet/parquet-writer';
import { FileStreamSinkLog, SINK_LOG_DIR, type SinkFileStatus } from './file-stream-sink-log';
import type { Sink, SinkBatchContext, SinkCommitProtocol } from './sink';
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



/** Whether a field is, or holds, a CalendarInterval. */
const holdsCalendarInterval = (f: Field): boolean =>
  f.type === 'calendar_interval' || [f.elementType, f.keyType, f.valueType, ...(f.fields ?? [])].some((g) => g !== undefined && holdsCalendarInterval(g));

/**
 * Spark's DataSourceUtils.verifySchema: no file format's supportDataType takes a
 * CalendarInterval (a month has no fixed length to write), at the top or nested.
 */
function verifySchema(format: FilesSinkOptions['format'], schema: Schema): void {
  const bad = schema.find(holdsCalendarInterval);
  if (!bad) return;
  throw new AnalysisException(
    `The ${format === 'json' ? 'JSON' : format === 'csv' ? 'CSV' : 'Parquet'} datasource doesn't support the column \`${bad.name}\` of the type "${typeText(bad)}". Write CAST(${bad.name} AS STRING), or an ANSI interval (make_ym_interval, make_dt_interval)`,
    { column: bad.name }, 'UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE',
  );
}

export function encodeRows(rows: Row[], schema: Schema, format: 'json' | 'csv', header: boolean): string {
  const names = schema.map((f) => f.name);
  const json = jsonWriter(schema);
  const parts: string[] = [];
  if (format === 'csv') {
    if (header) parts.push(names.map((n) => csvField(n)).join(','));
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
    verifySchema(this.opts.format, ctx.schema);
    if (await this.alreadyCommitted(batchId, ctx)) return;
    const attempt = (ctx.runId ?? ctx.queryId).slice(0, 8);
    const name = `part-${String(batchId).padStart(5, '0')}-${attempt}-${this.clock.now().toString(36)}.${this.opts.format}`;
    await this.commitFiles(batchId, rows.length > 0 ? [await this.writeFile(name, rows, batchId, ctx)] : [], ctx);
  }

  /**
   * Spark's ManifestFileCommitProtocol: a reduce task writes its partition's rows as a part file
   * of its own attempt (none for no rows) and returns its status; the driver's `commitJob` logs
   * the batch with the statuses of the attempts that completed, so a zombie attempt's file is in
   * no log entry and no reader sees it.
   */
  readonly commitProtocol: SinkCommitProtocol<SinkFileStatus[]> = {
    commitTask: async (rows, task) => {
      if (rows.length === 0) return [];
      const name = `part-${String(task.batchId).padStart(5, '0')}-${String(task.partitionId).padStart(5, '0')}-${task.attemptId}.${this.opts.format}`;
      return [await this.writeFile(name, rows, task.batchId, task)];
    },
    commitJob: async (batchId, messages, ctx) => {
      const files = messages.flat();
      if (await this.alreadyCommitted(batchId, ctx)) {
        // A re-run of a batch already in the log (a crash after its entry, before commits/N): the
        // files this run's tasks wrote are in no entry, and never will be.
        for (const f of files) await this.fm.delete(f.path).catch(() => undefined);
        return;
      }
      await this.commitFiles(batchId, files, ctx);
    },
  };

  /** Whether batch N is in the log already (a replay: skip it), failing if another query logged it. */
  private async alreadyCommitted(batchId: number, ctx: SinkBatchContext): Promise<boolean> {
    if (this.latest === undefined) this.latest = await this.log.latestBatchId();
    if (batchId > this.latest) return false;
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
    return true;
  }

  /** Writes one data file (atomic: temp + rename; never over an existing one) and returns its status. */
  private async writeFile(name: string, rows: Row[], batchId: number, ctx: SinkBatchContext): Promise<SinkFileStatus> {
    const { format } = this.opts;
    const data = format === 'parquet' ? await encodeParquet(rows, ctx.schema, this.opts.compression ?? 'snappy') : encodeRows(rows, ctx.schema, format, this.opts.header);
    try {
      await this.fm.createAtomic(name, data, { overwrite: false });
    } catch (e) {
      throw storageSinkError(e, batchId) ?? new SinkError(`Could not write ${name} in ${this.opts.path}: ${(e as Error).message}. The batch is not committed and will re-run.`, { batchId });
    }
    const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
    return { path: name, size, isDir: false, modificationTime: this.clock.now(), blockReplication: 1, blockSize: size, action: 'add' };
  }

  /** Publishes `_weir_metadata/N` create-if-absent: the batch's files become visible at once. */
  private async commitFiles(batchId: number, files: SinkFileStatus[], ctx: SinkBatchContext): Promise<void> {
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

