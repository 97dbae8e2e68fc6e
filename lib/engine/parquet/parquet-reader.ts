/**
 * A Parquet file to rows of a declared schema.
 *
 * The footer's schema is read first and checked against the declared one: a declared column
 * the file lacks is read as NULL and reported (as the CSV reader reports a header that lacks a
 * column); a column whose type cannot be read as the declared one (parquet-types.ts's
 * unreadableReason), or a file that is not Parquet at all (truncated, no footer, corrupt), makes
 * the whole file one bad record naming the file, the column and both types: the job's
 * onBadRecord then fails the run with that message or diverts it to the dead letters, and no
 * row of a file is read half. Every INT64 fits a long column: past ±2^53 it is a bigint (query/long.ts).
 */
import { openAsBlob } from 'node:fs';
import type * as Arrow from 'apache-arrow';
import type * as ParquetWasm from 'parquet-wasm';
import type { Field, Row, Schema } from '../types';
import type { BadRecord } from '../sources/source';
import { mapKeyField, unreadableReason, weirFieldOf, weirTypeName, type ArrowModule } from './parquet-types';
import { loadParquetLibs } from './parquet-writer';
import { toLong } from '../query/long';
import { canonicalTimestamp, timestampFromMicros } from '../query/timestamp-micros';

export interface ParquetReadResult {
  rows: Row[];
  badRecords: BadRecord[];
  /** The columns read, as declared (or as the file's types read, with no declared schema). */
  schema: Schema;
}

/** Rows per Arrow batch read from the file: large batches keep the per-batch cost small. */
const READ_BATCH_ROWS = 64 * 1024;

const DAY_MS = 86_400_000;

function notParquet(file: string, e: unknown): BadRecord {
  const msg = e instanceof Error ? e.message : String(e);
  return {
    raw: file,
    location: { source: file },
    reason: `${file} is not a readable Parquet file (${msg.slice(0, 300)}); a file must be complete when it appears in the directory (write it elsewhere, then rename it in)`,
  };
}

/** The Arrow value of a column (as Vector.get returns it) as the engine holds a value of `f`. */
function toWeir(a: ArrowModule, v: unknown, f: Field): unknown {
  if (v === null || v === undefined) return null;
  switch (f.type) {
    case 'long': case 'day_time_interval':
      return typeof v === 'bigint' ? toLong(v) : v;
    case 'year_month_interval':
      return Number(v);
    case 'double':
      return Number(v);
    case 'timestamp':
      // Nested: Arrow hands every timestamp unit over as epoch milliseconds (a fraction below 1
      // ms: the microseconds, made the canonical double).
      return canonicalTimestamp(Number(v));
    case 'date':
      return Math.floor(Number(v) / DAY_MS);
    case 'decimal':
      return BigInt(a.util.bigNumToBigInt(v as never));
    case 'binary':
      return v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v;
    // No column is a CalendarInterval (fieldOfDataType), and no Parquet file holds one (unreadableReason).
    case 'string':
    case 'unknown':
    case 'calendar_interval': case 'variant':
      return String(v);
    case 'boolean':
      return v;
    case 'window': {
      const s = v as { start: unknown; end: unknown };
      return { start: toWeir(a, s.start, { name: 'start', type: 'timestamp' }), end: toWeir(a, s.end, { name: 'end', type: 'timestamp' }) };
    }
    case 'struct': {
      const s = v as Record<string, unknown>;
      const out: Row = {};
      for (const c of f.fields ?? []) out[c.name] = toWeir(a, s[c.name], c);
      return out;
    }
    case 'array': {
      const el = f.elementType ?? { name: 'element', type: 'unknown' };
      return Array.from(v as Iterable<unknown>, (x) => toWeir(a, x, el));
    }
    case 'map': {
      // The engine keys a map by the key's text (query/map-keys.ts).
      const vt = f.valueType ?? { name: 'value', type: 'unknown' };
      const kt = mapKeyField(f);
      const out: Row = {};
      for (const [k, x] of v as Iterable<[unknown, unknown]>) out[String(toWeir(a, k, kt))] = toWeir(a, x, vt);
      return out;
    }
  }
}

/** Whether `t` is exactly what the writer writes for a flat `f` (its buffers can be read as they are). */
function isFlatExact(a: ArrowModule, t: Arrow.DataType, f: Field): boolean {
  if (f.type === 'long') return a.DataType.isInt(t) && t.bitWidth === 64 && t.isSigned;
  if (f.type === 'double') return a.DataType.isFloat(t) && t.precision === a.Precision.DOUBLE;
  if (f.type === 'string') return a.DataType.isUtf8(t);
  // Any unit: the raw integers divide exactly (Arrow's own conversion goes through a double).
  if (f.type === 'timestamp') return a.DataType.isTimestamp(t);
  if (f.type === 'boolean') return a.DataType.isBool(t);
  if (f.type === 'date') return a.DataType.isDate(t) && t.unit === a.DateUnit.DAY;
  if (f.type === 'decimal') return a.DataType.isDecimal(t) && t.bitWidth === 128;
  return false;
}

/** Units per millisecond of an Arrow TimeUnit (SECOND, MILLISECOND, MICROSECOND, NANOSECOND). */
const PER_MS = [0, 1, 1000, 1_000_000];

/** `raw` in units of 1/perMs ms (or seconds when perMs is 0) as a timestamp: nanoseconds floored to microseconds. */
function epochMs(raw: bigint, perMs: number): number {
  if (perMs === 0) return Number(raw) * 1000;
  if (perMs === 1) return Number(raw);
  if (perMs === 1000) return timestampFromMicros(toLong(raw));
  const q = raw / 1000n;
  return timestampFromMicros(toLong(raw < 0n && q * 1000n !== raw ? q - 1n : q));
}

/** One Arrow buffer set (a batch's column) into `rows[base…]`, read straight from its buffers. */
function readFlat(a: ArrowModule, d: Arrow.Data, f: Field, rows: Row[], base: number): void {
  const n = d.length;
  const name = f.name;
  const bitmap = d.nullCount > 0 ? d.nullBitmap : undefined;
  const off = d.offset;
  const isNull = (i: number) => bitmap !== undefined && (bitmap[(off + i) >> 3] & (1 << ((off + i) & 7))) === 0;
  if (f.type === 'string') {
    const offsets = d.valueOffsets as Int32Array;
    const buf = Buffer.from(d.values.buffer, d.values.byteOffset, d.values.byteLength);
    for (let i = 0; i < n; i++) rows[base + i][name] = isNull(i) ? null : buf.toString('utf8', offsets[off + i], offsets[off + i + 1]);
    return;
  }
  if (f.type === 'timestamp') {
    const values = d.values as BigInt64Array;
    const perMs = PER_MS[(d.type as Arrow.Timestamp).unit];
    for (let i = 0; i < n; i++) rows[base + i][name] = isNull(i) ? null : epochMs(values[off + i], perMs);
    return;
  }
  if (f.type === 'boolean') {
    const bits = d.values as Uint8Array;
    for (let i = 0; i < n; i++) rows[base + i][name] = isNull(i) ? null : (bits[(off + i) >> 3] & (1 << ((off + i) & 7))) !== 0;
    return;
  }
  if (f.type === 'date') {
    const days = d.values as Int32Array;
    for (let i = 0; i < n; i++) rows[base + i][name] = isNull(i) ? null : days[off + i];
    return;
  }
  if (f.type === 'decimal') {
    // Two's-complement 128-bit little-endian: as two 64-bit halves, most values need only the low one.
    const words = d.values as Uint32Array;
    const halves = new BigInt64Array(words.buffer, words.byteOffset, words.length / 2);
    for (let i = 0; i < n; i++) {
      if (isNull(i)) {
        rows[base + i][name] = null;
        continue;
      }
      const lo = halves[2 * (off + i)];
      const hi = halves[2 * (off + i) + 1];
      rows[base + i][name] = (hi === 0n && lo >= 0n) || (hi === -1n && lo < 0n) ? lo : (hi << 64n) | BigInt.asUintN(64, lo);
    }
    return;
  }
  const values = d.values as BigInt64Array | Float64Array;
  for (let i = 0; i < n; i++) {
    if (isNull(i)) rows[base + i][name] = null;
    else if (f.type === 'long') {
      rows[base + i][name] = toLong(values[off + i] as bigint);
    } else rows[base + i][name] = values[off + i];
  }
}

/**
 * One column of one batch into `rows[base…]`. Flat columns (long, double, string, timestamp,
 * boolean, date, decimal) as the writer writes them read their buffers directly (most columns, and Arrow's per-value
 * access is the costly part); the rest go through Vector.get and toWeir.
 */
function readColumn(a: ArrowModule, vec: Arrow.Vector, f: Field, rows: Row[], base: number): void {
  if (isFlatExact(a, vec.type, f)) {
    let at = base;
    for (const d of vec.data) {
      readFlat(a, d, f, rows, at);
      at += d.length;
    }
    return;
  }
  for (let i = 0; i < vec.length; i++) {
    const raw = vec.get(i);
    rows[base + i][f.name] = toWeir(a, raw, f);
  }
}


/**
 * The declared columns checked against a file's schema, then read by `readTable` (given the
 * column names to read) into rows: the part the whole-file and the tail readers share.
 */
function readChecked(a: ArrowModule, fileSchema: Arrow.Schema, declared: Schema | undefined, file: string, columns: readonly string[] | undefined, readTable: (names: string[]) => Arrow.Table): ParquetReadResult {
  const schema = declared ?? fileSchema.fields.map((x) => weirFieldOf(a, x.name, x.type));
  const wanted = columns === undefined ? schema : schema.filter((f) => columns.includes(f.name));
  const badRecords: BadRecord[] = [];
  const present: Field[] = [];
  const missing: string[] = [];
  for (const f of wanted) {
    const got = fileSchema.fields.find((x) => x.name === f.name);
    if (!got) {
      missing.push(f.name);
      continue;
    }
    const why = unreadableReason(a, got.type, f);
    if (why !== null) {
      const reason = `column ${f.name} ${why} (declared ${weirTypeName(f)} in source.schema); change the declared type, or convert the file`;
      return { rows: [], badRecords: [{ raw: file, location: { source: file }, reason: `Parquet file ${file}: ${reason}` }], schema: wanted };
    }
    present.push(f);
  }
  if (missing.length) {
    badRecords.push({ raw: file, location: { source: file }, reason: `Parquet file ${file} lacks column(s) ${missing.join(', ')}; the file's columns are read as NULL` });
  }
  let table: Arrow.Table;
  try {
    // With no column wanted, one column still gives the row count.
    table = readTable(present.length ? present.map((f) => f.name) : fileSchema.fields.slice(0, 1).map((x) => x.name));
  } catch (e) {
    return { rows: [], badRecords: [notParquet(file, e)], schema: [] };
  }
  const rows: Row[] = new Array(table.numRows);
  for (let i = 0; i < rows.length; i++) {
    const r: Row = {};
    for (const f of wanted) r[f.name] = null;
    rows[i] = r;
  }
  let base = 0;
  for (const batch of table.batches) {
    for (const f of present) readColumn(a, batch.getChild(f.name)!, f, rows, base);
    base += batch.numRows;
  }
  return { rows, badRecords, schema: wanted };
}

/**
 * The rows of a whole Parquet file as `schema` declares them (without one, as the file's own
 * types read). `columns`: only these are read (the query's required columns); the others are
 * left out of the rows.
 */
export async function readParquetRows(buf: Uint8Array, declared: Schema | undefined, file: string, columns?: readonly string[]): Promise<ParquetReadResult> {
  const { arrow: a, pw } = await loadParquetLibs();
  let fileSchema: Arrow.Schema;
  try {
    // The footer alone: a truncated or foreign file fails here, before any row is read.
    fileSchema = a.tableFromIPC(pw.readSchema(buf).intoIPCStream()).schema;
  } catch (e) {
    return { rows: [], badRecords: [notParquet(file, e)], schema: [] };
  }
  return readChecked(a, fileSchema, declared, file, columns, (names) => a.tableFromIPC(pw.readParquet(buf, { batchSize: READ_BATCH_ROWS, columns: names }).intoIPCStream()));
}

/**
 * The last rows of a Parquet file on disk, for a preview: whole row groups from the end, as
 * many as give `records` rows while their uncompressed size (as the footer declares it) stays
 * within `maxBytes`. Only the footer and those row groups are read from disk. `overBudget`: a
 * row group that would have been read did not fit in `maxBytes`.
 */
export async function readParquetTail(full: string, declared: Schema, records: number, maxBytes: number): Promise<ParquetReadResult & { bytes: number; overBudget: boolean }> {
  const { arrow: a, pw } = await loadParquetLibs();
  let pf: ParquetWasm.ParquetFile;
  let fileSchema: Arrow.Schema;
  try {
    pf = await pw.ParquetFile.fromFile(await openAsBlob(full));
    fileSchema = a.tableFromIPC(pf.schema().intoIPCStream()).schema;
  } catch (e) {
    return { rows: [], badRecords: [notParquet(full, e)], schema: [], bytes: 0, overBudget: false };
  }
  const groups = pf.metadata().rowGroups();
  const picked: number[] = [];
  let rowsPicked = 0;
  let bytes = 0;
  let overBudget = false;
  for (let g = groups.length - 1; g >= 0 && rowsPicked < records; g--) {
    const size = groups[g].totalByteSize();
    if (bytes + size > maxBytes) {
      overBudget = true;
      break;
    }
    picked.unshift(g);
    rowsPicked += groups[g].numRows();
    bytes += size;
  }
  if (picked.length === 0) return { rows: [], badRecords: [], schema: declared, bytes, overBudget };
  let table: Arrow.Table;
  try {
    table = a.tableFromIPC((await pf.read({ rowGroups: picked, batchSize: READ_BATCH_ROWS })).intoIPCStream());
  } catch (e) {
    return { rows: [], badRecords: [notParquet(full, e)], schema: [], bytes, overBudget };
  }
  const got = readChecked(a, fileSchema, declared, full, undefined, (names) => table.select(names));
  return { ...got, rows: got.rows.slice(Math.max(0, got.rows.length - records)), bytes, overBudget };
}
