/**
 * Spark's from_avro and to_avro (spark-avro's functions), over the Avro codec (avro/avro-codec.ts):
 *
 * - from_avro(data, jsonFormatSchema [, options]): the Avro binary `data`, written with
 *   `jsonFormatSchema`, as that schema's Spark type (a record is a struct). Options, Spark's map:
 *   `mode` FAILFAST (the default: a datum that does not decode is an error naming it, which the
 *   run treats as a bad record) or PERMISSIVE (it reads as a struct whose fields are all NULL, or
 *   NULL for a schema that is not a record); `avroSchema`, an evolved reader schema: the data is
 *   read with Avro's schema resolution (fields added with defaults, fields removed, promoted
 *   types) and the result has the reader schema's type.
 * - to_avro(data [, jsonFormatSchema]): `data` as Avro binary, of the given schema or of the one
 *   Spark derives from the column's type (avroSchemaOf).
 *
 * The schemas and options must be literals, as Spark requires them to be foldable; they are
 * checked when the query compiles.
 */
import { AvroCodec, AvroError, avroSchemaOf } from '../avro/avro-codec';
import { RecordExpressionError } from '../errors';
import type { Field } from '../types';
import { fieldOfType, typeOfField } from './data-types';
import type { Expr } from './expression';
import type { CallCompiler, CallExpr, CompiledExpr } from './function-types';
import { mapped } from './compiled-expr';

type Resolver = ReturnType<AvroCodec['type']['createResolver']>;

interface FromAvroPlan {
  /** The result's type: the reader schema's (avroSchema when given, else jsonFormatSchema). */
  field: Field;
  read(bytes: Uint8Array): unknown;
}

const MALFORMED = 'MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION';

/** from_avro's plan from its literal schema and options; a string is what is wrong, for the user. */
function planFromAvro(jsonFormatSchema: string, options: Record<string, string>): FromAvroPlan | string {
  const unknown = Object.keys(options).filter((k) => !['mode', 'avroSchema'].includes(k));
  if (unknown.length) return `from_avro() takes the options mode and avroSchema, not ${unknown.join(', ')}`;
  const mode = (options.mode ?? 'FAILFAST').toUpperCase();
  if (mode !== 'FAILFAST' && mode !== 'PERMISSIVE') return `from_avro() only supports PERMISSIVE and FAILFAST modes, not ${options.mode}`;
  const writer = AvroCodec.parse(jsonFormatSchema);
  if (typeof writer === 'string') return `from_avro(): ${writer}`;
  let reader = writer;
  let resolver: Resolver | undefined;
  if (options.avroSchema !== undefined) {
    const r = AvroCodec.parse(options.avroSchema);
    if (typeof r === 'string') return `from_avro() option avroSchema: ${r}`;
    const res = r.resolverFrom(writer);
    if (typeof res === 'string') return `from_avro() option avroSchema: ${res}`;
    reader = r;
    resolver = res;
  }
  const field = reader.field;
  const nullResult = field.type === 'struct' ? Object.fromEntries((field.fields ?? []).map((f) => [f.name, null])) : null;
  return {
    field,
    read: (bytes) => {
      try {
        return reader.decode(bytes, resolver);
      } catch (e) {
        if (!(e instanceof AvroError)) throw e;
        if (mode === 'PERMISSIVE') return nullResult === null ? null : { ...nullResult };
        throw new RecordExpressionError(
          `[${MALFORMED}] Malformed records are detected in record parsing: ${e.message}. Parse Mode: FAILFAST. To process malformed records as null result, try setting the option 'mode' as 'PERMISSIVE'.`,
          { function: 'from_avro()', errorClass: MALFORMED },
        );
      }
    },
  };
}

/** to_avro's codec for a value of `field`: the given schema's, or Spark's derived one. */
function planToAvro(field: Field, jsonFormatSchema?: string): AvroCodec | string {
  const codec = AvroCodec.parse(jsonFormatSchema ?? JSON.stringify(avroSchemaOf({ ...field, nullable: false })));
  if (typeof codec === 'string') return `to_avro(): ${codec}`;
  return codec;
}

/** to_avro of one value: its bytes, or an error naming what does not fit. */
function writeAvro(codec: AvroCodec, value: unknown): Buffer {
  try {
    return codec.encode(value);
  } catch (e) {
    if (e instanceof AvroError) throw new RecordExpressionError(`to_avro(): ${e.message}`, { function: 'to_avro()' });
    throw e;
  }
}

/** Spark's options argument, map('key', 'value', …) of string literals. */
function literalOptions(e: CallExpr, o: Expr, c: CallCompiler): Record<string, string> {
  const args = o.kind === 'call' && o.name === 'map' ? o.args : undefined;
  if (!args || args.length % 2 !== 0 || args.some((a) => a.kind !== 'literal' || typeof a.value !== 'string')) {
    c.fail(e, `${e.name}() takes its options as map('key', 'value', …) of string literals, such as map('mode', 'PERMISSIVE')`);
  }
  const out: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 2) out[(args[i] as { value: string }).value] = (args[i + 1] as { value: string }).value;
  return out;
}

/** from_avro(data, 'avro schema' [, map(options)]): typed by its schema; the schema and options are literals. */
export function compileFromAvro(e: CallExpr, c: CallCompiler): CompiledExpr {
  const [data, schema, options] = e.args;
  if (schema.kind !== 'literal' || typeof schema.value !== 'string') c.fail(e, 'from_avro() needs its Avro schema as a string literal (the schema\'s JSON, such as \'{"type":"record","name":"Order","fields":[{"name":"id","type":"long"}]}\')');
  const opts = options === undefined ? {} : literalOptions(e, options, c);
  const t = c.compile(data);
  if (t.type !== 'binary' && t.type !== 'null') c.fail(e, `from_avro() reads Avro binary (such as a Kafka value), got ${t.type}`);
  const plan = planFromAvro(schema.value, opts);
  if (typeof plan === 'string') c.fail(e, plan);
  return mapped(typeOfField(plan.field), t, (v) => (v === null || v === undefined ? null : plan.read(v as Uint8Array)));
}

/** to_avro(data [, 'avro schema']): written by the schema given, or by the one of `data`'s full type. */
export function compileToAvro(e: CallExpr, c: CallCompiler): CompiledExpr {
  const [data, schema] = e.args;
  if (schema !== undefined && (schema.kind !== 'literal' || typeof schema.value !== 'string')) c.fail(e, 'to_avro() needs its Avro schema as a string literal');
  const a = c.compile(data);
  const codec = planToAvro(fieldOfType('value', a), schema?.kind === 'literal' ? (schema.value as string) : undefined);
  if (typeof codec === 'string') c.fail(e, codec);
  return mapped({ type: 'binary' }, a, (v) => (v === null || v === undefined ? null : writeAvro(codec, v)));
}
