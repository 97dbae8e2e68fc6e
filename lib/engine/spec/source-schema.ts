/**
 * A source's (or a static table's) schema as a spec writes it: a list of columns whose types are
 * Spark's type names (`{ "name": "price", "type": "decimal(10,2)" }`, `"array<string>"`,
 * `"map<string,bigint>"`, `"struct<x: double, y: double>"`; Weir's own `long`, `double`, … are
 * Spark names too), or one DDL string as Spark's `DataStreamReader.schema(…)` takes it:
 * `"id BIGINT, tags ARRAY<STRING>, price DECIMAL(10,2)"`. Both parse with Spark's grammar into the
 * Fields the engine reads (query/data-types.ts's fieldOfDataType says which Spark types Weir
 * keeps as which). What the API stores is what the user wrote; the parsed Fields parse again to
 * themselves, so a parsed spec can be parsed again (a preview does).
 */
import { z } from 'zod';
import type { Field } from '../types';
import { fieldOfDataType, typeText, variantColumnRefusal } from '../query/data-types';
import { INTEGRAL_NAMES, type IntegralBits } from '../query/long';
import { parseDataType, parseSchema } from '../query/parser/data-type-parser';
import { quoteIfNeeded, sql } from '../query/parser/data-type';
import { SqlValidationError } from '../query/sql-error';

/** Long enough for any real schema, short enough to parse at once. */
const MAX_SCHEMA_TEXT = 20_000;

/** Type names that need no parse (the common case: a validation parses the spec often). */
const SIMPLE: Record<string, Pick<Field, 'type' | 'integral' | 'float32' | 'ntz'>> = {
  long: { type: 'long' }, bigint: { type: 'long' }, int: { type: 'long', integral: 32 }, integer: { type: 'long', integral: 32 },
  smallint: { type: 'long', integral: 16 }, short: { type: 'long', integral: 16 }, tinyint: { type: 'long', integral: 8 }, byte: { type: 'long', integral: 8 },
  double: { type: 'double' }, float: { type: 'double', float32: true }, real: { type: 'double', float32: true }, string: { type: 'string' }, boolean: { type: 'boolean' },
  timestamp: { type: 'timestamp' }, timestamp_ltz: { type: 'timestamp' }, timestamp_ntz: { type: 'timestamp', ntz: true }, binary: { type: 'binary' }, date: { type: 'date' },
};

const TYPES_HINT = 'a Spark type such as BIGINT, INT, DOUBLE, DECIMAL(10,2), STRING, BOOLEAN, DATE, TIMESTAMP, BINARY, ARRAY<STRING>, MAP<STRING,BIGINT> or STRUCT<a: INT>';

const parseMessage = (e: unknown): string => (e instanceof SqlValidationError || e instanceof Error ? e.message : String(e));

/** A column `name` of type `text`, or why it cannot be one. */
export function columnField(name: string, text: string): Field | string {
  const simple = SIMPLE[text.trim().toLowerCase()];
  if (simple) return { name, ...simple };
  let parsed;
  try {
    parsed = parseDataType(text);
  } catch (e) {
    return `"${text}" is not a type Weir reads (${parseMessage(e)}); write ${TYPES_HINT}`;
  }
  const f = fieldOfDataType(name, parsed);
  if (typeof f === 'string') return f;
  // A VARIANT column is read from a JSON record's field (the source says whether it reads one: job-spec.ts); one deeper is refused.
  const variant = f.type === 'variant' ? undefined : variantColumnRefusal(f);
  if (variant) return variant;
  const { nullable: _, ...column } = f;
  return column;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const FIELD_KEYS = new Set(['name', 'type', 'nullable', 'precision', 'scale', 'fields', 'elementType', 'keyType', 'valueType', 'integral', 'float32', 'ntz', 'interval']);

/** A parsed Field's type as Spark's DDL text (anything malformed becomes text that fails to parse). */
function typeTextOfField(f: unknown): string {
  if (!isObject(f)) return '?';
  const inner = (g: unknown) => typeTextOfField(g);
  switch (f.type) {
    case 'decimal': return `DECIMAL(${String(f.precision ?? 38)},${String(f.scale ?? 0)})`;
    case 'long': return INTEGRAL_NAMES[f.integral as IntegralBits] ?? 'BIGINT';
    case 'double': return f.float32 === true ? 'FLOAT' : 'DOUBLE';
    case 'timestamp': return f.ntz === true ? 'TIMESTAMP_NTZ' : 'TIMESTAMP';
    case 'day_time_interval': case 'year_month_interval': {
      const i = f.interval;
      if (i !== undefined && !(isObject(i) && Number.isInteger(i.start) && Number.isInteger(i.end))) return '?';
      return typeText({ type: f.type, interval: i as { start: number; end: number } | undefined });
    }
    case 'array': return `ARRAY<${inner(f.elementType)}>`;
    case 'map': return `MAP<${inner(f.keyType)}, ${inner(f.valueType)}>`;
    case 'struct':
      if (!Array.isArray(f.fields) || f.fields.length === 0) return '?';
      return `STRUCT<${f.fields.map((g: unknown) => `${isObject(g) && typeof g.name === 'string' ? quoteIfNeeded(g.name) : '?'}: ${inner(g)}${isObject(g) && g.nullable === false ? ' NOT NULL' : ''}`).join(', ')}>`;
    default: return typeof f.type === 'string' ? f.type : '?';
  }
}

/**
 * What a schema is before its columns are checked: a DDL string becomes its list of columns; a
 * parsed Field (with `precision`, `elementType`, …) becomes `{ name, type }` again.
 */
function columnsOf(input: unknown, ctx: z.core.$RefinementCtx): unknown {
  if (typeof input === 'string') {
    if (input.length > MAX_SCHEMA_TEXT) {
      ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_SCHEMA_TEXT} characters`, input });
      return z.NEVER;
    }
    let t;
    try {
      t = parseSchema(input);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: `cannot read the schema (${parseMessage(e)}); write it as 'name TYPE, name TYPE', for example 'id BIGINT, tags ARRAY<STRING>, price DECIMAL(10,2)'`, input });
      return z.NEVER;
    }
    if (t.kind !== 'struct') {
      ctx.addIssue({ code: 'custom', message: `is one type (${sql(t)}), not a list of columns; write 'name TYPE, name TYPE'`, input });
      return z.NEVER;
    }
    return t.fields.map((f) => ({ name: f.name, type: sql(f.dataType) }));
  }
  if (!Array.isArray(input)) return input;
  return input.map((c) => {
    if (!isObject(c) || Object.keys(c).every((k) => k === 'name' || k === 'type') || !Object.keys(c).every((k) => FIELD_KEYS.has(k))) return c;
    return { name: c.name, type: typeTextOfField(c) };
  });
}

const ColumnSpec = z.object({ name: z.string().min(1), type: z.string().min(1).max(MAX_SCHEMA_TEXT) }).strict();

/** A schema: a list of `{ name, type }` or a DDL string, parsed to Fields. */
export const SchemaSpec = z.preprocess(
  columnsOf,
  z
    .array(ColumnSpec)
    .min(1, { message: 'must list at least one column' })
    .transform((columns, ctx) => {
      const fields: Field[] = [];
      columns.forEach((c, i) => {
        const f = columnField(c.name, c.type);
        if (typeof f === 'string') ctx.addIssue({ code: 'custom', path: [i, 'type'], message: f, input: c.type });
        else fields.push(f);
      });
      return fields;
    }),
);
