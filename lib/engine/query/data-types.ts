/**
 * The full type of an expression: its ExprType plus what travels beside it (a struct's fields, a
 * decimal's precision and scale, an array's element type, a map's key and value types), and the
 * conversions between it and a schema Field (a column, a struct field, an array element).
 */
import type { Field, Schema } from '../types';
import { writtenColumnName } from './column-names';
import { LONG_DECIMAL, literalDecimalType, MAX_PRECISION, type DecimalType } from './decimal';
import type { Expr } from './expression';
import { fullRange, intervalTypeText, type IntervalFields } from './interval-utils';
import { INTEGRAL_BITS, INTEGRAL_NAMES, widerWidth, type IntegralBits } from './long';
import type { ExprType } from './sql-values';
import { sql as sparkSql, type DataType } from './parser/data-type';

export interface TypeInfo {
  type: ExprType;
  /** The fields of a `struct` result (a window column is the struct { start, end }). */
  fields?: Field[];
  /**
   * A `decimal`'s precision and scale; its values are unscaled bigints at exactly this scale
   * (decimal.ts), so `2 % 1.8` is 0.2 as in Spark, exact to 38 digits.
   */
  decimal?: DecimalType;
  /** An `array`'s element type. */
  elementType?: Field;
  /** A `map`'s key and value types. */
  keyType?: Field;
  valueType?: Field;
  /** An interval's unit range (interval-utils.ts). */
  interval?: IntervalFields;
  /** A `long`'s width when it is INT, SMALLINT or TINYINT (long.ts); none for a BIGINT. */
  integral?: IntegralBits;
  /** A reference to the watermarked event-time column (Field.watermarkDelayMs), which an alias keeps. */
  watermarkDelayMs?: number;
  /** Set on a `double` that is a FLOAT (float.ts): values rounded to single precision. */
  float32?: true;
  /** Set on a `timestamp` that is Spark's TIMESTAMP_NTZ: epoch milliseconds of the wall-clock time read as UTC. */
  ntz?: true;
  /**
   * Set on the `array` array() or array(NULL, …) makes, Spark's ARRAY<VOID>: its elements are all
   * NULL, so it casts and widens to any array. typeof() shows it as array<void>; what a
   * function makes of it is kept as an ARRAY<STRING>.
   */
  voidElements?: true;
}

/** Spark's window struct: what `window.start` and `window.end` read. */
const WINDOW_FIELDS: Field[] = [
  { name: 'start', type: 'timestamp', nullable: true },
  { name: 'end', type: 'timestamp', nullable: true },
];
/** The window struct over a TIMESTAMP_NTZ: Spark's TimeWindow and SessionWindow keep the time column's type. */
const WINDOW_FIELDS_NTZ: Field[] = WINDOW_FIELDS.map((f) => ({ ...f, ntz: true }));

/** The fields `start` and `end` of a window column `f` (TIMESTAMP_NTZ when the column is marked ntz). */
export const windowFields = (f: Field): Field[] => (f.ntz ? WINDOW_FIELDS_NTZ : WINDOW_FIELDS);

/** Whether `t` may key a map: Spark refuses a MAP, or an array or struct holding one, as a key. */
export function isMapKeyType(t: TypeInfo): boolean {
  if (t.type === 'map') return false;
  if (t.type === 'array') return isMapKeyType(typeOfField(t.elementType!));
  if (t.type === 'struct') return (t.fields ?? []).every((f) => isMapKeyType(typeOfField(f)));
  return true;
}

/** A schema field's expression type, with what its values carry beside it. */
export function typeOfField(f: Field): TypeInfo {
  switch (f.type) {
    case 'window':
      return { type: 'struct', fields: windowFields(f), ...(f.watermarkDelayMs === undefined ? {} : { watermarkDelayMs: f.watermarkDelayMs }) };
    case 'struct':
      return { type: 'struct', fields: f.fields ?? [], ...(f.watermarkDelayMs === undefined ? {} : { watermarkDelayMs: f.watermarkDelayMs }) };
    case 'array':
      return { type: 'array', elementType: f.elementType ?? { name: 'element', type: 'string', nullable: true } };
    case 'map':
      return {
        type: 'map',
        keyType: f.keyType ?? { name: 'key', type: 'string', nullable: false },
        valueType: f.valueType ?? { name: 'value', type: 'string', nullable: true },
      };
    case 'unknown':
      return { type: 'string' };
    case 'decimal':
      return { type: 'decimal', decimal: { precision: f.precision ?? MAX_PRECISION, scale: f.scale ?? 0 } };
    case 'day_time_interval': case 'year_month_interval':
      return { type: f.type, interval: f.interval ?? fullRange(f.type) };
    case 'long':
      return f.integral ? { type: 'long', integral: f.integral } : { type: 'long' };
    case 'timestamp':
      return { type: f.type, ...(f.ntz ? { ntz: true as const } : {}), ...(f.watermarkDelayMs === undefined ? {} : { watermarkDelayMs: f.watermarkDelayMs }) };
    case 'double':
      return f.float32 ? { type: 'double', float32: true } : { type: 'double' };
    case 'string': case 'boolean': case 'binary': case 'date': case 'calendar_interval': case 'variant':
      return { type: f.type };
  }
}

/** A Field named `name` of type `t` (a NULL-typed value is a string column, as before). */
export function fieldOfType(name: string, t: TypeInfo, nullable = true): Field {
  return {
    name,
    type: t.type === 'null' ? 'string' : t.type,
    nullable,
    // Spark's VOID (a NULL literal's column): kept as a STRING, it widens to the type beside it.
    ...(t.type === 'null' ? { void: true as const } : {}),
    ...(t.fields ? { fields: t.fields } : {}),
    ...(t.decimal ? { precision: t.decimal.precision, scale: t.decimal.scale } : {}),
    ...(t.elementType ? { elementType: t.elementType } : {}),
    ...(t.keyType ? { keyType: t.keyType, valueType: t.valueType } : {}),
    ...(t.interval ? { interval: t.interval } : {}),
    ...(t.integral && t.type === 'long' ? { integral: t.integral } : {}),
    // A window grouped by is a struct column (aggregateOutput) that keeps its watermark.
    ...(t.watermarkDelayMs !== undefined && (t.type === 'timestamp' || t.type === 'struct') ? { watermarkDelayMs: t.watermarkDelayMs } : {}),
    ...(t.float32 && t.type === 'double' ? { float32: true as const } : {}),
    ...(t.ntz && t.type === 'timestamp' ? { ntz: true as const } : {}),
  };
}

/**
 * Whether values of `t` have an order (Spark's RowOrdering.isOrderable): everything but a map and
 * a CalendarInterval (a month has no fixed length, so `1 months` and `30 days` are neither equal
 * nor ordered), nor a VARIANT (Spark 4 gives it no order nor equality), and arrays and structs
 * of orderable types.
 */
export function isOrderable(t: TypeInfo | Field): boolean {
  if (t.type === 'map' || t.type === 'calendar_interval' || t.type === 'variant') return false;
  if (t.type === 'array') return t.elementType === undefined || isOrderable(t.elementType);
  if (t.type === 'struct') return (t.fields ?? []).every(isOrderable);
  return true;
}

/**
 * Why a reader (a source's schema, from_json, from_csv, from_xml) cannot read the column `f` yet:
 * it is or holds a VARIANT, which Spark builds from the text of the value and Weir reads only
 * with parse_json, exactly; undefined for any other type.
 */
export function variantColumnRefusal(f: Field): string | undefined {
  if (!holdsVariant(f)) return undefined;
  return `${f.name} is ${typeText(f)}: Weir reads a VARIANT from a record's text only with parse_json(); read the JSON as a STRING and write parse_json(<column>)`;
}

/** Whether `t` is or holds a VARIANT (an array's element, a struct's field, a map's value). */
export function holdsVariant(t: TypeInfo | Field): boolean {
  if (t.type === 'variant') return true;
  if (t.type === 'array') return t.elementType !== undefined && holdsVariant(t.elementType);
  if (t.type === 'map') return t.valueType !== undefined && holdsVariant(t.valueType);
  if (t.type === 'struct') return (t.fields ?? []).some(holdsVariant);
  return false;
}

/**
 * Whether `t` holds a map, at the top or inside an array or a struct (Spark's CheckAnalysis
 * hasMapType): rows holding one cannot be told equal, so DISTINCT and set operations refuse them.
 */
export function holdsMap(t: TypeInfo | Field): boolean {
  if (t.type === 'map') return true;
  if (t.type === 'array') return t.elementType !== undefined && holdsMap(t.elementType);
  if (t.type === 'struct') return (t.fields ?? []).some(holdsMap);
  return false;
}

/**
 * Spark's NormalizeFloatingNumbers of a grouping key's value: -0.0 as 0.0 and every NaN as the
 * one NaN, at the top and inside arrays and structs, so that keys Spark deems equal group alike
 * (the state key's bytes hold a double's sign and NaN payload) and the key is output as Spark
 * outputs it. Undefined for a type with no DOUBLE or FLOAT in it (a map is no grouping key).
 */
export function floatingNumbersNormalizer(t: TypeInfo | Field): ((v: unknown) => unknown) | undefined {
  switch (t.type) {
    case 'double':
      return (v) => (v === 0 ? 0 : typeof v === 'number' && Number.isNaN(v) ? NaN : v);
    case 'array': {
      const element = t.elementType && floatingNumbersNormalizer(t.elementType);
      return element && ((v) => (Array.isArray(v) ? v.map((x) => (x === null ? null : element(x))) : v));
    }
    case 'struct': {
      const fields = (t.fields ?? []).flatMap((f) => {
        const n = floatingNumbersNormalizer(f);
        return n ? [{ name: f.name, n }] : [];
      });
      if (fields.length === 0) return undefined;
      return (v) => {
        if (v === null || typeof v !== 'object') return v;
        const out = { ...(v as Record<string, unknown>) };
        for (const { name, n } of fields) if (out[name] !== null && out[name] !== undefined) out[name] = n(out[name]);
        return out;
      };
    }
    // Every member listed, so that a new one is a lint error until it is handled here.
    case 'binary': case 'boolean': case 'date': case 'day_time_interval': case 'decimal': case 'long': case 'map': case 'null':
    case 'string': case 'timestamp': case 'unknown': case 'window': case 'year_month_interval': case 'calendar_interval': case 'variant':
    default:
      return undefined;
  }
}

/** The element Field of an array of `t`. */
export const elementOf = (t: TypeInfo): Field => fieldOfType('element', t);

/** Spark's DDL text of a type (`ARRAY<STRING>`, `MAP<STRING, BIGINT>`), for messages and explain. */
export function typeText(t: TypeInfo | Field): string {
  switch (t.type) {
    case 'array': return `ARRAY<${typeText(t.elementType ?? { name: 'element', type: 'string' })}>`;
    case 'map': return `MAP<${typeText(t.keyType ?? { name: 'key', type: 'string' })}, ${typeText(t.valueType ?? { name: 'value', type: 'string' })}>`;
    case 'struct': return `STRUCT<${(t.fields ?? []).map((f) => `${f.name}: ${typeText(f)}`).join(', ')}>`;
    case 'long': return t.integral ? INTEGRAL_NAMES[t.integral] : 'BIGINT';
    case 'double': return t.float32 ? 'FLOAT' : 'DOUBLE';
    case 'timestamp': return t.ntz ? 'TIMESTAMP_NTZ' : 'TIMESTAMP';
    case 'decimal': {
      const d = 'decimal' in t && t.decimal ? t.decimal : { precision: (t as Field).precision ?? MAX_PRECISION, scale: (t as Field).scale ?? 0 };
      return `DECIMAL(${d.precision},${d.scale})`;
    }
    case 'day_time_interval': case 'year_month_interval': return intervalTypeText(t.type, t.interval);
    case 'calendar_interval': return 'INTERVAL';
    // Every member listed, so that a new one is a lint error until it is handled here.
    case 'binary': case 'boolean': case 'date': case 'null': case 'string': case 'unknown': case 'window': case 'variant':
    default: return t.type.toUpperCase();
  }
}

/** Spark's DataType.simpleString (`bigint`, `array<string>`, `struct<a:bigint>`): what typeof() answers. */
export function simpleTypeString(t: TypeInfo | Field): string {
  // VOID: a NULL literal kept as a STRING (a struct field, a map's key or value), array()'s elements.
  if ('name' in t && t.void) return 'void';
  const info = 'name' in t ? typeOfField(t) : t;
  if (info.voidElements) return 'array<void>';
  switch (info.type) {
    case 'array': return `array<${simpleTypeString(info.elementType!)}>`;
    case 'map': return `map<${simpleTypeString(info.keyType!)},${simpleTypeString(info.valueType!)}>`;
    case 'struct': return `struct<${(info.fields ?? []).map((f) => `${f.name}:${simpleTypeString(f)}`).join(',')}>`;
    case 'null': return 'void';
    case 'binary': case 'boolean': case 'date': case 'decimal': case 'double': case 'long': case 'string': case 'timestamp':
    case 'day_time_interval': case 'year_month_interval': case 'calendar_interval': case 'variant':
      return typeText(info).toLowerCase();
  }
}

/** A column's name and its Spark type as Spark prints a schema (`bigint`, `decimal(10,2)`, `struct<start:timestamp,end:timestamp>`). */
export interface SparkColumn {
  name: string;
  type: string;
}

/** The columns of `schema` with Spark's type names, not Weir's internal ones (an INT is `int`, not `long`). */
export function sparkColumns(schema: Schema): SparkColumn[] {
  return schema.map((f) => ({ name: writtenColumnName(f.name), type: simpleTypeString(f) }));
}

/** Whether two types are the same type (element, key and value types included). */
export function sameType(a: TypeInfo | Field, b: TypeInfo | Field): boolean {
  return typeText(a) === typeText(b);
}

/** A field's nullability as Spark reads it: a Field that does not say is nullable, as a StructField's default. */
const isNullable = (f: Field | undefined) => f?.nullable ?? true;

/**
 * Spark's DataType.equalsIgnoreNameAndCompatibleNullability(from, to): the same type, a struct's
 * fields compared by position, their names ignored; `from` may be non-nullable where `to` is
 * nullable, not the reverse (an array's elements, a map's values, a struct's fields). What
 * StateSchemaCompatibilityChecker compares a restarted query's state schema (`from`) with the
 * checkpoint's (`to`) by.
 */
function equalsIgnoreNameAndCompatibleNullability(from: Field, to: Field): boolean {
  if (from.type !== to.type) return false;
  const compatible = (f: Field | undefined, t: Field | undefined, dflt: Field) => (isNullable(t) || !isNullable(f)) && equalsIgnoreNameAndCompatibleNullability(f ?? dflt, t ?? dflt);
  switch (from.type) {
    case 'array':
      return compatible(from.elementType, to.elementType, { name: 'element', type: 'string' });
    case 'map':
      // A map's keys are never NULL: only the value's nullability is compared, as Spark does.
      return equalsIgnoreNameAndCompatibleNullability(from.keyType ?? { name: 'key', type: 'string' }, to.keyType ?? { name: 'key', type: 'string' }) &&
        compatible(from.valueType, to.valueType, { name: 'value', type: 'string' });
    case 'struct':
      return schemasEqualIgnoreNameAndCompatibleNullability(from.fields ?? [], to.fields ?? []);
    case 'window':
      return schemasEqualIgnoreNameAndCompatibleNullability(windowFields(from), windowFields(to));
    // Every member listed, so that a new one is a lint error until it is handled here.
    case 'binary': case 'boolean': case 'date': case 'day_time_interval': case 'decimal': case 'double': case 'long':
    case 'string': case 'timestamp': case 'unknown': case 'year_month_interval': case 'calendar_interval': case 'variant':
      return typeText(from) === typeText(to);
  }
}

/** equalsIgnoreNameAndCompatibleNullability of two StructTypes given as their fields. */
export function schemasEqualIgnoreNameAndCompatibleNullability(from: Schema, to: Schema): boolean {
  return from.length === to.length && from.every((f, i) => (isNullable(to[i]) || !isNullable(f)) && equalsIgnoreNameAndCompatibleNullability(f, to[i]));
}

/**
 * A Spark data type (a DDL schema's column, from_json's schema, a source schema's type) as the
 * Field of the values Weir keeps for it, or why Weir cannot keep it. Weir's values have fewer
 * types than Spark's DDL names: TINYINT, SMALLINT and INT are a `long` with its width beside it,
 * FLOAT a `double` marked float32, TIMESTAMP_NTZ a `timestamp` marked ntz, CHAR/VARCHAR a STRING, an
 * ANSI interval its kind with its unit range. VOID and the legacy CalendarIntervalType (`INTERVAL`
 * alone) are not column types here.
 */
export function fieldOfDataType(name: string, t: DataType, nullable = true): Field | string {
  switch (t.kind) {
    case 'byte': case 'short': case 'integer': return { name, type: 'long', integral: INTEGRAL_BITS[t.kind], nullable };
    case 'long': return { name, type: 'long', nullable };
    case 'float': return { name, type: 'double', float32: true, nullable };
    case 'double': return { name, type: 'double', nullable };
    case 'string': case 'char': case 'varchar': return { name, type: 'string', nullable };
    case 'timestamp': return { name, type: 'timestamp', nullable };
    case 'timestamp_ntz': return { name, type: 'timestamp', ntz: true, nullable };
    case 'boolean': case 'binary': case 'date': case 'variant': return { name, type: t.kind, nullable };
    case 'decimal': return { name, type: 'decimal', precision: t.precision, scale: t.scale, nullable };
    case 'array': {
      const e = fieldOfDataType('element', t.elementType, t.containsNull);
      return typeof e === 'string' ? e : { name, type: 'array', elementType: e, nullable };
    }
    case 'map': {
      const k = fieldOfDataType('key', t.keyType, false);
      if (typeof k === 'string') return k;
      // Spark's INVALID_MAP_KEY_TYPE: a map cannot key a map.
      if (!isMapKeyType(typeOfField(k))) return `${name} is ${sparkSql(t)}: a map's key cannot be or hold a MAP (INVALID_MAP_KEY_TYPE)`;
      const v = fieldOfDataType('value', t.valueType, t.valueContainsNull);
      return typeof v === 'string' ? v : { name, type: 'map', keyType: k, valueType: v, nullable };
    }
    case 'struct': {
      const fields: Field[] = [];
      for (const f of t.fields) {
        const x = fieldOfDataType(f.name, f.dataType, f.nullable);
        if (typeof x === 'string') return x;
        fields.push(x);
      }
      return { name, type: 'struct', fields, nullable };
    }
    case 'day_time_interval': case 'year_month_interval':
      return { name, type: t.kind, interval: { start: t.startField, end: t.endField }, nullable };
    case 'null': case 'calendar_interval':
    default:
      return `${name} is ${sparkSql(t)}, which Weir cannot keep in a column yet; use BIGINT, DOUBLE, DECIMAL(p,s), STRING, BOOLEAN, DATE, TIMESTAMP, BINARY, INTERVAL DAY TO SECOND, INTERVAL YEAR TO MONTH, ARRAY<…>, MAP<…> or STRUCT<…>`;
  }
}

/**
 * The width of an integral operator's result: the wider operand's (a NULL takes the other's); none
 * (BIGINT) when either is a BIGINT.
 */
export function integralWidth(l: TypeInfo, r: TypeInfo): IntegralBits | undefined {
  if (l.type === 'null') return r.integral;
  if (r.type === 'null') return l.integral;
  return widerWidth(l.integral, r.integral);
}

/**
 * Whether values of these types widen to a FLOAT: a FLOAT beside integers and NULLs only (Spark's
 * numericPrecedence, BIGINT < FLOAT < DOUBLE); beside a DOUBLE or a DECIMAL they are DOUBLEs.
 */
export function widensToFloat(ts: TypeInfo[]): boolean {
  return ts.some((t) => t.float32) && ts.every((t) => t.float32 || t.type === 'long' || t.type === 'null');
}

/** The decimal each narrower integral type widens to (Spark's DecimalType.forType). */
const INTEGRAL_DECIMAL: Record<IntegralBits, DecimalType> = { 8: { precision: 3, scale: 0 }, 16: { precision: 5, scale: 0 }, 32: { precision: 10, scale: 0 } };

/**
 * The decimal type an operand has in decimal arithmetic: a decimal's own; an integer literal's
 * digits (Spark picks the minimum precision for a literal), a BIGINT's DECIMAL(20,0); none for others.
 */
export function decimalOperand(c: TypeInfo, e: Expr, literalMinimum = true): DecimalType | undefined {
  if (c.type === 'decimal') return c.decimal;
  if (c.type !== 'long') return undefined;
  // Outside arithmetic and comparisons a literal keeps its integer type (Spark's
  // DecimalType.forType): `1` (an INT) is DECIMAL(10,0), `1Y` DECIMAL(3,0), `1L` DECIMAL(20,0).
  if (literalMinimum && e.kind === 'literal' && typeof e.value === 'number') return literalDecimalType(e.value);
  return c.integral ? INTEGRAL_DECIMAL[c.integral] : LONG_DECIMAL;
}
