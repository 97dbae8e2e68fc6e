/**
 * The files source (Spark's FileStreamSource): a directory of JSON-lines, CSV or Parquet files.
 *
 * Protocol:
 * - Files are picked up in name order. Hidden names (`.x`, `_x`) are ignored, so a writer puts
 *   a file in place atomically by writing `.name.tmp` and renaming it. A file must not change
 *   once visible: on replay a file whose size changed is a DataLossError, not a silent re-read.
 * - Planning a batch (`latestOffset`) takes the unseen files (at most `maxFilesPerTrigger`,
 *   unless Trigger.Once) and records them as log entry K in `sources/<i>/`
 *   (file-stream-source-log.ts: a delta per entry, compacted every 10), create-if-absent, then
 *   returns `{"logOffset":K}`. The log, not the directory, decides what a batch covers, so a replay of
 *   (start, end] reads exactly the same files whatever arrived since.
 * - On open, every logged file counts as seen; an entry logged by a run that died before
 *   writing offsets/N is the next batch's range, by itself when maxFilesPerTrigger applies (so
 *   that batch holds no more files than its limit, whatever arrived meanwhile).
 * - A Parquet file is read whole: its footer's schema is checked against source.schema first
 *   (parquet/parquet-reader.ts), and a file that is not whole Parquet (no footer, truncated,
 *   corrupt) or holds a column that cannot be read as declared is one bad record naming the
 *   file, the column and both types, which onBadRecord fails the run with or diverts. The
 *   size check above catches a file that grew after it was logged; the atomic rename keeps a
 *   file being written out of the listing.
 * Commit lag is counted in files (logged-but-uncommitted files plus unseen files).
 */
import { constants as fsConstants, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { DataLossError, PathNotFoundError, ValidationError } from '../errors';
import { CsvLineParser, JsonLineParser, splitCsvLine } from '../operators/record-parser';
import { EventTimeStatsAccumulator } from '../operators/watermark';
import { FILE_METADATA_COLUMN, type FileMetadata, type Offset, type Row, type Schema } from '../types';
import { readParquetRows, readParquetTail } from '../parquet/parquet-reader';
import { FileStreamSourceLog, type SourceFileEntry } from './file-stream-source-log';
import type { BadRecord, ReadLimit, RecentRecords, RecentRecordsLimit, Source, SourceBatch } from './source';
import { registerSource, type SourceContext } from './source-registry';

export const FilesSourceOptions = z
  .object({
    path: z.string().min(1).meta({ title: 'Input directory', examples: ['/data/in'], description: 'Directory watched for new files; files must be complete when they appear (write elsewhere, then rename).' }),
    format: z
      .enum(['json', 'csv', 'parquet'])
      .default('json')
      .meta({ title: 'File format', description: 'json: one JSON object per line; csv: comma-separated lines; parquet: Parquet files (Spark\'s default format), checked against the schema.' }),
    // appliesWhen: the editor shows the option only for CSV (it means nothing for JSON lines).
    header: z.boolean().default(true).meta({ description: 'The first line of each file names the columns.', appliesWhen: { format: ['csv'] } }),
    maxFilesPerTrigger: z.number().int().positive().optional().describe('At most this many new files per batch; empty: no limit.'),
    modifiedAfter: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ examples: ['2026-01-01T00:00:00Z'] })
      .describe('Spark\'s modifiedAfter: only files modified after this time are read (a new query skips the backlog). Files already in the checkpoint\'s log are read on replay whatever it says.'),
  })
  .strict();
export type FilesSourceOptions = z.infer<typeof FilesSourceOptions>;

interface ScanState {
  filter: (row: Row) => boolean;
  /** Whether a row's event time counts for the watermark (SourceContext.watermarkFilter). */
  watermark: (row: Row) => boolean;
  /** Rows parsed, kept or not. */
  read: number;
  eventTime?: string;
  eventTimes?: EventTimeStatsAccumulator;
}

/**
 * Rows per piece getBatchInPieces hands over: small enough that a piece's rows (and what the
 * operators make of them) die in the young generation, large enough that a piece's fixed costs
 * (an await, the fold's per-piece work) do not count.
 */
const PIECE_ROWS = 4096;

/** Where a read puts its rows: all of them (getBatch), or pieces handed over as they fill (getBatchInPieces). */
class RowOutput {
  rows: Row[] = [];
  /** How many rows a piece holds before it is handed over. */
  readonly limit: number;
  constructor(private readonly onRows?: (rows: Row[]) => void | Promise<void>) {
    this.limit = onRows ? PIECE_ROWS : Infinity;
  }

  /** Hands the rows so far over (getBatchInPieces); getBatch keeps them. */
  async flush(): Promise<void> {
    if (!this.onRows || this.rows.length === 0) return;
    const rows = this.rows;
    this.rows = [];
    await this.onRows(rows);
  }
}

type LineParser = { parse(line: string): { ok: true; row: Row } | { ok: false; reason: string } };

/** Where parseLines is in a file's text: it may stop when a piece is full and go on from there. */
interface LineCursor {
  pos: number;
  lineNo: number;
  /** Unset until a CSV file's header line is read. */
  parser?: LineParser;
  json?: JsonLineParser;
}

/** How much of a CSV file's start the preview reads for its header line. */
const MAX_HEADER_BYTES = 64 * 1024;

/** The last `n` non-empty lines of `text`. */
function lastLines(text: string, n: number): string {
  let end = text.length;
  let found = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    if (text.charCodeAt(i) !== 10) continue;
    if (text.slice(i + 1, end).trim() !== '' && ++found === n) return text.slice(i + 1);
    end = i;
  }
  return text;
}

/**
 * The files source reads the regular files of its directory and never follows a symbolic link:
 * the directory is confined to the files roots, but a link in it could lead anywhere
 * (`p.csv -> /etc/passwd`). Listing skips links (lstat); reading opens with O_NOFOLLOW, so a
 * file swapped for a link after it was listed is refused too.
 */
const NOT_FOLLOWED = 'the files source reads only the regular files in its directory and never follows a symbolic link (it could lead outside the files roots); put the file itself in the directory.';
const NO_FOLLOW = fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW;

/** A logged file whose size is no longer the logged one. */
function changedSize(full: string, f: SourceFileEntry, size: number): DataLossError {
  return new DataLossError(
    `Input file ${full} changed size (${f.size} → ${size} bytes) after a batch recorded it; files must not change once visible (write elsewhere, then rename into the directory).`,
    { file: full },
  );
}

/**
 * Bytes of a text file decoded at a time: each piece, decoded alone, stays below V8's
 * large-object size (a young string that dies with its lines).
 */
const SEGMENT_BYTES = 64 * 1024;

/**
 * Bytes a text file is read by at a time, several segments: a read costs a round trip through
 * libuv's thread pool and a promise, which for 64 KB reads cost twice the decoding's CPU; no
 * buffer or string of the whole file is held.
 */
const READ_BYTES = 1024 * 1024;

/**
 * A text file's contents in pieces of whole lines: each piece ends just after a '\n' (a byte
 * no multi-byte UTF-8 sequence holds, so each piece decodes alone as the whole file would),
 * the last at the end of the file. A piece holds at most SEGMENT_BYTES, or one line longer than
 * that; a line longer than the buffer makes it grow. `size` (the file's logged size) keeps the
 * buffer of a small file small. Returns the bytes read.
 */
async function readLines(h: FileHandle, size: number, onText: (text: string) => Promise<void>): Promise<number> {
  // One byte past the size, so that a file read whole takes one read and the end one more.
  let buf = Buffer.allocUnsafe(Math.min(READ_BYTES, Math.max(size + 1, 64)));
  let filled = 0;
  let total = 0;
  for (;;) {
    if (filled === buf.length) {
      const grown = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(grown, 0, 0, filled);
      buf = grown;
    }
    const { bytesRead } = await h.read(buf, filled, buf.length - filled, null);
    total += bytesRead;
    const end = filled + bytesRead;
    if (bytesRead === 0) {
      if (end > 0) await onText(buf.toString('utf8', 0, end));
      return total;
    }
    let start = 0;
    for (;;) {
      let cut = buf.lastIndexOf(10, Math.min(start + SEGMENT_BYTES, end) - 1) + 1;
      // A line longer than a segment: a piece of its own, if its end was read.
      if (cut <= start && end - start > SEGMENT_BYTES) cut = buf.subarray(0, end).indexOf(10, start + SEGMENT_BYTES) + 1;
      if (cut <= start) break;
      await onText(buf.toString('utf8', start, cut));
      start = cut;
    }
    filled = end - start;
    buf.copy(buf, 0, start, end);
  }
}

interface FileSourceOffset {
  logOffset: number;
  /** Only in a split's end (planInputPartitions): the one file of entry `logOffset` it reads, by index. */
  file?: number;
  /** Only in reportLatestOffset: files present but not yet logged. */
  pendingFiles?: number;
}

export class FilesSource implements Source {
  readonly description: string;
  readonly replayable = true;
  readonly replayableReason = 'each batch’s files are recorded in the checkpoint’s source log, and files are immutable once visible';
  private readonly log: FileStreamSourceLog;
  private readonly dir: string;
  private seen = new Set<string>();
  private filesPerEntry = new Map<number, number>();
  private logOffset = -1;
  private availableNow?: Set<string>;

  constructor(
    private readonly opts: FilesSourceOptions,
    private readonly ctx: SourceContext,
  ) {
    this.dir = path.resolve(opts.path);
    this.description = `FileSource[${this.dir}]`;
    this.log = new FileStreamSourceLog(ctx.checkpoint, ctx.metadataPath);
  }

  get schema(): Schema {
    return this.ctx.schema;
  }

  async open(): Promise<void> {
    // As Spark's DataSource.sourceSchema: an absent folder fails the start (a glob is not taken).
    try {
      await fs.stat(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new PathNotFoundError(this.dir);
      throw e;
    }
    for (const [id, files] of await this.log.allEntries()) {
      for (const f of files) this.seen.add(f.path);
      this.filesPerEntry.set(id, files.length);
      this.logOffset = Math.max(this.logOffset, id);
    }
  }

  private async listUnseen(): Promise<string[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    return names.filter((n) => !n.startsWith('.') && !n.startsWith('_') && !this.seen.has(n)).sort();
  }

  private current(): Offset | null {
    return this.logOffset < 0 ? null : ({ logOffset: this.logOffset } satisfies FileSourceOffset);
  }

  async latestOffset(start?: Offset | null, limit: ReadLimit = 'default'): Promise<Offset | null> {
    const cap = limit === 'all' || !this.opts.maxFilesPerTrigger ? Infinity : this.opts.maxFilesPerTrigger;
    // Entries logged past `start` were planned by a run that died before writing offsets/N. Each
    // is one batch's worth as that run planned it, so it is the next batch by itself: taking new
    // files into the same batch would exceed maxFilesPerTrigger.
    const from = start === undefined ? this.logOffset : ((start as FileSourceOffset | null)?.logOffset ?? -1);
    if (cap !== Infinity && this.logOffset > from) return { logOffset: from + 1 } satisfies FileSourceOffset;
    let unseen = await this.listUnseen();
    if (this.availableNow) unseen = unseen.filter((n) => this.availableNow!.has(n));
    if (unseen.length === 0) return this.current();
    // With modifiedAfter every unseen file is looked at before the limit, so old files cannot fill it.
    const after = this.opts.modifiedAfter === undefined ? null : Date.parse(this.opts.modifiedAfter);
    const entries: SourceFileEntry[] = [];
    for (const name of after === null && cap !== Infinity ? unseen.slice(0, cap) : unseen) {
      if (entries.length >= cap) break;
      // lstat: a symbolic link is never followed (it is not a file of this directory; see NOT_FOLLOWED).
      const st = await fs.lstat(path.join(this.dir, name));
      if (st.isFile() && (after === null || st.mtimeMs > after)) entries.push({ path: name, size: st.size, modificationTime: Math.floor(st.mtimeMs) });
    }
    if (entries.length === 0) return this.current();
    const id = this.logOffset + 1;
    await this.log.add(id, entries);
    this.logOffset = id;
    this.filesPerEntry.set(id, entries.length);
    for (const e of entries) this.seen.add(e.path);
    return this.current();
  }

  async reportLatestOffset(): Promise<Offset | null> {
    const pending = (await this.listUnseen()).length;
    return { logOffset: this.logOffset, pendingFiles: pending } satisfies FileSourceOffset;
  }

  async prepareForTriggerAvailableNow(): Promise<void> {
    this.availableNow = new Set(await this.listUnseen());
  }

  /** One split per file of each log entry in (start, end], in the order getBatch reads them. */
  async planInputPartitions(start: Offset | null, end: Offset): Promise<{ start: Offset | null; end: Offset }[]> {
    const from = (start as FileSourceOffset | null)?.logOffset ?? -1;
    const to = (end as FileSourceOffset).logOffset;
    const splits: { start: Offset | null; end: Offset }[] = [];
    for (let id = from + 1; id <= to; id++) {
      const files = await this.logEntry(id, from, to);
      files.forEach((_, file) => splits.push({ start: id === 0 ? null : { logOffset: id - 1 }, end: { logOffset: id, file } satisfies FileSourceOffset }));
    }
    return splits;
  }

  async getBatch(start: Offset | null, end: Offset): Promise<SourceBatch> {
    const out = new RowOutput();
    return { ...(await this.read(start, end, out)), rows: out.rows };
  }

  /** getBatch's rows in pieces of PIECE_ROWS, each handed over as it fills (a file's rows may span pieces). */
  async getBatchInPieces(start: Offset | null, end: Offset, onRows: (rows: Row[]) => void | Promise<void>): Promise<SourceBatch> {
    const out = new RowOutput(onRows);
    const batch = await this.read(start, end, out);
    await out.flush();
    return batch;
  }

  private async read(start: Offset | null, end: Offset, out: RowOutput): Promise<SourceBatch> {
    const from = (start as FileSourceOffset | null)?.logOffset ?? -1;
    const { logOffset: to, file } = end as FileSourceOffset;
    const badRecords: BadRecord[] = [];
    const scan = this.scanState();
    for (let id = from + 1; id <= to; id++) {
      const files = await this.logEntry(id, from, to);
      if (file !== undefined) {
        if (id !== to || !files[file]) throw new Error(`Internal: split (${from}, ${to}] file ${file} is not one file of one source log entry`);
        await this.readFile(files[file], out, badRecords, scan);
        continue;
      }
      for (const f of files) await this.readFile(f, out, badRecords, scan);
    }
    if (!scan) return { rows: [], badRecords };
    return { rows: [], badRecords, scanned: { numInputRows: scan.read, eventTimes: scan.eventTimes?.result() } };
  }

  private async logEntry(id: number, from: number, to: number): Promise<SourceFileEntry[]> {
    const files = await this.log.get(id);
    if (!files) {
      throw new DataLossError(
        `Source log entry ${this.log.pathOf(id)} is missing, so batch (${from}, ${to}] cannot be replayed. Restore the checkpoint, or start on a new checkpoint.`,
        { logOffset: id },
      );
    }
    return files;
  }

  /** With a pushed filter: what the batch read, for `SourceBatch.scanned`. */
  private scanState(): ScanState | undefined {
    const filter = this.ctx.pushedFilter;
    if (!filter) return undefined;
    const eventTime = this.ctx.eventTime !== undefined && this.schema.some((f) => f.name === this.ctx.eventTime) ? this.ctx.eventTime : undefined;
    return { filter, watermark: this.ctx.watermarkFilter ?? (() => true), read: 0, eventTime, eventTimes: eventTime === undefined ? undefined : new EventTimeStatsAccumulator() };
  }

  private async readFile(f: SourceFileEntry, out: RowOutput, bad: BadRecord[], scan: ScanState | undefined): Promise<void> {
    const full = path.join(this.dir, f.path);
    let h: FileHandle;
    try {
      h = await fs.open(full, NO_FOLLOW);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new DataLossError(`Input file ${full} was deleted but a batch recorded in the checkpoint needs it. Restore the file, or start on a new checkpoint.`, { file: full });
      }
      if ((e as NodeJS.ErrnoException).code === 'ELOOP') {
        throw new DataLossError(`Input file ${full} was replaced by a symbolic link after a batch recorded it; ${NOT_FOLLOWED} Put the file itself back, or start on a new checkpoint.`, { file: full });
      }
      throw e;
    }
    try {
      const { size } = await h.stat();
      if (size !== f.size) throw changedSize(full, f, size);
      await this.readOpenFile(h, f, full, out, bad, scan);
    } finally {
      await h.close();
    }
  }

  /** readFile's file, opened and of the size logged. */
  private async readOpenFile(h: FileHandle, f: SourceFileEntry, full: string, out: RowOutput, bad: BadRecord[], scan: ScanState | undefined): Promise<void> {
    // Only for a query that reads it: other queries' rows keep their shape.
    const meta: FileMetadata | undefined = this.ctx.fileMetadata
      ? {
          file_path: pathToFileURL(full).href, file_name: path.basename(full), file_size: f.size, file_block_start: 0, file_block_length: f.size,
          file_modification_time: f.modificationTime ?? Math.floor((await fs.lstat(full)).mtimeMs),
        }
      : undefined;
    const withMeta = (first: number) => {
      if (meta) for (let i = first; i < out.rows.length; i++) out.rows[i][FILE_METADATA_COLUMN] = meta;
    };
    if (this.opts.format === 'parquet') {
      const buf = await h.readFile();
      if (buf.length !== f.size) throw changedSize(full, f, buf.length);
      const first = out.rows.length;
      await this.readParquet(buf, full, out.rows, bad, scan);
      withMeta(first);
      if (out.rows.length >= out.limit) await out.flush();
      return;
    }
    const cursor = this.lineCursor(undefined, full, bad);
    let atStart = true;
    const read = await readLines(h, f.size, async (text) => {
      // A UTF-8 byte-order mark would otherwise make the first record (or the CSV header) bad.
      if (atStart && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      atStart = false;
      cursor.pos = 0;
      for (;;) {
        const first = out.rows.length;
        this.parseLines(text, full, out.rows, bad, cursor, scan, out.limit);
        withMeta(first);
        if (cursor.pos >= text.length) return;
        await out.flush();
      }
    });
    if (read !== f.size) throw changedSize(full, f, read);
  }

  /** A whole Parquet file's rows (with `scan`, those the pushed filter keeps) and bad records. */
  private async readParquet(buf: Buffer, full: string, rows: Row[], bad: BadRecord[], scan: ScanState | undefined): Promise<void> {
    const got = await readParquetRows(buf, this.schema, full, this.ctx.requiredColumns);
    for (const b of got.badRecords) bad.push(b);
    if (!scan) {
      for (const r of got.rows) rows.push(r);
      return;
    }
    const columns = this.ctx.requiredColumns;
    const eventTime = scan.eventTime !== undefined && (columns === undefined || columns.includes(scan.eventTime)) ? scan.eventTime : undefined;
    for (const r of got.rows) {
      scan.read++;
      if (eventTime !== undefined && scan.watermark(r)) scan.eventTimes?.add(r[eventTime]);
      if (scan.filter(r)) rows.push(r);
    }
  }

  /** Where parseLines starts a file's text (with `header`, a CSV header line given apart from it). */
  private lineCursor(header: string | undefined, full: string, bad: BadRecord[]): LineCursor {
    const columns = this.ctx.requiredColumns;
    // With a pushed filter, a JSON line that needs no coercion is tested as parsed: only the
    // lines kept become rows (most of a selective filter's lines are never copied).
    const json = this.opts.format === 'json' ? new JsonLineParser(this.schema, columns) : undefined;
    const cursor: LineCursor = { pos: 0, lineNo: 0, json };
    if (json) cursor.parser = json;
    else if (!this.opts.header) cursor.parser = new CsvLineParser(this.schema, undefined, columns);
    else if (header !== undefined) cursor.parser = this.csvHeaderParser(header, full, 1, bad);
    return cursor;
  }

  /**
   * The records of `text` from `cursor` on, as rows and bad records, until the text ends or
   * `rows` holds `limit` rows (the cursor then says where to go on); with `scan`, only the rows
   * the pushed filter keeps, counting every row read.
   */
  private parseLines(text: string, full: string, rows: Row[], bad: BadRecord[], cursor: LineCursor, scan?: ScanState, limit = Infinity): void {
    let { lineNo, pos, parser } = cursor;
    const { json } = cursor;
    const columns = this.ctx.requiredColumns;
    // The event time as the row would hold it: a pruned-away column is not in the row.
    const eventTime = scan?.eventTime !== undefined && (columns === undefined || columns.includes(scan.eventTime)) ? scan.eventTime : undefined;
    while (pos < text.length && rows.length < limit) {
      let nl = text.indexOf('\n', pos);
      if (nl === -1) nl = text.length;
      const line = text.slice(pos, nl);
      pos = nl + 1;
      lineNo++;
      // A JSON line starts with '{': only other lines need the whitespace test.
      if (line.charCodeAt(0) !== 0x7b && line.trim() === '') continue;
      if (!parser) {
        parser = this.csvHeaderParser(line, full, lineNo, bad);
        continue;
      }
      let r: { ok: true; row: Row } | { ok: false; reason: string };
      if (json !== undefined && scan !== undefined) {
        const src = json.parseObject(line);
        if (typeof src === 'string') r = { ok: false, reason: src };
        else if (json.typedObject(src)) {
          scan.read++;
          if (eventTime !== undefined && scan.watermark(src)) scan.eventTimes?.add(src[eventTime]);
          if (!scan.filter(src)) continue;
          const kept = json.toRow(src);
          if (kept.ok) rows.push(kept.row);
          continue;
        } else r = json.toRow(src);
      } else r = parser.parse(line);
      if (r.ok) {
        if (scan) {
          scan.read++;
          if (scan.watermark(r.row)) scan.eventTimes?.add(r.row[scan.eventTime!]);
          if (!scan.filter(r.row)) continue;
        }
        rows.push(r.row);
      } else bad.push({ raw: line, location: { source: full, line: lineNo }, reason: r.reason });
    }
    cursor.pos = pos;
    cursor.lineNo = lineNo;
    cursor.parser = parser;
  }

  private csvHeaderParser(line: string, full: string, lineNo: number, bad: BadRecord[]): CsvLineParser {
    const header = splitCsvLine(line.replace(/\r$/, '')) ?? [];
    const missing = CsvLineParser.missingColumns(this.schema, header);
    if (missing.length) {
      bad.push({ raw: line, location: { source: full, line: lineNo }, reason: `CSV header lacks column(s) ${missing.join(', ')}; the file's columns are read as NULL` });
    }
    return new CsvLineParser(this.schema, header, this.ctx.requiredColumns);
  }

  /**
   * The preview's look at the newest records: the newest files (by modification time, then name;
   * hidden names and modifiedAfter as a batch would), each read from its end, until `limit` is
   * reached. Reads only the directory; the checkpoint's source log is not touched.
   */
  async sampleRecent(limit: RecentRecordsLimit): Promise<RecentRecords> {
    let names: string[];
    try {
      names = (await fs.readdir(this.dir)).filter((n) => !n.startsWith('.') && !n.startsWith('_'));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { rows: [], badRecords: [], bytesRead: 0, stoppedAtBytes: false };
      throw e;
    }
    const after = this.opts.modifiedAfter === undefined ? null : Date.parse(this.opts.modifiedAfter);
    const files: { name: string; size: number; mtimeMs: number }[] = [];
    const links: BadRecord[] = [];
    for (const name of names) {
      if (limit.signal.aborted) break;
      const st = await fs.lstat(path.join(this.dir, name)).catch(() => null);
      if (st?.isSymbolicLink()) links.push({ raw: '', location: { source: path.join(this.dir, name) }, reason: `a symbolic link, not read: ${NOT_FOLLOWED}` });
      else if (st?.isFile() && (after === null || st.mtimeMs > after)) files.push({ name, size: st.size, mtimeMs: st.mtimeMs });
    }
    files.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    const parts: SourceBatch[] = [];
    let count = 0;
    let bytesRead = 0;
    let stoppedAtBytes = false;
    for (const f of files) {
      if (count >= limit.records || limit.signal.aborted) break;
      if (bytesRead >= limit.bytes) {
        stoppedAtBytes = true;
        break;
      }
      const full = path.join(this.dir, f.name);
      if (this.opts.format === 'parquet') {
        // A Parquet file has no line to start from: its last whole row groups, within the byte
        // bound counted uncompressed, and only they and the footer are read from disk.
        const part = await readParquetTail(full, this.schema, limit.records - count, limit.bytes - bytesRead);
        bytesRead += part.bytes;
        count += part.rows.length + part.badRecords.length;
        parts.push(part);
        if (part.overBudget) {
          stoppedAtBytes = true;
          break;
        }
        continue;
      }
      const take = Math.min(f.size, limit.bytes - bytesRead);
      const { text, header } = await this.readTail(full, f.size, take);
      bytesRead += take;
      if (take < f.size) stoppedAtBytes = true;
      const part: SourceBatch = { rows: [], badRecords: [] };
      this.parseLines(lastLines(text, limit.records - count), full, part.rows, part.badRecords, this.lineCursor(header, full, part.badRecords));
      count += part.rows.length + part.badRecords.length;
      parts.push(part);
    }
    parts.reverse();
    return { rows: parts.flatMap((p) => p.rows), badRecords: [...links, ...parts.flatMap((p) => p.badRecords)], bytesRead, stoppedAtBytes };
  }

  /** The last `take` bytes of a file from a line start, and with a CSV header its first line apart. */
  private async readTail(full: string, size: number, take: number): Promise<{ text: string; header?: string }> {
    const h = await fs.open(full, NO_FOLLOW);
    try {
      const buf = Buffer.alloc(take);
      const { bytesRead } = await h.read(buf, 0, take, size - take);
      let text = buf.subarray(0, bytesRead).toString('utf8');
      if (take < size) text = text.slice(text.indexOf('\n') + 1 || text.length); // a partial first line
      else if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (this.opts.format !== 'csv' || !this.opts.header) return { text };
      const head = Buffer.alloc(Math.min(size, MAX_HEADER_BYTES));
      const got = await h.read(head, 0, head.length, 0);
      let first = head.subarray(0, got.bytesRead).toString('utf8');
      if (first.charCodeAt(0) === 0xfeff) first = first.slice(1);
      const nl = first.indexOf('\n');
      const header = nl === -1 ? first : first.slice(0, nl);
      // The tail that starts at the file's start holds the header itself.
      if (take >= size) text = text.slice(text.indexOf('\n') + 1 || text.length);
      return { text, header };
    } finally {
      await h.close();
    }
  }

  offsetLag(from: Offset | null, to: Offset | null): number | null {
    const a = (from as FileSourceOffset | null)?.logOffset ?? -1;
    const t = to as FileSourceOffset | null;
    const b = t?.logOffset ?? -1;
    let lag = t?.pendingFiles ?? 0;
    for (let id = a + 1; id <= b; id++) lag += this.filesPerEntry.get(id) ?? 0;
    return lag;
  }

  async stop(): Promise<void> {}
}

registerSource<FilesSourceOptions>({
  type: 'files',
  options: FilesSourceOptions,
  metadataColumn: true,
  readsVariant: (o) => o.format === 'json',
  replayable: () => ({ replayable: true, reason: 'the files of each batch are logged in the checkpoint and re-read on replay (files must stay in place and unchanged)' }),
  create: (o, ctx) => {
    if (!o.path) throw new ValidationError('source.options.path is required');
    return new FilesSource(o, ctx);
  },
});
