/**
 * Spark's generators in a SELECT list: explode, posexplode, inline and their _outer forms, and
 * stack, each planned as a Generate node (logical-plan.ts, operators/generate-exec.ts), never
 * called as a function. Their output columns are Spark's: `col` for an array's element, `key`
 * and `value` for a map's entry, `pos` (0-based) first for posexplode, an array of structs'
 * fields for inline, `col0`, `col1`, … for stack; a one-column generator may be aliased (the
 * planner renames it).
 */
import { RecordExpressionError } from '../errors';
import type { Field, Row } from '../types';
import type { Variant } from './variant';
import { fieldOfType, sameType, typeText, type TypeInfo } from './data-types';
import { exprChildren, exprToString, type Expr } from './expression';
import { toLong, type Long } from './long';
import { isNondeterministicFunction } from './random-functions';
import { castValue } from './sql-values';
import { MAX_ARRAY_ELEMENTS } from './value-limits';

export const GENERATORS: ReadonlySet<string> = new Set(['explode', 'explode_outer', 'posexplode', 'posexplode_outer', 'inline', 'inline_outer', 'stack', 'variant_explode', 'variant_explode_outer']);

/**
 * The functions a query may call in FROM (Spark's table-valued functions): range, Spark's Range
 * (a generator only there), the generators, and json_tuple.
 */
export const TABLE_FUNCTIONS: ReadonlySet<string> = new Set(['range', ...GENERATORS, 'json_tuple']);

/** Why a generator's arguments are refused, with Spark's error class. */
export interface GeneratorRefusal {
  message: string;
  errorClass?: string;
}

const refusal = (message: string, errorClass: string): GeneratorRefusal => ({ message: `${message} (${errorClass})`, errorClass });

/**
 * stack(n, …)'s row count n: Spark requires a foldable INT, which Weir reads when it is a literal
 * (the planner folds a constant one to it, foldStackRows, or a negated one, to refuse it as Spark
 * does); a message otherwise.
 */
export function stackRows(n: Expr, type: TypeInfo): number | GeneratorRefusal {
  if (type.type !== 'long' || type.integral !== 32) return refusal(`stack()'s first argument must be an INT, got ${typeText(type)}`, 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
  const reads = (e: Expr): boolean => e.kind === 'column' || e.kind === 'lambdaVariable' || e.kind === 'outerReference' || exprChildren(e).some(reads);
  if (reads(n)) return refusal("stack()'s first argument (the number of rows) must be a constant", 'DATATYPE_MISMATCH.NON_FOLDABLE_INPUT');
  const value = n.kind === 'literal' ? n.value : n.kind === 'unary' && n.op === '-' && n.arg.kind === 'literal' ? -(n.arg.value as number) : undefined;
  if (typeof value !== 'number') return { message: "stack()'s number of rows must be an integer literal" };
  if (value < 1) return refusal(`stack()'s number of rows must be in (0, 2147483647], got ${value}`, 'DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE');
  return value;
}

/**
 * Spark's Stack: n rows of ceil(k / n) columns from k values, row by row, the last padded with
 * NULLs. Each column's type is its first value's that is not NULL (Spark's findDataType: VOID,
 * a NULL's, when all are), and its other values must have it too (a NULL may stand anywhere).
 */
function stackOutput(args: readonly Expr[], types: readonly TypeInfo[]): Field[] | GeneratorRefusal {
  if (args.length < 2) return refusal(`stack() takes (n, expr1, …), got ${args.length} argument${args.length === 1 ? '' : 's'}`, 'WRONG_NUM_ARGS.WITHOUT_SUGGESTION');
  const rows = stackRows(args[0], types[0]);
  if (typeof rows !== 'number') return rows;
  const values = types.slice(1);
  const width = Math.ceil(values.length / rows);
  const fields: Field[] = [];
  for (let c = 0; c < width; c++) {
    let first: number | undefined;
    for (let i = c; i < values.length; i += width) {
      if (values[i].type === 'null') continue;
      if (first === undefined) first = i;
      else if (!sameType(values[first], values[i])) {
        return refusal(`The data type of the column (${c}) do not have the same type: ${typeText(values[first])} (${first + 1}) <> ${typeText(values[i])} (${i + 1})`, 'DATATYPE_MISMATCH.STACK_COLUMN_DIFF_TYPES');
      }
    }
    fields.push(fieldOfType(`col${c}`, first === undefined ? { type: 'null' } : values[first]));
  }
  return fields.map((f) => ({ ...f, nullable: true }));
}

/**
 * The generated columns of `name(args)` over arguments of types `types` (stack reads its first
 * argument's value), or a message.
 */
export function generatorOutput(name: string, args: readonly Expr[], types: readonly TypeInfo[]): Field[] | GeneratorRefusal {
  if (name === 'stack') return stackOutput(args, types);
  if (name === 'range') return rangeOutput(args, types);
  if (args.length !== 1) return refusal(`${name}() takes one argument (an array or a map), got ${args.length}`, 'WRONG_NUM_ARGS.WITHOUT_SUGGESTION');
  const arg = types[0];
  if (name.startsWith('variant_explode')) {
    // Spark's VariantExplode: struct<pos int, key string, value variant>, a row per field or element.
    if (arg.type !== 'variant' && arg.type !== 'null') return refusal(`${name}() takes a VARIANT, got ${typeText(arg)}`, 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
    return VARIANT_EXPLODE_FIELDS;
  }
  if (name.startsWith('inline')) {
    // Spark's Inline: each element of an array of structs is a row of the struct's fields.
    if (arg.type !== 'array' || arg.elementType?.type !== 'struct') return refusal(`${name}() takes an array of structs, got ${typeText(arg)}`, 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
    return (arg.elementType.fields ?? []).map((f) => ({ ...f, nullable: true }));
  }
  const position = name.startsWith('pos');
  let fields: Field[];
  if (arg.type === 'array') fields = [{ ...arg.elementType!, name: 'col', nullable: true }];
  else if (arg.type === 'map') fields = [{ ...arg.keyType!, name: 'key' }, { ...arg.valueType!, name: 'value', nullable: true }];
  // A NULL of no type (Spark's VOID) too: Explode's checkInputDataTypes takes only an array or a map.
  else return refusal(`${name}() takes an array or a map, got ${arg.type === 'null' ? 'VOID' : typeText(arg)}`, 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
  // Spark's PosExplode: the position an INT.
  if (position) fields = [{ name: 'pos', type: 'long', integral: 32, nullable: name.endsWith('_outer') }, ...fields];
  return fields;
}

const VARIANT_EXPLODE_FIELDS: Field[] = [
  { name: 'pos', type: 'long', integral: 32, nullable: false },
  { name: 'key', type: 'string', nullable: true },
  { name: 'value', type: 'variant', nullable: false },
];

/**
 * Spark's VariantExplode of one value: an object's fields (`key` its name) or an array's elements
 * (`key` NULL), each with its position, as the rows inline reads; none for any other value.
 */
export function variantEntries(v: unknown): Row[] | null {
  if (v === null || v === undefined) return null;
  const x = v as Variant;
  if (x.t === 'object') return x.fields.map(([key, value], pos) => ({ pos, key, value }));
  if (x.t === 'array') return x.elements.map((value, pos) => ({ pos, key: null, value }));
  return [];
}

/** Range's parameters (Spark's Range constructors), each's 1-based index its paramIndex in Spark's errors. */
const RANGE_PARAMETERS = ['start', 'end', 'step', 'numSlices'] as const;

/** The parameter each of `n` written arguments is: `range(end)` is Spark's `this(end)`, range(0, end). */
const rangeParameters = (n: number) => (n === 1 ? (['end'] as const) : RANGE_PARAMETERS.slice(0, n));

/** Spark's toSQLType of an argument's type (NULL's is VOID). */
const sqlType = (t: TypeInfo) => (t.type === 'null' ? 'VOID' : typeText(t));

const RANGE_ADVICE = 'Give range() whole numbers: range(end), range(start, end), range(start, end, step) or range(start, end, step, numSlices)';

/**
 * Spark's UNEXPECTED_INPUT_TYPE of Range.castAndEval: an argument TypeCoercion does not cast to
 * the parameter's type, or one that is NULL.
 */
function rangeTypeMismatch(parameter: (typeof RANGE_PARAMETERS)[number], sql: string, type: string): GeneratorRefusal {
  const required = parameter === 'numSlices' ? 'INT' : 'BIGINT';
  return {
    message: `[UNEXPECTED_INPUT_TYPE] Parameter ${RANGE_PARAMETERS.indexOf(parameter) + 1} of function \`range\` requires the "${required}" type, however "${sql}" has the type "${type}". ${RANGE_ADVICE}.`,
    errorClass: 'UNEXPECTED_INPUT_TYPE',
  };
}

/** Spark's FAILED_FUNCTION_CALL of Range's `require(step != 0)`. */
const RANGE_STEP_ZERO: GeneratorRefusal = {
  message: "[FAILED_FUNCTION_CALL] Failed preparing of the function `range` for call. Please, double check function's arguments. (requirement failed: step (0) cannot be 0) Give range() a step other than 0.",
  errorClass: 'FAILED_FUNCTION_CALL',
};

/**
 * Whether Spark could fold the expression to a constant (Expression.foldable): it reads no
 * column, no lambda variable, no subquery, and calls no nondeterministic function.
 */
function foldable(e: Expr): boolean {
  if (e.kind === 'column' || e.kind === 'lambdaVariable' || e.kind === 'scalarSubquery' || e.kind === 'outerReference') return false;
  if (e.kind === 'call' && isNondeterministicFunction(e.name)) return false;
  return exprChildren(e).every(foldable);
}

/**
 * Spark's Range table function's arguments, checked as its constructors check them (Range.
 * castAndEval): one to four, each foldable (NON_FOLDABLE_ARGUMENT) and of a type TypeCoercion
 * (ANSI off) casts to BIGINT (numSlices: INT), a number or a string, else UNEXPECTED_INPUT_TYPE,
 * as for a NULL, whose value is NULL. A step written as a literal is checked here too
 * (FAILED_FUNCTION_CALL for 0); other values are only known where the range is generated
 * (rangeIds), which checks them there. Its one column: `id`, a BIGINT never NULL.
 */
function rangeOutput(args: readonly Expr[], types: readonly TypeInfo[]): Field[] | GeneratorRefusal {
  if (args.length < 1 || args.length > 4) {
    return {
      message: `[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The \`range\` requires [1, 2, 3, 4] parameters but the actual number is ${args.length}. ${RANGE_ADVICE}.`,
      errorClass: 'WRONG_NUM_ARGS.WITHOUT_SUGGESTION',
    };
  }
  const parameters = rangeParameters(args.length);
  for (const [i, a] of args.entries()) {
    const parameter = parameters[i];
    if (!foldable(a)) {
      return {
        message: `[NON_FOLDABLE_ARGUMENT] The function \`range\` requires the parameter \`${parameter}\` to be a foldable expression of the type "${parameter === 'numSlices' ? 'INT' : 'BIGINT'}", but the actual argument is a non-foldable. Write it as a constant: range() generates its rows before any row is read.`,
        errorClass: 'NON_FOLDABLE_ARGUMENT',
      };
    }
    const t = types[i];
    if (!['long', 'double', 'decimal', 'string'].includes(t.type)) return rangeTypeMismatch(parameter, exprToString(a), sqlType(t));
  }
  const step = args.length >= 3 ? args[2] : undefined;
  // A step written as a number: -x is 0 where x is.
  const literal = step?.kind === 'unary' && step.op === '-' ? step.arg : step;
  if (literal?.kind === 'literal' && literal.type !== 'null' && castValue(literal.value, literal.type, 'long', literal.decimal) === 0) return RANGE_STEP_ZERO;
  return [{ name: 'id', type: 'long', nullable: false }];
}

/**
 * The ids of Spark's Range (RangeExec) from its arguments' values, each cast to BIGINT (numSlices
 * to INT, and otherwise unused: Weir generates the range in one piece): start, start + step, …
 * while before end, as many as Range.numElements counts, exactly (a BIGINT near 2^63 too: every
 * id lies between start and end, so none overflows). A NULL value, a step of 0, or more rows than
 * MAX_ARRAY_ELEMENTS (the rows are held in memory, as an array a function builds) fails the run.
 */
export function rangeIds(values: readonly unknown[], args: readonly Expr[]): Long[] {
  const parameters = rangeParameters(values.length);
  const fail = (r: GeneratorRefusal) => new RecordExpressionError(r.message, { function: 'range', errorClass: r.errorClass });
  const nullAt = values.findIndex((v) => v === null || v === undefined);
  if (nullAt >= 0) throw fail(rangeTypeMismatch(parameters[nullAt], exprToString(args[nullAt]), 'VOID'));
  const at = (p: (typeof RANGE_PARAMETERS)[number], fallback: bigint) => {
    const i = parameters.indexOf(p as never);
    return i < 0 ? fallback : BigInt(values[i] as Long);
  };
  const start = at('start', 0n), end = at('end', 0n), step = at('step', 1n);
  if (step === 0n) throw fail(RANGE_STEP_ZERO);
  // Range.numElements: the span over the step, one more for a remainder of the span's sign.
  const span = end - start;
  let n = span / step;
  if (span % step !== 0n && end > start === step > 0n) n += 1n;
  if (n <= 0n) return [];
  if (n > BigInt(MAX_ARRAY_ELEMENTS)) {
    throw new RecordExpressionError(
      `range(${start}, ${end}, ${step}) has ${n.toLocaleString('en-US')} rows, over the limit of ${MAX_ARRAY_ELEMENTS.toLocaleString('en-US')} rows a range() generates: its rows are held in memory. Narrow the range, or read the rows from a static table.`,
      { function: 'range', rows: n.toString(), limit: MAX_ARRAY_ELEMENTS },
    );
  }
  const count = Number(n);
  const ids = new Array<Long>(count);
  const safe = (b: bigint) => b >= -BigInt(Number.MAX_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER);
  const last = start + (n - 1n) * step;
  if (safe(start) && safe(last) && safe(step)) {
    // Every id a safe integer: the common case, in numbers.
    for (let i = 0, v = Number(start), d = Number(step); i < count; i++, v += d) ids[i] = v;
  } else {
    for (let i = 0, v = start; i < count; i++, v += step) ids[i] = toLong(v);
  }
  return ids;
}
