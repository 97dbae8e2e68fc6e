/**
 * Weir's types as Parquet types, the way Spark 3.x writes them (through Arrow, which
 * parquet-wasm's writer, arrow-rs, maps to Parquet):
 *
 * | Weir        | Arrow                          | Parquet                                            |
 * | ----------- | ------------------------------ | -------------------------------------------------- |
 * | long        | Int64                          | INT64                                              |
 * | INT, SMALLINT, TINYINT (long of 32, 16, 8 bits) | Int32, Int16, Int8 | INT32, INT32 INT(16), INT32 INT(8) |
 * | double      | Float64                        | DOUBLE                                             |
 * | string      | Utf8                           | BYTE_ARRAY STRING (UTF8)                           |
 * | boolean     | Bool                           | BOOLEAN                                            |
 * | binary      | Binary                         | BYTE_ARRAY                                         |
 * | timestamp   | Timestamp(µs, UTC)             | INT64 TIMESTAMP(MICROS, isAdjustedToUTC=true)      |
 * | date        | Date32 (days)                  | INT32 DATE                                         |
 * | decimal(p,s)| Decimal128(p,s)                | INT32 (p ≤ 9), INT64 (p ≤ 18), else FIXED_LEN_BYTE_ARRAY of the fewest bytes, DECIMAL(p,s) |
 * | array       | List<element>                  | LIST: repeated group `list` { `element` }          |
 * | map         | Map<key_value{key, value}>     | MAP: repeated group `key_value` { key, value }     |
 * | struct      | Struct                         | group                                              |
 * | window      | Struct{start, end: timestamp}  | group { start, end: TIMESTAMP(MICROS) }            |
 *
 * Timestamps are TIMESTAMP_MICROS, not INT96: Spark's own default (`outputTimestampType`) is the
 * deprecated INT96, which carries no logical type and which newer readers treat as legacy; Spark
 * 3.x sets MICROS as the recommended value, reads it natively, and so do DuckDB, Trino, Arrow and
 * pandas. The engine holds milliseconds, so every value written is exact; a file written by
 * another tool with µs or ns precision is read truncated to the millisecond.
 * Every column is OPTIONAL (nullable): the engine does not track non-nullability reliably, and
 * an OPTIONAL column reads wherever a REQUIRED one does. A map's keys are REQUIRED, as Parquet
 * demands.
 */
import type * as Arrow from 'apache-arrow';
import { AnalysisException } from '../errors';
import type { Field } from '../types';
import { windowFields } from '../query/data-types';
import { intervalTypeText } from '../query/interval-utils';

export type ArrowModule = typeof Arrow;

/** The key types a map keeps as themselves; any other key is written as its text (the engine holds map keys as text). */
const NATIVE_MAP_KEYS = new Set(['string', 'long', 'double', 'boolean']);

export function mapKeyField(f: Field): Field {
  const k = f.keyType ?? { name: 'key', type: 'string' };
  return NATIVE_MAP_KEYS.has(k.type) ? k : { name: 'key', type: 'string' };
}

/** The Arrow type a Weir field is written as. */
export function arrowTypeOf(a: ArrowModule, f: Field): Arrow.DataType {
  switch (f.type) {
    // Spark writes a day-time interval as INT64 microseconds and a year-month one as INT32 months.
    case 'long':
      return f.integral === 32 ? new a.Int32() : f.integral === 16 ? new a.Int16() : f.integral === 8 ? new a.Int8() : new a.Int64();
    case 'day_time_interval':
      return new a.Int64();
    case 'year_month_interval':
      return new a.Int32();
    case 'double':
      return f.float32 ? new a.Float32() : new a.Float64();
    case 'boolean':
      return new a.Bool();
    case 'binary':
      return new a.Binary();
    // A TIMESTAMP_NTZ as Spark writes it: TIMESTAMP(MICROS, isAdjustedToUTC=false), no zone.
    case 'timestamp':
      return new a.TimestampMicrosecond(f.ntz ? null : 'UTC');
    case 'date':
      return new a.DateDay();
    case 'decimal':
      return new a.Decimal(f.scale ?? 0, f.precision ?? 38, 128);
    case 'window':
      return new a.Struct(windowFields(f).map((c) => new a.Field(c.name, arrowTypeOf(a, c), true)));
    case 'struct':
      return new a.Struct((f.fields ?? []).map((c) => new a.Field(c.name, arrowTypeOf(a, c), true)));
    case 'array':
      return new a.List(new a.Field('element', arrowTypeOf(a, f.elementType ?? { name: 'element', type: 'string' }), true));
    case 'map': {
      const entries = new a.Struct([
        new a.Field('key', arrowTypeOf(a, mapKeyField(f)), false),
        new a.Field('value', arrowTypeOf(a, f.valueType ?? { name: 'value', type: 'string' }), true),
      ]);
      // Spark names the repeated group `key_value`; arrow-rs would say `entries`.
      return new a.Map_(new a.Field('key_value', entries, false));
    }
    case 'string':
    case 'unknown':
      // 'unknown': a column whose type the analyzer could not name, written as its text.
      return new a.Utf8();
    // Spark's ParquetFileFormat.supportDataType refuses it: a month has no fixed length.
    // Spark 4 writes a VARIANT as its binary value and metadata, an encoding Weir does not write.
    case 'variant':
      throw new AnalysisException(`Weir's Parquet writer doesn't support the column \`${f.name}\` of the type "VARIANT" yet. Write to_json(${f.name}) as a STRING`, { column: f.name }, 'UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE');
    case 'calendar_interval':
      throw new AnalysisException(`The Parquet datasource doesn't support the column \`${f.name}\` of the type "INTERVAL". Write CAST(${f.name} AS STRING), or an ANSI interval (make_ym_interval, make_dt_interval)`, { column: f.name }, 'UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE');
  }
}

/** A Weir field's type as a person reads it in a message: `decimal(10,2)`, `array<long>`. */
export function weirTypeName(f: Field): string {
  switch (f.type) {
    case 'decimal':
      return `decimal(${f.precision ?? 38},${f.scale ?? 0})`;
    case 'array':
      return `array<${weirTypeName(f.elementType ?? { name: 'element', type: 'unknown' })}>`;
    case 'map':
      return `map<${weirTypeName(f.keyType ?? { name: 'key', type: 'unknown' })},${weirTypeName(f.valueType ?? { name: 'value', type: 'unknown' })}>`;
    case 'struct':
      return `struct<${(f.fields ?? []).map((c) => `${c.name}:${weirTypeName(c)}`).join(',')}>`;
    case 'window':
      return `struct<${windowFields(f).map((c) => `${c.name}:${weirTypeName(c)}`).join(',')}>`;
    case 'day_time_interval': case 'year_month_interval':
      return intervalTypeText(f.type, f.interval).toLowerCase();
    case 'calendar_interval':
      return 'interval';
    case 'long':
    case 'double':
    case 'string':
    case 'boolean':
    case 'timestamp':
    case 'binary':
    case 'date':
    case 'unknown':
    case 'variant':
      return f.type;
  }
}

/**
 * Why a column of Arrow type `t` (as read from a Parquet file) cannot be read as `f`, or null
 * when it can. Readable means without loss in the engine's value model: any signed integer (and
 * unsigned up to 32 bits) as a long, any float as a double, a timestamp of any unit as a
 * timestamp, a decimal of the same scale and no greater precision as the declared decimal,
 * nested types field by field.
 */
export function unreadableReason(a: ArrowModule, t: Arrow.DataType, f: Field): string | null {
  const no = `is ${String(t)} in the file, which cannot be read as ${weirTypeName(f)}`;
  switch (f.type) {
    case 'long':
      return a.DataType.isInt(t) && (t.isSigned || t.bitWidth <= 32) ? null : no;
    case 'day_time_interval':
      return a.DataType.isInt(t) && t.isSigned && t.bitWidth === 64 ? null : no;
    case 'year_month_interval':
      return a.DataType.isInt(t) && t.isSigned && t.bitWidth === 32 ? null : no;
    case 'calendar_interval': case 'variant':
      return no;
    case 'double':
      return a.DataType.isFloat(t) ? null : no;
    case 'string':
    case 'unknown':
      return a.DataType.isUtf8(t) || a.DataType.isLargeUtf8(t) || (a.DataType.isDictionary(t) && (a.DataType.isUtf8(t.dictionary) || a.DataType.isLargeUtf8(t.dictionary))) ? null : no;
    case 'boolean':
      return a.DataType.isBool(t) ? null : no;
    case 'binary':
      return a.DataType.isBinary(t) || a.DataType.isLargeBinary(t) || a.DataType.isFixedSizeBinary(t) ? null : no;
    case 'timestamp':
      return a.DataType.isTimestamp(t) ? null : no;
    case 'date':
      return a.DataType.isDate(t) ? null : no;
    case 'decimal':
      return a.DataType.isDecimal(t) && t.scale === (f.scale ?? 0) && t.precision <= (f.precision ?? 38) ? null : no;
    case 'array':
      if (!a.DataType.isList(t)) return no;
      return unreadableReason(a, t.children[0].type, f.elementType ?? { name: 'element', type: 'unknown' }) === null ? null : no;
    case 'map': {
      if (!a.DataType.isMap(t)) return no;
      const [k, v] = t.children[0].type.children;
      const keyOk = unreadableReason(a, k.type, mapKeyField(f)) === null || unreadableReason(a, k.type, { name: 'key', type: 'string' }) === null;
      return keyOk && unreadableReason(a, v.type, f.valueType ?? { name: 'value', type: 'unknown' }) === null ? null : no;
    }
    case 'struct':
    case 'window': {
      if (!a.DataType.isStruct(t)) return no;
      const want = f.type === 'window' ? windowFields(f) : (f.fields ?? []);
      for (const c of want) {
        const got = t.children.find((x) => x.name === c.name);
        if (!got || unreadableReason(a, got.type, c) !== null) return no;
      }
      return null;
    }
  }
}

/** The Weir field a Parquet column (as Arrow reads it) is read as, for a reader with no declared schema. */
export function weirFieldOf(a: ArrowModule, name: string, t: Arrow.DataType): Field {
  if (a.DataType.isInt(t)) return t.isSigned && t.bitWidth < 64 ? { name, type: 'long', integral: t.bitWidth as 8 | 16 | 32 } : { name, type: 'long' };
  if (a.DataType.isFloat(t)) return t.precision === a.Precision.SINGLE ? { name, type: 'double', float32: true } : { name, type: 'double' };
  if (a.DataType.isBool(t)) return { name, type: 'boolean' };
  if (a.DataType.isBinary(t) || a.DataType.isLargeBinary(t) || a.DataType.isFixedSizeBinary(t)) return { name, type: 'binary' };
  if (a.DataType.isTimestamp(t)) return t.timezone ? { name, type: 'timestamp' } : { name, type: 'timestamp', ntz: true };
  if (a.DataType.isDate(t)) return { name, type: 'date' };
  if (a.DataType.isDecimal(t)) return { name, type: 'decimal', precision: t.precision, scale: t.scale };
  if (a.DataType.isList(t)) return { name, type: 'array', elementType: weirFieldOf(a, 'element', t.children[0].type) };
  if (a.DataType.isMap(t)) {
    const [k, v] = t.children[0].type.children;
    return { name, type: 'map', keyType: weirFieldOf(a, 'key', k.type), valueType: weirFieldOf(a, 'value', v.type) };
  }
  if (a.DataType.isStruct(t)) return { name, type: 'struct', fields: t.children.map((c) => weirFieldOf(a, c.name, c.type)) };
  return { name, type: 'string' };
}
