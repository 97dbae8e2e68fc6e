/**
 * Converting values read from an external system (a PostgreSQL column, a JSON message) to the
 * engine's column types. A value that does not fit is reported, never coerced into something
 * else: the caller turns it into a bad record, so bad input is never silently lost or altered.
 */
import type { Field, Row, Schema } from '../types';
import { parseJsonRecordText, stringifyJson } from '../json-text';
import { fitsLong, fitsWidth, INTEGRAL_NAMES, toLong, type Long } from '../query/long';
import { floatFromLong } from '../query/float';
import { MAX_PRECISION, parseDecimal } from '../query/decimal';
import { parseDate } from '../query/date';
import { nonFiniteDouble } from '../query/sql-values';
import { fullRange, intervalForms, intervalTypeText, parseInterval, type IntervalKind } from '../query/interval-utils';
import { parseTimestampLiteral } from '../query/expression-builder';
import { canonicalTimestamp } from '../query/timestamp-micros';
import { typeOfField, typeText, windowFields } from '../query/data-types';
import { mapKeyText, mapKeyValue } from '../query/map-keys';

export type Converted = { ok: true; value: unknown } | { ok: false; reason: string };

const bad = (reason: string): Converted => ({ ok: false, reason });

/**
 * A whole number as a value of the column's integral type: an INT, SMALLINT or TINYINT value
 * outside its range is a bad record (never wrapped: the input was not of the declared type).
 */
export function narrowed(field: Field, v: Long): Converted {
  if (!field.integral || fitsWidth(field.integral, v)) return { ok: true, value: v };
  const half = 2 ** (field.integral - 1);
  return bad(`${String(v)} is outside ${INTEGRAL_NAMES[field.integral]}'s range (${-half} to ${half - 1})`);
}

export function convertValue(v: unknown, field: Field): Converted {
  if (v === null || v === undefined) return { ok: true, value: null };
  switch (field.type) {
    case 'long': {
      if (Number.isSafeInteger(v)) return narrowed(field, v as number);
      const b = typeof v === 'bigint' ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? BigInt(v.trim()) : undefined;
      return b !== undefined && fitsLong(b) ? narrowed(field, toLong(b)) : bad(`${stringifyJson(v)} is not a long (a whole number within BIGINT's 64-bit range)`);
    }
    case 'double': {
      // NaN and the infinities as Spark's JSON writer writes them, the strings "NaN", "Infinity", "-Infinity".
      const special = typeof v === 'string' ? nonFiniteDouble(v, 'json') : undefined;
      if (special !== undefined) return { ok: true, value: special };
      const n = typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
      if (!Number.isFinite(n)) return bad(`${JSON.stringify(v)} is not a double`);
      // A FLOAT column's value is the nearest float (past FLOAT's range: an infinity, as Java's parseFloat).
      return { ok: true, value: !field.float32 ? n : typeof v === 'bigint' ? floatFromLong(v) : Math.fround(n) };
    }
    case 'boolean':
      if (typeof v === 'boolean') return { ok: true, value: v };
      // Text protocols (Redis stream fields, CSV) carry booleans as words.
      if (v === 'true' || v === 'false') return { ok: true, value: v === 'true' };
      return bad(`${JSON.stringify(v)} is not a boolean`);
    case 'timestamp': {
      // A TIMESTAMP_NTZ's text is the wall-clock time written, text with a zone not one (Spark's
      // readers). Spark's form keeps microseconds; other ISO-8601 text is read as Date.parse reads it.
      const text = (s: string) => (field.ntz ? (parseTimestampLiteral(s, true, true) ?? NaN) : parseTimestampLiteral(s) ?? Date.parse(s));
      const ms = v instanceof Date ? v.getTime() : typeof v === 'number' ? v : typeof v === 'string' ? text(v) : NaN;
      return Number.isFinite(ms) ? { ok: true, value: canonicalTimestamp(ms) } : bad(`${JSON.stringify(v)} is not a timestamp (ISO-8601 or epoch ms)`);
    }
    case 'string':
      if (typeof v === 'string') return { ok: true, value: v };
      if (v instanceof Date) return { ok: true, value: v.toISOString() };
      if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return { ok: true, value: String(v) };
      // stringifyJson: a value read with every digit may hold bigints, which JSON.stringify refuses.
      return { ok: true, value: stringifyJson(v) };
    case 'binary':
      // Bytes from a client (a bytea) as they are; text as base64, as Spark's JSON reader and the
      // files source (record-parser.ts) take binary: a JSON message or a pasted sample has no bytes.
      if (v instanceof Uint8Array) return { ok: true, value: v };
      if (typeof v === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(v.trim())) return { ok: true, value: Buffer.from(v.trim(), 'base64') };
      return bad(`${stringifyJson(v)} is not binary (base64 text)`);
    case 'struct': case 'window': case 'decimal': case 'date': case 'array': case 'map':
      return convertComplex(v, field, convertValue);
    case 'day_time_interval': case 'year_month_interval':
      return readInterval(v, field);
    // Every member listed, so that a new one is a lint error until it is handled here. A
    // CalendarInterval is no column type (fieldOfDataType).
    case 'unknown': case 'calendar_interval': case 'variant':
    default:
      return { ok: true, value: v };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/**
 * An interval column's value from its text, as Spark's JSON and CSV readers cast it
 * (interval-utils.ts's parseInterval: `1 02:03:04` or `INTERVAL '1 02:03:04' DAY TO SECOND`).
 * A number is not an interval (Spark's JSON reader takes only a string).
 */
export function readInterval(v: unknown, field: Field): Converted {
  const kind = field.type as IntervalKind;
  const f = field.interval ?? fullRange(kind);
  const value = typeof v === 'string' ? parseInterval(v, kind, f) : null;
  if (value !== null) return { ok: true, value };
  return bad(`${stringifyJson(v)} is not an ${intervalTypeText(kind, f)} (write it as ${intervalForms(kind, f)})`);
}

/**
 * A DECIMAL, DATE, ARRAY, MAP or STRUCT column's value from what a reader parsed (a JSON value,
 * CSV text, a driver's value). The values inside an array, map or struct go through `leaf` when
 * they are of another type, so each reader keeps its own rules for those. A value that does not
 * fit is a bad record, where Spark's PERMISSIVE readers would make it NULL: Weir never drops a
 * value silently.
 */
export function convertComplex(v: unknown, f: Field, leaf: (v: unknown, f: Field) => Converted): Converted {
  const any = (x: unknown, g: Field): Converted => {
    if (x === null || x === undefined) return { ok: true, value: null };
    switch (g.type) {
      case 'struct': case 'window': case 'decimal': case 'date': case 'array': case 'map': return convertComplex(x, g, leaf);
      case 'long': case 'double': case 'string': case 'boolean': case 'timestamp': case 'binary': case 'unknown':
      case 'day_time_interval': case 'year_month_interval': case 'calendar_interval': case 'variant':
      default: return leaf(x, g);
    }
  };
  switch (f.type) {
    case 'decimal': {
      const t = { precision: f.precision ?? MAX_PRECISION, scale: f.scale ?? 0 };
      // A JSON number arrives as a double; its shortest text is what the producer wrote for any
      // decimal of up to 15 significant digits.
      const text = typeof v === 'number' || typeof v === 'bigint' ? String(v) : typeof v === 'string' ? v : undefined;
      const d = text === undefined || (typeof v === 'number' && !Number.isFinite(v)) ? null : parseDecimal(text, t);
      if (d !== null) return { ok: true, value: d };
      return bad(`${stringifyJson(v)} is not a DECIMAL(${t.precision},${t.scale})${text !== undefined && parseDecimal(text, { precision: MAX_PRECISION, scale: t.scale }) !== null ? ' (too many digits for its precision)' : ''}`);
    }
    case 'date': {
      if (v instanceof Date) return { ok: true, value: Math.floor(v.getTime() / 86_400_000) };
      const d = typeof v === 'string' ? parseDate(v) : null;
      return d !== null ? { ok: true, value: d } : bad(`${stringifyJson(v)} is not a date (yyyy-MM-dd)`);
    }
    case 'array': {
      if (!Array.isArray(v)) return bad(`${stringifyJson(v)} is not an array`);
      const out: unknown[] = [];
      for (let i = 0; i < v.length; i++) {
        const c = any(v[i], f.elementType!);
        if (!c.ok) return bad(`element ${i}: ${c.reason}`);
        out.push(c.value);
      }
      return { ok: true, value: out };
    }
    case 'map': {
      if (!isObject(v)) return bad(`${stringifyJson(v)} is not an object (a map)`);
      const kt = typeOfField(f.keyType!);
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        // A map's key is kept as its text (query/map-keys.ts), checked against its type.
        const key = mapKeyValue(k, kt);
        if (key === null) return bad(`key ${JSON.stringify(k)} is not a ${typeText(kt)}`);
        const c = any(x, f.valueType!);
        if (!c.ok) return bad(`key ${JSON.stringify(k)}: ${c.reason}`);
        Object.defineProperty(out, mapKeyText(key, kt), { value: c.value, enumerable: true, writable: true, configurable: true });
      }
      return { ok: true, value: out };
    }
    // A window is the struct of its start and end timestamps (Spark's TimeWindow).
    case 'struct': case 'window': {
      if (!isObject(v)) return bad(`${stringifyJson(v)} is not an object (a struct)`);
      const keys = Object.keys(v);
      const out: Record<string, unknown> = {};
      for (const g of f.type === 'window' ? windowFields(f) : (f.fields ?? [])) {
        // Names match exactly first, then ignoring case, as Spark's JSON reader matches them.
        const key = Object.hasOwn(v, g.name) ? g.name : keys.find((k) => k.toLowerCase() === g.name.toLowerCase());
        const c = any(key === undefined ? null : v[key], g);
        if (!c.ok) return bad(`field "${g.name}": ${c.reason}`);
        out[g.name] = c.value;
      }
      return { ok: true, value: out };
    }
    case 'long': case 'double': case 'string': case 'boolean': case 'timestamp': case 'binary': case 'unknown':
    case 'day_time_interval': case 'year_month_interval': case 'calendar_interval': case 'variant':
    default:
      return leaf(v, f);
  }
}

/** Whether a column is a BIGINT or holds one (an array's elements, a map's values, a struct's fields). */
export function holdsLong(f: Field): boolean {
  switch (f.type) {
    case 'long': return true;
    case 'array': return f.elementType !== undefined && holdsLong(f.elementType);
    case 'map': return (f.keyType !== undefined && holdsLong(f.keyType)) || (f.valueType !== undefined && holdsLong(f.valueType));
    case 'struct': return (f.fields ?? []).some(holdsLong);
    case 'double': case 'string': case 'boolean': case 'timestamp': case 'binary': case 'decimal': case 'date': case 'window': case 'unknown':
    case 'day_time_interval': case 'year_month_interval': case 'calendar_interval': case 'variant':
    default: return false;
  }
}

const LONGS = new WeakMap<Schema, string[]>();
/** The schema's BIGINT columns (once per schema: a source parses every record against one). */
function longColumns(schema: Schema): string[] {
  let l = LONGS.get(schema);
  if (!l) LONGS.set(schema, (l = schema.filter(holdsLong).map((f) => f.name)));
  return l;
}

/** Parse one JSON object record against the schema: a row, or the reason it is a bad record. */
export function parseJsonRecord(text: string, schema: Schema): { row: Row } | { reason: string } {
  let obj: unknown;
  try {
    obj = parseJsonRecordText(text, longColumns(schema));
  } catch (e) {
    return { reason: `not valid JSON (${(e as Error).message})` };
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return { reason: 'not a JSON object' };
  return convertObject(obj as Record<string, unknown>, schema);
}

export function convertObject(obj: Record<string, unknown>, schema: Schema): { row: Row } | { reason: string } {
  const row: Row = {};
  for (const f of schema) {
    const c = convertValue(obj[f.name], f);
    if (!c.ok) return { reason: `field "${f.name}": ${c.reason}` };
    row[f.name] = c.value;
  }
  return { row };
}
