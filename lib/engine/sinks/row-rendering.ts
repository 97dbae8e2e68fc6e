/**
 * How every sink renders a row: as Spark's JSON writer writes it (to_json's rendering,
 * json-functions' toJsonValue), for each column type and nested as deep as it goes. A timestamp
 * is ISO-8601 in UTC (a TIMESTAMP_NTZ without the offset), a date `yyyy-MM-dd`, a decimal its
 * exact digits (a JSON number), a DOUBLE or FLOAT Java's text (`2.0`, `1.0E21`, a FLOAT's `1.1`;
 * NaN and the infinities as strings), a BIGINT past 2^53 its digits, binary base64, a window
 * `{ start, end }`, arrays, maps and structs JSON.
 * CSV writes the same text, a nested value as its JSON. One rendering, so that a row reads the
 * same in a file, a webhook body, a Redis entry, a Kafka record and the console.
 */
import { isJsonNumber, stringifyJson, stringifyRow } from '../json-text';
import { formatDate } from '../query/date';
import { formatDecimal } from '../query/decimal';
import { doubleJson, timestampJson, toJsonValue } from '../query/json-functions';
import type { Field, Row, Schema } from '../types';

/** One column's value as Spark's JSON writer writes it (NULL as null). */
export const renderValue = (v: unknown, f: Field): unknown => (v === null || v === undefined ? null : (toJsonValue(v, f) ?? null));

/** The renderer of one column type; undefined where the engine's value is its JSON value. */
function rendererOf(f: Field): ((v: unknown) => unknown) | undefined {
  switch (f.type) {
    case 'double':
      return (v) => (typeof v === 'number' ? doubleJson(v, f.float32) : v);
    case 'long': case 'string': case 'boolean': case 'unknown':
      return undefined;
    // The common non-plain columns, without the general path's dispatch per value. A value in
    // another form than the engine's (text a reader kept, as `weir sink read` of a topic) is
    // written as it is.
    case 'timestamp':
      return (v) => (typeof v === 'number' ? timestampJson(v, f.ntz) : v);
    case 'date':
      return (v) => (typeof v === 'number' ? formatDate(v) : v);
    case 'binary':
      return (v) => (v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') : v);
    case 'decimal':
      return (v) => (typeof v === 'bigint' ? renderValue(v, f) : v);
    case 'window': case 'array': case 'map': case 'struct': case 'day_time_interval': case 'year_month_interval': case 'calendar_interval': case 'variant':
    default:
      return (v) => renderValue(v, f);
  }
}

/** Whether a row has exactly the schema's keys, in order, none undefined. */
export function exactKeys(r: Row, names: string[]): boolean {
  let i = 0;
  for (const k in r) {
    if (k !== names[i] || r[k] === undefined) return false;
    i++;
  }
  return i === names.length;
}

const RENDERERS = new WeakMap<Schema, { row(r: Row): Row; stringify(v: unknown): string }>();

/**
 * How a sink writes a row as one JSON document (files, webhook, Redis, Kafka, console): the row
 * rendered, in the schema's order, then stringified by JSON.stringify (a decimal's or a double's
 * digits are JsonNumbers it writes as they are). Made once per schema; a schema of plain columns
 * skips the rendering.
 */
export function jsonWriter(schema: Schema): { row(r: Row): Row; stringify(v: unknown): string } {
  let w = RENDERERS.get(schema);
  if (w) return w;
  const names = schema.map((f) => f.name);
  const renders = schema.map(rendererOf);
  const stringify = stringifyRow;
  // The columns that need rendering; a row with exactly the schema's keys (operators' rows)
  // is copied and only those replaced, any other row is projected in the schema's order.
  const special = renders.flatMap((render, i) => (render ? [{ name: names[i], render }] : []));
  w = special.length === 0
    ? { row: (r) => r, stringify }
    : {
        row: (r) => {
          let out: Row;
          if (exactKeys(r, names)) out = { ...r };
          else {
            out = {};
            for (const n of names) out[n] = r[n] ?? null;
          }
          for (const { name, render } of special) {
            const v = out[name];
            if (v !== null) out[name] = render(v);
          }
          return out;
        },
        stringify,
      };
  RENDERERS.set(schema, w);
  return w;
}

/** A row's columns, in the schema's order, as Spark's JSON writer writes them (write it with stringifyJson). */
export function renderRow(row: Row, schema: Schema): Row {
  const w = jsonWriter(schema);
  const out = w.row(row);
  if (out !== row) return out;
  const copy: Row = {};
  for (const f of schema) copy[f.name] = row[f.name] ?? null;
  return copy;
}

/** One column's value as CSV text (before quoting): the JSON rendering's text; a nested value as its JSON. */
export function renderText(v: unknown, f: Field): string | null {
  const render = rendererOf(f);
  const j = v === null || v === undefined ? null : render ? render(v) : v;
  if (j === null) return null;
  if (typeof j === 'string') return j;
  if (isJsonNumber(j)) return j.rawJSON;
  return typeof j === 'object' ? stringifyJson(j) : String(j);
}

/** A date (days since 1970-01-01 inside the engine) as text: `yyyy-MM-dd`. */
export function renderDate(v: unknown): unknown {
  return typeof v === 'number' ? formatDate(v) : v;
}

/** A decimal (an unscaled bigint inside the engine) as its exact digits with its scale (`2.50`). */
export function renderDecimal(v: unknown, f: Field): unknown {
  return typeof v === 'bigint' ? formatDecimal(v, f.scale ?? 0) : v;
}
