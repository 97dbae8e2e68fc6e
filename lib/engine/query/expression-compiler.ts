/**
 * Compiles the safe Expr AST into closures over a row, type-checking against the input schema
 * on the way (analysis happens at validation, not per row). Each node's analysis (its type, its
 * checks, the implicit casts it applies) runs here; its evaluator is built apart, when physical
 * planning first reads it (compiled-expr.ts), so that typing a query builds none. Semantics follow Spark SQL with
 * ANSI mode off: three-valued logic (NULL AND false = false, NULL OR true = true), NULL in
 * arithmetic or comparison yields NULL, `/` is always double and x/0 is NULL, failed string
 * conversions yield NULL. Column names resolve case-insensitively, as in Spark.
 *
 * No user text reaches eval or new Function: the only code that runs is this file's closures.
 */
import { encodeKey } from '../state/state-value-codec';
import { boundScalarSubqueryResults } from './scalar-subquery-results';
import { compileCorrelatedSubquery, compileOuterReference } from './correlated-scalar-subquery';
import { sqlFunctionCatalog } from './function-catalog';
import { levenshtein } from './string-functions';
import type { Field, Schema } from '../types';
import { decimalOperand, elementOf, fieldOfType, holdsVariant, integralWidth, isMapKeyType, isOrderable, sameType, typeOfField, typeText, widensToFloat, type TypeInfo } from './data-types';
import { GENERATORS } from './generators';
import type { CompiledLambda, LambdaCompiler } from './higher-order-functions';
import { FUNCTION_REGISTRY } from './function-registry';
import { buildMap } from './map-functions';
import { mapKeyText, mapKeyValue } from './map-keys';
import { asFloat, floatFromLong, formatFloat } from './float';
import { castTypeText, exprToString, structFieldName, type Expr, type SqlType } from './expression';
import type { CallExpr, CallRewrite, CollectionFunctionDef, CompiledExpr, Evaluator, FunctionDef } from './function-types';
import { compiled, mapped, retyped, typeOfCompiled } from './compiled-expr';

export type { CompiledExpr, EvalContext, Evaluator } from './function-types';
import { cannotResolveRoutine, REFUSED_FUNCTIONS } from './misc-functions';
import { compileLike, type LikeMatcher } from './like-matcher';
import { RecordExpressionError } from '../errors';
import { compareValues, sqlEquals } from './ordering';
import { SqlValidationError } from './sql-error';
import { canCast, castIntegral, castValue, isInterval, isNumeric, unifyTypes, widerTypeForTwo, type ExprType } from './sql-values';
import { fitsInteger } from './cast-functions';
import { castsWithVariant, toVariant, variantCaster, type ScalarTryCast } from './variant-casts';
import type { Variant } from './variant';
import { parseTimestampLiteral, specialDatetimeCast } from './expression-builder';
import {
  arithmetic, formatDecimal, pow10, rescale, resultType, toPrecision, widerDecimalType,
  type DecimalOp, type DecimalType,
} from './decimal';
import { checkStringLength } from './value-limits';
import { datetimeArithmetic, negateInterval, nullSafeBinary, nullSafeUnary } from './datetime-arithmetic';
import { negate as negateCalendarInterval, type CalendarInterval } from './calendar-interval';
import { castIntervalFields, castOverflow, castStringToInterval, decimalOutOfRange, formatInterval, fullRange, intervalToNumber, intervalTypeText, numberToInterval, widestFields, type IntervalKind } from './interval-utils';
import { windowNotComputedHere } from './time-windowing';
import { WINDOW_ONLY } from './window-function-names';
import {
  bigOf, longAdd, longDivide, longMultiply, longNegate, longRemainder, longSubtract, narrowArithmetic, toLong, widerWidth, wrapToWidth,
  type IntegralBits, type Long,
} from './long';



/** Spark's class of a call with too few or too many arguments. */
const WRONG_NUM_ARGS = 'WRONG_NUM_ARGS.WITHOUT_SUGGESTION';


/**
 * Whether values of these types widen to a TIMESTAMP_NTZ: one beside others, DATEs and NULLs
 * (Spark's findWiderTypeForTwo; beside a TIMESTAMP the wider type is the TIMESTAMP).
 */
function widensToNTZ(ts: TypeInfo[]): boolean {
  return ts.some((t) => t.ntz) && ts.every((t) => t.ntz || t.type === 'date' || t.type === 'null');
}

/** A TIMESTAMP_NTZ `c` as a TIMESTAMP: the same milliseconds, Weir's session time zone being UTC. */
function asTimestamp(c: CompiledExpr): CompiledExpr {
  const { ntz: _ntz, ...type } = typeOfCompiled(c);
  return retyped(c, type);
}

/**
 * Spark's CAST(x AS TIMESTAMP_NTZ) (castToTimestampNTZ): text as the wall-clock time it writes (a
 * zone ignored), a DATE its midnight, a TIMESTAMP its wall-clock time in the session time zone
 * (UTC: the same milliseconds); nothing else casts to it.
 */
function castToTimestampNTZ(e: Expr, a: CompiledExpr, compiler: { mismatch(e: Expr, subclass: string, detail: string, todo: string): never }): CompiledExpr {
  if (a.ntz) return a;
  const ntz: TypeInfo = { type: 'timestamp', ntz: true };
  if (a.type === 'null' || a.type === 'timestamp') return retyped(a, ntz);
  if (a.type === 'date') return mapped(ntz, a, (v) => castValue(v, 'date', 'timestamp'));
  if (a.type === 'string') return mapped(ntz, a, (v) => (v === null ? null : parseTimestampLiteral(String(v), true)));
  return compiler.mismatch(e, 'CAST_WITHOUT_SUGGESTION', `cannot cast "${typeText(a)}" to "TIMESTAMP_NTZ".`, `Cannot cast ${typeText(a)} to TIMESTAMP_NTZ.`);
}

/** A value of `c`'s type as text, as CAST(… AS STRING) gives it (a FLOAT as Java's Float.toString). */
function textOf(c: TypeInfo): (v: unknown) => unknown {
  if (c.float32) return (v) => (v === null || v === undefined ? null : formatFloat(v as number));
  const from = c.type;
  const dec = c.decimal;
  return (v) => castValue(v, from, 'string', dec);
}

/** `c` converted to `to` (a decimal of type `dec`) at run time; `c` itself when it already is. */
function convert(c: CompiledExpr, to: ExprType, dec?: DecimalType): CompiledExpr {
  if (to === 'string' && c.float32) {
    const text = textOf(c);
    return compiled({ type: 'string' }, () => { const get = c.eval; return (r, x) => text(get(r, x)); });
  }
  if (c.type === to && (to !== 'decimal' || (c.decimal!.precision === dec!.precision && c.decimal!.scale === dec!.scale))) return c;
  if (c.type === 'null') return retyped(c, { ...typeOfCompiled(c), type: to, ...(dec ? { decimal: dec } : {}) });
  const from = c.type;
  const fromDec = c.decimal;
  if (from === 'decimal' && to === 'decimal') {
    // Widening to a common type never loses digits: rescale without the precision check.
    const fs = fromDec!.scale;
    const ts = dec!.scale;
    return compiled({ type: to, decimal: dec }, () => { const get = c.eval; return (r, x) => { const v = get(r, x); return v === null ? null : rescale(v as bigint, fs, ts); }; });
  }
  if (from === 'string' && to === 'timestamp') return stringToTimestamp(c);
  return compiled({ type: to, ...(dec ? { decimal: dec } : {}) }, () => { const get = c.eval; return (r, x) => castValue(get(r, x), from, to as never, fromDec, dec); });
}

/** A string cast to a TIMESTAMP: a time without a date is that time of the batch's date (see parseTimestampLiteral). */
function stringToTimestamp(c: CompiledExpr): CompiledExpr {
  return compiled({ type: 'timestamp' }, () => { const get = c.eval; return (r, x) => { const v = get(r, x); return v === null ? null : parseTimestampLiteral(String(v), false, false, x.batchTimestampMs); }; });
}

/**
 * Spark's findCommonTypeForBinaryComparison for a string `s` compared with `other` (PromoteStrings,
 * ANSI off): the type the string is cast to, the other side's own (its integer width, a FLOAT, a
 * BOOLEAN, a DATE or TIMESTAMP), a DOUBLE beside a DECIMAL (no decimal type fits every text);
 * undefined when `s` is no string or `other` is of no such type. `'1.5' = 1` is
 * `cast('1.5' as int) = 1`, true; text that does not parse is NULL.
 */
function comparisonStringType(s: TypeInfo, other: TypeInfo): TypeInfo | undefined {
  if (s.type !== 'string') return undefined;
  switch (other.type) {
    case 'decimal': return { type: 'double' };
    case 'long': return { type: 'long', ...(other.integral ? { integral: other.integral } : {}) };
    case 'double': return { type: 'double', ...(other.float32 ? { float32: true as const } : {}) };
    case 'timestamp': return { type: 'timestamp', ...(other.ntz ? { ntz: true as const } : {}) };
    case 'boolean': case 'date': return { type: other.type };
    // Beside a BINARY its bytes (non-ANSI: `'1' = X'31'` is true).
    case 'binary': return { type: 'binary' };
    // A string beside a string or NULL is no promotion.
    case 'string': case 'null': case 'day_time_interval': case 'year_month_interval': case 'calendar_interval': case 'array': case 'map': case 'struct': case 'variant':
    default: return undefined;
  }
}

/**
 * The type several values unify to (CASE branches, coalesce, IN lists, comparison sides), with
 * each compiled value converted to it; undefined when they do not unify. Decimals widen as
 * Spark's widerDecimalType; a decimal with a double is a double. With `stringPromotion`, a
 * string beside numbers, dates or timestamps makes them all STRINGs (widerTypeForTwo).
 */
/**
 * `complexStringPromotion` false: arrays, maps and structs widen by their parts without a STRING
 * beside a number, date or timestamp (findWiderTypeWithoutStringPromotion's findTypeForComplex).
 */
function unifyAll(cs: CompiledExpr[], es: Expr[], literalMinimum = false, stringPromotion = false, complexStringPromotion = true): { type: ExprType; decimal?: DecimalType; integral?: IntegralBits; float32?: true; ntz?: true; complex?: TypeInfo; values: CompiledExpr[] } | undefined {
  // Spark's findWiderCommonType folds the types with STRING ones (and arrays of them) first:
  // findWiderTypeForTwo is not associative with them (DATE, INT and STRING widen to STRING only
  // in that order). The values keep their places.
  const folded = stringPromotion || cs.some((c) => isComplex(c.type)) ? [...cs.filter(hasStringType), ...cs.filter((c) => !hasStringType(c))] : cs;
  if (cs.some((c) => isComplex(c.type))) {
    // Arrays, maps and structs: Spark's findWiderTypeForTwo, each value cast to the wider type.
    let complex: TypeInfo | undefined = { type: 'null' };
    for (const c of folded) complex = complex && widerType(complex, c, complexStringPromotion);
    if (!complex) return undefined;
    const to = complex;
    return { type: to.type, complex: to, values: cs.map((c) => readAs(c, to)) };
  }
  const wider = stringPromotion ? widerTypeForTwo : unifyTypes;
  let type: ExprType = 'null';
  for (const c of folded) {
    const t = wider(type, c.type);
    if (!t) return undefined;
    type = t;
  }
  // A string among numbers, dates or timestamps: each is read as its text (CAST(… AS STRING)).
  if (type === 'string') return { type, values: cs.map((c) => convert(c, 'string')) };
  if (type === 'double' && widensToFloat(cs)) return { type, float32: true, values: cs.map(asFloat) };
  // TIMESTAMP_NTZ beside a DATE (its midnight) stays one; beside a TIMESTAMP it is that TIMESTAMP
  // (Spark's findWiderTypeForTwo), the same milliseconds in Weir's UTC session time zone.
  if (type === 'timestamp' && widensToNTZ(cs)) return { type, ntz: true, values: cs.map((c) => (c.type === 'date' ? retyped(convert(c, 'timestamp'), { type: 'timestamp', ntz: true }) : c.type === 'null' ? retyped(c, { type: 'timestamp', ntz: true }) : c)) };
  if (type !== 'decimal') {
    // A decimal beside a double: converted to the double (values would not compare otherwise).
    // A date beside a timestamp: converted to its midnight.
    const widen = type === 'double' ? ['decimal', 'long'] : type === 'timestamp' ? ['date'] : [];
    // A TIMESTAMP_NTZ's value read as a TIMESTAMP: the flag goes, the milliseconds stay.
    const read = type === 'timestamp' ? cs.map((c) => (c.ntz ? asTimestamp(c) : c)) : cs;
    // Integers: the widest one's type (their values need no conversion).
    const longs = cs.filter((c) => c.type === 'long');
    const integral = type === 'long' ? longs.slice(1).reduce((w, c) => widerWidth(w, c.integral), longs[0].integral) : undefined;
    return { type, ...(integral ? { integral } : {}), values: read.map((c) => (widen.includes(c.type) ? convert(c, type) : c)) };
  }
  let dec: DecimalType | undefined;
  cs.forEach((c, i) => {
    const d = decimalOperand(c, es[i], literalMinimum);
    if (d) dec = dec ? widerDecimalType(dec, d) : d;
  });
  return { type, decimal: dec, values: cs.map((c) => convert(c, 'decimal', dec)) };
}

const isComplex = (t: ExprType) => t === 'array' || t === 'map' || t === 'struct';

/** Spark's TypeCoercion.hasStringType: a STRING, or an array of them (at any depth). */
function hasStringType(t: TypeInfo): boolean {
  if (t.type === 'string') return true;
  return t.type === 'array' && !!t.elementType && !t.elementType.void && hasStringType(typeOfField(t.elementType));
}

/**
 * Spark's findWiderTypeForTwo: simple types as unifyAll widens them (a string beside a number,
 * date or timestamp a STRING); arrays by their elements, maps by keys and values, structs of as
 * many fields with the same names (case aside) field by field; an ARRAY<VOID> (array()) beside
 * any array, NULL beside anything. Undefined when they do not widen.
 */
function widerType(a: TypeInfo, b: TypeInfo, stringPromotion = true): TypeInfo | undefined {
  if (a.type === 'null') return b;
  if (b.type === 'null') return a;
  const part = (x: Field, y: Field, name: string): Field | undefined => {
    const t = widerType(x.void ? { type: 'null' } : typeOfField(x), y.void ? { type: 'null' } : typeOfField(y), stringPromotion);
    return t && fieldOfType(name, t, x.nullable !== false || y.nullable !== false);
  };
  if (a.type === 'array' && b.type === 'array') {
    if (a.voidElements) return b;
    if (b.voidElements) return a;
    const element = part(a.elementType!, b.elementType!, 'element');
    return element && { type: 'array', elementType: element };
  }
  if (a.type === 'map' && b.type === 'map') {
    const key = part(a.keyType!, b.keyType!, 'key');
    const value = part(a.valueType!, b.valueType!, 'value');
    return key && value && { type: 'map', keyType: { ...key, nullable: false }, valueType: value };
  }
  if (a.type === 'struct' && b.type === 'struct') {
    const [fa, fb] = [a.fields ?? [], b.fields ?? []];
    if (fa.length !== fb.length || fa.some((f, i) => f.name.toLowerCase() !== fb[i].name.toLowerCase())) return undefined;
    const fields = fa.map((f, i) => part(f, fb[i], f.name));
    return fields.every((f) => f !== undefined) ? { type: 'struct', fields: fields as Field[] } : undefined;
  }
  if (isComplex(a.type) || isComplex(b.type)) return undefined;
  const nil: Evaluator = () => null;
  const u = unifyAll([{ ...a, eval: nil }, { ...b, eval: nil }], [{ kind: 'column', name: 'a' }, { kind: 'column', name: 'b' }], false, stringPromotion, stringPromotion);
  return u && unifiedType(u);
}

/**
 * Whether `a` and `b` are the same type but for the names of struct fields (Spark's
 * DataType.equalsStructurally, nullability aside).
 */
function sameStructure(a: TypeInfo, b: TypeInfo): boolean {
  if (!isComplex(a.type) || !isComplex(b.type)) return sameType(a, b);
  const part = (x: Field, y: Field) => sameStructure(x.void ? { type: 'null' } : typeOfField(x), y.void ? { type: 'null' } : typeOfField(y));
  if (a.type === 'array' && b.type === 'array') return part(a.elementType!, b.elementType!);
  if (a.type === 'map' && b.type === 'map') return part(a.keyType!, b.keyType!) && part(a.valueType!, b.valueType!);
  if (a.type === 'struct' && b.type === 'struct') {
    const [fa, fb] = [a.fields ?? [], b.fields ?? []];
    return fa.length === fb.length && fa.every((f, i) => part(f, fb[i]));
  }
  return false;
}

/** Decimal digits of each integer width (Spark's DecimalType.forType). */
const INTEGRAL_DIGITS: Record<number, number> = { 8: 3, 16: 5, 32: 10, 64: 20 };

/**
 * Spark's Cast.forceNullable for the casts a wider type asks for: whether casting a `from` value
 * to `to` can give NULL (a decimal too narrow, text read as a number); a cast to STRING, a number
 * to a DOUBLE or a date to a timestamp cannot.
 */
function castCanFail(from: TypeInfo, to: TypeInfo): boolean {
  if (sameType(from, to) || from.type === 'null' || to.type === 'string') return false;
  if (to.type === 'decimal') {
    const { precision, scale } = to.decimal!;
    if (from.type === 'long') return precision - scale < INTEGRAL_DIGITS[from.integral ?? 64];
    if (from.type === 'decimal') return precision - scale < from.decimal!.precision - from.decimal!.scale || scale < from.decimal!.scale;
    return true;
  }
  if (to.type === 'double') return !(from.type === 'long' || from.type === 'decimal' || from.type === 'double');
  if (to.type === 'long') return from.type !== 'long';
  if (to.type === 'timestamp') return from.type !== 'date';
  if (to.type === 'array' && from.type === 'array') return castCanFail(typeOfField(from.elementType!), typeOfField(to.elementType!));
  if (to.type === 'struct' && from.type === 'struct') return (to.fields ?? []).some((f, i) => castCanFail(typeOfField(from.fields![i]), typeOfField(f)));
  return true;
}

/**
 * Spark's Cast.canCast of a value of `from` to `to`, nested types included (an ARRAY, MAP or
 * STRUCT only to one of its kind whose parts cast): what a check before a cast asks (ResolvePivot
 * of a pivot value).
 */
export function canCastType(from: TypeInfo, to: TypeInfo): boolean {
  const nested = (t: TypeInfo) => t.type === 'array' || t.type === 'map' || t.type === 'struct';
  if (from.type === 'null') return true;
  if (!nested(from) && !nested(to)) return from.type === to.type || canCast(from.type, to.type as Parameters<typeof canCast>[1]);
  return from.type === to.type && typeof complexCast(from, fieldOfType('value', to)) !== 'string';
}

/** A compiled array, map or struct (or NULL) read as the wider type `to`: cast where it differs. */
function readAs(c: CompiledExpr, to: TypeInfo): CompiledExpr {
  if (c.type !== 'null' && sameType(c, to) && !c.voidElements) return c;
  const convert = complexCast(c, fieldOfType('value', to));
  if (typeof convert === 'string') throw new Error(`Internal: ${convert}`);
  return compiled(to, () => { const get = c.eval; return (r, ctx) => { const v = get(r, ctx); return v === null || v === undefined ? null : convert(v); }; });
}

/**
 * Spark's WidenSetOperationTypes for one column of a UNION: the type the branches' fields widen
 * to (a BIGINT and a DECIMAL to a DECIMAL wide enough for both, decimals to the wider decimal, a
 * number beside a DOUBLE to a DOUBLE, a DATE beside a TIMESTAMP to the timestamp, a string beside
 * a number, date or timestamp to a STRING; ARRAY<INT> beside ARRAY<BIGINT> to ARRAY<BIGINT>,
 * structs field by field), with, per branch, how to read its value as that type; undefined when
 * they do not widen.
 */
export function widenSetOperationColumn(fields: Field[]): { type: TypeInfo; read: Evaluator[] } | undefined {
  // Arrays, maps and structs widen by their parts (findWiderTypeForTwo, as unifyAll does).
  if (fields.some((f) => f.type === 'window' || f.type === 'unknown')) return undefined;
  const cs: CompiledExpr[] = fields.map((f) => {
    const key = f.name;
    // A branch's NULL column (VOID) takes the other branches' type, as Spark widens NullType.
    return { ...(f.void ? { type: 'null' as const } : typeOfField(f)), eval: (row) => row[key] ?? null };
  });
  const u = unifyAll(cs, fields.map((f) => ({ kind: 'column', name: f.name })), false, true);
  if (!u) return undefined;
  return { type: unifiedType(u), read: u.values.map((v) => v.eval) };
}

/**
 * Spark's findWiderTypeWithoutStringPromotion over several types (UNPIVOT's values): as a UNION
 * widens them, but a STRING beside a number, a date or a timestamp does not widen; undefined when
 * they do not widen.
 */
export function widerTypeWithoutStringPromotion(types: TypeInfo[]): TypeInfo | undefined {
  const nil: Evaluator = () => null;
  const u = unifyAll(types.map((t) => ({ ...t, eval: nil })), types.map((_, i) => ({ kind: 'column', name: `v${i}` })), false, false, false);
  return u && unifiedType(u);
}

/**
 * Spark's Cast of an ARRAY, MAP or STRUCT to a STRING (Spark 3's ToStringBase, legacy
 * castComplexTypesToString off): `[1, 2]`, `{a -> 1}`, `{1, x}`, each element as CAST writes
 * it, a NULL inside as `null`.
 */
function complexText(t: TypeInfo): (v: unknown) => string {
  const inner = (f: Field): ((v: unknown) => string) => {
    const ft = typeOfField(f);
    const text = isComplex(ft.type) ? complexText(ft) : (textOf(ft) as (v: unknown) => string);
    return (v) => (v === null || v === undefined ? 'null' : text(v));
  };
  if (t.type === 'array') {
    const el = inner(t.elementType!);
    return (v) => `[${(v as unknown[]).map(el).join(', ')}]`;
  }
  if (t.type === 'map') {
    // A simple key's text (map-keys.ts) is its CAST text; an array or struct key is read back and written as CAST writes it.
    const kt = typeOfField(t.keyType!);
    const keyText = isComplex(kt.type) ? complexText(kt) : undefined;
    const key = (k: string) => (keyText ? keyText(mapKeyValue(k, kt)) : k);
    const value = inner(t.valueType!);
    return (v) => `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${key(k)} -> ${value(x)}`).join(', ')}}`;
  }
  const fields = (t.fields ?? []).map((f) => ({ name: f.name, text: inner(f) }));
  return (v) => `{${fields.map((f) => f.text((v as Record<string, unknown>)[f.name])).join(', ')}}`;
}

/**
 * Spark's Cast between nested types: an ARRAY to an ARRAY, a MAP to a MAP (keys and values), a
 * STRUCT to a STRUCT with as many fields (by position, named as the target), each element cast as
 * its own type would be (NULL where that cast gives NULL, ANSI off). A converter of a non-NULL
 * value, or why the cast is not allowed.
 */
function complexCast(from: TypeInfo, to: Field): ((v: unknown) => unknown) | string {
  if (from.type === 'null') return () => null;
  // ARRAY<VOID> (array()): its NULL elements are NULLs of any type.
  if (from.voidElements && to.type === 'array') return (v) => (v as unknown[]).map(() => null);
  const nested = (x: TypeInfo | Field) => x.type === 'array' || x.type === 'map' || x.type === 'struct';
  const part = (f: TypeInfo, t: Field, fromVoid?: boolean): ((v: unknown) => unknown) | string => {
    if (fromVoid) return () => null;
    if (nested(t) || nested(f)) {
      if (f.type !== t.type) return `Cannot cast ${typeText(f)} to ${typeText(t)}.`;
      const c = complexCast(f, t);
      return typeof c === 'string' ? c : (v) => (v === null || v === undefined ? null : c(v));
    }
    const target = typeOfField(t);
    if (!canCast(f.type, target.type as SqlType)) return `Cannot cast ${typeText(f)} to ${typeText(t)}.`;
    // A FLOAT element: printed as Java's Float.toString, or rounded to one.
    if (f.float32 && target.type === 'string') return textOf(f);
    if (target.float32 && !f.float32) {
      const from = f.type;
      return (v) => { const d = castValue(v ?? null, from, 'double', f.decimal); return d === null ? null : from === 'long' ? floatFromLong(v as Long) : Math.fround(d as number); };
    }
    return (v) => castValue(v ?? null, f.type, target.type as SqlType, f.decimal, target.decimal);
  };
  switch (to.type) {
    case 'array': {
      if (from.type !== 'array') return `Only an ARRAY casts to ${typeText(to)}.`;
      const el = part(typeOfField(from.elementType!), to.elementType!);
      return typeof el === 'string' ? el : (v) => (v as unknown[]).map(el);
    }
    case 'map': {
      if (from.type !== 'map') return `Only a MAP casts to ${typeText(to)}.`;
      const fk = typeOfField(from.keyType!);
      const tk = to.keyType!;
      const key = part(fk, tk);
      const value = part(typeOfField(from.valueType!), to.valueType!);
      if (typeof key === 'string') return key;
      if (typeof value === 'string') return value;
      // A map's keys are kept as their text (map-keys.ts): read, cast, written back.
      const tkType = typeOfField(tk);
      return (v) => {
        const out: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
          const cast = key(mapKeyValue(k, fk));
          // Spark fails on a NULL map key; ANSI off, the whole map is NULL here.
          if (cast === null) return null;
          Object.defineProperty(out, mapKeyText(cast, tkType), { value: value(x), enumerable: true, writable: true, configurable: true });
        }
        return out;
      };
    }
    case 'struct': {
      if (from.type !== 'struct') return `Only a STRUCT casts to ${typeText(to)}.`;
      const fs = from.fields ?? [];
      const ts = to.fields ?? [];
      if (fs.length !== ts.length) return `A STRUCT of ${fs.length} fields does not cast to one of ${ts.length}.`;
      const parts = ts.map((t, i) => part(typeOfField(fs[i]), t, fs[i].void));
      const bad = parts.find((p): p is string => typeof p === 'string');
      if (bad) return bad;
      const convs = parts as ((v: unknown) => unknown)[];
      return (v) => {
        const o = v as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        ts.forEach((t, i) => { out[t.name] = convs[i](o[fs[i].name] ?? null); });
        return out;
      };
    }
    // The builder makes a nested CAST only for these three; listed so a new type is a lint error here.
    case 'binary': case 'boolean': case 'date': case 'day_time_interval': case 'decimal': case 'double': case 'long': case 'string':
    case 'timestamp': case 'unknown': case 'window': case 'year_month_interval': case 'calendar_interval': case 'variant':
    default:
      return `Not a nested type: ${typeText(to)}.`;
  }
}

/** What to do instead of comparing VARIANTs, which Spark neither orders nor compares. */
const UNORDERED_VARIANT = 'Compare a value read from it: variant_get(v, \'$.path\', \'type\'), or to_json(v).';

/** What to do instead of comparing CalendarIntervals, which Spark neither orders nor compares. */
const UNORDERED_INTERVAL = 'Compare CAST(… AS STRING), or an ANSI interval (make_ym_interval, make_dt_interval), which has an order.';

/**
 * Spark's TypeUtils.checkForOrderingExpr, of a comparison, IN and a sort key (`fn` is `=`, `in`,
 * `sortorder`): a type with no order (RowOrdering.isOrderable) is refused, a map (its entries have
 * no order, and two equal ones are two objects) or a CalendarInterval (a month has no fixed
 * length), at the top or inside an array or a struct. `text` is the refused expression's SQL.
 */
export function checkForOrderingExpr(e: Expr, t: TypeInfo, fn: string, text = exprToString(e)): void {
  if (isOrderable(t)) return;
  const hint = holdsVariant(t) ? UNORDERED_VARIANT : isMapKeyType(t) ? UNORDERED_INTERVAL : 'Compare the maps\' keys or values (map_keys, map_values, a key\'s value).';
  throw new SqlValidationError(`Cannot resolve "${text}" due to data type mismatch: The \`${fn}\` does not support ordering on type "${typeText(t)}". ${hint}`,
    e.pos, e.kind, 'DATATYPE_MISMATCH.INVALID_ORDERING_TYPE');
}

/** The types a function returns (its type() gives a message otherwise). */
const RESULT_TYPES: string[] = ['long', 'double', 'decimal', 'string', 'boolean', 'timestamp', 'date', 'binary', 'day_time_interval', 'year_month_interval', 'calendar_interval', 'variant', 'null'];

/** Finds a column by exact name, else by a unique case-insensitive match. */
export function resolveColumn(schema: Schema, name: string): Schema[number] | undefined {
  const exact = schema.find((f) => f.name === name);
  if (exact) return exact;
  const ci = schema.filter((f) => f.name.toLowerCase() === name.toLowerCase());
  return ci.length === 1 ? ci[0] : undefined;
}

/** `arg` read as `to`: the Cast node of an implicit coercion (Spark's TypeCoercion writes one so), typed. */
export function implicitCastExpr(arg: Expr, to: TypeInfo): Extract<Expr, { kind: 'cast' }> {
  return {
    kind: 'cast', arg, to: to.type as SqlType, implicit: true,
    ...(to.decimal ? { decimal: to.decimal } : {}), ...(to.integral ? { integral: to.integral } : {}), ...(to.float32 ? { float32: to.float32 } : {}), ...(to.ntz ? { ntz: to.ntz } : {}),
    // A nested type's cast carries the whole target type (array<bigint>, struct<x: double>).
    ...(isComplex(to.type) ? { target: fieldOfType('cast', to) } : {}),
    ...(arg.pos ? { pos: arg.pos } : {}),
    dataType: to,
  };
}

/**
 * The type an equi-join's key pair is compared, hashed and stored as: the comparison's coercion
 * (`left = right` compiled, Spark's findCommonTypeForBinaryComparison: a string cast to the other
 * side's type, decimals to the wider one, a DATE to a TIMESTAMP), and two integers as the wider
 * (Spark's analyzed plan casts an INT key beside a BIGINT one: `cast(c.id as bigint) = i.id`),
 * so that equal values are one key whichever side they come from. `names` are the keys as the
 * message of a pair that does not compare shows them (distinct). Throws the comparison's error
 * (DATATYPE_MISMATCH) for keys of types that do not compare.
 */
export function joinKeyType(left: TypeInfo, right: TypeInfo, names: readonly [string, string], pos?: Expr['pos']): TypeInfo {
  const [l, r] = names.map((name): Expr => ({ kind: 'column', name, ...(pos ? { pos } : {}) }));
  const eq: Expr = { kind: 'binary', op: '=', left: l, right: r, ...(pos ? { pos } : {}) };
  const types = new Map<Expr, TypeInfo>();
  const casts: ImplicitCasts = new Map();
  compileExpression(eq, [fieldOfType(names[0], left), fieldOfType(names[1], right)], types, casts);
  const read = (x: Expr) => casts.get(eq)?.get(x) ?? types.get(x)!;
  const lt = read(l), rt = read(r);
  if (lt.type !== 'long' || rt.type !== 'long') return lt;
  const integral = widerWidth(lt.integral, rt.integral);
  return { type: 'long', ...(integral ? { integral } : {}) };
}

const COMPARE: Record<string, (a: never, b: never) => boolean> = {
  '=': (a, b) => a === b,
  '<>': (a, b) => a !== b,
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
};

/**
 * Whether two non-NULL values of type `t` are equal, in Spark's order (NaN equals NaN; BINARY
 * values by their bytes; arrays and structs element by element).
 */
function equalityOf(t: ExprType): (a: unknown, b: unknown) => boolean {
  // A map has no order: equal when its entries are (its key encoding).
  return t === 'map' ? (a, b) => encodeKey([a]) === encodeKey([b]) : sqlEquals;
}

/**
 * The implicit casts a compilation applies (Spark's TypeCoercion), by the node that applies them:
 * for each operand it reads as another type, that type. The analysis (resolved-plan.ts) writes each
 * into the plan as a Cast node, as Spark's analyzed plan holds them; compiled again, the node's
 * operands are then of the type it reads them as, and nothing is converted twice.
 */
export type ImplicitCasts = Map<Expr, Map<Expr, TypeInfo>>;

/**
 * What an implicit cast may convert to: the types whose Cast compiles to exactly the type and
 * values the compiler's own conversion gives (`convert`, `asFloat`, a wider integer's width, and
 * readAs's nested cast of an array, map or struct).
 */
const IMPLICIT_CAST_TARGETS: ReadonlySet<ExprType> = new Set(['long', 'double', 'decimal', 'string', 'timestamp', 'date', 'boolean', 'binary', 'array', 'map', 'struct']);

/**
 * `e` compiled over `schema`. With `types`, the type of each subexpression compiled on the way is
 * recorded there too (the analysis's typing of a whole expression tree, resolved-plan.ts); with
 * `casts` as well, the implicit casts it applies.
 */
export function compileExpression(e: Expr, schema: Schema, types?: Map<Expr, TypeInfo>, casts?: ImplicitCasts): CompiledExpr {
  return new ExpressionCompiler(schema, types, casts).compile(e);
}

/** The type several values unify to (unifyAll), which each of them is read as. */
function unifiedType(u: NonNullable<ReturnType<typeof unifyAll>>): TypeInfo {
  if (u.complex) return u.complex;
  // Intervals of one kind widen to the fields that hold them all (Spark's wider interval type); a
  // NULL among them widens to theirs (findWiderTypeForTwo of NullType and an INTERVAL MONTH).
  const interval = isInterval(u.type) ? widestFields(u.type, u.values.filter((v) => v.type === u.type)) : undefined;
  return { type: u.type, ...(u.decimal ? { decimal: u.decimal } : {}), ...(u.integral ? { integral: u.integral } : {}), ...(u.float32 ? { float32: u.float32 } : {}), ...(u.ntz ? { ntz: u.ntz } : {}), ...(interval ? { interval } : {}) };
}

/**
 * `e`'s type over `schema`: the one the analysis gave it (`Expr.dataType`, resolved-plan.ts), so a
 * resolved expression is not compiled again for its type; found by compiling it when it carries
 * none (an expression the builder is still resolving).
 */
export function expressionType(e: Expr, schema: Schema): TypeInfo {
  return e.dataType ?? typeOfCompiled(compileExpression(e, schema));
}

export { typeOfCompiled } from './compiled-expr';

/** Spark's TRY cast of one value of `from` to `to` (what a variant's scalar casts by: variant-casts.ts). */
const scalarTryCast: ScalarTryCast = (from, to) => {
  const target = { to: to.type as SqlType, ...(to.decimal ? { decimal: to.decimal } : {}), ...(to.integral ? { integral: to.integral } : {}), ...(to.float32 ? { float32: true as const } : {}), ...(to.ntz ? { ntz: true as const } : {}) };
  const c = compileExpression({ kind: 'cast', arg: { kind: 'column', name: 'v' }, ...target, try: true }, [fieldOfType('v', from)]);
  return (v, ctx) => c.eval({ v }, ctx);
};

/**
 * Spark's TRY_CAST of `a` as `e` (compiled as the CAST `cast`): NULL where a number or text does not
 * fit the integer type it casts to (fitsInteger); anything else as the CAST gives it.
 */
function tryCast(e: Extract<Expr, { kind: 'cast' }>, a: CompiledExpr, cast: CompiledExpr): CompiledExpr {
  const bits = e.integral ?? (e.to === 'long' ? 64 : undefined);
  // An interval's casts to numbers give NULL on overflow themselves (cast, e.try).
  if (bits === undefined || isInterval(a.type)) return cast;
  const fits = fitsInteger(a, bits);
  const [from, dec] = [a.type, a.decimal];
  // The value is read once and cast here, as the CAST casts it (castIntegral, castValue).
  return mapped(typeOfCompiled(cast), a, (v) => {
    if (v === null || v === undefined || !fits(v)) return null;
    return bits === 64 ? castValue(v, from, 'long', dec) : castIntegral(v, from, bits, dec);
  });
}

/** A lambda of body `c` over `vars`: its type, and its body's evaluator, built when first read. */
function lambdaOf(c: CompiledExpr, vars: CompiledLambda['vars']): CompiledLambda {
  const out = { ...typeOfCompiled(c), vars } as CompiledLambda;
  Object.defineProperty(out, 'body', { enumerable: true, get: () => c.eval });
  return out;
}

/** A lambda's variable while its body compiles: its type, and where its function puts its value. */
interface LambdaVariableSlot {
  name: string;
  type: TypeInfo;
  slot: { value: unknown };
}

class ExpressionCompiler implements LambdaCompiler {
  /** The variables of the lambdas whose bodies are being compiled, innermost first. */
  private lambdaVariables: LambdaVariableSlot[] = [];

  constructor(
    private readonly schema: Schema,
    private readonly types?: Map<Expr, TypeInfo>,
    private readonly casts?: ImplicitCasts,
  ) {}

  /**
   * Records that `parent` reads its operand `operand` as `to`, an implicit cast, when the operand
   * is of another type (its type as compiled, which `types` holds).
   */
  private implicitCast(parent: Expr, operand: Expr, to: TypeInfo): void {
    const from = this.types?.get(operand);
    // A decimal kept as its text (a number format's argument) is no cast: it has no precision.
    if (!this.casts || !from || !IMPLICIT_CAST_TARGETS.has(to.type) || (to.type === 'decimal' && !to.decimal) || sameType(from, to)) return;
    // A NULL beside arrays, maps or structs is read as NULL of any of them: no cast to write.
    if (from.type === 'null' && isComplex(to.type)) return;
    let operands = this.casts.get(parent);
    if (!operands) this.casts.set(parent, (operands = new Map()));
    operands.set(operand, to);
  }

  /**
   * date_add/date_sub's number of days, as Spark's DateAdd/DateSub take it: an INT, SMALLINT or
   * TINYINT (a BIGINT literal or cast, a DECIMAL or a DOUBLE refused, not truncated), or a string
   * literal that is an integer ('1'; '1.2' is SECOND_FUNCTION_ARGUMENT_NOT_INTEGER).
   */
  private checkDayCount(e: Extract<Expr, { kind: 'call' }>): void {
    const n = e.args[1];
    const refuse = (type: string): never => {
      throw new SqlValidationError(
        `Cannot resolve "${e.name}(…)" due to data type mismatch: The second parameter requires the ("INT" or "SMALLINT" or "TINYINT") type, however it has the type "${type}"; write a whole number of days, or CAST it AS INT`,
        n.pos ?? e.pos, `${e.name}()`, 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE',
      );
    };
    if (writtenAsBigint(n)) refuse('BIGINT');
    if (n.kind === 'literal' && n.type === 'string' && !/^\s*[+-]?\d+\s*$/.test(String(n.value))) {
      throw new SqlValidationError(`The second argument of ${e.name} function needs to be an integer: '${String(n.value)}' is not`, n.pos ?? e.pos, `${e.name}()`, 'SECOND_FUNCTION_ARGUMENT_NOT_INTEGER');
    }
    const t = this.compile(n);
    if (t.type === 'double' || t.type === 'decimal') refuse(typeText(t));
  }

  fail(e: Expr, msg: string, errorClass?: string): never {
    throw new SqlValidationError(`${msg} in ${exprToString(e)}`, e.pos, e.kind, errorClass);
  }

  /**
   * Spark's DATATYPE_MISMATCH.<subclass>: its text (`Cannot resolve "(a = 1)" due to data type
   * mismatch: …`), then Weir's sentence on what to do.
   */
  mismatch(e: Expr, subclass: string, detail: string, todo: string): never {
    throw new SqlValidationError(`Cannot resolve "${exprToString(e)}" due to data type mismatch: ${detail} ${todo}`, e.pos, e.kind, `DATATYPE_MISMATCH.${subclass}`);
  }

  compile(e: Expr): CompiledExpr {
    let c = this.compileNode(e);
    if (c.voidElements && !(e.kind === 'call' && e.name === 'array')) {
      // Only array() itself is an ARRAY<VOID>: what a function makes of it is an ARRAY<STRING>.
      const { voidElements: _void, ...rest } = typeOfCompiled(c);
      c = retyped(c, rest);
    }
    if (this.types) {
      this.types.set(e, typeOfCompiled(c));
    }
    return c;
  }

  private compileNode(e: Expr): CompiledExpr {
    switch (e.kind) {
      case 'literal': {
        const v = e.value;
        return compiled({ type: e.type, ...(e.decimal ? { decimal: e.decimal } : {}), ...(e.interval ? { interval: e.interval } : {}), ...(e.integral ? { integral: e.integral } : {}), ...(e.float32 ? { float32: true as const } : {}), ...(e.ntz ? { ntz: true as const } : {}) }, () => () => v);
      }
      case 'column': {
        const f = resolveColumn(this.schema, e.name);
        if (!f && this.schema.length === 0) {
          // Nothing to read a column from (an inline table's values): Spark's WITHOUT_SUGGESTION.
          throw new SqlValidationError(
            `A column, variable, or function parameter with name \`${e.name.replace(/`/g, '``')}\` cannot be resolved. Only constants can be written here: no column is in scope`,
            e.pos,
            'column reference',
            'UNRESOLVED_COLUMN.WITHOUT_SUGGESTION',
          );
        }
        if (!f) {
          throw new SqlValidationError(
            `${unresolvedColumn(e.name, this.schema.map((x) => x.name))} Column "${e.name}" does not exist; available columns: ${this.schema.map((x) => x.name).join(', ')}`,
            e.pos,
            'column reference',
            'UNRESOLVED_COLUMN.WITH_SUGGESTION',
          );
        }
        const key = f.name;
        // A column of NULLs (VOID) reads as Spark's NullType, as the NULL literal it was.
        return compiled(f.void ? { type: 'null' } : typeOfField(f), () => (row) => row[key] ?? null);
      }
      case 'field': {
        const a = this.compile(e.arg);
        // A map's `.key` is its value for the key written as text (Spark's ExtractValue makes it
        // GetMapValue with a string key, cast to the map's key type as m['key'] is).
        if (a.type === 'map') return this.compile({ kind: 'call', name: 'get', args: [e.arg, { kind: 'literal', value: e.field, type: 'string', pos: e.pos }], subscript: true, pos: e.pos });
        if (a.type !== 'struct') this.fail(e, `${exprToString(e.arg)} is a ${a.type}, not a struct (or a table alias), so it has no field ${e.field}`, 'INVALID_EXTRACT_BASE_FIELD_TYPE');
        const f = resolveColumn(a.fields ?? [], e.field);
        if (!f) this.fail(e, `No such struct field ${e.field} in ${exprToString(e.arg)}; its fields are ${(a.fields ?? []).map((x) => x.name).join(', ')}`, 'FIELD_NOT_FOUND');
        const key = f.name;
        return compiled(typeOfField(f), () => {
          const get = a.eval;
          return (r, c) => {
            const v = get(r, c) as Record<string, unknown> | null;
            return v === null || v === undefined ? null : (v[key] ?? null);
          };
        });
      }
      case 'unary': {
        let a = this.compile(e.arg);
        // Spark's PromoteStrings: -'1' is -cast('1' as double).
        if (e.op !== 'NOT' && a.type === 'string') a = this.castOperand(e, e.arg, a, { type: 'double' });
        if (e.op === 'NOT') {
          this.expectBoolean(e, a.type);
          return nullSafeUnary({ type: 'boolean' }, a, (v) => !v);
        }
        if (a.type === 'day_time_interval' || a.type === 'year_month_interval') return nullSafeUnary({ type: a.type, interval: a.interval }, a, negateInterval(a.type));
        if (a.type === 'calendar_interval') return nullSafeUnary({ type: a.type }, a, (v) => negateCalendarInterval(v as CalendarInterval));
        if (!isNumeric(a.type) && a.type !== 'decimal') this.fail(e, `Unary minus needs a number or an interval, got ${a.type}`, 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
        // Unary minus is the same for a number and a decimal's bigint.
        if (a.integral) {
          // -(-128Y) is -128Y: the negation wraps at the width, as the JVM's.
          const bits = a.integral;
          return nullSafeUnary({ type: 'long', integral: bits }, a, (v) => wrapToWidth(bits, -(v as number)));
        }
        if (a.type === 'long' || a.type === 'null') return nullSafeUnary({ type: 'long' }, a, (v) => longNegate(v as Long));
        return nullSafeUnary({ type: a.type, ...(a.decimal ? { decimal: a.decimal } : {}), ...(a.float32 ? { float32: true as const } : {}) }, a, (v) => -(v as number));
      }
      case 'binary':
        return this.binary(e);
      case 'isNull': {
        const a = this.compile(e.arg);
        const neg = e.negated;
        return compiled({ type: 'boolean' }, () => { const get = a.eval; return (r, c) => (get(r, c) === null) !== neg; });
      }
      case 'in': {
        const a0 = this.compile(e.arg);
        const list0 = e.list.map((x) => this.compile(x));
        // Spark's InConversion: the values widen to one type (findWiderCommonType: a string beside
        // numbers, a DATE or a TIMESTAMP makes STRINGs, so `d IN ('2024-1-1')` compares d's
        // yyyy-MM-dd text and is false, as is a string that is no date; arrays, maps and structs
        // by their parts). Unlike `d = '…'`, which reads the string as a DATE.
        const u = unifyAll([a0, ...list0], [e.arg, ...e.list], false, true);
        let a: CompiledExpr;
        let list: CompiledExpr[];
        if (u) {
          [a, ...list] = u.values;
          const read = unifiedType(u);
          [e.arg, ...e.list].forEach((x) => this.implicitCast(e, x, read));
        } else if (list0.every((l) => sameStructure(l, a0))) {
          // Types that do not widen but are the same but for struct field names: In's type check
          // (DataType.equalsStructurally) takes them, and compares structs field by field in order.
          [a, list] = [a0, list0.map((l) => readAs(l, a0))];
        } else {
          const types = [a0, ...list0].map((c) => `"${typeText(c)}"`).join(', ');
          this.mismatch(e, 'DATA_DIFF_TYPES', `Input to \`in\` should all be the same type, but it's [${types}].`, 'The list has values of a type the value does not widen with: CAST them to one type.');
        }
        // In's type check: maps have no order, as in a comparison.
        checkForOrderingExpr(e, a, 'in');
        const neg = e.negated;
        const equal = equalityOf(a.type);
        return compiled({ type: 'boolean' }, () => {
          const [get, values] = [a.eval, list.map((l) => l.eval)];
          return (r, c) => {
            const v = get(r, c);
            if (v === null) return null;
            let sawNull = false;
            for (const l of values) {
              const x = l(r, c);
              if (x === null) sawNull = true;
              else if (equal(x, v)) return !neg;
            }
            return sawNull ? null : neg;
          };
        });
      }
      case 'between': {
        // Spark's Between is `arg >= low AND arg <= high`, each comparison coerced on its own.
        const geNode: Expr = { kind: 'binary', op: '>=', left: e.arg, right: e.low, pos: e.pos };
        const leNode: Expr = { kind: 'binary', op: '<=', left: e.arg, right: e.high, pos: e.pos };
        const ge = this.binary(geNode);
        const le = this.binary(leNode);
        this.betweenCasts(e, geNode, leNode);
        const neg = e.negated;
        return compiled({ type: 'boolean' }, () => {
          const [g, l] = [ge.eval, le.eval];
          return (r, c) => {
            const v = and(g(r, c), () => l(r, c));
            return v === null ? null : v !== neg;
          };
        });
      }
      case 'like':
        return this.like(e);
      case 'case':
        return this.caseWhen(e);
      case 'cast': {
        const special = specialDatetimeCast(e);
        if (special) return this.compile(special);
        const a = this.compile(e.arg);
        return e.try ? tryCast(e, a, this.cast(e, a)) : this.cast(e, a);
      }
      case 'call':
        return this.call(e);
      case 'lambdaVariable': {
        const v = this.lambdaVariables.find((x) => x.name === e.name);
        if (!v) this.fail(e, `The lambda variable ${e.name} is not bound by a higher-order function here`);
        const slot = v.slot;
        return compiled(v.type, () => () => slot.value);
      }
      case 'scalarSubquery': {
        const s = e.subquery;
        if (e.outer?.length) return compileCorrelatedSubquery(s, e.outer.map((o) => this.compile(o)));
        const results = boundScalarSubqueryResults();
        return {
          ...s.type,
          eval: () => {
            if (!results) throw new Error(`Internal: scalar-subquery#${s.id} compiled outside a query's physical planning`);
            return results.get(s);
          },
        };
      }
      case 'outerReference':
        return compileOuterReference(e);
      case 'lambda':
        throw new SqlValidationError(
          'Invalid lambda function call. A lambda function should only be used in a higher order function ' +
            `(such as transform, filter, exists, aggregate), not here: ${exprToString(e)}`,
          e.pos,
          'lambda function',
          'INVALID_LAMBDA_FUNCTION_CALL.NON_HIGHER_ORDER_FUNCTION',
        );
    }
  }

  /** Spark's Cast of `e.arg`, compiled as `a`, to the type `e` names (ANSI off: NULL where text does not parse). */
  private cast(e: Extract<Expr, { kind: 'cast' }>, a: CompiledExpr): CompiledExpr {
    if (a.type === 'variant' || e.to === 'variant') return this.variantCast(e, a);
    if (e.target) {
      const convert = complexCast(a, e.target);
      if (typeof convert === 'string') this.mismatch(e, 'CAST_WITHOUT_SUGGESTION', `cannot cast "${typeText(a)}" to "${castTypeText(e)}".`, convert);
      return mapped(typeOfField(e.target), a, (v) => (v === null ? null : convert(v)));
    }
    if (e.to === 'array' || e.to === 'map' || e.to === 'struct') this.fail(e, 'Internal: a CAST to a nested type without its type');
    if (e.to === 'string' && isComplex(a.type)) {
      const text = complexText(a);
      return mapped({ type: 'string' }, a, (v) => (v === null ? null : text(v)));
    }
    if (isInterval(e.to) && (a.type === 'string' || a.type === 'null')) {
      const [kind, fields] = [e.to, e.interval ?? fullRange(e.to)];
      return mapped({ type: kind, interval: fields }, a, (v) => (v === null || v === undefined ? null : castStringToInterval(String(v), kind, fields)));
    }
    // Between interval types of one family (the two families never cast to each other: canCast).
    if (isInterval(e.to) && a.type === e.to) {
      const fields = e.interval ?? fullRange(e.to);
      const cut = castIntervalFields(e.to, fields.end);
      return mapped({ type: e.to, interval: fields }, a, (v) => (v === null || v === undefined ? null : cut(v as Long)));
    }
    if (isInterval(e.to) && (a.type === 'long' || a.type === 'decimal')) return this.numberToInterval(e, a);
    if (isInterval(a.type) && (e.to === 'long' || e.to === 'decimal')) return this.intervalToNumber(e, a);
    // Spark's Cast of an integer to a BINARY (ANSI off): its two's-complement bytes, big-endian,
    // as many as its type's width (`CAST(123S AS BINARY)` is 007B).
    if (e.to === 'binary' && a.type === 'long') {
      const width = (a.integral ?? 64) / 8;
      return mapped({ type: 'binary' }, a, (v) => {
        if (v === null || v === undefined) return null;
        let bits = BigInt.asUintN(width * 8, BigInt(v as number | bigint));
        const out = new Uint8Array(width);
        for (let i = width - 1; i >= 0; i--, bits >>= 8n) out[i] = Number(bits & 0xffn);
        return out;
      });
    }
    if (!canCast(a.type, e.to)) this.mismatch(e, 'CAST_WITHOUT_SUGGESTION', `cannot cast "${typeText(a)}" to "${castTypeText(e)}".`, `Cannot cast ${a.type} to ${e.to}.`);
    // An implicit cast between decimals is the widening the compiler applies (unifyAll's
    // convert): rescaled without the precision check an explicit CAST makes, so that a type
    // bounded at 38 digits gives the value it gave before the analysis wrote the cast.
    if (e.implicit && a.type === 'decimal' && e.to === 'decimal') return convert(a, 'decimal', e.decimal);
    const from = a.type;
    const to = e.to;
    const fromDec = a.decimal;
    const toDec = e.decimal;
    if (e.integral) {
      const bits = e.integral;
      if (from === 'long' && a.integral !== undefined && a.integral <= bits) return retyped(a, { ...typeOfCompiled(a), integral: bits });
      return mapped({ type: 'long', integral: bits }, a, (v) => castIntegral(v, from, bits, fromDec));
    }
    if (e.float32) {
      if (a.float32) return a;
      if (from === 'long') return asFloat(a);
      // Through the double (exact for every type but text, which Java parses to the float directly).
      return mapped({ type: 'double', float32: true }, a, (x) => { const v = castValue(x, from, 'double', fromDec); return v === null ? null : Math.fround(v as number); });
    }
    if (e.ntz) return castToTimestampNTZ(e, a, this);
    // A TIMESTAMP_NTZ to a TIMESTAMP: the same milliseconds (the session time zone is UTC).
    if (a.ntz) {
      if (to === 'timestamp') return asTimestamp(a);
      if (to !== 'string' && to !== 'date') this.mismatch(e, 'CAST_WITHOUT_SUGGESTION', `cannot cast "${typeText(a)}" to "${castTypeText(e)}".`, `Cannot cast TIMESTAMP_NTZ to ${castTypeText(e)}.`);
    }
    // A narrower integer is already a BIGINT's value, a FLOAT a DOUBLE's: only the type changes.
    if (to === 'long' && a.integral) return retyped(a, { type: 'long' });
    if (to === 'double' && a.float32) return retyped(a, { type: 'double' });
    if (to === 'string' && a.float32) return convert(a, 'string');
    if (from === to && (to !== 'decimal' || (fromDec!.precision === toDec!.precision && fromDec!.scale === toDec!.scale))) return a;
    if ((from === 'day_time_interval' || from === 'year_month_interval') && to === 'string') {
      const fields = a.interval ?? fullRange(from);
      return mapped({ type: 'string' }, a, (v) => (v === null ? null : formatInterval(from, v, fields)));
    }
    if (from === 'string' && to === 'timestamp') return stringToTimestamp(a);
    return mapped({ type: to, ...(toDec ? { decimal: toDec } : {}) }, a, (v) => castValue(v, from, to, fromDec, toDec));
  }

  /**
   * A CAST to or from a VARIANT (variant-casts.ts): from one, NULL where the value does not cast
   * (ANSI off), INVALID_VARIANT_CAST for variant_get's cast (`failOnError`); to one, from the
   * atomic types and arrays of them Spark allows.
   */
  private variantCast(e: Extract<Expr, { kind: 'cast' }>, a: CompiledExpr): CompiledExpr {
    const to: TypeInfo = e.target
      ? typeOfField(e.target)
      : { type: e.to, ...(e.decimal ? { decimal: e.decimal } : {}), ...(e.integral ? { integral: e.integral } : {}), ...(e.float32 ? { float32: true } : {}), ...(e.ntz ? { ntz: true } : {}), ...(e.interval ? { interval: e.interval } : {}) };
    const refuse = (): never => this.mismatch(e, 'CAST_WITHOUT_SUGGESTION', `cannot cast "${typeText(a)}" to "${typeText(to)}".`, `Cannot cast ${typeText(a)} to ${typeText(to)}.`);
    if (a.type === 'null') return compiled(to, () => () => null);
    if (a.type !== 'variant') {
      // CAST(x AS VARIANT): atomic types and arrays of them; a struct or map through to_variant_object.
      if (!castsWithVariant(a, false)) refuse();
      const convert = toVariant(a);
      return mapped({ type: 'variant' }, a, (v) => (v === null || v === undefined ? null : convert(v)));
    }
    if (!castsWithVariant(to)) refuse();
    const convert = variantCaster(to, e.failOnError === true, scalarTryCast);
    return mapped(to, a, (v, c) => (v === null || v === undefined ? null : convert(v as Variant, c)));
  }

  /**
   * Spark 3.3+'s Cast of an integer or a decimal to an ANSI interval: that many of the
   * interval's end units (interval-utils.ts), CAST_OVERFLOW past its range whatever the ANSI
   * mode (TRY_CAST: NULL).
   */
  private numberToInterval(e: Extract<Expr, { kind: 'cast' }>, a: CompiledExpr): CompiledExpr {
    const kind = e.to as IntervalKind;
    const fields = e.interval ?? fullRange(kind);
    const scale = a.type === 'decimal' ? a.decimal!.scale : 0;
    const suffix = a.type === 'long' ? ({ 8: 'Y', 16: 'S', 32: '' } as const)[a.integral ?? 32] ?? 'L' : '';
    return mapped({ type: kind, interval: fields }, a, (v) => {
        if (v === null || v === undefined) return null;
        const unscaled = scale > 0 || a.type === 'decimal' ? (v as bigint) : bigOf(v as Long);
        const out = numberToInterval(kind, fields, unscaled, scale);
        if (out !== undefined) return out;
        if (e.try) return null;
        const text = a.type === 'decimal' ? formatDecimal(unscaled, scale) : `${unscaled}${a.integral === undefined ? 'L' : suffix}`;
        return castOverflow(text, typeText(a), intervalTypeText(kind, fields));
    });
  }

  /**
   * Spark 3.3+'s Cast of an ANSI interval to an integer or a decimal: the count of its end
   * units, truncated (a decimal keeps an interval's microseconds when it ends in SECOND);
   * CAST_OVERFLOW past an integer type's range, NUMERIC_VALUE_OUT_OF_RANGE past the decimal's
   * precision, whatever the ANSI mode (TRY_CAST: NULL).
   */
  private intervalToNumber(e: Extract<Expr, { kind: 'cast' }>, a: CompiledExpr): CompiledExpr {
    const kind = a.type as IntervalKind;
    const fields = a.interval ?? fullRange(kind);
    const target = castTypeText(e);
    const fail = (v: unknown): null => {
      if (e.try) return null;
      return castOverflow(formatInterval(kind, v, fields), intervalTypeText(kind, fields), target);
    };
    if (e.to === 'decimal') {
      const t = e.decimal!;
      return mapped({ type: 'decimal', decimal: t }, a, (v) => {
        if (v === null || v === undefined) return null;
        const n = intervalToNumber(kind, fields, v as Long, true);
        const out = toPrecision(n.unscaled, n.scale, t);
        return out !== null || e.try ? out : decimalOutOfRange(formatDecimal(n.unscaled, n.scale), t.precision, t.scale);
      });
    }
    const bits = e.integral ?? 64;
    const [lo, hi] = [-(2n ** BigInt(bits - 1)), 2n ** BigInt(bits - 1) - 1n];
    return mapped({ type: 'long', ...(e.integral ? { integral: e.integral } : {}) }, a, (v) => {
      if (v === null || v === undefined) return null;
      const n = intervalToNumber(kind, fields, v as Long, false).unscaled;
      return n < lo || n > hi ? fail(v) : toLong(n);
    });
  }

  /**
   * `x`, compiled as `c`, read as `to`: an implicit cast, recorded for the plan (implicitCast) and
   * compiled as the Cast node the analysis writes for it, so the two give the same values.
   */
  private castOperand(parent: Expr, x: Expr, c: CompiledExpr, to: TypeInfo): CompiledExpr {
    this.implicitCast(parent, x, to);
    const { dataType: _type, ...node } = implicitCastExpr(x, to);
    return this.cast(node, c);
  }

  /**
   * The casts BETWEEN's two comparisons applied, written on the BETWEEN: low's and high's, and
   * arg's where both read it as one type. Where they read it as two (`i BETWEEN id AND x`: a
   * BIGINT, then a DOUBLE), arg has no cast written: each comparison still converts it.
   */
  private betweenCasts(e: Extract<Expr, { kind: 'between' }>, ge: Expr, le: Expr): void {
    if (!this.casts) return;
    const [g, l] = [this.casts.get(ge), this.casts.get(le)];
    this.casts.delete(ge);
    this.casts.delete(le);
    const argType = this.types?.get(e.arg);
    const [ga, la] = [g?.get(e.arg) ?? argType, l?.get(e.arg) ?? argType];
    if (ga && la && sameType(ga, la)) this.implicitCast(e, e.arg, ga);
    const low = g?.get(e.low);
    if (low) this.implicitCast(e, e.low, low);
    const high = l?.get(e.high);
    if (high) this.implicitCast(e, e.high, high);
  }

  withWiderKeys(left: CompiledExpr, right: CompiledExpr): [CompiledExpr, CompiledExpr] | undefined {
    const [lk, rk] = [typeOfField(left.keyType!), typeOfField(right.keyType!)];
    const key = widerType(lk, rk);
    if (!key || castCanFail(lk, key) || castCanFail(rk, key)) return undefined;
    const readKeysAs = (m: CompiledExpr) => readAs(m, { type: 'map', keyType: fieldOfType('key', key, false), valueType: m.valueType });
    return [readKeysAs(left), readKeysAs(right)];
  }

  /** Spark's LambdaBinder: `e` as a function of variables of these types (higher-order-functions.ts). */
  lambda(e: Expr, params: TypeInfo[]): CompiledLambda {
    const vars = params.map(() => ({ value: null as unknown }));
    // Not a lambda: a function that ignores its variables, as Spark's hidden lambda.
    if (e.kind !== 'lambda') {
      return lambdaOf(this.compile(e), vars);
    }
    if (e.params.length !== params.length) {
      throw new SqlValidationError(
        `Invalid lambda function call. A higher order function expects ${e.params.length} arguments, but got ${params.length}. ` +
          `Write the lambda with ${params.length} parameter${params.length === 1 ? '' : 's'}: ${exprToString(e)}`,
        e.pos,
        'lambda function',
        'INVALID_LAMBDA_FUNCTION_CALL.NUM_ARGS_MISMATCH',
      );
    }
    const lower = e.params.map((p) => p.toLowerCase());
    if (new Set(lower).size < lower.length) {
      throw new SqlValidationError(
        `Invalid lambda function call. The lambda function has duplicate arguments ${lower.map((p) => `\`${p}\``).join(', ')}. Please, consider to rename the argument names or set "spark.sql.caseSensitive" to "true". (Weir compares names case-insensitively: rename one.)`,
        e.pos,
        'lambda function',
        'INVALID_LAMBDA_FUNCTION_CALL.DUPLICATE_ARG_NAMES',
      );
    }
    const outer = this.lambdaVariables;
    this.lambdaVariables = [...e.params.map((name, i) => ({ name, type: params[i], slot: vars[i] })), ...outer];
    try {
      return lambdaOf(this.compile(e.body), vars);
    } finally {
      this.lambdaVariables = outer;
    }
  }

  private expectBoolean(e: Expr, t: ExprType): void {
    if (t !== 'boolean' && t !== 'null') this.fail(e, `Expected a boolean, got ${t}`);
  }

  /**
   * Compiles `x`; a string literal compared with a timestamp or a date is read as one, NULL where
   * its text is none (Spark's cast with ANSI off: `DATE '2024-01-01' = 'soon'` is NULL).
   */
  private coerceTo(x: Expr, target: ExprType): CompiledExpr {
    const c = this.compile(x);
    if ((target === 'timestamp' || target === 'date') && c.type === 'string' && x.kind === 'literal') {
      const v = castValue(x.value, 'string', target);
      return compiled({ type: target }, () => () => v);
    }
    return c;
  }

  private binary(e: Extract<Expr, { kind: 'binary' }>): CompiledExpr {
    if (e.op === 'AND' || e.op === 'OR') {
      const l = this.compile(e.left);
      const r = this.compile(e.right);
      this.expectBoolean(e.left, l.type);
      this.expectBoolean(e.right, r.type);
      // Inlined three-valued logic (no per-row closure): this is the hot path of every filter.
      const isAnd = e.op === 'AND';
      return compiled({ type: 'boolean' }, () => {
        const le = l.eval;
        const re = r.eval;
        return isAnd
          ? (row, c) => {
              const a = le(row, c);
              if (a === false) return false;
              const b = re(row, c);
              if (b === false) return false;
              return a === null || b === null ? null : true;
            }
          : (row, c) => {
              const a = le(row, c);
              if (a === true) return true;
              const b = re(row, c);
              if (b === true) return true;
              return a === null || b === null ? null : false;
            };
      });
    }
    if (e.op === '||') {
      // Spark's Concat of strings: a number, BOOLEAN, DATE, TIMESTAMP, BINARY or NULL is cast to a
      // STRING (ImplicitTypeCasts: `cast(i as string) || s`); others are read as their text here.
      const text = (c: CompiledExpr, x: Expr) => (TEXT_CASTS.has(c.type) ? this.castOperand(e, x, c, { type: 'string' }) : c);
      const [left, right] = [this.compile(e.left), this.compile(e.right)];
      // Of arrays, Spark's Concat is their elements: `array(1) || array(2)` is [1, 2]; of two
      // BINARYs, their bytes, a BINARY (ConcatCoercion casts to STRING only when not all are BINARYs).
      if (left.type === 'array' || right.type === 'array' || (left.type === 'binary' && right.type === 'binary')) return this.compile({ kind: 'call', name: 'concat', args: [e.left, e.right], pos: e.pos });
      const l = text(left, e.left);
      const r = text(right, e.right);
      for (const [c, x] of [[l, e.left], [r, e.right]] as const) {
        if (c.type === 'struct' || c.type === 'map') this.fail(e, `|| takes strings, numbers, dates, binaries or arrays, not ${exprToString(x)}, a ${c.type}: to_json() it, or pick its fields`);
      }
      // A string (what the casts give) is its own text.
      const lText = l.type === 'string' ? undefined : textOf(l);
      const rText = r.type === 'string' ? undefined : textOf(r);
      return compiled({ type: 'string' }, () => {
        const [le, re] = [l.eval, r.eval];
        return (row, c) => {
          const a = le(row, c);
          const b = re(row, c);
          if (a === null || b === null) return null;
          const x = (lText ? lText(a) : a) as string;
          const y = (rText ? rText(b) : b) as string;
          checkStringLength('||', x.length + y.length);
          return x + y;
        };
      });
    }
    if (COMPARE[e.op]) {
      const { l: a0, r: b0, test } = this.comparison(e, e.left, e.right, e.op);
      return nullSafeBinary({ type: 'boolean' }, a0, b0, test);
    }
    let l = this.compile(e.left);
    let r = this.compile(e.right);
    // Spark's SubtractDates of a string and a DATE: the string cast to a DATE (`'1' - d` is NULL, as
    // '1' is no date). `d - '1'` is Spark's DateSub, which Weir does not cast a string for.
    if (e.op === '-' && l.type === 'string' && r.type === 'date') l = this.castOperand(e, e.left, l, { type: 'date' });
    if (e.op === '+' || e.op === '-') {
      // Spark's ResolveBinaryArithmetic casts a DATE to a TIMESTAMP where it is subtracted from or
      // subtracts one (SubtractTimestamps), and where a day-time interval with a time part is added
      // to or subtracted from it (TimeAdd): `cast(d as timestamp) - ts`.
      const timeOf = (i: CompiledExpr) => i.type === 'day_time_interval' && !(i.interval?.start === 0 && i.interval.end === 0);
      const [lt, rt] = [l, r];
      if (lt.type === 'date' && ((e.op === '-' && rt.type === 'timestamp') || timeOf(rt))) l = this.castOperand(e, e.left, l, { type: 'timestamp', ...(rt.ntz ? { ntz: true as const } : {}) });
      if (rt.type === 'date' && ((e.op === '-' && lt.type === 'timestamp') || (e.op === '+' && timeOf(lt)))) r = this.castOperand(e, e.right, r, { type: 'timestamp', ...(lt.ntz ? { ntz: true as const } : {}) });
    }
    // …and a string plus or minus a day-time interval or a CalendarInterval is
    // CAST(TimeAdd(CAST(s AS TIMESTAMP), i) AS STRING): the time the string names, moved, as text
    // ('2017-12-11' + INTERVAL 2 DAY is '2017-12-13 00:00:00').
    const timeAdded = (t: ExprType) => t === 'day_time_interval' || t === 'calendar_interval';
    const stringFirst = l.type === 'string' && timeAdded(r.type);
    if ((e.op === '+' && (stringFirst || (timeAdded(l.type) && r.type === 'string'))) || (e.op === '-' && stringFirst)) {
      const [text, interval] = stringFirst ? [e.left, e.right] : [e.right, e.left];
      const moved: Expr = { kind: 'binary', op: e.op, left: implicitCastExpr(text, { type: 'timestamp' }), right: interval, ...(e.pos ? { pos: e.pos } : {}) };
      const { dataType: _type, ...asText } = implicitCastExpr(moved, { type: 'string' });
      return this.compile(asText);
    }
    const anyInterval = (t: ExprType) => isInterval(t) || t === 'calendar_interval';
    if ((e.op === '*' || e.op === '/') && (anyInterval(l.type) || anyInterval(r.type))) {
      // Spark's MultiplyDTInterval, DivideYMInterval …: a string or a NULL scaling an interval is
      // read as a DOUBLE (ImplicitTypeCasts), and any number scaling a CalendarInterval
      // (MultiplyInterval and DivideInterval take a DOUBLE); nothing is divided by an interval.
      const scale = (x: CompiledExpr, i: CompiledExpr) => x.type === 'string' || x.type === 'null' || (i.type === 'calendar_interval' && (x.type === 'long' || x.type === 'decimal'));
      if (anyInterval(l.type) && scale(r, l)) r = this.castOperand(e, e.right, r, { type: 'double' });
      else if (e.op === '*' && anyInterval(r.type) && scale(l, r)) l = this.castOperand(e, e.left, l, { type: 'double' });
      else if (e.op === '/' && anyInterval(r.type)) {
        this.mismatch(e, 'BINARY_OP_DIFF_TYPES', `the left and right operands of the binary operator have incompatible types ("${typeText(l)}" and "${typeText(r)}").`, 'An interval divides; nothing is divided by one.');
      }
    }
    if (e.op === '+' || e.op === '-' || e.op === '*' || e.op === '/') {
      const d = datetimeArithmetic(e.op, l, r);
      if (d) return d;
    }
    // An untyped NULL beside a date or an interval, as Spark's ResolveBinaryArithmetic reads it:
    // beside an interval it is that interval (NULL + INTERVAL 1 HOUR is an INTERVAL HOUR), minus or
    // from a date it is a date (SubtractDates: an INTERVAL DAY), plus a date an interval (TimeAdd:
    // a TIMESTAMP), minus or from a timestamp a timestamp (SubtractTimestamps: an INTERVAL DAY TO
    // SECOND).
    const nullBeside = l.type === 'null' ? r : r.type === 'null' ? l : undefined;
    if (nullBeside && (e.op === '+' || e.op === '-')) {
      const nothing = (type: TypeInfo) => compiled(type, () => () => null);
      if (nullBeside.type === 'day_time_interval' || nullBeside.type === 'year_month_interval') return nothing({ type: nullBeside.type, interval: nullBeside.interval });
      if (nullBeside.type === 'calendar_interval') return nothing({ type: nullBeside.type });
      if (nullBeside.type === 'date' && e.op === '-') return nothing({ type: 'day_time_interval', interval: { start: 0, end: 0 } });
      if (nullBeside.type === 'timestamp' && e.op === '-') return nothing({ type: 'day_time_interval', interval: fullRange('day_time_interval') });
      if (nullBeside.type === 'date') return nothing({ type: 'timestamp' });
    }
    // Spark's DateAdd/DateSub operators: `date + n`, `n + date` and `date - n` are date_add/date_sub.
    const isInt = (t: ExprType) => t === 'long' || t === 'null';
    if (l.type === 'date' && isInt(r.type) && (e.op === '+' || e.op === '-')) return this.call({ kind: 'call', name: e.op === '+' ? 'date_add' : 'date_sub', args: [e.left, e.right] });
    if (isInt(l.type) && r.type === 'date' && e.op === '+') return this.call({ kind: 'call', name: 'date_add', args: [e.right, e.left] });
    // Two untyped NULLs: Spark's ImplicitTypeCasts gives each the type the operator expects,
    // NUMERIC's default, a DOUBLE (NULL + NULL and mod(NULL, NULL) are DOUBLEs).
    if (l.type === 'null' && r.type === 'null' && (e.op === '+' || e.op === '-' || e.op === '*' || e.op === '%')) {
      l = this.castOperand(e, e.left, l, { type: 'double' });
      r = this.castOperand(e, e.right, r, { type: 'double' });
    }
    // Spark's PromoteStrings (ANSI off): a string operand of arithmetic is read as a DOUBLE.
    if (l.type === 'string') l = this.castOperand(e, e.left, l, { type: 'double' });
    if (r.type === 'string') r = this.castOperand(e, e.right, r, { type: 'double' });
    const isNum = (t: ExprType) => isNumeric(t) || t === 'decimal';
    if (!isNum(l.type) || !isNum(r.type)) {
      const hint = l.type === 'date' || r.type === 'date' ? '; for dates use date_add(d, n), date_sub(d, n) or datediff(end, start)' : '';
      const wrong = isNum(l.type) ? r : l;
      // Beside a date, timestamp or interval Spark has rewritten the operator (date_add, TimeAdd,
      // DateAddYMInterval …) before it checks the operands: its refusal is that function's.
      // (`+` of a TIMESTAMP, `*`, `/` and `%` are not rewritten.)
      const datetime = (e.op === '+' || e.op === '-') && [l, r].some((x) => x.type === 'date' || (x.type === 'timestamp' && e.op === '-') || isInterval(x.type));
      const todo = `Operator ${e.op} needs numbers, got ${l.type} and ${r.type}${hint}.`;
      if (datetime) this.mismatch(e, 'UNEXPECTED_INPUT_TYPE', `the binary operator requires the input type "NUMERIC", not "${typeText(wrong)}".`, todo);
      // Spark's BinaryOperator checks that both operands have one type before it checks that type.
      if (typeText(l) !== typeText(r)) this.mismatch(e, 'BINARY_OP_DIFF_TYPES', `the left and right operands of the binary operator have incompatible types ("${typeText(l)}" and "${typeText(r)}").`, todo);
      this.mismatch(e, 'BINARY_OP_WRONG_TYPE', `the binary operator requires the input type "NUMERIC", not "${typeText(wrong)}".`, todo);
    }
    // What each operand is read as, written into the plan as an implicit cast.
    const readAs = (lt: TypeInfo, rt = lt) => {
      this.implicitCast(e, e.left, lt);
      this.implicitCast(e, e.right, rt);
    };
    // FLOAT arithmetic: the exact result rounded to a float (float.ts); `/` is a DOUBLE's.
    if (widensToFloat([l, r]) && e.op !== '/') {
      const f = { '+': (a: number, b: number) => a + b, '-': (a: number, b: number) => a - b, '*': (a: number, b: number) => a * b, '%': (a: number, b: number) => a % b }[e.op as '+'];
      if (f) {
        const zeroIsNull = e.op === '%';
        readAs({ type: 'double', float32: true });
        return nullSafeBinary({ type: 'double', float32: true }, asFloat(l), asFloat(r), (a, b) => (zeroIsNull && b === 0 ? null : Math.fround(f(a as number, b as number))));
      }
    }
    if (l.type === 'decimal' || r.type === 'decimal') {
      const ld = decimalOperand(l, e.left);
      const rd = decimalOperand(r, e.right);
      // A decimal with a decimal, an integer or NULL: Spark's decimal arithmetic.
      if ((ld || l.type === 'null') && (rd || r.type === 'null')) {
        readAs({ type: 'decimal', decimal: ld ?? rd }, { type: 'decimal', decimal: rd ?? ld });
        return this.decimalArithmetic(e.op as DecimalOp, l, ld ?? rd!, r, rd ?? ld!);
      }
      // A decimal with a double: a double.
      l = convert(l, 'double');
      r = convert(r, 'double');
    }
    const bothLong = (l.type === 'long' || l.type === 'null') && (r.type === 'long' || r.type === 'null');
    // Integral arithmetic has the wider operand's type and wraps at its width (long.ts): a
    // BIGINT's exact and at 64 bits; `/` is always a double.
    const bits = bothLong ? integralWidth(l, r) : undefined;
    if (bits && (e.op === '+' || e.op === '-' || e.op === '*' || e.op === '%')) readAs({ type: 'long', integral: bits });
    if (bits && (e.op === '+' || e.op === '-' || e.op === '*')) {
      const op = e.op;
      return nullSafeBinary({ type: 'long', integral: bits }, l, r, (a, b) => narrowArithmetic(op, bits, a as number, b as number));
    }
    if (bits && e.op === '%') return nullSafeBinary({ type: 'long', integral: bits }, l, r, (a, b) => (b === 0 ? null : wrapToWidth(bits, (a as number) % (b as number))));
    if (bothLong && e.op !== '/') {
      const f = { '+': longAdd, '-': longSubtract, '*': longMultiply, '%': longRemainder }[e.op as '+'];
      if (f) {
        readAs({ type: 'long' });
        return this.numeric('long', l, r, f as (a: unknown, b: unknown) => unknown);
      }
    }
    readAs({ type: 'double' });
    if (e.op === '/' && bothLong) return this.numeric('double', l, r, (a, b) => { const d = Number(b); return d === 0 ? null : Number(a) / d; });
    // A BIGINT beside a DOUBLE is read as a double, as Spark widens it.
    const widen = l.type === 'long' || r.type === 'long';
    const num = (f: (a: number, b: number) => number | null) =>
      this.numeric('double', l, r, (widen ? (a: unknown, b: unknown) => f(Number(a), Number(b)) : f) as (a: unknown, b: unknown) => unknown);
    switch (e.op) {
      case '+': return num((a, b) => a + b);
      case '-': return num((a, b) => a - b);
      case '*': return num((a, b) => a * b);
      case '/': return num((a, b) => (b === 0 ? null : a / b));
      case '%':
        return num((a, b) => (b === 0 ? null : a % b));
      // Compared above; listed so that a new operator is a lint error until it is handled here.
      case '=': case '<>': case '<': case '<=': case '>': case '>=':
        break;
    }
    return this.fail(e, `Operator ${e.op} is not supported`);
  }

  /**
   * The operands of a comparison `left op right` (op one of = <> < <= > >=) read as one type, as
   * Spark's TypeCoercion casts them (recorded on `e`), and the test of two non-NULL values with
   * Spark's order: NaN equals NaN and is above every other double, BINARY compares byte by byte,
   * arrays and structs element by element (a NaN inside too).
   */
  comparison(e: Expr, left: Expr, right: Expr, op: string): { l: CompiledExpr; r: CompiledExpr; test: (a: unknown, b: unknown) => boolean } {
    let l = this.compile(left);
    let r = this.compile(right);
    if (l.type === 'timestamp') r = this.coerceTo(right, 'timestamp');
    if (r.type === 'timestamp') l = this.coerceTo(left, 'timestamp');
    if (l.type === 'date') r = this.coerceTo(right, 'date');
    if (r.type === 'date') l = this.coerceTo(left, 'date');
    // A string beside another type: cast to it (a DOUBLE beside a DECIMAL).
    const ls = comparisonStringType(l, r);
    const rs = comparisonStringType(r, l);
    if (ls) l = this.castOperand(e, left, l, ls);
    else if (rs) r = this.castOperand(e, right, r, rs);
    // Spark's BooleanEquality: beside a number, `=` (and `<=>`; `<>` is NOT `=`) reads a BOOLEAN
    // as that number (true = 1 is true, false <=> 0.0 too); the order comparisons refuse it.
    const number = (x: CompiledExpr) => isNumeric(x.type) || x.type === 'decimal';
    if (op === '=' || op === '<>') {
      if (l.type === 'boolean' && number(r)) l = this.castOperand(e, left, l, typeOfCompiled(r));
      else if (r.type === 'boolean' && number(l)) r = this.castOperand(e, right, r, typeOfCompiled(l));
    }
    const unordered = [l, r].find((x) => !isOrderable(x));
    if (unordered) checkForOrderingExpr(e, unordered, op);
    if (!unifyTypes(l.type, r.type)) {
      this.mismatch(e, 'BINARY_OP_DIFF_TYPES', `the left and right operands of the binary operator have incompatible types ("${typeText(l)}" and "${typeText(r)}").`, `Cannot compare ${l.type} with ${r.type}; CAST one side.`);
    }
    const longWithDouble = (l.type === 'long' && r.type === 'double') || (l.type === 'double' && r.type === 'long');
    if (l.type === 'decimal' || r.type === 'decimal' || longWithDouble || (l.type !== r.type && (l.type === 'date' || r.type === 'date'))) {
      // Both sides at one scale (or both doubles): then bigints compare as the values do.
      [l, r] = unifyAll([l, r], [left, right], true)!.values;
    }
    // Integers of two widths: the narrower read as the wider (Spark's `cast(i as bigint) = id`),
    // a cast that changes no value and reuses its evaluator.
    if (l.type === 'long' && r.type === 'long' && l.integral !== r.integral) {
      const bits = widerWidth(l.integral, r.integral);
      const wider: TypeInfo = { type: 'long', ...(bits ? { integral: bits } : {}) };
      l = this.castOperand(e, left, l, wider);
      r = this.castOperand(e, right, r, wider);
    }
    this.implicitCast(e, left, typeOfCompiled(l));
    this.implicitCast(e, right, typeOfCompiled(r));
    const test = COMPARE[op] as (a: unknown, b: unknown) => boolean;
    if (l.type === 'double') return { l, r, test: (a, b) => (a === a && b === b ? test(a, b) : test(compareValues(a, b), 0)) };
    if (l.type === 'binary' || l.type === 'array' || l.type === 'struct') return { l, r, test: (a, b) => test(compareValues(a, b), 0) };
    return { l, r, test };
  }

  /**
   * Spark's IntegralDivide (`a div b`, ANSI off): a BIGINT, NULL for a zero divisor. Two decimals
   * (or a decimal and an integer) divide exactly, truncated toward zero, and keep the low 64 bits
   * (BigDecimal.longValue); any other numbers are cast to BIGINT first (a DOUBLE or FLOAT
   * truncated), then divided as the JVM's longs (Long.MinValue div -1 wraps to itself).
   */
  private integralDivide(e: Extract<Expr, { kind: 'call' }>): CompiledExpr {
    const [l, r] = e.args.map((a) => this.compile(a));
    const isNum = (t: ExprType) => isNumeric(t) || t === 'decimal';
    if (!isNum(l.type) || !isNum(r.type)) {
      const wrong = isNum(l.type) ? r : l;
      this.mismatch(e, 'BINARY_OP_WRONG_TYPE', `the binary operator requires the input type ("BIGINT" or "DECIMAL"), not "${typeText(wrong)}".`, `div needs numbers, got ${l.type} and ${r.type}.`);
    }
    const ld = decimalOperand(l, e.args[0]);
    const rd = decimalOperand(r, e.args[1]);
    if ((l.type === 'decimal' || r.type === 'decimal') && (ld || l.type === 'null') && (rd || r.type === 'null')) {
      // An integer beside a decimal is read as its decimal (Spark's DecimalPrecision widens it so).
      const [lt, rt] = [ld ?? rd, rd ?? ld];
      const [a, b] = [this.castOperand(e, e.args[0], l, { type: 'decimal', decimal: lt }), this.castOperand(e, e.args[1], r, { type: 'decimal', decimal: rt })];
      const [sa, sb] = [lt!.scale, rt!.scale];
      return this.numeric('long', a, b, (x, y) => (y === 0n ? null : toLong(((x as bigint) * pow10(sb)) / ((y as bigint) * pow10(sa)))));
    }
    // Spark's IntegralDivision: an INT, SMALLINT or TINYINT is cast to BIGINT (`cast(i as bigint) div
    // id`), as is a DOUBLE or FLOAT (truncated). A decimal beside a DOUBLE or FLOAT is made a DOUBLE,
    // then a BIGINT: two conversions, applied here and not written as one cast.
    const decimalBesideDouble = l.type === 'decimal' || r.type === 'decimal';
    const asLong = (c: CompiledExpr, x: Expr) =>
      c.type === 'null' || (c.type === 'long' && !c.integral) ? c
        : decimalBesideDouble ? convert(c.type === 'decimal' ? convert(c, 'double') : c, 'long')
          : this.castOperand(e, x, c, { type: 'long' });
    return this.numeric('long', asLong(l, e.args[0]), asLong(r, e.args[1]), (x, y) => longDivide(x as Long, y as Long));
  }

  /**
   * The bitwise operators `& | ^ ~` (calls the builder names by their operator): of integers, the
   * wider operand's type, as Spark's BitwiseAnd…, an INT's, SMALLINT's or TINYINT's within its width.
   */
  private bitwise(e: Extract<Expr, { kind: 'call' }>, args: CompiledExpr[]): CompiledExpr {
    const ops: Record<string, (a: bigint, b: bigint) => bigint> = { '&': (a, b) => a & b, '|': (a, b) => a | b, '^': (a, b) => a ^ b };
    const bitwise = Object.hasOwn(ops, e.name) ? ops[e.name] : undefined;
    const integral = (c: CompiledExpr) => c.type === 'long' || c.type === 'null';
    const arity = bitwise ? 2 : 1;
    if (args.length !== arity) this.fail(e, `${bitwise ? 'A bitwise operator takes two' : '~ takes one'} integer operand(s)`);
    const wrong = args.find((a) => !integral(a));
    if (wrong) this.mismatch(e, 'UNEXPECTED_INPUT_TYPE', `requires the "INTEGRAL" type, however it has the type "${typeText(wrong)}".`, 'Bitwise operators take integers; CAST the operand to BIGINT or INT.');
    const bits = bitwise ? integralWidth(args[0], args[1]) : args[0].integral;
    const t = { ...(bits ? { integral: bits } : {}) };
    // Integers of two widths: the narrower cast to the wider (Spark's ImplicitTypeCasts, `cast(i as bigint) & id`).
    if (bitwise) args = args.map((a, i) => this.castOperand(e, e.args[i], a, { type: 'long', ...t }));
    if (!bitwise) return nullSafeUnary({ type: 'long', ...t }, args[0], (v) => (bits ? ~(v as number) : toLong(~bigOf(v as Long))));
    // Two values of a width combine within it: their sign-extended bits stay in its range.
    const f = bitwise;
    return nullSafeBinary({ type: 'long', ...t }, args[0], args[1], (a, b) => (bits ? Number(f(BigInt(a as number), BigInt(b as number))) : toLong(f(bigOf(a as Long), bigOf(b as Long)))));
  }

  /** `l op r` of two non-NULL operands, NULL when either is NULL. */
  private numeric(type: ExprType, l: CompiledExpr, r: CompiledExpr, f: (a: unknown, b: unknown) => unknown): CompiledExpr {
    return nullSafeBinary({ type }, l, r, f);
  }

  /** `l op r` in decimals: Spark's result type, exact arithmetic, NULL on overflow or a zero divisor. */
  private decimalArithmetic(op: DecimalOp, l: CompiledExpr, ld: DecimalType, r: CompiledExpr, rd: DecimalType): CompiledExpr {
    const t = resultType(op, ld, rd);
    const sa = ld.scale;
    const sb = rd.scale;
    return nullSafeBinary({ type: 'decimal', decimal: t }, l.type === 'long' ? convert(l, 'decimal', ld) : l, r.type === 'long' ? convert(r, 'decimal', rd) : r, (a, b) => arithmetic(op, a as bigint, sa, b as bigint, sb, t));
  }

  private like(e: Extract<Expr, { kind: 'like' }>): CompiledExpr {
    // Spark's ImplicitTypeCasts reads any other atomic operand as its text (`1 LIKE '%'`, `d LIKE '19%'`).
    const text = (x: Expr, c: CompiledExpr) => (c.type === 'string' || c.type === 'null' || isComplex(c.type) ? c : this.castOperand(e, x, c, { type: 'string' }));
    const a = text(e.arg, this.compile(e.arg));
    const p = text(e.pattern, this.compile(e.pattern));
    if (a.type !== 'string' && a.type !== 'null') this.fail(e, `LIKE needs a string, got ${a.type}`);
    if (p.type !== 'string' && p.type !== 'null') this.fail(e, `LIKE pattern must be a string, got ${p.type}`);
    if (e.escape !== undefined && Array.from(e.escape).length !== 1) this.fail(e, `ESCAPE must be a single character, got '${e.escape}'`);
    const opts = { escape: e.escape, caseInsensitive: e.caseInsensitive };
    const neg = e.negated;
    if (e.pattern.kind === 'literal' && typeof e.pattern.value === 'string') {
      let match: LikeMatcher;
      try {
        match = compileLike(e.pattern.value, opts);
      } catch (err) {
        // A literal pattern Spark refuses is refused with the query, as Spark's analysis does.
        if (err instanceof RecordExpressionError) this.fail(e, err.message, err.errorClass);
        throw err;
      }
      return mapped({ type: 'boolean' }, a, (s) => (s === null ? null : match(s as string) !== neg));
    }
    // A pattern read from a column: matchers by pattern text, bounded.
    const cache = new Map<string, LikeMatcher>();
    const matcher = (pat: string) => {
      let m = cache.get(pat);
      if (!m) {
        m = compileLike(pat, opts);
        if (cache.size >= 1000) cache.clear();
        cache.set(pat, m);
      }
      return m;
    };
    return compiled({ type: 'boolean' }, () => {
      const [text, pattern] = [a.eval, p.eval];
      return (row, c) => {
        const s = text(row, c);
        const pat = pattern(row, c);
        if (s === null || pat === null) return null;
        return matcher(pat as string)(s as string) !== neg;
      };
    });
  }

  private caseWhen(e: Extract<Expr, { kind: 'case' }>): CompiledExpr {
    let operand = e.operand ? this.compile(e.operand) : undefined;
    let whens = e.branches.map((b) => {
      if (operand) {
        let w = this.coerceTo(b.when, operand.type);
        // CASE x WHEN v is x = v: a string value is cast to x's type, as a comparison casts it.
        const t = comparisonStringType(w, operand);
        if (t) w = this.castOperand(e, b.when, w, t);
        if (!unifyTypes(operand.type, w.type)) this.fail(b.when, `CASE value of type ${w.type} does not match ${operand.type}`);
        return w;
      }
      const w = this.compile(b.when);
      this.expectBoolean(b.when, w.type);
      return w;
    });
    if (operand && e.operand && [operand, ...whens].some((w) => w.type === 'decimal')) {
      // CASE x WHEN v compares x = v: both at one scale.
      [operand, ...whens] = unifyAll([operand, ...whens], [e.operand, ...e.branches.map((b) => b.when)])!.values;
    }
    if (operand && e.operand) {
      const keys = [e.operand, ...e.branches.map((b) => b.when)];
      [operand, ...whens].forEach((c, i) => this.implicitCast(e, keys[i], typeOfCompiled(c)));
    }
    const results = [...e.branches.map((b) => b.then), ...(e.otherwise ? [e.otherwise] : [])];
    const branches = results.map((x) => this.compile(x));
    const u = unifyAll(branches, results, false, true);
    if (!u) this.mismatch(e, 'DATA_DIFF_TYPES', `Input to \`casewhen\` should all be the same type, but it's [${branches.map((c) => `"${typeText(c)}"`).join(', ')}].`, 'The branches have incompatible types: CAST them to one type.');
    const read = unifiedType(u);
    for (const x of results) this.implicitCast(e, x, read);
    const thens = u.values.slice(0, e.branches.length);
    const equal = equalityOf(operand?.type ?? 'null');
    const otherwise = e.otherwise ? u.values[e.branches.length] : undefined;
    const key = operand;
    return compiled(read, () => {
      const [o, ws, ts, other] = [key?.eval, whens.map((w) => w.eval), thens.map((t) => t.eval), otherwise?.eval];
      return (row, c) => {
        const ov = o?.(row, c);
        for (let i = 0; i < ws.length; i++) {
          const w = ws[i](row, c);
          if (o ? ov !== null && w !== null && equal(ov, w) : w === true) return ts[i](row, c);
        }
        return other ? other(row, c) : null;
      };
    });
  }

  /** A collection function (array-functions.ts, map-functions.ts …): typed from its arguments' full types. */
  private collectionCall(e: Extract<Expr, { kind: 'call' }>, def: CollectionFunctionDef, given?: CompiledExpr[]): CompiledExpr {
    const registered = FUNCTION_REGISTRY.get(e.name);
    if (e.args.length < def.min || e.args.length > def.max) {
      const n = def.min === def.max ? `${def.min}` : `${def.min} to ${def.max}`;
      this.fail(e, `${e.name}() takes ${n} argument(s), got ${e.args.length}`, WRONG_NUM_ARGS);
    }
    let args = given ?? e.args.map((a) => this.compile(a));
    // `x[i]` of a value that is no array or map: Spark's ExtractValue refuses its base, where
    // get(x, i) is a function whose argument has the wrong type.
    if (e.subscript && !['array', 'map', 'null'].includes(args[0].type)) {
      this.fail(e, `${exprToString(e.args[0])} is a ${typeText(args[0])}, not an array or a map, so it has no [${exprToString(e.args[1])}]`, 'INVALID_EXTRACT_BASE_FIELD_TYPE');
    }
    // The arguments as compiled, before a decimal is read as a double below.
    const written = args;
    // Argument i read as `to`: a cast written into the plan (Spark's ImplicitTypeCasts), but on a
    // literal the function may read as written (an index, a count), which is converted here only.
    const read = (i: number, to: TypeInfo, value = false) =>
      e.args[i].kind === 'literal' && !value ? convert(args[i], to.type, to.decimal) : this.castOperand(e, e.args[i], args[i], to);
    if (def.valueAsElement && args[0].type === 'array') {
      // The value at the elements' type, so that equal values compare equal (decimals at one scale).
      const el = typeOfField(args[0].elementType!);
      const v = args[1];
      if (el.type === 'decimal' && (v.type === 'decimal' || v.type === 'long')) args = [args[0], read(1, { type: 'decimal', decimal: el.decimal }, true)];
      else if (v.type === 'decimal' && isNumeric(el.type)) args = [args[0], read(1, { type: 'double' }, true)];
      // A narrower integer beside wider elements, a FLOAT beside DOUBLEs: read as the element's type
      // (findWiderTypeWithoutStringPromotion), the same value.
      else if ((el.type === 'long' && v.type === 'long' && (v.integral ?? 64) < (el.integral ?? 64)) || (el.type === 'double' && !el.float32 && v.float32)) args = [args[0], read(1, el, true)];
    } else {
      // A decimal where a function takes a number: as a double.
      args = args.map((a, i) => (a.type === 'decimal' ? read(i, { type: 'double' }) : a));
    }
    if (def.widenArgs && args.some((a) => !sameType(a, args[0]))) {
      const u = unifyAll(args, e.args, false, true);
      if (u) {
        const type = unifiedType(u);
        e.args.forEach((a) => this.implicitCast(e, a, type));
        args = u.values;
      }
    }
    // Each argument's column name (arrays_zip names its fields after them).
    const names = e.args.map((a) => (a.kind === 'column' ? a.name.split('.').pop()! : a.kind === 'field' ? a.field : ''));
    let t = def.type(args, names);
    if (typeof t === 'string') {
      // Spark's ImplicitTypeCasts: an atomic value where a function of STRINGs takes one is cast
      // to one, as CAST writes it (split(123, '2'), sentences(1.5), concat_ws('-', a, 12));
      // elsewhere only a date where the function takes a string, as its text.
      const types = args.map((a) => a.type);
      const accepts = (ts: ExprType[]) => typeof def.type(ts.map((to, i) => (to === types[i] ? args[i] : { type: to })), names) !== 'string';
      const asText = def.stringInputs || registered?.group === 'string' ? atomicAsStrings(written.map((a) => a.type), types, accepts) : dateAsStrings(types, accepts);
      if (asText) {
        // A decimal as its own text (1.50), not the double's.
        args = args.map((a, i) => (asText[i] === a.type ? a : this.castOperand(e, e.args[i], written[i], { type: 'string' })));
        t = def.type(args, names);
      }
    }
    if (typeof t === 'string') this.fail(e, t);
    const result = t;
    const bad = def.checkLiterals?.(e.args.map((a) => (a.kind === 'literal' ? a.value : undefined)));
    if (bad) this.fail(e, bad);
    const impl = def.impl;
    const nullIntolerant = def.nullIntolerant !== false;
    const inputs = args;
    return compiled(t, () => {
      const evals = inputs.map((a) => a.eval);
      return (row, c) => {
        const vs = evals.map((f) => f(row, c));
        if (nullIntolerant && vs.some((v) => v === null || v === undefined)) return null;
        return impl(vs, inputs, result);
      };
    });
  }

  /**
   * array(e1, …) and map(k1, v1, …): the elements (keys, values) unify to one type, as Spark's
   * CreateArray and CreateMap coerce them (findWiderCommonType: a STRING among numbers, dates or
   * timestamps makes them STRINGs). array() with no elements is Spark's ARRAY<VOID>, map() its
   * MAP<VOID, VOID>.
   */
  private constructor_(e: Extract<Expr, { kind: 'call' }>): CompiledExpr {
    const unify = (es: Expr[], what: string): { type: TypeInfo; values: CompiledExpr[] } => {
      const cs = es.map((x) => this.compile(x));
      const u = unifyAll(cs, es, false, true);
      if (u?.type === 'null') return { type: { type: 'null' }, values: u.values };
      if (!u) {
        this.mismatch(e, 'DATA_DIFF_TYPES', `Input to \`${e.name}\` should all be the same type, but it's (${cs.map((c) => `"${typeText(c)}"`).join(' or ')}).`, `The ${what} have incompatible types: CAST them to one type.`);
      }
      if (u.complex) {
        for (const x of es) this.implicitCast(e, x, u.complex);
        return { type: u.complex, values: u.values };
      }
      // A constant array or map is left as written: a function may read its literals as written
      // (percentile_approx's percentages).
      const read = unifiedType(u);
      if (!e.args.every((x) => x.kind === 'literal')) for (const x of es) this.implicitCast(e, x, read);
      return { type: read, values: u.values };
    };
    if (e.name === 'struct' || e.name === 'named_struct') return this.struct_(e);
    if (e.name === 'array') {
      const { type, values } = unify(e.args, 'elements');
      // Elements all NULL (or none): Spark's ARRAY<VOID>, an ARRAY<STRING> when it is not widened.
      return compiled({ type: 'array', elementType: elementOf(type), ...(type.type === 'null' ? { voidElements: true as const } : {}) }, () => {
        const evals = values.map((v) => v.eval);
        return (r, c) => evals.map((f) => f(r, c));
      });
    }
    if (e.args.length % 2 !== 0) this.fail(e, 'map() takes key/value pairs: map(key1, value1, key2, value2, …)');
    const keys = unify(e.args.filter((_, i) => i % 2 === 0), 'keys');
    const vals = unify(e.args.filter((_, i) => i % 2 === 1), 'values');
    if (!isMapKeyType(keys.type)) this.mismatch(e, 'INVALID_MAP_KEY_TYPE', `The input ${typeText(keys.type)} is an invalid type for a map key.`, 'A map cannot key a map: use keys of another type.');
    const kt: TypeInfo = keys.type.type === 'null' ? { type: 'string' } : keys.type;
    // No keys or no values but NULLs: Spark's MAP<VOID, VOID> (map()), which widens to any map.
    const voidOf = (t: TypeInfo) => (t.type === 'null' ? { void: true as const } : {});
    const type: TypeInfo = { type: 'map', keyType: { ...fieldOfType('key', kt), nullable: false, ...voidOf(keys.type) }, valueType: { ...fieldOfType('value', vals.type), ...voidOf(vals.type) } };
    return compiled(type, () => {
      const [ks, vs] = [keys.values.map((k) => k.eval), vals.values.map((v) => v.eval)];
      return (r, c) => buildMap('map()', ks.map((k) => k(r, c)), vs.map((v) => v(r, c)), kt);
    });
  }

  /**
   * named_struct(name1, value1, …) and struct(value1, …), as Spark's CreateNamedStruct: struct
   * names a field after its column, or col1, col2, … for another expression.
   */
  private struct_(e: Extract<Expr, { kind: 'call' }>): CompiledExpr {
    let names: string[];
    let valueExprs: Expr[];
    if (e.name === 'named_struct') {
      if (e.args.length % 2 !== 0) this.fail(e, `named_struct() takes name/value pairs: named_struct(name1, value1, name2, value2, …), got ${e.args.length} argument(s)`);
      names = [];
      valueExprs = [];
      for (let i = 0; i < e.args.length; i += 2) {
        const n = e.args[i];
        if (n.kind !== 'literal' || typeof n.value !== 'string') this.fail(e, `named_struct() field names must be string literals; argument ${i + 1} is not`);
        names.push(n.value);
        valueExprs.push(e.args[i + 1]);
      }
    } else {
      valueExprs = e.args;
      names = e.args.map(structFieldName);
    }
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup !== undefined && e.name === 'named_struct') this.fail(e, `named_struct() names the field \`${dup}\` twice`);
    const values = valueExprs.map((x) => this.compile(x));
    const fields = values.map((v, i) => (v.type === 'null' ? { ...fieldOfType(names[i], v), void: true as const } : fieldOfType(names[i], v)));
    return compiled({ type: 'struct', fields }, () => {
      const evals = values.map((v) => v.eval);
      return (r, c) => Object.fromEntries(evals.map((f, i) => [names[i], f(r, c)]));
    });
  }

  /**
   * A call's own analysis (function-types.ts' CallRewrite): its replacement or its compile hook,
   * compiled; else the call to compile as any other (its arguments rewritten by a replacement
   * that calls the function itself).
   */
  private rewrite(e: CallExpr, hooks: CallRewrite): CompiledExpr | CallExpr {
    const replaced = hooks.replacement?.(e, this);
    if (replaced?.kind === 'call' && replaced.name === e.name) return replaced;
    if (replaced) return this.compile(replaced);
    return hooks.compile?.(e, this) ?? e;
  }

  /**
   * The implicit casts of a call's arguments (Spark's ImplicitTypeCasts): each argument read as
   * the type it was converted to, a value the function passes through (coalesce, if, nvl…) as the
   * integer type of the result (`integral`). A literal that is not such a value is left as
   * written: a function may read it (a format, a scale). `e` is the call as compiled, `call` as
   * the plan holds it: an argument its function's replacement rewrote (date_trunc's unit) is not
   * the plan's, and has no cast written.
   */
  private argumentCasts(call: CallExpr, e: CallExpr, args: CompiledExpr[], valueIdx: readonly number[], integral: TypeInfo | undefined): void {
    args.forEach((a, i) => {
      const value = valueIdx.includes(i);
      if (e.args[i] !== call.args[i] || (e.args[i].kind === 'literal' && !value)) return;
      this.implicitCast(call, e.args[i], value && integral ? integral : typeOfCompiled(a));
    });
  }

  private call(call: Extract<Expr, { kind: 'call' }>): CompiledExpr {
    let e = call;
    const refused = REFUSED_FUNCTIONS[e.name];
    if (refused) throw new SqlValidationError(refused.message, e.pos, `${e.name}()`, refused.errorClass);
    if (GENERATORS.has(e.name)) {
      this.fail(e, `[UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS] The generator is not supported: nested in expressions. ${e.name}() is a generator (one output row per element): use it as a whole item of a SELECT list, such as SELECT ${e.name}(…) AS x FROM src; to aggregate its rows, generate in a subquery: SELECT x, count(*) FROM (SELECT ${e.name}(…) AS x FROM src) GROUP BY x`, 'UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS');
    }
    if (e.name === 'array' || e.name === 'map' || e.name === 'struct' || e.name === 'named_struct') return this.constructor_(e);
    const registered = FUNCTION_REGISTRY.get(e.name);
    const hof = registered?.kind === 'higherOrder' ? registered.def : undefined;
    if (hof) {
      if (e.args.length < hof.min || e.args.length > hof.params.length) {
        const n = hof.min === hof.params.length ? `${hof.min}` : `${hof.min} to ${hof.params.length}`;
        this.fail(e, `${e.name}() takes ${n} argument(s), got ${e.args.length}`, WRONG_NUM_ARGS);
      }
      return hof.compile(e, this);
    }
    const lambda = e.args.find((a) => a.kind === 'lambda');
    if (lambda) {
      throw new SqlValidationError(
        `Invalid lambda function call. A lambda function should only be used in a higher order function. However, ${e.name}() is not a higher order function; ` +
          `the higher-order functions are ${[...FUNCTION_REGISTRY.values()].filter((f) => f.kind === 'higherOrder').map((f) => f.name).sort().join(', ')}`,
        lambda.pos ?? e.pos,
        `${e.name}()`,
        'INVALID_LAMBDA_FUNCTION_CALL.NON_HIGHER_ORDER_FUNCTION',
      );
    }
    if (registered?.kind === 'scalar' && registered.def.intDays && e.args.length === 2) this.checkDayCount(e);
    // like(), typeof(), the cast functions …: rewritten by their function's file.
    if (registered?.kind === 'special') {
      const rewritten = this.rewrite(e, registered.def);
      if ('eval' in rewritten) return rewritten;
    }
    // `a & b`, `a | b`, `a ^ b`, `~a`: calls the builder names by their operator, which no SQL call can be named.
    if (BITWISE_OPERATORS.has(e.name)) return this.bitwise(e, e.args.map((a) => this.compile(a)));
    const coll = registered?.kind === 'collection' ? registered.def : undefined;
    const def = registered?.kind === 'scalar' ? registered.def : undefined;
    if (coll) return this.collectionCall(e, coll);
    if (e.name === 'window') throw windowNotComputedHere(e);
    if (!def) {
      // A window function without OVER: Spark resolves the function and refuses the missing window.
      if (WINDOW_ONLY.has(e.name)) {
        throw new SqlValidationError(`[WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE] Window function "${exprToString(e)}" requires an OVER clause: write ${e.name}(…) OVER (PARTITION BY … ORDER BY …)`, e.pos, `${e.name}()`, 'WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE');
      }
      throw unresolvedRoutine(e);
    }
    if (def.ofArrays) {
      const args = e.args.map((a) => this.compile(a));
      if (args.some((a) => a.type === 'array')) return this.collectionCall(e, def.ofArrays, args);
    }
    if (e.args.length < def.min || e.args.length > def.max) {
      const n = def.min === def.max ? `${def.min}` : `${def.min} to ${def.max}`;
      this.fail(e, `${e.name}() takes ${n} argument(s), got ${e.args.length}`, WRONG_NUM_ARGS);
    }
    // `a div b`: Spark's IntegralDivide operator (the builder names it as a call).
    if (e.name === 'div') return this.integralDivide(e);
    const rewritten = this.rewrite(e, def);
    if ('eval' in rewritten) return rewritten;
    e = rewritten;
    let args = e.args.map((a) => this.compile(a));
    if (def.inputTypes) {
      const to = def.inputTypes(args);
      // Written on the call as the plan holds it (an argument a replacement rewrote is not the plan's).
      args = args.map((a, i) => (to[i] ? this.castOperand(e.args[i] === call.args[i] ? call : e, e.args[i], a, to[i]) : a));
    }
    const typed = def.typed?.(e, args);
    if (typed) return typed;
    // The arguments as compiled, before the conversions below (a decimal read as a double, a date as its midnight).
    const written = args;
    // The arguments whose value is the result (def.valueArgs), by index; none for other functions.
    const valueIdx = def.valueArgs === undefined ? [] : def.valueArgs === 'all' ? args.map((_, i) => i) : def.valueArgs.filter((i) => i < args.length);
    // Spark casts a VARIANT implicitly to no type: only a function that takes one, or passes its
    // value through (coalesce, if), reads it; concat(v) is refused, not v's object text.
    const variantArg = args.findIndex((a, i) => holdsVariant(a) && !valueIdx.includes(i));
    if (variantArg >= 0 && !def.takesVariant) {
      this.mismatch(e, 'UNEXPECTED_INPUT_TYPE', `the parameter ${variantArg + 1} of ${e.name} does not take the "${typeText(args[variantArg])}" type.`, `Read a value from it first: variant_get(v, '$.path', 'type'), CAST(v AS STRING) or to_json(v)`);
    }
    const valuesOf = () => valueIdx.map((i) => args[i]);
    // The value arguments unified to one type (unifyAll), each replaced by its value as that type.
    const unifyValues = (stringPromotion: boolean) => {
      const u = unifyAll(valuesOf(), valueIdx.map((i) => e.args[i]), false, stringPromotion);
      return u && { u, args: args.map((a, i) => (valueIdx.includes(i) ? u.values[valueIdx.indexOf(i)] : a)) };
    };
    // coalesce, nvl, if… of arrays, maps or structs: of the type they widen to (findWiderTypeForTwo).
    if (valuesOf().some((a) => isComplex(a.type))) {
      const unified = unifyValues(true);
      if (!unified) this.fail(e, `${e.name}() arguments have incompatible types: ${valuesOf().map((a) => typeText(a)).join(', ')}`);
      const type = unifiedType(unified.u);
      if (def.ordersValues) checkForOrderingExpr(e, type, e.name);
      // Written into the plan as Spark's analyzed plan shows it: `coalesce(cast(a as array<bigint>), b)`.
      for (const i of valueIdx) this.implicitCast(e, e.args[i], type);
      const [impl, values, types] = [def.impl, unified.args, unified.args.map((a) => a.type)];
      return compiled(type, () => { const evals = values.map((a) => a.eval); return (r, c) => impl(evals.map((f) => f(r, c)), c, types); });
    }
    // A function that passes a value through has a TIMESTAMP_NTZ among NTZs, DATEs and NULLs
    // (before a DATE is taken as its midnight below).
    const ntz = widensToNTZ(valuesOf());
    // coalesce, if, nvl…: a string among the values makes them all STRINGs (their text).
    if (def.stringPromotion && valueIdx.length > 0) {
      const unified = unifyValues(true);
      if (unified?.u.type === 'string') args = unified.args;
    }
    // concat and concat_ws take strings (or binaries, or arrays): Spark's ImplicitTypeCasts casts
    // every other atomic argument to a STRING, as CAST writes it (`concat('x', 2.0D)` is x2.0, a
    // timestamp its `yyyy-MM-dd HH:mm:ss` text, an interval `INTERVAL '1' DAY`).
    if (def.textArgs) {
      args = args.map((a, i) => {
        // A CalendarInterval is no atomic type: left for the function's type check to refuse.
        if (a.type === 'string' || a.type === 'binary' || a.type === 'null' || a.type === 'calendar_interval' || isComplex(a.type)) return a;
        this.implicitCast(e, e.args[i], { type: 'string' });
        return convert(a, 'string');
      });
    }
    // Spark casts a number to a STRING where these take one (contains(123, 2), luhn_check(79927398713)).
    if (def.numbersAsText) args = args.map((a) => (isNumeric(a.type) || a.type === 'decimal' ? convert(a, 'string') : a));
    let resultDecimal: DecimalType | undefined;
    if (args.some((a) => a.type === 'decimal')) {
      if (valueIdx.length > 0) {
        // Functions that pass a value through: every value argument at one decimal type.
        const unified = unifyValues(false);
        if (unified?.u.type === 'decimal') {
          resultDecimal = unified.u.decimal;
          args = unified.args;
        }
      }
      // Any other function takes a decimal as a double (concat and concat_ws as its text; a
      // function that prints numbers by a format as its exact text, still typed decimal).
      const as = def.textArgs ? 'string' : 'double';
      args = args.map((a) => (a.type !== 'decimal' || resultDecimal ? a : def.decimalAsText ? retyped(convert(a, 'string'), { type: 'decimal' }) : convert(a, as)));
    }
    if (args.some((a) => a.type === 'date')) {
      // concat takes a date as its yyyy-MM-dd text; a function that does not take a date takes
      // its midnight, as Spark casts a date to the timestamp a function expects.
      const text = def.textArgs === true;
      if (text || !RESULT_TYPES.includes(def.type(args.map((a) => a.type)))) args = args.map((a) => (a.type === 'date' ? convert(a, text ? 'string' : 'timestamp') : a));
      // coalesce, if, nvl… of a DATE and a TIMESTAMP: a TIMESTAMP, the date its midnight (Spark's
      // findTightestCommonType widens DATE to TIMESTAMP).
      else if (valueIdx.some((i) => args[i].type === 'timestamp')) {
        args = args.map((a, i) => {
          if (a.type !== 'date' || !valueIdx.includes(i)) return a;
          this.implicitCast(e, e.args[i], { type: 'timestamp', ...(ntz ? { ntz: true as const } : {}) });
          return retyped(convert(a, 'timestamp'), { type: 'timestamp', ...(ntz ? { ntz: true as const } : {}) });
        });
      }
    }
    // A function that takes its numbers as doubles gets a BIGINT past 2^53 as the nearest double,
    // not a bigint it cannot mix with numbers; one that passes a value through keeps it exact.
    const exactLongs = def.exactLongs === true || def.valueArgs !== undefined;
    if (!exactLongs) args = args.map((a) => (a.type === 'long' ? longAsNumber(a) : a));
    let types = args.map((a) => a.type);
    const literals = e.args.map((a) => (a.kind === 'literal' ? a.value : undefined));
    let type = def.type(types, literals);
    if (!RESULT_TYPES.includes(type) && types.includes('string')) {
      // Spark's ImplicitTypeCasts: a string where the function takes a timestamp, a date or a
      // number is cast to one (NULL when it does not parse): date_trunc('YEAR', '2015-03-05T09:32:05').
      // Not a value a function passes through: greatest(1, '2') and greatest('1', TIMESTAMP'…')
      // are refused, as Spark's findWiderTypeWithoutStringPromotion finds no type for them.
      const coerced = implicitStringCasts(types, (t) => def.type(t, literals), def.valueArgs === undefined, valueIdx);
      if (coerced) {
        args = args.map((a, i) => (coerced[i] === a.type ? a : convert(a, coerced[i])));
        types = coerced;
        type = def.type(types, literals);
      }
    }
    if (!RESULT_TYPES.includes(type) && def.valueArgs === undefined && (registered?.group === 'string' || def.stringInputs)) {
      // Spark's ImplicitTypeCasts the other way: an atomic value where a string function takes a
      // STRING is cast to one, as CAST writes it (upper(1) is '1', length(123) 3, lpad(7, 3, '0')
      // '007'); the cast is written in the plan. Only the string functions: elsewhere a string
      // stands for a date or a number, which an INT would then pass for (month(123)).
      const asText = atomicAsStrings(written.map((a) => a.type), types, (t) => RESULT_TYPES.includes(def.type(t, literals)));
      if (asText) {
        args = args.map((a, i) => {
          if (asText[i] !== 'string' || types[i] === 'string') return a;
          this.implicitCast(e, e.args[i], { type: 'string' });
          return convert(written[i], 'string');
        });
        types = asText;
        type = def.type(types, literals);
      }
    }
    if (def.unifiedType) type = def.unifiedType(types);
    if (!RESULT_TYPES.includes(type)) this.fail(e, `${e.name}() ${type}`);
    if (def.ordersValues) checkForOrderingExpr(e, { type: type as SqlType }, e.name);
    const dec: Partial<TypeInfo> = type === 'decimal' ? { decimal: resultDecimal ?? def.resultDecimal?.(literals) } : {};
    // A function that passes a value through has the widest integer type of its values.
    const longs = type !== 'long' ? [] : valuesOf().filter((a) => a.type === 'long');
    const bits = longs.length > 0 ? longs.slice(1).reduce((w, a) => widerWidth(w, a.integral), longs[0].integral) : undefined;
    if (bits) Object.assign(dec, { integral: bits });
    const resultBits = typeof def.resultIntegral === 'function' ? def.resultIntegral(types, literals) : def.resultIntegral;
    if (type === 'long' && resultBits) Object.assign(dec, { integral: resultBits });
    // …and a FLOAT among FLOATs and integers is a FLOAT (each integer rounded to one); an integer
    // beside a DOUBLE is read as a DOUBLE (a BIGINT past 2^53 its nearest double), as Spark casts it.
    if (type === 'double' && valueIdx.length > 0) {
      const float = widensToFloat(valuesOf());
      args = args.map((a, i) => (!valueIdx.includes(i) ? a : float ? asFloat(a) : a.type === 'long' ? convert(a, 'double') : a));
      if (float) Object.assign(dec, { float32: true });
    }
    // …and intervals the fields that hold them all (Spark's findWiderTypeForTwo: coalesce of an
    // INTERVAL DAY and an INTERVAL HOUR is an INTERVAL DAY TO HOUR; the values, microseconds or
    // months, are the same in either).
    const intervals = isInterval(type as ExprType) ? valuesOf().filter((a) => a.type === type) : [];
    if (intervals.length > 0) Object.assign(dec, { interval: widestFields(type as IntervalKind, intervals) });
    const ntzArg = def.ntzOfArg !== undefined && args[def.ntzOfArg]?.ntz === true;
    if (type === 'timestamp' && (ntz || ntzArg || def.resultNTZ)) Object.assign(dec, { ntz: true });
    const badLiterals = def.checkLiterals?.(literals);
    if (badLiterals) this.fail(e, badLiterals);
    this.argumentCasts(call, e, args, valueIdx, type === 'long' ? { type: 'long', ...(bits ? { integral: bits } : {}) } : undefined);
    const nullIntolerant = def.nullIntolerant !== false;
    const impl = exactLongs || type !== 'long' ? def.impl : longResult(def.impl);
    const result = { type: type as ExprType, ...dec } as TypeInfo;
    const finalArgs = args;
    if (args.length === 1 && nullIntolerant) {
      return compiled(result, () => {
        const a0 = finalArgs[0].eval;
        return (row, c) => {
          const v = a0(row, c);
          return v === null ? null : impl([v], c, types);
        };
      });
    }
    return compiled(result, () => {
      const evals = finalArgs.map((a) => a.eval);
      return (row, c) => {
        const vs = evals.map((f) => f(row, c));
        if (nullIntolerant && vs.some((v) => v === null)) return null;
        return impl(vs, c, types);
      };
    });
  }
}

const BITWISE_OPERATORS = new Set(['&', '|', '^', '~']);

/** The types `||` casts to a STRING, as a Cast gives their text (CAST(… AS STRING)). */
const TEXT_CASTS: ReadonlySet<ExprType> = new Set(['long', 'double', 'decimal', 'boolean', 'date', 'timestamp', 'binary', 'null']);

/**
 * A BIGINT as Spark types it: a BIGINT literal, or a CAST to BIGINT the query wrote (Weir's
 * columns are all BIGINT, so not those; an implicit cast the analysis wrote is not the query's).
 */
function writtenAsBigint(e: Expr): boolean {
  if (e.kind === 'literal') return e.bigint === true;
  return e.kind === 'cast' && !e.implicit && e.to === 'long' && e.integral === undefined;
}

/**
 * The argument types with the fewest of the arguments at `positions` (at most three) read as one
 * of `to` that the function `accepts` (Spark's ImplicitTypeCasts, which casts an argument to
 * the type the function takes); undefined when none does, or there are too many to try.
 */
function fewestCasts(types: ExprType[], positions: number[], to: readonly ExprType[], accepts: (t: ExprType[]) => boolean): ExprType[] | undefined {
  if (positions.length > 3) return undefined;
  // Each position stays as it is (0), or is read as to[k - 1].
  const base = to.length + 1;
  const choices: number[][] = [];
  for (let n = 1; n < base ** positions.length; n++) choices.push(positions.map((_, k) => Math.floor(n / base ** k) % base));
  choices.sort((a, b) => a.filter((c) => c > 0).length - b.filter((c) => c > 0).length);
  for (const c of choices) {
    const tried = [...types];
    positions.forEach((at, k) => { if (c[k] > 0) tried[at] = to[c[k] - 1]; });
    if (accepts(tried)) return tried;
  }
  return undefined;
}

/**
 * Strings read as timestamps, dates or doubles where the function takes one (`sqrt('4')`,
 * `date_trunc('YEAR', '2015-03-05T09:32:05')`); `numbers`: a DOUBLE is one of the choices. A
 * value the function passes through (at `values`) is never cast from a string.
 */
function implicitStringCasts(types: ExprType[], typeOf: (t: ExprType[]) => ExprType | string, numbers: boolean, values: readonly number[]): ExprType[] | undefined {
  const strings = types.flatMap((t, i) => (t === 'string' && !values.includes(i) ? [i] : []));
  return fewestCasts(types, strings, ['timestamp', 'date', ...(numbers ? ['double' as const] : [])], (t) => RESULT_TYPES.includes(typeOf(t)));
}

/**
 * The atomic types Spark's ImplicitTypeCasts casts to a STRING where a function takes one (any
 * AtomicType: a BINARY as its UTF-8 text, `upper(encode('ab', 'utf-8'))`, `btrim(X'20…')`).
 */
const TO_STRING: ReadonlySet<ExprType> = new Set(['long', 'double', 'decimal', 'date', 'timestamp', 'boolean', 'binary', 'day_time_interval', 'year_month_interval']);

/**
 * Atomic non-string arguments (their types as `written`) read as STRINGs where the function
 * takes one; `types` are the arguments' types as the compiler reads them so far.
 */
function atomicAsStrings(written: ExprType[], types: ExprType[], accepts: (t: ExprType[]) => boolean): ExprType[] | undefined {
  return fewestCasts(types, written.flatMap((t, i) => (TO_STRING.has(t) ? [i] : [])), ['string'], accepts);
}

/** Dates read as their text where the function takes a STRING (array_join(a, DATE'…')). */
function dateAsStrings(types: ExprType[], accepts: (t: ExprType[]) => boolean): ExprType[] | undefined {
  return fewestCasts(types, types.flatMap((t, i) => (t === 'date' ? [i] : [])), ['string'], accepts);
}

/** A BIGINT argument with a bigint (past 2^53) read as the nearest double. */
function longAsNumber(c: CompiledExpr): CompiledExpr {
  return compiled(typeOfCompiled(c), () => { const get = c.eval; return (r, x) => { const v = get(r, x); return typeof v === 'bigint' ? Number(v) : v; }; });
}

/** A function computing a BIGINT in doubles: a whole result past 2^53 in the BIGINT's own form. */
function longResult(impl: FunctionDef['impl']): FunctionDef['impl'] {
  return (args, c, types) => {
    const v = impl(args, c, types);
    return typeof v === 'number' && !Number.isSafeInteger(v) && Number.isInteger(v) ? toLong(BigInt(v)) : v;
  };
}

function and(l: unknown, r: () => unknown): boolean | null {
  if (l === false) return false;
  const rv = r();
  if (rv === false) return false;
  return l === null || rv === null ? null : true;
}

/**
 * Spark's UNRESOLVED_ROUTINE, and Weir's sentence: the functions it has whose names are closest
 * to the one written (a typo: `cnt` → count), scalar and aggregate alike.
 */
function unresolvedRoutine(e: Extract<Expr, { kind: 'call' }>): SqlValidationError {
  const chars = (s: string) => [...s];
  const name = e.name.toLowerCase();
  const spells = (f: string) => { let i = 0; for (const ch of f) if (ch === name[i]) i++; return i === name.length; };
  const rank = (f: string, d: number) => (spells(f) ? d - 1.5 : d);
  const close = sqlFunctionCatalog()
    .map((f) => ({ f: f.name, d: levenshtein(chars(f.name), chars(name)) }))
    .filter((x) => x.d <= Math.max(2, Math.floor(name.length / 3)))
    // A name its letters spell in order (`cnt` in count) ranks as if one edit closer.
    .sort((a, b) => rank(a.f, a.d) - rank(b.f, b.d) || a.f.localeCompare(b.f))
    .slice(0, 5)
    .map((x) => `${x.f}()`);
  return new SqlValidationError(
    `${cannotResolveRoutine(e.name)} ` +
      `Weir has no function ${e.name}()${close.length ? `; did you mean ${close.join(', ')}?` : '.'} The functions it has are listed in docs/sql.md and offered by the editor's completion.`,
    e.pos, `${e.name}()`, 'UNRESOLVED_ROUTINE',
  );
}

/**
 * Spark's UNRESOLVED_COLUMN.WITH_SUGGESTION text (the class is the error's): up to five of the input's columns, closest
 * first by edit distance (StringUtils.orderSuggestedIdentifiersBySimilarity).
 */
export function unresolvedColumn(name: string, columns: readonly string[]): string {
  const chars = (s: string) => [...s];
  const proposal = columns
    .map((c, i) => ({ c, i, d: levenshtein(chars(c), chars(name)) }))
    .sort((a, b) => a.d - b.d || a.i - b.i)
    .slice(0, 5)
    .map((x) => `\`${x.c.replace(/`/g, '``')}\``);
  return `A column, variable, or function parameter with name \`${name.replace(/`/g, '``')}\` cannot be resolved. Did you mean one of the following? [${proposal.join(', ')}].`;
}
