/**
 * Spark's data types as plain values (Catalyst's `org.apache.spark.sql.types`), for the Spark
 * SQL front end in this folder: literals and casts carry one, and `from_json`'s DDL schema
 * strings parse to one (data-type-parser.ts). The printed forms are Spark's own, so that an
 * error or an explain shows what Spark would show: `simpleString` (`bigint`, `decimal(10,2)`,
 * `array<int>`, `struct<a:int,b:string>`) and `sql` (`BIGINT`, `STRUCT<a: INT, b: STRING>`).
 *
 * The engine still types values with `SqlType` (expression.ts), where every integer is a
 * `long`: expression-builder.ts maps these onto it. These keep Spark's distinctions (INT vs
 * BIGINT, TIMESTAMP vs TIMESTAMP_NTZ, ANSI intervals) for the typed analyzer that will use them.
 */

type AtomicType =
  | { readonly kind: 'null' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'byte' }
  | { readonly kind: 'short' }
  | { readonly kind: 'integer' }
  | { readonly kind: 'long' }
  | { readonly kind: 'float' }
  | { readonly kind: 'double' }
  | { readonly kind: 'string' }
  | { readonly kind: 'binary' }
  | { readonly kind: 'date' }
  | { readonly kind: 'timestamp' }
  | { readonly kind: 'timestamp_ntz' }
  | { readonly kind: 'calendar_interval' }
  | { readonly kind: 'variant' };

export interface DecimalType { readonly kind: 'decimal'; readonly precision: number; readonly scale: number }
/** CHAR(n) and VARCHAR(n) as Spark's parser keeps them (the analyzer reads them as STRING). */
interface CharType { readonly kind: 'char'; readonly length: number }
interface VarcharType { readonly kind: 'varchar'; readonly length: number }
/** Fields: 0 DAY, 1 HOUR, 2 MINUTE, 3 SECOND (Spark's DayTimeIntervalType.DAY … SECOND). */
export interface DayTimeIntervalType { readonly kind: 'day_time_interval'; readonly startField: number; readonly endField: number }
/** Fields: 0 YEAR, 1 MONTH. */
export interface YearMonthIntervalType { readonly kind: 'year_month_interval'; readonly startField: number; readonly endField: number }
export interface ArrayType { readonly kind: 'array'; readonly elementType: DataType; readonly containsNull: boolean }
export interface MapType { readonly kind: 'map'; readonly keyType: DataType; readonly valueType: DataType; readonly valueContainsNull: boolean }
export interface StructField { readonly name: string; readonly dataType: DataType; readonly nullable: boolean; readonly comment?: string }
export interface StructType { readonly kind: 'struct'; readonly fields: readonly StructField[] }

export type DataType =
  | AtomicType | DecimalType | CharType | VarcharType | DayTimeIntervalType | YearMonthIntervalType
  | ArrayType | MapType | StructType;

export const NullType: DataType = { kind: 'null' };
export const BooleanType: DataType = { kind: 'boolean' };
export const ByteType: DataType = { kind: 'byte' };
export const ShortType: DataType = { kind: 'short' };
export const IntegerType: DataType = { kind: 'integer' };
export const LongType: DataType = { kind: 'long' };
export const FloatType: DataType = { kind: 'float' };
export const DoubleType: DataType = { kind: 'double' };
export const StringType: DataType = { kind: 'string' };
export const BinaryType: DataType = { kind: 'binary' };
export const DateType: DataType = { kind: 'date' };
export const TimestampType: DataType = { kind: 'timestamp' };
export const TimestampNTZType: DataType = { kind: 'timestamp_ntz' };
export const CalendarIntervalType: DataType = { kind: 'calendar_interval' };
/** Spark 4's VariantType: semi-structured values (parse_json's result; variant.ts). */
export const VariantType: DataType = { kind: 'variant' };

/** Spark's DecimalType.MAX_PRECISION. */
export const MAX_DECIMAL_PRECISION = 38;

export class DataTypeError extends Error {
  constructor(message: string, readonly errorClass?: string) {
    super(message);
    this.name = 'DataTypeError';
  }
}

export function DecimalType(precision = 10, scale = 0): DecimalType {
  if (precision > MAX_DECIMAL_PRECISION) {
    throw new DataTypeError(`[DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION] Decimal precision ${precision} exceeds max precision ${MAX_DECIMAL_PRECISION}.`, 'DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION');
  }
  if (scale > precision) throw new DataTypeError(`[_LEGACY_ERROR_TEMP_1228] Decimal scale (${scale}) cannot be greater than precision (${precision}).`, '_LEGACY_ERROR_TEMP_1228');
  return { kind: 'decimal', precision, scale };
}

export const ArrayType = (elementType: DataType, containsNull = true): ArrayType => ({ kind: 'array', elementType, containsNull });
export const MapType = (keyType: DataType, valueType: DataType, valueContainsNull = true): MapType => ({ kind: 'map', keyType, valueType, valueContainsNull });
export const StructType = (fields: readonly StructField[]): StructType => ({ kind: 'struct', fields });
export const StructField = (name: string, dataType: DataType, nullable = true, comment?: string): StructField =>
  (comment === undefined ? { name, dataType, nullable } : { name, dataType, nullable, comment });

const DAY_TIME_FIELDS = ['day', 'hour', 'minute', 'second'] as const;
const YEAR_MONTH_FIELDS = ['year', 'month'] as const;
export const DayTimeIntervalType = (startField = 0, endField = 3): DayTimeIntervalType => ({ kind: 'day_time_interval', startField, endField });
export const YearMonthIntervalType = (startField = 0, endField = 1): YearMonthIntervalType => ({ kind: 'year_month_interval', startField, endField });
/** The interval field of a unit name (DAY…SECOND or YEAR, MONTH; any case), or undefined. */
export function intervalField(unit: string): { yearMonth: boolean; field: number } | undefined {
  const u = unit.toLowerCase();
  const dt = (DAY_TIME_FIELDS as readonly string[]).indexOf(u);
  if (dt >= 0) return { yearMonth: false, field: dt };
  const ym = (YEAR_MONTH_FIELDS as readonly string[]).indexOf(u);
  return ym >= 0 ? { yearMonth: true, field: ym } : undefined;
}

function intervalName(fields: readonly string[], start: number, end: number): string {
  return start === end ? `interval ${fields[start]}` : `interval ${fields[start]} to ${fields[end]}`;
}

const SIMPLE_NAMES: Record<AtomicType['kind'], string> = {
  null: 'void', boolean: 'boolean', byte: 'tinyint', short: 'smallint', integer: 'int', long: 'bigint',
  float: 'float', double: 'double', string: 'string', binary: 'binary', date: 'date', timestamp: 'timestamp',
  timestamp_ntz: 'timestamp_ntz', calendar_interval: 'interval', variant: 'variant',
};

/** Spark's `DataType.simpleString` (also its catalogString for these types). */
export function simpleString(t: DataType): string {
  if (t.kind === 'decimal') return `decimal(${t.precision},${t.scale})`;
  if (t.kind === 'char' || t.kind === 'varchar') return `${t.kind}(${t.length})`;
  if (t.kind === 'day_time_interval') return intervalName(DAY_TIME_FIELDS, t.startField, t.endField);
  if (t.kind === 'year_month_interval') return intervalName(YEAR_MONTH_FIELDS, t.startField, t.endField);
  if (t.kind === 'array') return `array<${simpleString(t.elementType)}>`;
  if (t.kind === 'map') return `map<${simpleString(t.keyType)},${simpleString(t.valueType)}>`;
  if (t.kind === 'struct') return `struct<${t.fields.map((f) => `${f.name}:${simpleString(f.dataType)}`).join(',')}>`;
  return SIMPLE_NAMES[t.kind];
}

/**
 * Keywords that dt-sql-parser's grammar does not take as a name although Spark's does (its
 * non-reserved list lacks them): printed backquoted so that the text parses back.
 */
const GRAMMAR_RESERVED = new Set(['select', 'from', 'table', 'noscan']);

/** Spark's `QuotingUtils.quoteIfNeeded`: backquotes unless the name is a plain identifier. */
export function quoteIfNeeded(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !GRAMMAR_RESERVED.has(name.toLowerCase()) ? name : `\`${name.replace(/`/g, '``')}\``;
}

/** A string as Spark's DDL writes a COMMENT: single-quoted, with `\` and `'` escaped. */
function quoteComment(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Spark's `DataType.sql`: `BIGINT`, `DECIMAL(10,2)`, `ARRAY<INT>`, `STRUCT<a: INT, b: STRING>`. */
export function sql(t: DataType): string {
  if (t.kind === 'array') return `ARRAY<${sql(t.elementType)}>`;
  if (t.kind === 'map') return `MAP<${sql(t.keyType)}, ${sql(t.valueType)}>`;
  if (t.kind === 'struct') {
    return `STRUCT<${t.fields.map((f) => `${quoteIfNeeded(f.name)}: ${sql(f.dataType)}${f.nullable ? '' : ' NOT NULL'}${f.comment === undefined ? '' : ` COMMENT ${quoteComment(f.comment)}`}`).join(', ')}>`;
  }
  return simpleString(t).toUpperCase();
}

/** Spark's `StructType.toDDL`: `id BIGINT,tags ARRAY<STRING>` (what `from_json` and DDL take). */
export function toDDL(t: StructType): string {
  return t.fields.map((f) => `${quoteIfNeeded(f.name)} ${sql(f.dataType)}${f.nullable ? '' : ' NOT NULL'}${f.comment === undefined ? '' : ` COMMENT ${quoteComment(f.comment)}`}`).join(',');
}
