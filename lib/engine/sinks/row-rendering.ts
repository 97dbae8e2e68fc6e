/**
 * How every sink renders a row: as Spark's JSON writer writes it (to_json's rendering,
 * json-functions' toJsonValue), for each column type and nested as deep as it goes. A timestamp
 * is ISO-8601 in UTC, a date `yyyy-MM-dd`, a decimal its exact digits (a JSON number), a BIGINT
 * past 2^53 its digits, binary base64, a window `{ start, end }`, arrays, maps and structs JSON.
 * CSV writes the same text, a nested value as its JSON. One rendering, so that a row reads the
 * same in a file, a webhook body, a Redis entry, a Kafka record and the console.
 */
import { JsonNumber, stringifyJson, stringifyRow } from '../json-text';
import { formatDate } from '../query/date';
import { formatDecimal } from '../query/decimal';
import { toJsonValue } from '../query/json-functions';
import type { Field, Row, Schema } from '../types';

/** Column types whose engine value is already its JSON value (no rendering needed). */
const PLAIN = new Set<Field['type']>(['long', 'double', 'string', 'boolean', 'unknown']);

/** One column's value as Spark's JSON writer writes it (NULL as null). */
export const renderValue = (v: unknown, f: Field): unknown => (v === null || v === undefined ? null : (toJsonValue(v, f) ?? null));

/** A row's columns, in the schema's order, as Spark's JSON writer writes them (write it with stringifyJson). */
export function renderRow(row: Row, schema: Schema): Row {
  const out: Row = {};
  for (const f of schema) out[f.name] = renderValue(row[f.name], f);
  return out;
}

/** One column's value as CSV text (before quoting): the JSON rendering's text; a nested value as its JSON. */
export function renderText(v: unknown, f: Field): string | null {
  const j = renderValue(v, f);
  if (j === null) return null;
  if (typeof j === 'string') return j;
  if (j instanceof JsonNumber) return j.text;
  return typeof j === 'object' ? stringifyJson(j) : String(j);
}

/**
 * How a sink that writes one JSON document per row (webhook, Redis, Kafka) writes it: the row
 * rendered, then stringified. A schema of plain columns only (numbers, strings, booleans) skips
 * the rendering.
 */
export function jsonWriter(schema: Schema): { row(r: Row): Row; stringify(v: unknown): string } {
  if (schema.every((f) => PLAIN.has(f.type))) return { row: (r) => r, stringify: stringifyRow };
  return { row: (r) => renderRow(r, schema), stringify: stringifyJson };
}

/** A date (days since 1970-01-01 inside the engine) as text: `yyyy-MM-dd`. */
export function renderDate(v: unknown): unknown {
  return typeof v === 'number' ? formatDate(v) : v;
}

/** A decimal (an unscaled bigint inside the engine) as its exact digits with its scale (`2.50`). */
export function renderDecimal(v: unknown, f: Field): unknown {
  return typeof v === 'bigint' ? formatDecimal(v, f.scale ?? 0) : v;
}
