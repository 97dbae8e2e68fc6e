/**
 * Casts to and from Spark 4's VARIANT (variant.ts): VariantGet.cast, which CAST(v AS type),
 * variant_get and try_variant_get run, and VariantExpressionEvalUtils.castToVariant, which
 * CAST(x AS VARIANT) and to_variant_object run.
 *
 * From a variant: a variant null is a SQL NULL whatever the type; a scalar is cast as Spark's ANSI
 * cast of its own type would cast it (Cast.canAnsiCast, then the cast in TRY mode), so the text
 * '12' is 12 as an INT and 'abc' fails, 1.5 is 1 as an INT, 2^40 fails as an INT, and a number
 * fails as a DATE; an object or an array casts to a STRING as its JSON and fails as any other
 * scalar; an array casts to an ARRAY element by element, an object to a MAP<STRING, …> or to a
 * STRUCT by field name. A failure is INVALID_VARIANT_CAST where `failOnError` (variant_get; a CAST
 * with ANSI on, which Weir does not run) and NULL otherwise (try_variant_get; CAST with ANSI off).
 */
import { typeOfField, typeText, type TypeInfo } from './data-types';
import { mapKeyText } from './map-keys';
import { toLong, type Long } from './long';
import type { EvalContext } from './function-types';
import type { ExprType } from './sql-values';
import { timestampFromMicros } from './timestamp-micros';
import {
  invalidVariantCast, variantDecimalType, variantDecimalValue, variantToJson, VARIANT_NULL, type Variant,
} from './variant';

/** A value of `from` cast to `to` as Spark's TRY cast does (NULL where the ANSI cast fails). */
export type ScalarTryCast = (from: TypeInfo, to: TypeInfo) => (v: unknown, ctx: EvalContext) => unknown;

/** Spark's VariantGet.checkDataType: the types a variant casts to (and, without structs and maps, from). */
export function castsWithVariant(t: TypeInfo, allowStructsAndMaps = true): boolean {
  switch (t.type) {
    case 'boolean': case 'long': case 'double': case 'decimal': case 'string': case 'binary': case 'date': case 'timestamp': case 'variant':
      return true;
    case 'array':
      return castsWithVariant(typeOfField(t.elementType!), allowStructsAndMaps);
    case 'map':
      return allowStructsAndMaps && t.keyType!.type === 'string' && castsWithVariant(typeOfField(t.valueType!), allowStructsAndMaps);
    case 'struct':
      return allowStructsAndMaps && (t.fields ?? []).every((f) => castsWithVariant(typeOfField(f), allowStructsAndMaps));
    case 'null': case 'day_time_interval': case 'year_month_interval': case 'calendar_interval':
    default:
      return false;
  }
}

const NUMBER: ReadonlySet<ExprType> = new Set(['long', 'double', 'decimal']);

/** Spark's Cast.canAnsiCast between the scalar types a variant holds and the types it casts to. */
function canAnsiCast(from: TypeInfo, to: TypeInfo): boolean {
  if (from.type === to.type && !!from.ntz === !!to.ntz) return true;
  switch (to.type) {
    case 'string': return true;
    case 'binary': return from.type === 'string';
    case 'boolean': return from.type === 'string' || NUMBER.has(from.type);
    case 'long': case 'double': case 'decimal': return from.type === 'string' || from.type === 'boolean' || NUMBER.has(from.type) || (from.type === 'timestamp' && !from.ntz);
    case 'date': return from.type === 'string' || from.type === 'timestamp';
    case 'timestamp': return from.type === 'string' || from.type === 'date' || from.type === 'timestamp' || (!to.ntz && NUMBER.has(from.type));
    // Nested types and VARIANT are cast before a scalar is; nothing casts to the rest.
    case 'array': case 'map': case 'struct': case 'variant': case 'null': case 'day_time_interval': case 'year_month_interval': case 'calendar_interval':
    default: return false;
  }
}

/** A scalar variant as the value and type Spark reads it as (a decimal at its stripped scale). */
function scalarOf(v: Variant): { value: unknown; type: TypeInfo } | undefined {
  switch (v.t) {
    case 'boolean': return { value: v.v, type: { type: 'boolean' } };
    case 'long': return { value: toLong(v.v), type: { type: 'long' } };
    case 'decimal': return { value: variantDecimalValue(v.unscaled, v.scale), type: { type: 'decimal', decimal: variantDecimalType(v.unscaled, v.scale) } };
    case 'double': return { value: v.v, type: { type: 'double' } };
    case 'float': return { value: v.v, type: { type: 'double', float32: true } };
    case 'string': return { value: v.v, type: { type: 'string' } };
    case 'date': return { value: v.v, type: { type: 'date' } };
    case 'timestamp': return { value: v.v, type: v.ntz ? { type: 'timestamp', ntz: true } : { type: 'timestamp' } };
    case 'binary': return { value: v.v, type: { type: 'binary' } };
    case 'null': case 'array': case 'object':
      return undefined;
  }
}

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/**
 * Spark's castLongToTimestamp and castDecimalToTimestamp: seconds as microseconds, exactly (a
 * decimal's fraction truncated), undefined past BIGINT's microseconds where Cast would wrap.
 */
function secondsToTimestamp(unscaled: bigint, scale: number): number | undefined {
  const micros = scale <= 6 ? unscaled * 10n ** BigInt(6 - scale) : unscaled / 10n ** BigInt(scale - 6);
  return micros < LONG_MIN || micros > LONG_MAX ? undefined : timestampFromMicros(toLong(micros));
}

/** Spark's VariantGet.cast of a variant to `to`, compiled once per target type. */
export function variantCaster(to: TypeInfo, failOnError: boolean, tryCast: ScalarTryCast): (v: Variant, ctx: EvalContext) => unknown {
  const sql = typeText(to);
  const invalid = (v: Variant): null => (failOnError ? invalidVariantCast(v, sql) : null);
  switch (to.type) {
    case 'variant':
      return (v) => v;
    case 'array': {
      const element = variantCaster(typeOfField(to.elementType!), failOnError, tryCast);
      return (v, ctx) => (v.t === 'null' ? null : v.t === 'array' ? v.elements.map((x) => element(x, ctx)) : invalid(v));
    }
    case 'map': {
      const value = variantCaster(typeOfField(to.valueType!), failOnError, tryCast);
      const keyType = typeOfField(to.keyType!);
      return (v, ctx) => {
        if (v.t === 'null') return null;
        if (v.t !== 'object') return invalid(v);
        const out: Record<string, unknown> = {};
        for (const [k, x] of v.fields) Object.defineProperty(out, mapKeyText(k, keyType), { value: value(x, ctx), enumerable: true, writable: true, configurable: true });
        return out;
      };
    }
    case 'struct': {
      const fields = (to.fields ?? []).map((f) => ({ name: f.name, cast: variantCaster(typeOfField(f), failOnError, tryCast) }));
      return (v, ctx) => {
        if (v.t === 'null') return null;
        if (v.t !== 'object') return invalid(v);
        const byKey = new Map(v.fields);
        const out: Record<string, unknown> = {};
        for (const f of fields) {
          const x = byKey.get(f.name);
          out[f.name] = x === undefined ? null : f.cast(x, ctx);
        }
        return out;
      };
    }
    case 'boolean': case 'long': case 'double': case 'decimal': case 'string': case 'binary': case 'date': case 'timestamp':
    case 'null': case 'day_time_interval': case 'year_month_interval': case 'calendar_interval':
    default:
      break;
  }
  // One compiled cast per source type met (a decimal's differs by its precision and scale).
  const casts = new Map<string, ((v: unknown, ctx: EvalContext) => unknown) | undefined>();
  const castFrom = (t: TypeInfo) => {
    const key = typeText(t);
    if (!casts.has(key)) casts.set(key, canAnsiCast(t, to) ? tryCast(t, to) : undefined);
    return casts.get(key);
  };
  return (v, ctx) => {
    if (v.t === 'null') return null;
    if (v.t === 'object' || v.t === 'array') return to.type === 'string' ? variantToJson(v) : invalid(v);
    if (to.type === 'timestamp' && !to.ntz && (v.t === 'long' || v.t === 'decimal')) {
      const out = v.t === 'long' ? secondsToTimestamp(v.v, 0) : secondsToTimestamp(v.unscaled, v.scale);
      return out ?? invalid(v);
    }
    const s = scalarOf(v)!;
    const cast = castFrom(s.type);
    if (!cast) return invalid(v);
    const out = cast(s.value, ctx);
    return out === null || out === undefined ? invalid(v) : out;
  };
}

/**
 * Spark's castToVariant of a value of `from` (a type castsWithVariant allows): integers of any
 * width a LONG, a FLOAT a float, a decimal at its own scale, a date, timestamp or binary as
 * itself, an array element by element (a NULL element a variant null), a struct or a map (string
 * keys) an object.
 */
export function toVariant(from: TypeInfo): (v: unknown) => Variant {
  const orNull = (f: (x: unknown) => Variant) => (x: unknown) => (x === null || x === undefined ? VARIANT_NULL : f(x));
  switch (from.type) {
    case 'boolean': return (v) => ({ t: 'boolean', v: v as boolean });
    case 'long': return (v) => ({ t: 'long', v: BigInt(v as Long) });
    case 'double': return from.float32 ? (v) => ({ t: 'float', v: v as number }) : (v) => ({ t: 'double', v: v as number });
    case 'decimal': { const scale = from.decimal!.scale; return (v) => ({ t: 'decimal', unscaled: v as bigint, scale }); }
    case 'string': return (v) => ({ t: 'string', v: v as string });
    case 'date': return (v) => ({ t: 'date', v: v as number });
    case 'timestamp': return from.ntz ? (v) => ({ t: 'timestamp', v: v as number, ntz: true }) : (v) => ({ t: 'timestamp', v: v as number });
    case 'binary': return (v) => ({ t: 'binary', v: v as Uint8Array });
    case 'variant': return (v) => v as Variant;
    case 'array': {
      const element = orNull(toVariant(typeOfField(from.elementType!)));
      return (v) => ({ t: 'array', elements: (v as unknown[]).map(element) });
    }
    case 'map': {
      const value = orNull(toVariant(typeOfField(from.valueType!)));
      return (v) => objectOf(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, value(x)] as const));
    }
    case 'struct': {
      const fields = (from.fields ?? []).map((f) => ({ name: f.name, value: orNull(toVariant(typeOfField(f))) }));
      return (v) => objectOf(fields.map((f) => [f.name, f.value((v as Record<string, unknown>)[f.name])] as const));
    }
    // Refused by castsWithVariant before a value is converted.
    case 'null': case 'day_time_interval': case 'year_month_interval': case 'calendar_interval':
    default:
      throw new Error(`Internal: ${typeText(from)} does not cast to a VARIANT`);
  }
}

/** Fields sorted by key; a key given twice (a struct's duplicate field name) keeps its last value, as VariantBuilder does. */
function objectOf(fields: (readonly [string, Variant])[]): Variant {
  const byKey = new Map(fields);
  return { t: 'object', fields: [...byKey].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)) };
}
