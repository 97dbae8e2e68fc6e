/**
 * Converting values read from an external system (a PostgreSQL column, a JSON message) to the
 * engine's column types. A value that does not fit is reported, never coerced into something
 * else: the caller turns it into a bad record, so bad input is never silently lost or altered.
 */
import type { Field, Row, Schema } from '../types';
import { parseJsonRecordText, stringifyJson } from '../json-text';
import { fitsLong, toLong } from '../query/long';

export type Converted = { ok: true; value: unknown } | { ok: false; reason: string };

const bad = (reason: string): Converted => ({ ok: false, reason });

export function convertValue(v: unknown, type: Field['type']): Converted {
  if (v === null || v === undefined) return { ok: true, value: null };
  switch (type) {
    case 'long': {
      if (Number.isSafeInteger(v)) return { ok: true, value: v };
      const b = typeof v === 'bigint' ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? BigInt(v.trim()) : undefined;
      return b !== undefined && fitsLong(b) ? { ok: true, value: toLong(b) } : bad(`${stringifyJson(v)} is not a long (a whole number within BIGINT's 64-bit range)`);
    }
    case 'double': {
      const n = typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
      return Number.isFinite(n) ? { ok: true, value: n } : bad(`${JSON.stringify(v)} is not a double`);
    }
    case 'boolean':
      if (typeof v === 'boolean') return { ok: true, value: v };
      // Text protocols (Redis stream fields, CSV) carry booleans as words.
      if (v === 'true' || v === 'false') return { ok: true, value: v === 'true' };
      return bad(`${JSON.stringify(v)} is not a boolean`);
    case 'timestamp': {
      const ms = v instanceof Date ? v.getTime() : typeof v === 'number' ? v : typeof v === 'string' ? Date.parse(v) : NaN;
      return Number.isFinite(ms) ? { ok: true, value: ms } : bad(`${JSON.stringify(v)} is not a timestamp (ISO-8601 or epoch ms)`);
    }
    case 'string':
      if (typeof v === 'string') return { ok: true, value: v };
      if (v instanceof Date) return { ok: true, value: v.toISOString() };
      if (typeof v === 'number' || typeof v === 'boolean') return { ok: true, value: String(v) };
      return { ok: true, value: JSON.stringify(v) };
    case 'binary':
      // Bytes from a client (a bytea) as they are; text as base64, as Spark's JSON reader and the
      // files source (record-parser.ts) take binary: a JSON message or a pasted sample has no bytes.
      if (v instanceof Uint8Array) return { ok: true, value: v };
      if (typeof v === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(v.trim())) return { ok: true, value: Buffer.from(v.trim(), 'base64') };
      return bad(`${stringifyJson(v)} is not binary (base64 text)`);
    // Every member listed, so that a new one is a lint error until it is handled here. A source
    // schema cannot declare a decimal or a date (job-spec's COLUMN_TYPES), so none arrives here.
    case 'unknown': case 'window': case 'struct': case 'decimal': case 'date': case 'array': case 'map':
    default:
      return { ok: true, value: v };
  }
}

const LONGS = new WeakMap<Schema, string[]>();
/** The schema's BIGINT columns (once per schema: a source parses every record against one). */
function longColumns(schema: Schema): string[] {
  let l = LONGS.get(schema);
  if (!l) LONGS.set(schema, (l = schema.filter((f) => f.type === 'long').map((f) => f.name)));
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
    const c = convertValue(obj[f.name], f.type);
    if (!c.ok) return { reason: `field "${f.name}": ${c.reason}` };
    row[f.name] = c.value;
  }
  return { row };
}
