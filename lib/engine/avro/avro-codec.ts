/**
 * Avro binary encoding for Spark's from_avro and to_avro, on avsc (a pure encoding library, as
 * the Parquet codec beside it is on parquet-wasm: no network, no client).
 *
 * Types follow Spark's SchemaConverters: boolean, int (INT), long (BIGINT), float (FLOAT), double
 * (DOUBLE), bytes and fixed (BINARY), string and enum (STRING),
 * record (STRUCT), array, map (string keys), a union of null and one type (that type,
 * nullable), [int, long] (BIGINT) and [float, double] (DOUBLE); the logical types date (DATE),
 * timestamp-millis and timestamp-micros (TIMESTAMP, its microseconds kept) and
 * decimal (DECIMAL(p, s)). A union of several non-null types (Spark's member0, member1 struct) is
 * refused with the reason.
 *
 * A long is decoded exactly (a bigint past 2^53, query/long.ts). Decoding reads one datum from
 * the start of the bytes and ignores what follows, as Spark's BinaryDecoder does.
 */
import avro from 'avsc';
import type { Field } from '../types';
import { windowFields } from '../query/data-types';
import { AnalysisException } from '../errors';
import { toLong } from '../query/long';
import { microsOfTimestamp, timestampFromMicros } from '../query/timestamp-micros';

/** avsc's long as Weir's: exact, a number while safe and a bigint beyond. */
const WEIR_LONG = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer) => toLong(buf.readBigInt64LE()),
  toBuffer: (n: number | bigint) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(BigInt(n));
    return buf;
  },
  fromJSON: (x: number | string) => toLong(BigInt(x)),
  toJSON: (n: number | bigint) => Number(n),
  isValid: (n: unknown) => (typeof n === 'number' && Number.isInteger(n)) || typeof n === 'bigint',
  compare: (a: number | bigint, b: number | bigint) => (a < b ? -1 : a > b ? 1 : 0),
});

type AvroSchema = string | { type: unknown; logicalType?: string; precision?: number; scale?: number; fields?: { name: string; type: AvroSchema }[]; items?: AvroSchema; values?: AvroSchema; name?: string; size?: number } | AvroSchema[];

/** A problem with a schema or a value, said for the user. */
export class AvroError extends Error {}

/**
 * One Avro schema: the avsc type that reads and writes it and the Weir field its values are.
 */
export class AvroCodec {
  private constructor(
    readonly type: avro.Type,
    private readonly schema: AvroSchema,
    readonly field: Field,
  ) {}

  /** The schema's JSON text parsed; a string is what is wrong with it. */
  static parse(jsonText: string): AvroCodec | string {
    let schema: unknown;
    try {
      schema = JSON.parse(jsonText);
    } catch (e) {
      // A bare primitive name ("long") is a schema too, as Avro's parser takes it.
      if (/^\s*[A-Za-z_][\w.]*\s*$/.test(jsonText)) schema = jsonText.trim();
      else return `the Avro schema is not JSON (${(e as Error).message})`;
    }
    let type: avro.Type;
    try {
      type = avro.Type.forSchema(schema as avro.Schema, { registry: { long: WEIR_LONG }, wrapUnions: false });
    } catch (e) {
      return `the Avro schema is not valid: ${(e as Error).message}`;
    }
    try {
      return new AvroCodec(type, schema as AvroSchema, fieldOf('value', schema as AvroSchema, false));
    } catch (e) {
      if (e instanceof AvroError) return e.message;
      throw e;
    }
  }

  /** Reads records written with `writer`'s schema as this one's (Avro's schema resolution), or why it cannot. */
  resolverFrom(writer: AvroCodec): avro.Resolver | string {
    try {
      return this.type.createResolver(writer.type);
    } catch (e) {
      return `the writer's schema cannot be read as the reader's: ${(e as Error).message}`;
    }
  }

  /** One datum from the start of `bytes` as a Weir value; throws AvroError when the bytes are not one. */
  decode(bytes: Uint8Array, resolver?: avro.Resolver): unknown {
    const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let got: { value: unknown; offset: number };
    try {
      got = this.type.decode(buf, 0, resolver);
    } catch (e) {
      throw new AvroError(`the bytes are not Avro of this schema (${(e as Error).message})`);
    }
    if (got.offset < 0) throw new AvroError(`the bytes end inside the datum (${buf.length} bytes)`);
    return toWeir(got.value, this.field, this.schema);
  }

  /** A Weir value as Avro bytes of this schema; throws AvroError when it does not fit. */
  encode(value: unknown): Buffer {
    const v = fromWeir(value, this.field, this.schema);
    try {
      return this.type.toBuffer(v);
    } catch (e) {
      throw new AvroError(`the value does not fit the Avro schema (${(e as Error).message})`);
    }
  }

  /** The schema as JSON text (what a registry stores and what an id names). */
  get schemaText(): string {
    return JSON.stringify(this.schema);
  }
}

const typeName = (s: AvroSchema): string => (typeof s === 'string' ? s : Array.isArray(s) ? 'union' : typeof s.type === 'string' ? s.type : 'union');

/** The Weir field an Avro schema's values are (Spark's SchemaConverters.toSqlType). */
function fieldOf(name: string, s: AvroSchema, nullable: boolean): Field {
  if (Array.isArray(s)) {
    const nonNull = s.filter((t) => typeName(t) !== 'null');
    const hasNull = nonNull.length < s.length;
    if (nonNull.length === 1) return fieldOf(name, nonNull[0], hasNull || nullable);
    const names = nonNull.map(typeName).sort().join(',');
    if (names === 'int,long') return { name, type: 'long', nullable: hasNull || nullable };
    if (names === 'double,float') return { name, type: 'double', nullable: hasNull || nullable };
    throw new AvroError(`field ${name} is a union of ${nonNull.map(typeName).join(', ')}: Weir reads a union of null and one type, [int, long] and [float, double] only`);
  }
  if (typeof s === 'object' && (typeof s.type === 'object' || Array.isArray(s.type))) return fieldOf(name, s.type as AvroSchema, nullable);
  const t = typeName(s);
  const logical = typeof s === 'object' ? s.logicalType : undefined;
  if (logical === 'date' && t === 'int') return { name, type: 'date', nullable };
  if ((logical === 'timestamp-millis' || logical === 'timestamp-micros') && t === 'long') return { name, type: 'timestamp', nullable };
  // Spark's TIMESTAMP_NTZ in Avro: a local timestamp.
  if ((logical === 'local-timestamp-millis' || logical === 'local-timestamp-micros') && t === 'long') return { name, type: 'timestamp', ntz: true, nullable };
  if (logical === 'decimal' && (t === 'bytes' || t === 'fixed') && typeof s === 'object') return { name, type: 'decimal', precision: s.precision ?? 10, scale: s.scale ?? 0, nullable };
  switch (t) {
    case 'null':
      return { name, type: 'string', nullable: true };
    case 'boolean':
      return { name, type: 'boolean', nullable };
    case 'int':
      return { name, type: 'long', integral: 32, nullable };
    case 'long':
      return { name, type: 'long', nullable };
    case 'float':
      return { name, type: 'double', float32: true, nullable };
    case 'double':
      return { name, type: 'double', nullable };
    case 'bytes': case 'fixed':
      return { name, type: 'binary', nullable };
    case 'string': case 'enum':
      return { name, type: 'string', nullable };
    case 'record': case 'error': {
      const fields = (s as { fields?: { name: string; type: AvroSchema }[] }).fields ?? [];
      return { name, type: 'struct', nullable, fields: fields.map((f) => fieldOf(f.name, f.type, false)) };
    }
    case 'array':
      return { name, type: 'array', nullable, elementType: fieldOf('element', (s as { items: AvroSchema }).items, false) };
    case 'map':
      return { name, type: 'map', nullable, keyType: { name: 'key', type: 'string', nullable: false }, valueType: fieldOf('value', (s as { values: AvroSchema }).values, false) };
    default:
      throw new AvroError(`field ${name} has the Avro type ${t}, which Weir does not read`);
  }
}

/** An avsc value of schema `s` as the Weir value of `f`. */
function toWeir(v: unknown, f: Field, s: AvroSchema): unknown {
  if (v === null || v === undefined) return null;
  const inner = nonNullBranch(s);
  switch (f.type) {
    case 'struct': {
      const fields = (inner as { fields?: { name: string; type: AvroSchema }[] }).fields ?? [];
      const o = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const c of f.fields ?? []) out[c.name] = toWeir(o[c.name], c, fields.find((x) => x.name === c.name)!.type);
      return out;
    }
    case 'array':
      return (v as unknown[]).map((x) => toWeir(x, f.elementType!, (inner as { items: AvroSchema }).items));
    case 'map':
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, toWeir(x, f.valueType!, (inner as { values: AvroSchema }).values)]));
    case 'decimal':
      return bigFromBytes(v as Buffer);
    case 'timestamp':
      // Microseconds kept as the timestamp's fraction (timestamp-micros.ts).
      return isMicros(inner) ? timestampFromMicros(typeof v === 'bigint' ? toLong(v) : (v as number)) : Number(v);
    // Every member listed, so that a new one is a lint error until it is handled here.
    case 'binary': case 'boolean': case 'date': case 'double': case 'long': case 'string': case 'unknown': case 'window':
    case 'day_time_interval': case 'year_month_interval': case 'calendar_interval': case 'variant':
      return v;
  }
}

const isMicros = (s: AvroSchema): boolean => typeof s === 'object' && !Array.isArray(s) && (s.logicalType === 'timestamp-micros' || s.logicalType === 'local-timestamp-micros');

/** A Weir value of `f` as avsc takes it for schema `s`. */
function fromWeir(v: unknown, f: Field, s: AvroSchema): unknown {
  if (v === null || v === undefined) return null;
  const inner = nonNullBranch(s);
  switch (f.type) {
    case 'struct': {
      const fields = (inner as { fields?: { name: string; type: AvroSchema }[] }).fields ?? [];
      const o = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const c of f.fields ?? []) out[c.name] = fromWeir(o[c.name], c, fields.find((x) => x.name === c.name)!.type);
      return out;
    }
    case 'array':
      return (v as unknown[]).map((x) => fromWeir(x, f.elementType!, (inner as { items: AvroSchema }).items));
    case 'map':
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, fromWeir(x, f.valueType!, (inner as { values: AvroSchema }).values)]));
    case 'long': {
      const t = typeName(inner);
      if (t !== 'int') return v;
      const n = Number(v);
      if (!Number.isInteger(n) || n < -(2 ** 31) || n >= 2 ** 31) throw new AvroError(`${String(v)} does not fit the Avro int of field ${f.name}`);
      return n;
    }
    case 'timestamp':
      // timestamp-millis drops the microseconds (floored, as Spark's writer).
      return isMicros(inner) ? microsOfTimestamp(v as number) : Math.floor(v as number);
    case 'decimal': {
      const size = typeof inner === 'object' && !Array.isArray(inner) && inner.type === 'fixed' ? inner.size : undefined;
      return bytesOfBig(v as bigint, size);
    }
    case 'binary':
      return Buffer.isBuffer(v) ? v : Buffer.from(v as Uint8Array);
    case 'boolean': case 'date': case 'double': case 'string': case 'unknown': case 'window':
    case 'day_time_interval': case 'year_month_interval': case 'calendar_interval': case 'variant':
      return v;
  }
}

function nonNullBranch(s: AvroSchema): AvroSchema {
  if (Array.isArray(s)) return s.find((t) => typeName(t) !== 'null') ?? s[0];
  if (typeof s === 'object' && (typeof s.type === 'object' || Array.isArray(s.type))) return nonNullBranch(s.type as AvroSchema);
  return s;
}

/** An Avro decimal's bytes (big-endian two's complement) as its unscaled bigint. */
function bigFromBytes(b: Buffer): bigint {
  if (b.length === 0) return 0n;
  let n = BigInt(`0x${b.toString('hex')}`);
  if (b[0] & 0x80) n -= 1n << BigInt(b.length * 8);
  return n;
}

/** An unscaled bigint as an Avro decimal's bytes: the fewest that hold it, or exactly `size` for a fixed. */
function bytesOfBig(n: bigint, size?: number): Buffer {
  let len = 1;
  while (n >= 1n << BigInt(len * 8 - 1) || n < -(1n << BigInt(len * 8 - 1))) len++;
  const width = size ?? len;
  if (len > width) throw new AvroError(`the decimal ${n} needs ${len} bytes; its fixed type has ${width}`);
  let u = BigInt.asUintN(width * 8, n);
  const out = Buffer.alloc(width);
  for (let i = width - 1; i >= 0; i--) {
    out[i] = Number(u & 0xffn);
    u >>= 8n;
  }
  return out;
}

/**
 * The Avro schema Spark's to_avro writes for a value of `f` with no schema given
 * (SchemaConverters.toAvroType): a struct is a record named topLevelRecord (nested ones named by
 * their field, in its namespace), a nullable field a union of its type and null, a timestamp a
 * timestamp-micros long, a date a date int, a decimal a decimal over bytes.
 */
export function avroSchemaOf(f: Field, recordName = 'topLevelRecord', namespace = ''): unknown {
  const nullable = (s: unknown, x: Field) => (x.nullable === false ? s : [s, 'null']);
  switch (f.type) {
    case 'struct': case 'window': {
      const fields = f.type === 'window' ? windowFields(f) : (f.fields ?? []);
      const ns = namespace ? `${namespace}.${recordName}` : recordName;
      return {
        type: 'record',
        name: recordName,
        ...(namespace ? { namespace } : {}),
        fields: fields.map((c) => ({ name: c.name, type: nullable(avroSchemaOf(c, c.name, ns), c) })),
      };
    }
    case 'array':
      return { type: 'array', items: nullable(avroSchemaOf(f.elementType!, recordName, namespace), f.elementType!) };
    case 'map':
      return { type: 'map', values: nullable(avroSchemaOf(f.valueType!, recordName, namespace), f.valueType!) };
    // Spark's Avro writes a day-time interval as its microseconds, a year-month one as its months,
    // and an INT, SMALLINT or TINYINT as an int.
    case 'long':
      return f.integral ? 'int' : 'long';
    case 'day_time_interval':
      return 'long';
    case 'year_month_interval':
      return 'int';
    // Spark 4 writes a VARIANT to Avro as its binary value and metadata, which Weir does not write.
    case 'variant':
      throw new AnalysisException(`Weir's Avro writer doesn't support the column \`${f.name}\` of the type "VARIANT" yet. Write to_json(${f.name}) as a STRING`, { column: f.name }, 'UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE');
    // Spark's AvroFileFormat.supportDataType refuses it.
    case 'calendar_interval':
      throw new AnalysisException(`The Avro datasource doesn't support the column \`${f.name}\` of the type "INTERVAL". Write CAST(${f.name} AS STRING), or an ANSI interval (make_ym_interval, make_dt_interval)`, { column: f.name }, 'UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE');
    case 'double':
      return f.float32 ? 'float' : 'double';
    case 'boolean':
      return 'boolean';
    case 'binary':
      return 'bytes';
    case 'timestamp':
      return { type: 'long', logicalType: f.ntz ? 'local-timestamp-micros' : 'timestamp-micros' };
    case 'date':
      return { type: 'int', logicalType: 'date' };
    case 'decimal':
      return { type: 'bytes', logicalType: 'decimal', precision: f.precision ?? 10, scale: f.scale ?? 0 };
    case 'string': case 'unknown':
      return 'string';
  }
}
