/**
 * Spark 4's VARIANT value (common/variant: VariantBuilder, Variant, VariantUtil), as a tagged tree
 * rather than Spark's binary encoding: what parse_json builds, variant_get walks and casts, and
 * to_json prints. Every number keeps its exact value: an integer is a bigint (Spark's LONG, of any
 * width), a number with a fraction and no exponent a decimal (unscaled bigint and scale, up to 38
 * digits), anything else a DOUBLE, as VariantBuilder reads JSON. An object's fields are sorted by
 * key (the variant spec's field order, which to_json prints), and a key may appear once.
 *
 * The tree is plain objects, arrays, bigints and Uint8Arrays, which the state store's codec and
 * structuredClone keep as they are.
 */
import { RecordExpressionError } from '../errors';
import { jsonNumber } from '../json-text';
import { formatDate } from './date';
import { formatDecimal, MAX_PRECISION, type DecimalType } from './decimal';
import { formatFloat } from './float';
import { formatDouble } from './sql-values';
import { formatTimestamp } from './timestamp-micros';

export type Variant =
  | { readonly t: 'null' }
  | { readonly t: 'boolean'; readonly v: boolean }
  | { readonly t: 'long'; readonly v: bigint }
  | { readonly t: 'decimal'; readonly unscaled: bigint; readonly scale: number }
  | { readonly t: 'double'; readonly v: number }
  | { readonly t: 'float'; readonly v: number }
  | { readonly t: 'string'; readonly v: string }
  | { readonly t: 'date'; readonly v: number }
  /** Weir's timestamp value (epoch milliseconds, microseconds as the fraction); `ntz` for a TIMESTAMP_NTZ. */
  | { readonly t: 'timestamp'; readonly v: number; readonly ntz?: true }
  | { readonly t: 'binary'; readonly v: Uint8Array }
  | { readonly t: 'array'; readonly elements: readonly Variant[] }
  /** Fields sorted by key (Java's String order: UTF-16 code units, as JavaScript's). */
  | { readonly t: 'object'; readonly fields: readonly (readonly [string, Variant])[] };

export const VARIANT_NULL: Variant = { t: 'null' };

/** Spark's LONG range: an integer outside it is read as a decimal, or a double past 38 digits. */
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/** Why a text is not one JSON value: Spark's MALFORMED_RECORD_IN_PARSING or VARIANT_DUPLICATE_KEY. */
export class VariantParseError extends Error {
  constructor(message: string, readonly errorClass: string) {
    super(message);
  }
}

/** An object variant from its fields in any order (sorted here); a key named twice is refused. */
function variantObject(fields: (readonly [string, Variant])[]): Variant {
  const sorted = [...fields].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i][0] === sorted[i - 1][0]) {
      throw new VariantParseError(`[VARIANT_DUPLICATE_KEY] Failed to build variant because of a duplicate object key \`${sorted[i][0]}\`.`, 'VARIANT_DUPLICATE_KEY');
    }
  }
  return { t: 'object', fields: sorted };
}

/**
 * A JSON number's text as VariantBuilder reads it: an integer in LONG's range a LONG; otherwise,
 * without an exponent, a DECIMAL when its precision and scale are at most 38; else a DOUBLE.
 */
function variantNumber(text: string): Variant {
  if (/^-?\d+$/.test(text)) {
    const b = BigInt(text);
    if (b >= LONG_MIN && b <= LONG_MAX) return { t: 'long', v: b };
  }
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (m) {
    const frac = m[3] ?? '';
    const unscaled = BigInt(`${m[1]}${m[2]}${frac}`);
    // BigDecimal's precision: the digits of the unscaled value (at least one).
    const precision = (unscaled < 0n ? -unscaled : unscaled).toString().length;
    if (frac.length <= MAX_PRECISION && precision <= MAX_PRECISION) return { t: 'decimal', unscaled, scale: frac.length };
  }
  return { t: 'double', v: Number(text) };
}

/** A JSON text as a variant (Spark's parse_json): throws VariantParseError when it is not one JSON value. */
export function parseVariant(text: string): Variant {
  const p = new JsonReader(text);
  p.space();
  const v = p.value(0);
  p.space();
  if (p.i < text.length) p.fail();
  return v;
}

/** Jackson's default nesting limit (StreamReadConstraints): deeper documents are refused. */
const MAX_DEPTH = 1000;

/** A strict JSON reader (RFC 8259, as Jackson's defaults: no comments, NaN, single quotes or trailing commas). */
class JsonReader {
  i = 0;
  constructor(private readonly s: string) {}

  fail(): never {
    throw new VariantParseError(
      `[MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION] Malformed records are detected in record parsing: ${this.s}. Parse Mode: FAILFAST. To process malformed records as null result, try setting the option 'mode' as 'PERMISSIVE'.`,
      'MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION',
    );
  }

  space(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.i++;
      else break;
    }
  }

  private literal(word: string, v: Variant): Variant {
    if (!this.s.startsWith(word, this.i)) this.fail();
    this.i += word.length;
    return v;
  }

  value(depth: number): Variant {
    if (depth > MAX_DEPTH) this.fail();
    const c = this.s[this.i];
    switch (c) {
      case '{': return this.object(depth);
      case '[': return this.array(depth);
      case '"': return { t: 'string', v: this.string() };
      case 't': return this.literal('true', { t: 'boolean', v: true });
      case 'f': return this.literal('false', { t: 'boolean', v: false });
      case 'n': return this.literal('null', VARIANT_NULL);
      default: return this.number();
    }
  }

  private number(): Variant {
    const m = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    m.lastIndex = this.i;
    const r = m.exec(this.s);
    if (!r || r[0] === '' || r[0] === '-') this.fail();
    this.i += r[0].length;
    const v = variantNumber(r[0]);
    // A number past a DOUBLE's range: Jackson reads it as an infinity, which a variant cannot hold.
    if (v.t === 'double' && !Number.isFinite(v.v)) this.fail();
    return v;
  }

  private string(): string {
    const s = this.s;
    let i = this.i + 1;
    let out = '';
    let start = i;
    for (;;) {
      if (i >= s.length) this.fail();
      const c = s.charCodeAt(i);
      if (c === 0x22) break;
      if (c < 0x20) this.fail();
      if (c !== 0x5c) {
        i++;
        continue;
      }
      out += s.slice(start, i);
      const e = s[i + 1];
      const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (e !== undefined && e in simple) {
        out += simple[e];
        i += 2;
      } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(s.slice(i + 2, i + 6))) {
        out += String.fromCharCode(parseInt(s.slice(i + 2, i + 6), 16));
        i += 6;
      } else this.fail();
      start = i;
    }
    out += s.slice(start, i);
    this.i = i + 1;
    return out;
  }

  private array(depth: number): Variant {
    this.i++;
    const elements: Variant[] = [];
    this.space();
    if (this.s[this.i] === ']') {
      this.i++;
      return { t: 'array', elements };
    }
    for (;;) {
      this.space();
      elements.push(this.value(depth + 1));
      this.space();
      const c = this.s[this.i++];
      if (c === ']') return { t: 'array', elements };
      if (c !== ',') this.fail();
    }
  }

  private object(depth: number): Variant {
    return variantObject(this.members(depth));
  }

  /** An object's members in the order written (a key written twice, twice). */
  members(depth: number): [string, Variant][] {
    if (this.s[this.i] !== '{') this.fail();
    this.i++;
    const fields: [string, Variant][] = [];
    this.space();
    if (this.s[this.i] === '}') {
      this.i++;
      return fields;
    }
    for (;;) {
      this.space();
      if (this.s[this.i] !== '"') this.fail();
      const key = this.string();
      this.space();
      if (this.s[this.i++] !== ':') this.fail();
      this.space();
      fields.push([key, this.value(depth + 1)]);
      this.space();
      const c = this.s[this.i++];
      if (c === '}') return fields;
      if (c !== ',') this.fail();
    }
  }
}

/**
 * The members of a JSON object text, each value as a variant, by key: how Spark's JacksonParser
 * reads a struct's VARIANT fields (a JSON source's VARIANT column, from_json's VARIANT field),
 * each value as VariantBuilder builds it from the parser, a JSON null a variant null. A key
 * written twice at this level keeps its last value, as a struct's field does; inside a value it
 * is VARIANT_DUPLICATE_KEY. Throws VariantParseError when the text is not one JSON object.
 */
export function parseVariantMembers(text: string): ReadonlyMap<string, Variant> {
  const p = new JsonReader(text);
  p.space();
  const members = new Map(p.members(0));
  p.space();
  if (p.i < text.length) p.fail();
  return members;
}

/**
 * A decimal as Variant.getDecimal reads it: trailing zeros stripped (BigDecimal.stripTrailingZeros),
 * so `1.50` is 1.5 and `100.0` is 100 (a negative scale, written without exponent by toPlainString).
 */
function strippedDecimal(unscaled: bigint, scale: number): { unscaled: bigint; scale: number } {
  if (unscaled === 0n) return { unscaled, scale: 0 };
  let [u, s] = [unscaled, scale];
  while (u % 10n === 0n) {
    u /= 10n;
    s--;
  }
  return { unscaled: u, scale: s };
}

/** The stripped decimal's plain text (BigDecimal.toPlainString). */
function decimalText(unscaled: bigint, scale: number): string {
  const d = strippedDecimal(unscaled, scale);
  return d.scale >= 0 ? formatDecimal(d.unscaled, d.scale) : `${d.unscaled}${'0'.repeat(-d.scale)}`;
}

/**
 * The DECIMAL type a variant decimal has (Spark's Decimal(v.getDecimal)): the stripped value's
 * digits and scale, a negative scale folded into the precision, the precision at least the scale.
 */
export function variantDecimalType(unscaled: bigint, scale: number): DecimalType {
  const d = strippedDecimal(unscaled, scale);
  const digits = (d.unscaled < 0n ? -d.unscaled : d.unscaled).toString().length;
  if (d.scale < 0) return { precision: digits - d.scale, scale: 0 };
  return { precision: Math.max(digits, d.scale), scale: d.scale };
}

/** A decimal variant's value at the scale of variantDecimalType (a negative scale read as zero). */
export function variantDecimalValue(unscaled: bigint, scale: number): bigint {
  const d = strippedDecimal(unscaled, scale);
  return d.scale < 0 ? d.unscaled * 10n ** BigInt(-d.scale) : d.unscaled;
}

/** A string as Jackson's writeString writes it: JSON.stringify's escapes, hex digits in capitals. */
function jacksonString(s: string): string {
  return JSON.stringify(s).replace(/\\u([0-9a-f]{4})/g, (_m, h: string) => `\\u${h.toUpperCase()}`);
}

/** Base64 as Java's Base64.getEncoder writes it. */
const base64 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');

/**
 * A variant as Spark's Variant.toJson prints it (to_json, CAST AS STRING of an object or array,
 * and how a result shows it): compact, fields in key order, a DOUBLE as Java's Double.toString, a
 * decimal's plain digits without trailing zeros, a date, timestamp or binary as a quoted string
 * (timestamps in the session zone, UTC, with its `+00:00`).
 */
export function variantToJson(v: Variant): string {
  switch (v.t) {
    case 'null': return 'null';
    case 'boolean': return v.v ? 'true' : 'false';
    case 'long': return v.v.toString();
    case 'decimal': return decimalText(v.unscaled, v.scale);
    case 'double': return formatDouble(v.v);
    case 'float': return formatFloat(v.v);
    case 'string': return jacksonString(v.v);
    case 'date': return `"${formatDate(v.v)}"`;
    case 'timestamp': return `"${formatTimestamp(v.v)}${v.ntz ? '' : '+00:00'}"`;
    case 'binary': return `"${base64(v.v)}"`;
    case 'array': return `[${v.elements.map(variantToJson).join(',')}]`;
    case 'object': return `{${v.fields.map(([k, x]) => `${jacksonString(k)}:${variantToJson(x)}`).join(',')}}`;
  }
}

/**
 * A variant as a value stringifyJson writes as variantToJson does (a sink row's column, a struct
 * field in to_json): scalars as their JSON text, arrays as arrays, objects as plain objects in key
 * order (JSON.rawJSON takes no object). A key that is an array index ("10") goes first in a plain
 * object, before the other keys, as JavaScript orders such keys.
 */
export function variantJsonValue(v: Variant): unknown {
  if (v.t === 'array') return v.elements.map(variantJsonValue);
  if (v.t === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v.fields) Object.defineProperty(out, k, { value: variantJsonValue(x), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return jsonNumber(variantToJson(v));
}

/** One step of a variant_get path: an object's key or an array's index. */
export type VariantPathSegment = { readonly key: string } | { readonly index: number };

/**
 * Spark's VariantPathParser: `$` then any of `.name` (up to the next `.` or `[`), `['name']`,
 * `["name"]` and `[123]`. Undefined for a path it refuses (an index past an INT included).
 */
export function parseVariantPath(path: string): VariantPathSegment[] | undefined {
  if (path[0] !== '$') return undefined;
  const out: VariantPathSegment[] = [];
  const step = /\.([^.[]+)|\['([^']*)'\]|\["([^"]*)"\]|\[(\d+)\]/y;
  let i = 1;
  while (i < path.length) {
    step.lastIndex = i;
    const m = step.exec(path);
    if (!m) return undefined;
    if (m[4] !== undefined) {
      const n = Number(m[4]);
      if (n > 2147483647) return undefined;
      out.push({ index: n });
    } else out.push({ key: m[1] ?? m[2] ?? m[3] });
    i = step.lastIndex;
  }
  return out;
}

/** The sub-variant at `path`, or undefined where a step finds no such key or index, or no object or array. */
export function variantAt(v: Variant, path: readonly VariantPathSegment[]): Variant | undefined {
  let cur: Variant = v;
  for (const s of path) {
    if ('key' in s) {
      if (cur.t !== 'object') return undefined;
      const f = findField(cur.fields, s.key);
      if (f === undefined) return undefined;
      cur = f;
    } else {
      if (cur.t !== 'array' || s.index >= cur.elements.length) return undefined;
      cur = cur.elements[s.index];
    }
  }
  return cur;
}

/** A sorted object's field by binary search (Variant.getFieldByKey). */
function findField(fields: readonly (readonly [string, Variant])[], key: string): Variant | undefined {
  let [lo, hi] = [0, fields.length - 1];
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const k = fields[mid][0];
    if (k === key) return fields[mid][1];
    if (k < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/** A type as schema_of_variant infers it: Spark's DataType, an object as the fields of a STRUCT. */
export type VariantSchema =
  | { readonly kind: 'void' | 'boolean' | 'bigint' | 'double' | 'float' | 'string' | 'date' | 'timestamp' | 'timestamp_ntz' | 'binary' | 'variant' }
  | { readonly kind: 'decimal'; readonly precision: number; readonly scale: number }
  | { readonly kind: 'array'; readonly element: VariantSchema }
  | { readonly kind: 'object'; readonly fields: readonly (readonly [string, VariantSchema])[] };

/** Spark's SchemaOfVariant.schemaOf. */
export function schemaOfVariant(v: Variant): VariantSchema {
  switch (v.t) {
    case 'null': return { kind: 'void' };
    case 'boolean': return { kind: 'boolean' };
    case 'long': return { kind: 'bigint' };
    case 'decimal': return { kind: 'decimal', ...variantDecimalType(v.unscaled, v.scale) };
    case 'double': return { kind: 'double' };
    case 'float': return { kind: 'float' };
    case 'string': return { kind: 'string' };
    case 'date': return { kind: 'date' };
    case 'timestamp': return { kind: v.ntz ? 'timestamp_ntz' : 'timestamp' };
    case 'binary': return { kind: 'binary' };
    case 'array': return { kind: 'array', element: v.elements.reduce<VariantSchema>((t, e) => mergeVariantSchema(t, schemaOfVariant(e)), { kind: 'void' }) };
    case 'object': return { kind: 'object', fields: v.fields.map(([k, x]) => [k, schemaOfVariant(x)] as const) };
  }
}

const isNumberSchema = (t: VariantSchema) => t.kind === 'bigint' || t.kind === 'decimal' || t.kind === 'double' || t.kind === 'float';

/**
 * Spark's JsonInferSchema.compatibleType with VARIANT as the fallback (SchemaOfVariant.mergeSchema):
 * VOID gives way to anything; numbers widen (a BIGINT as DECIMAL(20,0), a DOUBLE or FLOAT beside
 * any number a DOUBLE, two decimals to one holding both, a DOUBLE past 38 digits); arrays merge
 * their elements, objects their fields; anything else is a VARIANT.
 */
export function mergeVariantSchema(a: VariantSchema, b: VariantSchema): VariantSchema {
  if (a.kind === 'void') return b;
  if (b.kind === 'void') return a;
  if (schemaText(a) === schemaText(b)) return a;
  if (isNumberSchema(a) && isNumberSchema(b)) {
    if (a.kind === 'double' || b.kind === 'double' || a.kind === 'float' || b.kind === 'float') return { kind: 'double' };
    const [x, y] = [asDecimal(a), asDecimal(b)];
    const scale = Math.max(x.scale, y.scale);
    const range = Math.max(x.precision - x.scale, y.precision - y.scale);
    return range + scale > MAX_PRECISION ? { kind: 'double' } : { kind: 'decimal', precision: range + scale, scale };
  }
  if (a.kind === 'array' && b.kind === 'array') return { kind: 'array', element: mergeVariantSchema(a.element, b.element) };
  if (a.kind === 'object' && b.kind === 'object') {
    const byKey = new Map<string, VariantSchema>(a.fields);
    for (const [k, t] of b.fields) byKey.set(k, byKey.has(k) ? mergeVariantSchema(byKey.get(k)!, t) : t);
    return { kind: 'object', fields: [...byKey].sort((p, q) => (p[0] < q[0] ? -1 : p[0] > q[0] ? 1 : 0)) };
  }
  return { kind: 'variant' };
}

const asDecimal = (t: VariantSchema): DecimalType => (t.kind === 'decimal' ? t : { precision: 20, scale: 0 });

/** A field name as QuotingUtils.quoteIfNeeded writes it: in backquotes unless a plain identifier. */
const quoteIfNeeded = (name: string) => (/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name) ? name : `\`${name.replace(/`/g, '``')}\``);

/** Spark's SchemaOfVariant.printSchema: DataType.sql, an object as `OBJECT<name: TYPE, …>`. */
export function schemaText(t: VariantSchema): string {
  switch (t.kind) {
    case 'decimal': return `DECIMAL(${t.precision},${t.scale})`;
    case 'array': return `ARRAY<${schemaText(t.element)}>`;
    case 'object': return `OBJECT<${t.fields.map(([k, x]) => `${quoteIfNeeded(k)}: ${schemaText(x)}`).join(', ')}>`;
    case 'void': case 'boolean': case 'bigint': case 'double': case 'float': case 'string': case 'date': case 'timestamp': case 'timestamp_ntz': case 'binary': case 'variant':
      return t.kind.toUpperCase();
  }
}

/** Spark's INVALID_VARIANT_CAST: a variant_get (or an ANSI CAST) whose value does not cast to the type. */
export function invalidVariantCast(v: Variant, typeSql: string): never {
  throw new RecordExpressionError(
    `[INVALID_VARIANT_CAST] The variant value \`${variantToJson(v)}\` cannot be cast into \`${typeSql}\`. Please use \`try_variant_get\` instead.`,
    { errorClass: 'INVALID_VARIANT_CAST' },
  );
}
