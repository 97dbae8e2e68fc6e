/**
 * Parse: turns a raw line (JSON lines or CSV) into a typed row against the source schema, or a
 * reason it cannot. Used by the files source; a failure becomes a BadRecord that the execution
 * handles per `onBadRecord` (fail, or dead-letter), so nothing is dropped silently.
 *
 * Typing rules: long = an integer (JSON number, or CSV digits); double = any number; string =
 * any JSON string (CSV: the field text); boolean = true/false; timestamp = ISO-8601 string
 * (UTC unless it carries a zone) or epoch milliseconds. A missing field or JSON null, or an
 * empty CSV field, is NULL. Fields not in the schema are ignored, and so are schema columns
 * outside `columns` when a parser is given that list (the optimizer's ColumnPruning: a row
 * carries, and a line is checked for, only the columns the query reads).
 * CSV: RFC 4180 quoting within one line ("" escapes a quote); multi-line fields are not supported.
 */
import type { Field, Row, Schema } from '../types';
import { convertComplex, holdsLong, narrowed, readInterval } from '../sources/value-conversion';
import { parseTimestampLiteral } from '../query/expression-builder';
import { fitsLong, fitsWidth, toLong, type IntegralBits } from '../query/long';
import { floatFromLong } from '../query/float';
import { nonFiniteDouble } from '../query/sql-values';
import { parseJsonRecordText, stringifyJson } from '../json-text';
import { parseVariantMembers, VariantParseError, type Variant } from '../query/variant';

/** A JSON value as a message shows it (a bigint, which JSON.stringify refuses, as its digits). */
const describe = (v: unknown): string => stringifyJson(v);

export type ParseResult = { ok: true; row: Row } | { ok: false; reason: string };

export function coerceField(v: unknown, field: Field, fromText: boolean): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (v === null || v === undefined || (fromText && v === '')) return { ok: true, value: null };
  switch (field.type) {
    case 'long': {
      if (typeof v === 'number') {
        if (!Number.isInteger(v)) return { ok: false, reason: `expected a long, got ${v}` };
        // parseJson keeps an integer's digits past 2^53 as a bigint: a number there was written
        // with an exponent (1e20) and has no exact digits to keep.
        return Number.isSafeInteger(v) ? narrowed(field, v) : { ok: false, reason: `long ${v} is not exact; write it as plain digits` };
      }
      if (typeof v === 'bigint' || (fromText && typeof v === 'string' && /^[+-]?\d+$/.test(v.trim()))) {
        // Fifteen digits or fewer is always a safe integer: no bigint needed.
        if (typeof v === 'string' && v.trim().length <= 15) return narrowed(field, Number(v.trim()) + 0);
        const b = typeof v === 'bigint' ? v : BigInt(v.trim());
        if (fitsLong(b)) return narrowed(field, toLong(b));
        return { ok: false, reason: `long ${String(v).trim()} is outside BIGINT's 64-bit range` };
      }
      return { ok: false, reason: `expected a long, got ${describe(v)}` };
    }
    case 'double': {
      // A FLOAT column's value is the nearest float.
      const single = field.float32 ? Math.fround : (n: number) => n;
      if (typeof v === 'number') return { ok: true, value: single(v) };
      if (typeof v === 'bigint') return { ok: true, value: field.float32 ? floatFromLong(v) : Number(v) };
      if (typeof v === 'string') {
        // NaN and the infinities as Spark's JSON and CSV writers write them (and its readers read them).
        const s = fromText ? v.trim() : v;
        const special = nonFiniteDouble(s, fromText ? 'csv' : 'json');
        if (special !== undefined) return { ok: true, value: special };
        const n = Number(s);
        if (fromText && s !== '' && !Number.isNaN(n)) return { ok: true, value: single(n) };
      }
      return { ok: false, reason: `expected a double, got ${describe(v)}` };
    }
    case 'string':
      if (typeof v === 'string') return { ok: true, value: v };
      return { ok: false, reason: `expected a string, got ${describe(v)}` };
    case 'boolean':
      if (typeof v === 'boolean') return { ok: true, value: v };
      if (fromText && typeof v === 'string' && /^(true|false)$/i.test(v.trim())) return { ok: true, value: v.trim().toLowerCase() === 'true' };
      return { ok: false, reason: `expected a boolean, got ${describe(v)}` };
    case 'timestamp': {
      if (typeof v === 'number' && Number.isFinite(v)) return { ok: true, value: Math.trunc(v) };
      if (typeof v === 'string') {
        // A TIMESTAMP_NTZ is the wall-clock time written; text with a zone is not one (Spark's readers).
        const t = field.ntz ? parseTimestampLiteral(v, true, true) : parseTimestampLiteral(v);
        if (t !== null) return { ok: true, value: t };
        if (fromText && /^\d+$/.test(v.trim())) return { ok: true, value: Number(v.trim()) };
      }
      return { ok: false, reason: `expected a timestamp (ISO-8601 or epoch ms), got ${describe(v)}` };
    }
    case 'binary':
      // Spark's JSON and CSV readers take binary as base64 text.
      if (v instanceof Uint8Array) return { ok: true, value: v };
      if (typeof v === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(v.trim())) return { ok: true, value: Buffer.from(v.trim(), 'base64') };
      return { ok: false, reason: `expected binary as base64 text, got ${describe(v)}` };
    case 'decimal': case 'date': case 'array': case 'map': case 'struct': case 'window':
      return convertComplex(v, field, (x, g) => coerceField(x, g, fromText));
    case 'day_time_interval': case 'year_month_interval':
      return readInterval(v, field);
    // A CalendarInterval is no column type (fieldOfDataType).
    // A VARIANT column's value is the line's member as a variant (JsonLineParser.parseObject).
    case 'unknown': case 'calendar_interval': case 'variant':
    default:
      return { ok: true, value: v };
  }
}

/** Whether a parsed JSON value is already the engine's value for the column type (no coercion). */
function alreadyTyped(v: unknown, type: string): boolean {
  switch (type) {
    case 'long':
      return Number.isSafeInteger(v);
    // INT, SMALLINT, TINYINT (the constructor names them by width): a whole number in range.
    case 'int32': case 'int16': case 'int8':
      return Number.isInteger(v) && fitsWidth(Number(type.slice(3)) as IntegralBits, v as number);
    case 'double':
      return typeof v === 'number';
    // FLOAT: a number that is already a float.
    case 'float32':
      return typeof v === 'number' && Math.fround(v) === v;
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'timestamp':
      // Epoch milliseconds; ISO strings need parsing.
      return Number.isSafeInteger(v);
    default:
      return false;
  }
}

/** The schema's fields that a parser materializes: all, or those named in `columns`. */
function materialized(schema: Schema, columns: readonly string[] | undefined): Schema {
  return columns ? schema.filter((f) => columns.includes(f.name)) : schema;
}

/** Names an object literal inherits: reading one from a parsed line that lacks it is not NULL. */
const inherited = (name: string) => name in Object.prototype;

export class JsonLineParser {
  private readonly names: string[];
  private readonly fields: Field[];
  private readonly types: string[];
  /** Columns named like an Object.prototype member: read only as the line's own property. */
  private readonly ownOnly: boolean[];
  /** The BIGINT columns, whose digits past 2^53 a line is read again for. */
  private readonly longs: string[];
  /** Whether a parsed line can stand in for its row when read by column (see `typedObject`). */
  private readonly readableAsRow: boolean;
  /** The VARIANT columns, whose values a line is read again for, exactly (parseVariantMembers). */
  private readonly variants: string[];
  constructor(schema: Schema, columns?: readonly string[]) {
    const fields = materialized(schema, columns);
    this.names = fields.map((f) => f.name);
    this.fields = fields;
    this.types = fields.map((f) => (f.type === 'long' && f.integral ? `int${f.integral}` : f.type === 'double' && f.float32 ? 'float32' : f.type));
    this.longs = fields.filter(holdsLong).map((f) => f.name);
    this.ownOnly = this.names.map(inherited);
    this.readableAsRow = !this.ownOnly.includes(true);
    this.variants = fields.filter((f) => f.type === 'variant').map((f) => f.name);
  }

  parse(line: string): ParseResult {
    const obj = this.parseObject(line);
    return typeof obj === 'string' ? { ok: false, reason: obj } : this.toRow(obj);
  }

  /** The line's JSON object, or the reason it is not one. */
  parseObject(line: string): Record<string, unknown> | string {
    let obj: unknown;
    try {
      obj = parseJsonRecordText(line, this.longs);
    } catch (e) {
      return `malformed JSON: ${(e as Error).message}`;
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return 'expected a JSON object per line';
    if (this.variants.length > 0) return this.withVariants(line, obj as Record<string, unknown>);
    return obj as Record<string, unknown>;
  }

  /**
   * The line's object with each VARIANT column's member replaced by its variant, built from the
   * line's text as Spark's JacksonParser builds it (every digit of a number kept; a JSON null a
   * variant null, a missing member NULL); a key written twice inside the value makes the line bad.
   */
  private withVariants(line: string, obj: Record<string, unknown>): Record<string, unknown> | string {
    let members: ReadonlyMap<string, Variant>;
    try {
      members = parseVariantMembers(line);
    } catch (e) {
      if (e instanceof VariantParseError) return e.message;
      throw e;
    }
    for (const name of this.variants) {
      const v = members.get(name);
      if (v !== undefined) obj[name] = v;
    }
    return obj;
  }

  /**
   * Whether `src` (from parseObject) reads, column by column, as the row `toRow` makes of it:
   * every materialized column in it is absent, NULL or already of its type, so no value is
   * coerced and the line is not bad. A scan can then test its pushed filter on `src` and build
   * rows only for the lines it keeps; a column read (`row[name] ?? null`) sees the same value.
   */
  typedObject(src: Record<string, unknown>): boolean {
    if (!this.readableAsRow) return false;
    const { names, types } = this;
    for (let i = 0; i < names.length; i++) {
      const v = src[names[i]];
      if (v !== undefined && v !== null && !alreadyTyped(v, types[i])) return false;
    }
    return true;
  }

  /** The row of a parsed line, or why it does not fit the schema. */
  toRow(src: Record<string, unknown>): ParseResult {
    const { names, types } = this;
    // Common case: the producer wrote exactly the schema's fields, in order, already typed. The
    // parsed object is then the row (one allocation per record instead of two).
    let i = 0;
    let exact = true;
    for (const k in src) {
      const v = src[k];
      if (k !== names[i] || (v !== null && !alreadyTyped(v, types[i]))) {
        exact = false;
        break;
      }
      i++;
    }
    if (exact && i === names.length) return { ok: true, row: src };
    const row: Row = {};
    const ownOnly = this.readableAsRow ? null : this.ownOnly;
    for (let i = 0; i < names.length; i++) {
      const v = ownOnly !== null && ownOnly[i] && !Object.hasOwn(src, names[i]) ? undefined : src[names[i]];
      // Fast path without allocation for values already of the column's JSON type.
      if (v === undefined || v === null) row[names[i]] = null;
      else if (alreadyTyped(v, types[i])) row[names[i]] = v;
      else {
        const c = coerceField(v, this.fields[i], false);
        if (!c.ok) return { ok: false, reason: `field "${names[i]}": ${c.reason}` };
        row[names[i]] = c.value;
      }
    }
    return { ok: true, row };
  }
}

/**
 * How a CSV line is written (Spark's CSV options sep, quote, escape): the files source and sink
 * use the default, a comma, and a quote doubled inside a quoted field; from_csv and to_csv take
 * Spark's options.
 */
export interface CsvFormat {
  sep: string;
  quote: string;
  /** The character before a quote inside a quoted field; a doubled quote is one too. */
  escape: string;
}

const DEFAULT_CSV_FORMAT: CsvFormat = { sep: ',', quote: '"', escape: '"' };

/** Splits one CSV line; returns null when quotes are unbalanced. */
export function splitCsvLine(line: string, { sep, quote, escape }: CsvFormat = DEFAULT_CSV_FORMAT): string[] | null {
  const out: string[] = [];
  let i = 0;
  const n = line.length;
  for (;;) {
    if (i < n && line[i] === quote) {
      let s = '';
      i++;
      for (;;) {
        if (i >= n) return null;
        const ch = line[i];
        if ((ch === quote || ch === escape) && line[i + 1] === quote) {
          s += quote;
          i += 2;
          continue;
        }
        if (ch === quote) {
          i++;
          break;
        }
        s += ch;
        i++;
      }
      out.push(s);
      if (i < n && line[i] !== sep) return null;
    } else {
      const j = line.indexOf(sep, i);
      const end = j === -1 ? n : j;
      out.push(line.slice(i, end));
      i = end;
    }
    if (i >= n) break;
    i++; // the separator
    if (i === n) {
      out.push('');
      break;
    }
  }
  return out;
}

/** One field's text as a CSV line holds it: quoted (its quotes escaped) where it must be. */
export function csvField(s: string | null, { sep, quote, escape }: CsvFormat = DEFAULT_CSV_FORMAT): string {
  if (s === null) return '';
  const special = s === '' || s.includes(sep) || s.includes(quote) || /[\n\r]|^\s|\s$/.test(s);
  return special ? `${quote}${s.split(quote).join(escape + quote)}${quote}` : s;
}

export class CsvLineParser {
  private order: number[];
  private readonly schema: Schema;
  /** Fields a line must have: one past the last schema column's position. */
  private readonly width: number;
  constructor(schema: Schema, header?: string[], columns?: readonly string[]) {
    // With a header, columns are matched by name; without, by position in the (whole) schema.
    const fields = materialized(schema, columns);
    this.schema = fields;
    this.order = fields.map((f) => (header ? header.indexOf(f.name) : schema.indexOf(f)));
    // Without a header every line still has the whole schema's width (its shape, pruned or not).
    this.width = header ? this.order.reduce((m, x) => Math.max(m, x + 1), 0) : schema.length;
  }

  static missingColumns(schema: Schema, header: string[]): string[] {
    return schema.filter((f) => !header.includes(f.name)).map((f) => f.name);
  }

  parse(line: string): ParseResult {
    const fields = splitCsvLine(line.endsWith('\r') ? line.slice(0, -1) : line);
    if (!fields) return { ok: false, reason: 'malformed CSV: unbalanced quotes' };
    const width = this.width;
    if (fields.length < width) return { ok: false, reason: `malformed CSV: expected at least ${width} fields, got ${fields.length}` };
    const row: Row = {};
    for (let k = 0; k < this.schema.length; k++) {
      const f = this.schema[k];
      const idx = this.order[k];
      const c = coerceField(idx < 0 ? null : fields[idx], f, true);
      if (!c.ok) return { ok: false, reason: `field "${f.name}": ${c.reason}` };
      row[f.name] = c.value;
    }
    return { ok: true, row };
  }
}
