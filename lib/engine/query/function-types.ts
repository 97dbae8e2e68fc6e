/**
 * The shapes of a function definition, shared by every function file: kept apart from the files
 * that hold the functions so that no function file imports another for its types.
 */
import type { TypeInfo } from './data-types';
import type { DecimalType } from './decimal';
import type { Expr } from './expression';
import type { IntegralBits } from './long';
import type { ExprType } from './sql-values';
import type { Field, Row } from '../types';

export type CallExpr = Extract<Expr, { kind: 'call' }>;

/** What a function's own analysis step uses of the expression compiler. */
export interface CallCompiler {
  compile(e: Expr): CompiledExpr;
  fail(e: Expr, msg: string, errorClass?: string): never;
  /** Spark's DATATYPE_MISMATCH.<subclass>. */
  mismatch(e: Expr, subclass: string, detail: string, todo: string): never;
  /**
   * The operands of the comparison `left op right`, read as one type as the operator `op` reads
   * them (casts recorded on `e`), and the test of two non-NULL values.
   */
  comparison(e: Expr, left: Expr, right: Expr, op: string): { l: CompiledExpr; r: CompiledExpr; test: (a: unknown, b: unknown) => boolean };
}

/**
 * How a function is analysed where it is not a plain evaluation of its arguments, kept beside
 * the function so that the compiler holds no function's name. Both run after the arity check.
 */
export interface CallRewrite {
  /**
   * Spark's RuntimeReplaceable: the expression the call stands for, compiled in its place
   * (to_timestamp(x) is CAST(x AS TIMESTAMP), mod(a, b) is a % b); undefined: the call as it is.
   * A call to the function itself is the call with its arguments rewritten (a unit lower-cased),
   * compiled by its definition. Builds a new expression: the call given is never changed. `c`
   * fails the call, or tells an argument's type.
   */
  replacement?(call: CallExpr, c: CallCompiler): Expr | undefined;
  /**
   * The call compiled by the function itself, where its type comes from a literal (from_json's
   * schema) or from its arguments' full types (typeof); undefined: compiled as any other call.
   */
  compile?(call: CallExpr, c: CallCompiler): CompiledExpr | undefined;
}

/** A call the compiler builds itself (array(), like(), the cast functions, …), with its arity. */
export interface SpecialFormDef extends CallRewrite {
  min: number;
  max: number;
}

export interface FunctionDef extends CallRewrite {
  min: number;
  max: number;
  /**
   * Result type, or an error message about the argument types; `literals` holds each argument's
   * value when it is a literal (date_part('second', …) is a DECIMAL, other fields a BIGINT).
   */
  type(args: ExprType[], literals?: unknown[]): ExprType | string;
  /** A DECIMAL argument comes as its exact text (typed 'decimal'), not as a double: format_number, to_char. */
  decimalAsText?: boolean;
  /** A `decimal` result's precision and scale, from the literal arguments (to_number's format). */
  resultDecimal?(literals: unknown[]): DecimalType;
  /**
   * Takes a BIGINT as its exact value, a bigint past 2^53 (query/long.ts); without it such an
   * argument comes as the nearest double, and a whole result past 2^53 is made a BIGINT's value.
   */
  exactLongs?: boolean;
  /** NULL argument → NULL result, checked before `impl` runs (default true). */
  nullIntolerant?: boolean;
  /** Takes a VARIANT argument as it is (the variant functions); no other function reads one. */
  takesVariant?: true;
  /** A TIMESTAMP result is a TIMESTAMP_NTZ (to_timestamp_ntz, make_timestamp_ntz). */
  resultNTZ?: boolean;
  /** A TIMESTAMP result is a TIMESTAMP_NTZ when this argument is one (Spark's TimestampAdd keeps its timestamp's type). */
  ntzOfArg?: number;
  /**
   * A BIGINT result is an INT (32), SMALLINT or TINYINT, as Spark types it (bit_count, length,
   * hour); a function of the arguments' types and literals where the width depends on them
   * (EXTRACT(MONTH FROM <interval>) is a TINYINT, EXTRACT(MONTH FROM <date>) an INT).
   */
  resultIntegral?: IntegralBits | ((args: ExprType[], literals: unknown[]) => IntegralBits | undefined);
  /**
   * The arguments whose value is the result (coalesce: all; if: 1 and 2): they share one
   * decimal, integer, FLOAT or TIMESTAMP_NTZ type, and a BIGINT among them stays exact.
   */
  valueArgs?: 'all' | number[];
  /**
   * A string among the values makes them all STRINGs (Spark's findWiderCommonType, which
   * coalesce and if widen by; greatest and least do not): `coalesce(1, 'a')` is a STRING.
   */
  stringPromotion?: true;
  /**
   * Compares its values (greatest, least): Spark's checkInputDataTypes runs checkForOrderingExpr
   * on the type they unify to, so a map, a CalendarInterval, or an array or struct holding one is
   * refused (DATATYPE_MISMATCH.INVALID_ORDERING_TYPE).
   */
  ordersValues?: true;
  /** The first non-NULL of its arguments: of arrays, maps or structs too, of their one type (coalesce, nvl). */
  coalescing?: boolean;
  /**
   * The result type from the argument types as finally converted (coalesce: the type they unify
   * to); `type` then only accepts them, so that no argument is converted for it.
   */
  unifiedType?(types: ExprType[]): ExprType | string;
  /** Takes each argument as its text: a FLOAT as Java prints it, a DECIMAL's exact digits, a DATE as yyyy-MM-dd (concat). */
  textArgs?: boolean;
  /** Spark casts a number to a STRING where this takes one (contains(123, 2), luhn_check(79927398713)). */
  numbersAsText?: boolean;
  /**
   * Spark types it ImplicitCastInputTypes of STRINGs: an atomic argument (a number, a date, a
   * boolean …) is cast to a STRING, as CAST writes it (url_encode(123) is '123'). The string
   * group's functions all are, without saying so.
   */
  stringInputs?: boolean;
  /** Its form over arrays, compiled where an argument is one (concat of arrays, reverse of an array). */
  ofArrays?: CollectionFunctionDef;
  /**
   * Spark's ImplicitCastInputTypes: the type each argument is cast to before the function reads
   * it (undefined: as it is), a cast the analysis writes into the plan (`shiftleft(cast(b as int), 1)`).
   */
  inputTypes?(args: CompiledExpr[]): (TypeInfo | undefined)[];
  /**
   * Its own result for these compiled arguments where Spark types it by them (abs of an INT is an
   * INT, round of a DECIMAL a DECIMAL); undefined: `type` and `impl` of the arguments as usual.
   */
  typed?(call: CallExpr, args: CompiledExpr[]): CompiledExpr | undefined;
  /** Its second argument, a number of days, is an INT to Spark: a BIGINT written there is a type mismatch (date_add). */
  intDays?: boolean;
  impl(args: unknown[], ctx: EvalContext, argTypes: ExprType[]): unknown;
  /**
   * Checked at validation with each argument's value when it is a literal (`undefined` when it
   * is not): a message when those literals make every non-NULL result an error.
   */
  checkLiterals?(literals: unknown[]): string | undefined;
}

export interface CollectionFunctionDef {
  min: number;
  max: number;
  /**
   * Result type from the arguments' full types, or a message about them; `names` holds each
   * argument's column name ('' for another expression), as arrays_zip names its fields.
   */
  type(args: TypeInfo[], names?: string[]): TypeInfo | string;
  /** NULL argument → NULL result, checked before `impl` runs (default true). */
  nullIntolerant?: boolean;
  impl(args: unknown[], types: TypeInfo[], result: TypeInfo): unknown;
  /** Its second argument is converted to the array's element type, so that equal values compare equal (array_contains). */
  valueAsElement?: boolean;
  /**
   * Spark types it ImplicitCastInputTypes of STRINGs: an atomic argument (a number, a date, a
   * boolean …) is cast to a STRING, as CAST writes it (url_encode(123) is '123'). The string
   * group's functions all are, without saying so.
   */
  stringInputs?: boolean;
  /**
   * Its arguments of other types are cast to their wider common type first (Spark's
   * FunctionArgumentConversion for map_concat: findWiderCommonType, a STRING beside a number
   * widening to a STRING).
   */
  widenArgs?: boolean;
  /** At validation, with each argument's value when it is a literal: a message when those make every result an error. */
  checkLiterals?(literals: unknown[]): string | undefined;
}

/** What an expression is evaluated with, beside its row. */
export interface EvalContext {
  /** offsets/N's batchTimestampMs: what current_timestamp() returns, stable on a re-run. */
  batchTimestampMs: number;
  /**
   * Whom the query runs as: what current_user(), user() and session_user() return (Spark's
   * session user). Unset: DEFAULT_CURRENT_USER.
   */
  currentUser?: string;
  /**
   * The partition a task evaluates (Spark's partitionIndex, which its Nondeterministic
   * expressions are initialized with: rand(seed) draws from seed + partitionIndex): a map task's
   * split, a reduce task's partition. Unset: 0, a batch evaluated in one piece.
   */
  partitionIndex?: number;
}

/** current_user() of a query given no user (a preview, a test, an engine embedded without one). */
export const DEFAULT_CURRENT_USER = 'weir';

export type Evaluator = (row: Row, ctx: EvalContext) => unknown;

export interface CompiledExpr extends TypeInfo {
  eval: Evaluator;
}

/**
 * How an aggregate folds a value in (AggregateFunction.op): aggregate-functions.ts numbers its
 * own below 100, statistical-aggregates.ts from 100, collect-aggregates.ts from 200.
 */
export type AggregateOp = number;

/** An aggregate's buffer: a number, or an object `update` changes in place. */
type AggBuffer = unknown;

export interface AggregateFunction {
  readonly name: string;
  readonly resultType: Exclude<Field['type'], 'window' | 'unknown'>;
  /** The precision and scale of a `decimal` result (spread into the output Field). */
  readonly resultDecimal?: DecimalType;
  /**
   * A struct, array or map result's fields, element, key and value types (spread into the output
   * Field); `void` on a result of NULLs (an aggregate that returns its VOID argument's values).
   */
  readonly resultShape?: Pick<Field, 'fields' | 'elementType' | 'keyType' | 'valueType' | 'integral' | 'float32' | 'ntz' | 'interval' | 'void'>;
  /**
   * Which of the call's arguments are read per row (default: the first, if any; the others are
   * literals), and how their values make the one value `update` folds in (default: the
   * argument's value as it is).
   */
  readonly inputs?: readonly number[];
  readonly prepare?: (...values: unknown[]) => unknown;
  /** How `update` folds a value in. */
  readonly op: AggregateOp;
  init(): AggBuffer;
  result(buffer: AggBuffer): unknown;
}
