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

type Resolver = ReturnType<AvroCodec['type']['createResolver']>;

export interface FromAvroPlan {
  /** The result's type: the reader schema's (avroSchema when given, else jsonFormatSchema). */
  field: Field;
  read(bytes: Uint8Array): unknown;
}

const MALFORMED = 'MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION';

/** from_avro's plan from its literal schema and options; a string is what is wrong, for the user. */
export function planFromAvro(jsonFormatSchema: string, options: Record<string, string>): FromAvroPlan | string {
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
export function planToAvro(field: Field, jsonFormatSchema?: string): AvroCodec | string {
  const codec = AvroCodec.parse(jsonFormatSchema ?? JSON.stringify(avroSchemaOf({ ...field, nullable: false })));
  if (typeof codec === 'string') return `to_avro(): ${codec}`;
  return codec;
}

/** to_avro of one value: its bytes, or an error naming what does not fit. */
export function writeAvro(codec: AvroCodec, value: unknown): Buffer {
  try {
    return codec.encode(value);
  } catch (e) {
    if (e instanceof AvroError) throw new RecordExpressionError(`to_avro(): ${e.message}`, { function: 'to_avro()' });
    throw e;
  }
}
