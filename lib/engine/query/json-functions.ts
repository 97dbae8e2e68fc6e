/**
 * Spark's JSON functions over strings: from_json (a DDL schema → a struct), to_json (a struct →
 * a JSON object string), get_json_object (Spark's JSONPath subset) and json_tuple's field reads.
 *
 * Semantics follow Spark's defaults (PERMISSIVE mode, no options):
 * - from_json of text that is not a JSON object gives a struct whose fields are all NULL (Spark
 *   3.x), a field whose JSON value does not convert to its type is NULL, names match exactly
 *   first and then case-insensitively, and fields the schema does not name are ignored;
 * - get_json_object returns a string: a JSON string's text, any other value as compact JSON,
 *   NULL for a missing path or text that is not JSON;
 * - to_json writes timestamps as `yyyy-MM-dd'T'HH:mm:ss.SSSXXX` in UTC (Spark's default) and
 *   leaves out NULL fields (Spark's `ignoreNullFields` default); its options `timestampFormat`,
 *   `timestampNTZFormat` and `dateFormat` (datetime patterns) and `ignoreNullFields` change that.
 */
import { parseVariantMembers, variantJsonValue, variantToJson, type Variant } from './variant';
import { parseJsonText } from './variant-functions';
import { formatWithPattern, parseWithPattern, tokenizePattern } from './datetime-patterns';
import { jsonNumber, parseJson, stringifyJson, type JsonNumber } from '../json-text';
import { fitsLong, toLong } from './long';
import type { Field } from '../types';
import { dateFromTimestamp, formatDate, parseDate } from './date';
import { decimalFromDouble, decimalFromLong, formatDecimal, MAX_PRECISION } from './decimal';
import { fieldOfDataType, fieldOfType, typeOfField, typeText, variantColumnRefusal } from './data-types';
import type { CallCompiler, CallExpr, CompiledExpr } from './function-types';
import { mapped } from './compiled-expr';
import { checkStringLength } from './value-limits';
import { mapKeyText, mapKeyValue } from './map-keys';
import { foldedText } from './function-args';
import { parseDataType, parseSchema } from './parser/data-type-parser';
import type { DataType } from './parser/data-type';
import { referencedColumns, type Expr } from './expression';
import { castValue, formatDouble, nonFiniteDouble } from './sql-values';
import { parseTimestampLiteral } from './expression-builder';
import { formatInterval, fullRange, parseInterval } from './interval-utils';
import { safeStringToInterval, toMultiUnitsString, type CalendarInterval } from './calendar-interval';
import { formatFloat } from './float';
import { utcDate } from './timestamp-micros';

/**
 * Parses a DDL schema with Spark's grammar: `id BIGINT, region STRING, ts TIMESTAMP`, or one
 * `STRUCT<…>` (Spark's `StructType.fromDDL`). Returns the fields, or a message saying what is wrong
 * (naming `nonStructClass`, the caller's error class, for a schema of one other type).
 */
export function parseDdlSchema(ddl: string, nonStructClass?: string, variantFields = false): Field[] | string {
  let t: DataType;
  try {
    t = parseSchema(ddl);
  } catch (e) {
    return `cannot read the schema '${ddl}' (${(e as Error).message}); write it as 'name TYPE, name TYPE' (for example 'id BIGINT, region STRING, ts TIMESTAMP')`;
  }
  if (t.kind !== 'struct') return `${nonStructClass ? `[${nonStructClass}] ` : ''}the schema '${ddl}' is one type, not a list of fields; write it as 'name TYPE, name TYPE'`;
  const f = fieldOfDataType('from_json', t);
  if (typeof f === 'string') return f;
  // from_json reads a VARIANT field from its JSON text (parseVariantMembers); a VARIANT deeper is refused.
  const variant = variantFields ? (f.fields ?? []).map((x) => (x.type === 'variant' ? undefined : variantColumnRefusal(x))).find((m) => m !== undefined) : variantColumnRefusal(f);
  if (variant) return variant;
  const seen = new Set<string>();
  for (const x of f.fields ?? []) {
    if (seen.has(x.name.toLowerCase())) return `the schema '${ddl}' names the field ${x.name} twice`;
    seen.add(x.name.toLowerCase());
  }
  return f.fields ?? [];
}

/** One DDL type (`ARRAY<STRUCT<a: INT>>`, `MAP<STRING, BIGINT>`) as a Field named `name`. */
function parseDdlType(typeText: string, name: string): Field | string {
  try {
    const f = fieldOfDataType(name, parseDataType(typeText));
    return typeof f === 'string' ? f : variantColumnRefusal(f) ?? f;
  } catch (e) {
    return `cannot read the type '${typeText}' (${(e as Error).message}); write a type such as ARRAY<STRING> or MAP<STRING, BIGINT>`;
  }
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return parseJson(text);
  } catch {
    return undefined;
  }
}

type Pattern = Exclude<ReturnType<typeof tokenizePattern>, string>;

/** from_json's options Weir reads: Spark's timestampFormat and dateFormat, as datetime patterns. */
interface JsonOptions {
  timestampFormat?: Pattern;
  dateFormat?: Pattern;
}

/**
 * to_json's options Weir reads (Spark's JSONOptions for writing): the datetime patterns its
 * timestamps and dates are written by, and whether a NULL field is left out (the default) or
 * written as null.
 */
export interface JsonWriteOptions extends JsonOptions {
  timestampNTZFormat?: Pattern;
  ignoreNullFields?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON value converted to a field's type, NULL when it does not convert (Spark's PERMISSIVE). */
function convert(v: unknown, f: Field, o: JsonOptions = {}): unknown {
  if (v === null || v === undefined) return null;
  switch (f.type) {
    case 'struct':
      return isObject(v) ? readStruct(v, f.fields ?? [], o) : null;
    case 'array':
      return Array.isArray(v) ? v.map((x) => convert(x, f.elementType!, o)) : null;
    case 'map':
      return isObject(v) ? readMap(v, f, o) : null;
    case 'long':
      if (typeof v === 'bigint') return fitsLong(v) ? toLong(v) : null;
      return Number.isSafeInteger(v) ? v : null;
    case 'double': {
      // A FLOAT field: the nearest float, as Jackson's getFloatValue; NaN and the infinities as to_json writes them ("NaN").
      const n = typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : typeof v === 'string' ? (nonFiniteDouble(v, 'json') ?? null) : null;
      return n !== null && f.float32 ? Math.fround(n) : n;
    }
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'string':
      return typeof v === 'string' ? v : stringifyJson(v);
    case 'timestamp':
      if (typeof v !== 'string') return null;
      // A TIMESTAMP_NTZ is the wall-clock time written; text with a zone is not one (Spark's
      // JacksonParser; timestampFormat is a TIMESTAMP's option).
      if (f.ntz) return parseTimestampLiteral(v, true, true);
      return o.timestampFormat ? parseWithPattern(v, o.timestampFormat) : castValue(v, 'string', 'timestamp');
    case 'binary':
      return typeof v === 'string' ? Buffer.from(v, 'base64') : null;
    case 'date':
      if (typeof v !== 'string') return null;
      if (!o.dateFormat) return parseDate(v);
      { const ms = parseWithPattern(v, o.dateFormat); return ms === null ? null : Math.floor(ms / 86_400_000); }
    case 'decimal': {
      const t = { precision: f.precision ?? MAX_PRECISION, scale: f.scale ?? 0 };
      return typeof v === 'number' ? decimalFromDouble(v, t) : typeof v === 'bigint' ? decimalFromLong(v, t) : null;
    }
    // Spark's JacksonParser casts a string to the interval type.
    case 'day_time_interval': case 'year_month_interval':
      return typeof v === 'string' ? parseInterval(v, f.type, f.interval ?? fullRange(f.type)) : null;
    case 'calendar_interval':
      return typeof v === 'string' ? safeStringToInterval(v) : null;
    // A struct's VARIANT field is read by readStruct; any deeper is refused by parseDdlSchema (variantColumnRefusal).
    case 'variant':
    case 'window':
    case 'unknown':
      return null;
  }
}

/** A JSON object as a map (its keys read as the key type and written back as their text, map-keys.ts). */
function readMap(obj: Record<string, unknown>, f: Field, o: JsonOptions): Record<string, unknown> | null {
  const kt = typeOfField(f.keyType!);
  const entries: [string, unknown][] = [];
  for (const [k, x] of Object.entries(obj)) {
    const key = mapKeyValue(k, kt);
    // A key that does not read as the key type makes the whole map NULL (PERMISSIVE).
    if (key === null) return null;
    entries.push([mapKeyText(key, kt), convert(x, f.valueType!, o)]);
  }
  return Object.fromEntries(entries);
}

/** A JSON object as a struct; `variants`: the object's members as variants, which its VARIANT fields are (parseVariantMembers). */
function readStruct(obj: Record<string, unknown>, fields: Field[], o: JsonOptions, variants?: ReadonlyMap<string, Variant>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const keys = Object.keys(obj);
  for (const f of fields) {
    let key: string | undefined = Object.hasOwn(obj, f.name) ? f.name : undefined;
    if (key === undefined) key = keys.find((k) => k.toLowerCase() === f.name.toLowerCase());
    out[f.name] = key === undefined ? null : f.type === 'variant' ? variants?.get(key) ?? null : convert(obj[key], f, o);
  }
  return out;
}

/**
 * from_json(text, schema) with an ARRAY<…> or MAP<…> schema: NULL when the text is not that JSON
 * (an object read as an ARRAY<STRUCT<…>> is an array of that one struct, as Spark reads it).
 */
function fromJsonCollection(text: string, f: Field, o: JsonOptions = {}): unknown {
  const v = parseJsonOrUndefined(text);
  if (f.type === 'array' && isObject(v) && f.elementType?.type === 'struct') return [convert(v, f.elementType, o)];
  return v === undefined ? null : convert(v, f, o);
}

/**
 * from_json(text, schema): the struct, with NULL fields when the text is not a JSON object. A
 * VARIANT field is its member's JSON exactly, a JSON null a variant null (Spark's JacksonParser);
 * a key written twice inside its value makes the record malformed, all NULL (PERMISSIVE).
 */
function fromJson(text: string, fields: Field[], o: JsonOptions = {}, variantFields = false): Record<string, unknown> {
  const v = parseJsonOrUndefined(text);
  const nulls = () => Object.fromEntries(fields.map((f) => [f.name, null]));
  if (!isObject(v)) return nulls();
  if (!variantFields) return readStruct(v, fields, o);
  let members: ReadonlyMap<string, Variant>;
  try {
    members = parseVariantMembers(text);
  } catch {
    return nulls();
  }
  return readStruct(v, fields, o, members);
}

/**
 * A timestamp as Spark's JSON writer writes it: a TIMESTAMP by its default timestampFormat
 * `yyyy-MM-dd'T'HH:mm:ss.SSSXXX` in UTC, a TIMESTAMP_NTZ by timestampNTZFormat
 * `yyyy-MM-dd'T'HH:mm:ss[.SSS]`: the wall-clock time without an offset.
 */
export function timestampJson(ms: number, ntz?: boolean): string {
  // The ISO text's time (THH:mm:ss.SSSZ) after Spark's date: toISOString writes a year below 0
  // or past 9999 in six digits (+012345), where Spark's yyyy writes +12345 and -0044.
  const iso = utcDate(ms).toISOString();
  const text = `${formatDate(dateFromTimestamp(Math.floor(ms)))}${iso.slice(iso.indexOf('T'))}`;
  return ntz ? text.slice(0, -1) : text;
}

/**
 * A value as JSON-ready data (timestamps as Spark's JSON timestamp text, decimals as their
 * digits, binary as base64; undefined for NULL, which a struct then leaves out). Outputs that
 * write JSON render nested values (structs, arrays, maps) with it.
 */
export function toJsonValue(v: unknown, f: Field, o: JsonWriteOptions = {}): unknown {
  if (v === null || v === undefined) return undefined;
  switch (f.type) {
    case 'array':
      // NULL elements stay in the array as null.
      return (v as unknown[]).map((x) => toJsonValue(x, f.elementType!, o) ?? null);
    case 'map': {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as object)) Object.defineProperty(out, k, { value: toJsonValue(x, f.valueType!, o) ?? null, enumerable: true, writable: true, configurable: true });
      return out;
    }
    case 'timestamp':
      return timestampText(v as number, f.ntz, o);
    case 'window': {
      const w = v as { start: number; end: number };
      return { start: timestampText(w.start, f.ntz, o), end: timestampText(w.end, f.ntz, o) };
    }
    case 'struct':
      return structToJsonValue(v as Record<string, unknown>, f.fields ?? [], o);
    case 'binary':
      return Buffer.from(v as Uint8Array).toString('base64');
    case 'decimal':
      return jsonNumber(formatDecimal(v as bigint, f.scale ?? 0));
    case 'date':
      return o.dateFormat ? formatWithPattern((v as number) * 86_400_000, o.dateFormat) : formatDate(v as number);
    // Spark's JSON writer writes an interval as its string: an ANSI one's, a CalendarInterval's units.
    case 'day_time_interval': case 'year_month_interval':
      return formatInterval(f.type, v, f.interval ?? fullRange(f.type));
    case 'calendar_interval':
      return toMultiUnitsString(v as CalendarInterval);
    // Spark's JacksonGenerator writes a VARIANT as its JSON, raw.
    case 'variant':
      return variantJsonValue(v as Variant);
    case 'double':
      return doubleJson(v as number, f.float32);
    case 'long':
    case 'string':
    case 'boolean':
    case 'unknown':
      return v;
  }
}

/**
 * A DOUBLE or FLOAT as Spark's JSON writer writes it: Jackson's writeNumber prints Java's
 * Double.toString or Float.toString (`2.0`, `1.0E21`, `1.1` for the float held as
 * 1.100000023841858), the text JavaScript would not (`2`, `1e21`); NaN and the infinities are the
 * strings "NaN", "Infinity", "-Infinity" (Jackson's QUOTE_NON_NUMERIC_NUMBERS, on by default).
 * CSV writes the same text unquoted (UnivocityGenerator's toString), through renderText.
 */
export function doubleJson(v: number, float32?: boolean): number | JsonNumber | string {
  if (!Number.isFinite(v)) return formatDouble(v);
  if (float32) return jsonNumber(formatFloat(v));
  // A fraction from 10^-3 up to 10^7 JavaScript writes as Java does (its shortest digits, no
  // exponent): the number itself, which costs JSON.stringify nothing more.
  const a = Math.abs(v);
  return a >= 1e-3 && a < 1e7 && !Number.isInteger(v) ? v : jsonNumber(formatDouble(v));
}

/** A timestamp by the writer's pattern for its type, or Spark's default text (timestampJson). */
function timestampText(v: number, ntz: boolean | undefined, o: JsonWriteOptions): string {
  const pattern = ntz ? o.timestampNTZFormat : o.timestampFormat;
  return pattern ? formatWithPattern(v, pattern) : timestampJson(v, ntz);
}

function structToJsonValue(obj: Record<string, unknown>, fields: Field[], o: JsonWriteOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const j = toJsonValue(obj[f.name], f, o);
    if (j !== undefined) out[f.name] = j;
    else if (o.ignoreNullFields === false) out[f.name] = null;
  }
  return out;
}

/** to_json(struct) */
function toJson(obj: Record<string, unknown>, fields: Field[], o: JsonWriteOptions): string {
  return stringifyJson(structToJsonValue(obj, fields, o));
}

/** to_json(array or map) */
function collectionToJson(v: unknown, f: Field, o: JsonWriteOptions): string {
  return stringifyJson(toJsonValue(v, f, o) ?? null);
}

type PathStep = { key: string } | { index: number } | { wildcard: true };

/**
 * Spark's get_json_object path: `$` then any of `.name`, `['name']`, `[n]`, `[*]` / `.*`.
 * Returns undefined for a path Spark would not accept (its result is then NULL).
 */
function parseJsonPath(path: string): PathStep[] | undefined {
  if (!path.startsWith('$')) return undefined;
  const steps: PathStep[] = [];
  let i = 1;
  while (i < path.length) {
    if (path[i] === '.') {
      if (path[i + 1] === '*') {
        steps.push({ wildcard: true });
        i += 2;
        continue;
      }
      let j = i + 1;
      while (j < path.length && path[j] !== '.' && path[j] !== '[') j++;
      if (j === i + 1) return undefined;
      steps.push({ key: path.slice(i + 1, j) });
      i = j;
    } else if (path[i] === '[') {
      const close = path.indexOf(']', i);
      if (close < 0) return undefined;
      const inner = path.slice(i + 1, close);
      if (inner === '*') steps.push({ wildcard: true });
      else if (/^\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else if (/^'[^']*'$/.test(inner)) steps.push({ key: inner.slice(1, -1) });
      else return undefined;
      i = close + 1;
    } else return undefined;
  }
  return steps;
}

function walk(values: unknown[], steps: PathStep[], wildcarded: boolean): { values: unknown[]; wildcarded: boolean } {
  let cur = values;
  let wild = wildcarded;
  for (const s of steps) {
    const next: unknown[] = [];
    for (const v of cur) {
      if ('key' in s) {
        if (isObject(v) && Object.hasOwn(v, s.key)) next.push(v[s.key]);
      } else if ('index' in s) {
        if (Array.isArray(v) && s.index < v.length) next.push(v[s.index]);
      } else if (Array.isArray(v)) {
        // Loops, not push(...elements): spreading a large JSON array into a call overflows the stack.
        for (const x of v as unknown[]) next.push(x);
        wild = true;
      } else if (isObject(v)) {
        for (const x of Object.values(v)) next.push(x);
        wild = true;
      }
    }
    cur = next;
  }
  return { values: cur, wildcarded: wild };
}

const render = (v: unknown): string | null => (v === null || v === undefined ? null : typeof v === 'string' ? v : stringifyJson(v));

/** get_json_object(json, path) */
export function getJsonObject(text: string, path: string): string | null {
  const steps = parseJsonPath(path);
  if (!steps) return null;
  const doc = parseJsonOrUndefined(text);
  if (doc === undefined) return null;
  const { values, wildcarded } = walk([doc], steps, false);
  if (values.length === 0) return null;
  // Spark: a wildcard that matched one value gives that value; several, a JSON array of them.
  if (wildcarded && values.length > 1) return stringifyJson(values);
  return render(values[0]);
}

/** json_tuple(json, k1, k2, …): each top-level field as a string, NULL when absent or not JSON. */
export function jsonTuple(text: string, keys: (string | null)[]): (string | null)[] {
  const doc = parseJsonOrUndefined(text);
  return keys.map((k) => (k === null || !isObject(doc) || !Object.hasOwn(doc, k) ? null : render(doc[k])));
}

const PATTERN_OPTIONS = ['timestampFormat', 'timestampNTZFormat', 'dateFormat'] as const;

/**
 * A JSON or CSV function's options (Spark's ExprUtils.convertToMapData): a map of strings, else
 * INVALID_OPTIONS.NON_MAP_FUNCTION, or NON_STRING_TYPE for a map of other values.
 */
export function checkOptionsMap(e: CallExpr, m: CompiledExpr, c: CallCompiler): void {
  if (m.type !== 'map') c.fail(e, `[INVALID_OPTIONS.NON_MAP_FUNCTION] ${e.name}() takes its options as map(…) of strings, got ${typeText(m)}`);
  const strings = [m.keyType, m.valueType].every((f) => f && (f.type === 'string' || f.void));
  if (!strings) c.fail(e, `[INVALID_OPTIONS.NON_STRING_TYPE] A type of keys and values in map() must be string, but got "${typeText(m)}"`);
}

/**
 * A JSON function's options, a constant map(…) (Spark requires a foldable one): the datetime
 * patterns (from_json reads timestampFormat and dateFormat, to_json timestampNTZFormat too) and
 * to_json's ignoreNullFields; other options change nothing Weir reads, as most of Spark's change
 * nothing for these functions.
 */
function jsonOptions(e: CallExpr, arg: Expr, c: CallCompiler): JsonWriteOptions {
  const fn = `${e.name}()`;
  if (referencedColumns(arg).size > 0) c.fail(e, `${fn} needs its options as a constant map, such as map('timestampFormat', 'dd/MM/yyyy')`);
  const m = c.compile(arg);
  checkOptionsMap(e, m, c);
  const value = m.eval({}, { batchTimestampMs: 0 }) as Record<string, unknown> | null;
  const out: JsonWriteOptions = {};
  for (const [k, v] of Object.entries(value ?? {})) {
    if (typeof v !== 'string') continue;
    if (k === 'ignoreNullFields') {
      // Spark reads the option as a boolean: anything else fails the query.
      if (!/^(true|false)$/i.test(v.trim())) c.fail(e, `${fn} option ignoreNullFields must be 'true' or 'false', got '${v}'`);
      out.ignoreNullFields = v.trim().toLowerCase() === 'true';
      continue;
    }
    const key = PATTERN_OPTIONS.find((x) => x === k);
    if (!key) continue;
    const tokens = tokenizePattern(v);
    if (typeof tokens === 'string') c.fail(e, `${fn} option ${k}: ${tokens}`);
    out[key] = tokens;
  }
  return out;
}

/** from_json(text, 'DDL schema' [, options]): typed by its schema, a literal (Spark requires a foldable one). */
export function compileFromJson(e: CallExpr, c: CallCompiler): CompiledExpr {
  const [text, schemaArg, optionsArg] = e.args;
  const written = foldedText(schemaArg, c);
  if (written === undefined) c.fail(e, "from_json() needs its schema as a string literal (or schema_of_json('{\"id\": 1}') of a sample, or a concatenation of those), such as 'id BIGINT, region STRING, ts TIMESTAMP'");
  const schema = { value: written };
  const options = optionsArg ? jsonOptions(e, optionsArg, c) : {};
  const t = c.compile(text);
  if (t.type !== 'string' && t.type !== 'binary' && t.type !== 'null') c.fail(e, `from_json() reads a string (or binary UTF-8 JSON), got ${t.type}`);
  const from = t.type;
  if (/^\s*(array|map)\s*</i.test(schema.value)) {
    // A top-level ARRAY<…> or MAP<…> schema: from_json's result is that collection.
    const f = parseDdlType(schema.value.trim(), 'from_json');
    if (typeof f === 'string') c.fail(e, `from_json(): ${f}`);
    return mapped(typeOfField(f), t, (v) => (v === null || v === undefined ? null : fromJsonCollection(castValue(v, from, 'string') as string, f, options)));
  }
  if (/^\s*variant\s*$/i.test(schema.value)) {
    // A VARIANT schema: Spark's JsonToStructsEvaluator reads the text as parse_json does (failing where it fails).
    return mapped({ type: 'variant' }, t, (v) => (v === null || v === undefined ? null : parseJsonText(castValue(v, from, 'string') as string, true)));
  }
  const fields = parseDdlSchema(schema.value, undefined, true);
  if (typeof fields === 'string') c.fail(e, `from_json(): ${fields}`);
  const variantFields = fields.some((f) => f.type === 'variant');
  return mapped({ type: 'struct', fields }, t, (v) => (v === null || v === undefined ? null : fromJson(castValue(v, from, 'string') as string, fields, options, variantFields)));
}

/** to_json(struct | array | map): typed STRING, of a value whose full type it writes by. */
export function compileToJson(e: CallExpr, c: CallCompiler): CompiledExpr {
  const a = c.compile(e.args[0]);
  const options = e.args[1] ? jsonOptions(e, e.args[1], c) : {};
  if (a.type === 'array' || a.type === 'map') {
    const f = fieldOfType('to_json', a);
    return mapped({ type: 'string' }, a, (v) => {
      if (v === null || v === undefined) return null;
      const s = collectionToJson(v, f, options);
      checkStringLength('to_json()', s.length);
      return s;
    });
  }
  // Spark's StructsToJson of a VARIANT: Variant.toJson (no options apply).
  if (a.type === 'variant') {
    return mapped({ type: 'string' }, a, (v) => (v === null || v === undefined ? null : variantToJson(v as Variant)));
  }
  if (a.type !== 'struct') c.fail(e, `to_json() takes a struct (such as from_json(...) or window), an array or a map, got ${a.type}`);
  const fields = a.fields ?? [];
  return mapped({ type: 'string' }, a, (v) => {
    if (v === null || v === undefined) return null;
    const s = toJson(v as Record<string, unknown>, fields, options);
    checkStringLength('to_json()', s.length);
    return s;
  });
}
