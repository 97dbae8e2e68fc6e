/**
 * Spark's math functions (group math_funcs): abs, rounding, powers and logarithms, mod and
 * pmod, the shifts, greatest/least, trigonometry, hex/bin/conv, factorial, width_bucket and the
 * try_ arithmetic. Doubles follow Java's StrictMath, which JavaScript's
 * Math matches for these functions to the last bit or within one unit in the last place; EXP
 * and POW are StrictMath's to the last bit (strict-math.ts).
 *
 * The try_ functions give NULL where Spark's 64-bit BIGINT result would overflow, and are exact
 * within that range (query/long.ts). With a DECIMAL argument the try_ functions are the
 * decimal operators (expression-compiler.ts), which give NULL when the result does not fit.
 */
import { RecordExpressionError } from '../errors';
import { isStr, nums, unified } from './function-args';
import type { CompiledExpr, FunctionDef } from './function-types';
import { compiled, retyped, typeOfCompiled } from './compiled-expr';
import { isNumeric } from './sql-values';
import { bigOf, LONG_MAX, LONG_MIN, longFromDouble, narrowArithmeticOrNull, toLong, wrapToWidth, type IntegralBits, type Long } from './long';
import { decimalOperand, integralWidth, typeText, widensToFloat, type TypeInfo } from './data-types';
import { nullSafeBinary, nullSafeUnary } from './datetime-arithmetic';
import { arithmetic, bounded, decimalFromDouble, decimalFromLong, LONG_DECIMAL, pow10, rescale, resultType, type DecimalType } from './decimal';
import { asFloat } from './float';
import { strictExp, strictPow } from './strict-math';
import { SqlValidationError } from './sql-error';
import { compareValues } from './ordering';


const unary = (f: (x: number) => number): FunctionDef => ({ min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => f(x as number) });

/** Java's Math.rint: the nearest integer, halves to the even one. */
function rint(x: number): number {
  if (!Number.isFinite(x)) return x;
  const f = Math.floor(x);
  const d = x - f;
  const r = d > 0.5 || (d === 0.5 && f % 2 !== 0) ? f + 1 : f;
  return r === 0 ? Math.sign(x) * 0 : r;
}

const U64 = 2n ** 64n;

/** A 64-bit two's complement view of a BIGINT, as Java's Long.toHexString and toBinaryString print. */
const unsigned64 = (v: number): bigint => BigInt.asUintN(64, BigInt(Math.trunc(v)));

/** Spark's hex of a string or binary: its bytes, two upper-case digits each. */
const hexBytes = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();

/** Spark's unhex: an odd length gets a leading 0; NULL on a character that is not a hex digit. */
function unhex(s: string): Uint8Array | null {
  const t = s.length % 2 ? `0${s}` : s;
  if (!/^[0-9a-fA-F]*$/.test(t)) return null;
  return new Uint8Array(Buffer.from(t, 'hex'));
}

/**
 * Spark's conv (NumberConverter): digits read as an unsigned 64-bit number up to the first one
 * that is not a digit of `from` (an overflow saturates at 2^64-1), negated for a leading '-';
 * printed unsigned, or signed when `to` is negative. NULL for a base outside 2..36.
 */
function conv(text: string, from: number, to: number): string | null {
  if (from < 2 || from > 36 || Math.abs(to) < 2 || Math.abs(to) > 36) return null;
  const s = text.trim();
  const neg = s.startsWith('-');
  let v = 0n;
  let any = false;
  for (const c of neg ? s.slice(1) : s) {
    const d = parseInt(c, 36);
    if (Number.isNaN(d) || d >= from) break;
    any = true;
    v = v * BigInt(from) + BigInt(d);
    if (v >= U64) { v = U64 - 1n; break; }
  }
  if (!any) return '0';
  // Spark's NumberConverter: v is a signed 64-bit value; a negative input to a positive base is
  // -v, or -1 (all ones) when v is already negative as a signed value (overflow included).
  let negative = neg;
  if (negative && to > 0) v = v > LONG_MAX ? U64 - 1n : (U64 - v) % U64;
  if (to < 0 && v > LONG_MAX) { v = U64 - v; negative = true; }
  const out = v.toString(Math.abs(to)).toUpperCase();
  return negative && to < 0 ? `-${out}` : out;
}

/**
 * Spark's width_bucket (WidthBucket.computeBucketNumber): NULL for Long.MaxValue buckets; the
 * bucket is the DOUBLE n * (v - lower) / (upper - lower) made a BIGINT, plus one, in 64 bits.
 */
function widthBucket(v: number, min: number, max: number, buckets: Long): Long | null {
  const n = BigInt(buckets);
  if (n <= 0n || n === LONG_MAX || Number.isNaN(v) || min === max || !Number.isFinite(min) || !Number.isFinite(max)) return null;
  const lower = Math.min(min, max);
  const upper = Math.max(min, max);
  const bucket = (share: number): Long => toLong(BigInt(Math.trunc((Number(n) * share) / (upper - lower))) + 1n);
  if (min < max) {
    if (v < lower) return 0;
    if (v >= upper) return toLong(n + 1n);
    return bucket(v - lower);
  }
  if (v > upper) return 0;
  if (v <= lower) return toLong(n + 1n);
  return bucket(upper - v);
}

const DATETIME_OR_INTERVAL = new Set(['date', 'timestamp', 'day_time_interval', 'year_month_interval']);
const NULL_ON = new Set(['ARITHMETIC_OVERFLOW', 'DATETIME_OVERFLOW', 'INTERVAL_DIVIDED_BY_ZERO']);

/**
 * The operator's value, NULL where it raises an overflow or a division by zero: Spark's try_add,
 * try_subtract, try_multiply and try_divide of a date, timestamp or interval (TryEval of the
 * operator: try_add(DATE'2021-01-01', INTERVAL 2 YEAR) is 2023-01-01, try_divide(INTERVAL 2
 * YEAR, 0) NULL).
 */
function nullOnArithmeticError(x: CompiledExpr): CompiledExpr {
  return compiled(typeOfCompiled(x), () => {
    const inner = x.eval;
    return (row, ctx) => {
      try {
        return inner(row, ctx);
      } catch (err) {
        if (err instanceof RecordExpressionError && NULL_ON.has(String(err.details?.errorClass))) return null;
        throw err;
      }
    };
  });
}

/** try_add/try_subtract/try_multiply on BIGINTs and doubles: NULL where the 64-bit result overflows. */
/**
 * Spark's try_ arithmetic of a DECIMAL is the operator (NULL for a DECIMAL that does not fit), of
 * a FLOAT the operator's FLOAT (it reaches an infinity, never overflows), of two narrower integers
 * NULL where the result leaves their type (try_add(2147483647, 1)); of BIGINTs and DOUBLEs the
 * function's impl.
 */
const tryOperator = (op: '+' | '-' | '*'): FunctionDef['compile'] => (e, c) => {
  const operator = () => c.compile({ kind: 'binary', op, left: e.args[0], right: e.args[1], pos: e.pos });
  const [l, r] = e.args.map((a) => c.compile(a));
  if (l.type === 'decimal' || r.type === 'decimal') return operator();
  if ([l, r].some((x) => DATETIME_OR_INTERVAL.has(x.type))) return nullOnArithmeticError(operator());
  const bits = (l.type === 'long' || l.type === 'null') && (r.type === 'long' || r.type === 'null') ? integralWidth(l, r) : undefined;
  if (bits) return nullSafeBinary({ type: 'long', integral: bits }, l, r, (a, b) => narrowArithmeticOrNull(op, bits, a as number, b as number));
  return widensToFloat([l, r]) ? operator() : undefined;
};

const tryArith = (op: '+' | '-' | '*', f: (a: number, b: number) => number, exact: (a: bigint, b: bigint) => bigint): FunctionDef => ({
  min: 2, max: 2, exactLongs: true, compile: tryOperator(op),
  type: (a) => nums(a) ?? (a.every((t) => t === 'long' || t === 'null') ? 'long' : 'double'),
  impl: ([x, y], _c, t) => {
    if (t[0] === 'double' || t[1] === 'double') return f(Number(x), Number(y));
    const r = exact(bigOf(x as Long), bigOf(y as Long));
    return r < LONG_MIN || r > LONG_MAX ? null : toLong(r);
  },
});

/** Spark's round: HALF_UP, i.e. halves away from zero. */
function roundHalfUp(v: number, scale: number): number {
  const f = 10 ** scale;
  // Spark rounds a double through its decimal text: 15 significant digits take the binary noise out.
  const r = Math.round(Number((Math.abs(v) * f).toPrecision(15))) / f;
  return v < 0 ? -r : r;
}

/** A shift of a BIGINT by an INT distance (a wider one narrowed to its low 32 bits, then mod 64). */
function shiftFunction(op: (a: bigint, n: bigint) => bigint): FunctionDef {
  return {
    min: 2, max: 2, exactLongs: true,
    type: (a) => (a.every((t) => t === 'long' || t === 'null') ? 'long' : 'expects integers'),
    impl: ([x, n]) => toLong(op(bigOf(x as Long), BigInt(Number(BigInt.asIntN(32, bigOf(n as Long))) & 63))),
  };
}

/** Spark's bround: HALF_EVEN at `scale` digits. */
function roundHalfEven(v: number, scale: number): number {
  const f = 10 ** scale;
  const x = Number((v * f).toPrecision(15));
  const r = Math.round(x);
  // Exactly halfway (within float noise of the scaled value): to the even neighbour.
  const diff = Math.abs(x - Math.trunc(x));
  const even = Math.abs(diff - 0.5) < 1e-9 ? (Math.trunc(x) % 2 === 0 ? Math.trunc(x) : Math.trunc(x) + Math.sign(x)) : r;
  return even / f;
}

function roundWith(fn: (x: number) => number, v: number, scale: number): number {
  const f = 10 ** scale;
  return fn(Number((v * f).toPrecision(15))) / f || 0;
}

/**
 * Spark's typing of abs, round and bround by their argument (Weir keeps INT, SMALLINT and TINYINT
 * as BIGINT values with their width, a FLOAT as a DOUBLE's value): an integer keeps its width and
 * wraps in it as the JVM's byte, short and int (abs(-128Y) is -128, round(127Y, -1) is -126), a
 * FLOAT is rounded as its double then made a float again (BigDecimal(f.toDouble).setScale(d)
 * .toFloat); a DECIMAL keeps its type through abs and is DECIMAL(p - s + 1 + min(s, d), min(s, d))
 * through round (HALF_UP), floor and ceil DECIMAL(p - s + 1, 0). The scale d must be a literal,
 * as Spark needs a foldable one. Undefined for another argument: the function as registered.
 */
function decimalUnary(x: CompiledExpr, t: DecimalType, f: (v: bigint) => bigint | null): CompiledExpr {
  return nullSafeUnary({ type: 'decimal', decimal: t }, x, (v) => f(v as bigint));
}

const absTyped: FunctionDef['typed'] = (_e, [x]) => {
  if (x === undefined) return undefined;
  if (x.type === 'decimal') return decimalUnary(x, x.decimal!, (v) => (v < 0n ? -v : v));
  if (!x.integral && !x.float32) return undefined;
  const bits = x.integral;
  return nullSafeUnary({ type: x.type, ...(bits ? { integral: bits } : { float32: true as const }) }, x, (v) => (bits ? wrapToWidth(bits, Math.abs(v as number)) : Math.abs(v as number)));
};

const roundTyped = (halfEven: boolean): FunctionDef['typed'] => (e, [x]) => {
  const d = e.args[1];
  if (x === undefined || (d !== undefined && (d.kind !== 'literal' || typeof d.value !== 'number'))) return undefined;
  const digits = d === undefined ? 0 : Math.trunc(d.value as number);
  if (x.type === 'decimal') return roundDecimal(x, digits, halfEven ? 'HALF_EVEN' : 'HALF_UP');
  if (x.float32) {
    const roundDouble = halfEven ? roundHalfEven : roundHalfUp;
    return nullSafeUnary({ type: 'double', float32: true }, x, (v) => Math.fround(roundDouble(v as number, digits)));
  }
  if (x.type !== 'long') return undefined;
  // A BIGINT too is rounded exactly and wraps as the JVM's long (round(9223372036854775807L, -1)
  // is -9223372036854775806): through a double it would lose its low digits.
  const bits = x.integral;
  if (digits >= 0) return x;
  const unit = 10n ** BigInt(-digits);
  return nullSafeUnary({ type: 'long', ...(bits ? { integral: bits } : {}) }, x, (v) => {
    const n = bigOf(v as Long);
    let q = n / unit;
    const twice = 2n * (n - q * unit) * (n < 0n ? -1n : 1n);
    if (twice > unit || (twice === unit && (!halfEven || q % 2n !== 0n))) q += n < 0n ? -1n : 1n;
    return bits ? wrapToWidth(bits, q * unit) : toLong(BigInt.asIntN(64, q * unit));
  });
};

/**
 * floor and ceil of a DECIMAL: DECIMAL(p - s + 1, 0). With a scale (Spark's RoundFloor and
 * RoundCeil, which take a DECIMAL), the argument is made a DECIMAL first as Spark's implicit cast
 * makes it (DecimalType.forType: TINYINT (3,0), SMALLINT (5,0), INT (10,0), BIGINT (20,0),
 * FLOAT (14,7), DOUBLE (30,15)), then rounded as round is, to the ceiling or the floor.
 */
const floorCeilTyped = (up: boolean): FunctionDef['typed'] => (e, args) => {
  const [x, d] = args;
  if (d !== undefined) {
    const scale = e.args[1];
    // Spark's CeilExpressionBuilder/FloorExpressionBuilder take only an INT literal scale:
    // ceil(2.5, NULL) and ceil(2.5, 'a') are refused, not NULL.
    if (scale.kind !== 'literal' || typeof scale.value !== 'number' || scale.integral !== 32) {
      const fn = up ? 'ceil' : 'floor';
      throw new SqlValidationError(`The \`scale\` parameter of function \`${fn}\` needs to be a int literal: write ${fn}(x, 2)`, e.pos, e.kind, '_LEGACY_ERROR_TEMP_1100');
    }
    const dec = asDecimal(x);
    return dec && roundDecimal(dec, Math.trunc(scale.value), up ? 'CEILING' : 'FLOOR');
  }
  // An integer is its own floor and ceiling, a BIGINT (Spark's Ceil and Floor take a LongType as it is, not as a DOUBLE).
  if (x.type === 'long') return retyped(x, { type: 'long' });
  if (x.type !== 'decimal') return undefined;
  const { precision: p, scale: s } = x.decimal!;
  return decimalUnary(x, bounded(p - s + 1, 0), (v) => setScale(v, s, 0, up ? 'CEILING' : 'FLOOR'));
};

/** BigDecimal's rounding modes that Spark's rounding functions use. */
type RoundingMode = 'HALF_UP' | 'HALF_EVEN' | 'CEILING' | 'FLOOR';

/** An unscaled decimal at scale `from` at scale `to` (BigDecimal.setScale), rounded by `mode` when digits are dropped. */
function setScale(v: bigint, from: number, to: number, mode: RoundingMode): bigint {
  if (to >= from) return v * pow10(to - from);
  const unit = pow10(from - to);
  const q = v / unit;
  const r = v - q * unit;
  if (r === 0n) return q;
  const away = v < 0n ? q - 1n : q + 1n;
  switch (mode) {
    case 'CEILING': return v > 0n ? away : q;
    case 'FLOOR': return v < 0n ? away : q;
    case 'HALF_UP': case 'HALF_EVEN': {
      const twice = 2n * (r < 0n ? -r : r);
      return twice > unit || (twice === unit && (mode === 'HALF_UP' || q % 2n !== 0n)) ? away : q;
    }
  }
}

/**
 * Spark's RoundBase over a DECIMAL(p, s) at `d` digits: DECIMAL(p - s + 1 + min(s, d), min(s, d))
 * (one more integral digit, as rounding up may need it), or for a negative d (tens, hundreds…)
 * DECIMAL(max(p - s + 1, 1 - d), 0); precision at most 38, NULL for a value that does not fit.
 */
function roundDecimal(x: CompiledExpr, d: number, mode: RoundingMode): CompiledExpr {
  const { precision: p, scale: s } = x.decimal!;
  const t: DecimalType = d < 0 ? { precision: Math.min(Math.max(p - s + 1, 1 - d), 38), scale: 0 } : { precision: Math.min(p - s + 1 + Math.min(s, d), 38), scale: Math.min(s, d) };
  const limit = pow10(t.precision);
  return decimalUnary(x, t, (v) => {
    const r = d < 0 ? setScale(v, s, d, mode) * pow10(-d) : setScale(v, s, t.scale, mode);
    return (r < 0n ? -r : r) < limit ? r : null;
  });
}

/** A number as Spark's implicit cast to DECIMAL makes it (DecimalType.forType); undefined for another type. */
function asDecimal(x: CompiledExpr): CompiledExpr | undefined {
  if (x.type === 'decimal') return x;
  if (x.type === 'long' || x.type === 'null') {
    const dt = x.integral ? { precision: { 8: 3, 16: 5, 32: 10 }[x.integral], scale: 0 } : LONG_DECIMAL;
    return nullSafeUnary({ type: 'decimal', decimal: dt }, x, (v) => decimalFromLong(v as Long, dt));
  }
  if (x.type === 'double') {
    const dt = x.float32 ? { precision: 14, scale: 7 } : { precision: 30, scale: 15 };
    return nullSafeUnary({ type: 'decimal', decimal: dt }, x, (v) => decimalFromDouble(v as number, dt));
  }
  return undefined;
}

const isIntegral = (c: CompiledExpr) => c.type === 'long' || c.type === 'null';

/**
 * Spark's Pmod of two integers of width `bits` (none: BIGINT): `r = a % n`, and `(r + n) % n`
 * where r is negative, in the type's arithmetic (an INT's or BIGINT's r + n wraps; a TINYINT's or
 * SMALLINT's is an int, narrowed after); NULL for a zero divisor.
 */
function pmodIntegral(bits: IntegralBits | undefined, a: Long, n: Long): Long | null {
  if (bits === undefined) {
    const [x, y] = [bigOf(a), bigOf(n)];
    if (y === 0n) return null;
    const r = x % y;
    return toLong(r < 0n ? BigInt.asIntN(64, r + y) % y : r);
  }
  const [x, y] = [a as number, n as number];
  if (y === 0) return null;
  const r = x % y;
  if (!(r < 0)) return r + 0;
  return wrapToWidth(bits, ((bits === 32 ? (r + y) | 0 : r + y) % y) + 0);
}

/**
 * Spark's Pmod is a BinaryArithmetic: its operands, a STRING read as a DOUBLE (PromoteStrings),
 * must be numbers, and are refused as the arithmetic operators refuse them: BINARY_OP_DIFF_TYPES
 * where the two types differ (pmod('1', true): DOUBLE and BOOLEAN), else BINARY_OP_WRONG_TYPE.
 */
const pmodOperands: FunctionDef['replacement'] = (call, c) => {
  const read = call.args.map((a) => c.compile(a)).map((a): TypeInfo => (a.type === 'string' ? { type: 'double' } : a));
  const wrong = read.find((a) => !isNumeric(a.type) && a.type !== 'decimal');
  if (!wrong || read.length !== 2) return undefined;
  const [l, r] = read.map(typeText);
  const todo = `pmod() needs numbers, got ${read.map((a) => a.type).join(' and ')}.`;
  if (l !== r) c.mismatch(call, 'BINARY_OP_DIFF_TYPES', `the left and right operands of the binary operator have incompatible types ("${l}" and "${r}").`, todo);
  return c.mismatch(call, 'BINARY_OP_WRONG_TYPE', `the binary operator requires the input type "NUMERIC", not "${typeText(wrong)}".`, todo);
};

/**
 * pmod of integers (exact, of the wider one's width), of FLOATs (a FLOAT), and of a decimal and
 * a decimal, an integer or NULL (Spark's DecimalPrecision: Remainder's type, pmod(1Y, 1BD) a
 * DECIMAL(3,0), NULL where the result does not fit it).
 */
const pmodTyped: FunctionDef['typed'] = (e, args) => {
  const [x, y] = args;
  if (args.length !== 2) return undefined;
  const [xd, yd] = [decimalOperand(x, e.args[0]), decimalOperand(y, e.args[1])];
  if ((x.type === 'decimal' || y.type === 'decimal') && (xd || x.type === 'null') && (yd || y.type === 'null')) {
    const [xt, yt] = [(xd ?? yd)!, (yd ?? xd)!];
    const t = resultType('%', xt, yt);
    const asDecimal = (c: CompiledExpr, d: DecimalType) => (c.type === 'long' ? (v: Long) => decimalFromLong(v, d)! : (v: unknown) => v as bigint);
    const [xv, yv] = [asDecimal(x, xt), asDecimal(y, yt)];
    return nullSafeBinary({ type: 'decimal', decimal: t }, x, y, (a, b) => {
        const n = yv(b as Long);
        // Spark's Remainder (NULL for a zero divisor), at t's scale, the larger of the two: a
        // remainder has no more integer digits than either operand, so t never narrows it.
        const r = arithmetic('%', xv(a as Long), xt.scale, n, yt.scale, t);
        // (r + n) % n, r + n exact (it may not fit t where n is negative).
        return r === null || r >= 0n ? r : arithmetic('%', r + rescale(n, yt.scale, t.scale), t.scale, n, yt.scale, t);
    });
  }
  if (isIntegral(x) && isIntegral(y) && !(x.type === 'null' && y.type === 'null')) {
    const bits = integralWidth(x, y);
    return nullSafeBinary({ type: 'long', ...(bits ? { integral: bits } : {}) }, x, y, (a, b) => pmodIntegral(bits, a as Long, b as Long));
  }
  if (!widensToFloat([x, y])) return undefined;
  return nullSafeBinary({ type: 'double', float32: true }, asFloat(x), asFloat(y), (a, b) => { const n = b as number; if (n === 0) return null; const r = (a as number) % n; return Math.fround(r < 0 ? (r + n) % n : r); });
};

/**
 * Spark's ShiftLeft… inputTypes (INT or BIGINT, then INT): a TINYINT or SMALLINT shifted is cast to
 * an INT, a distance of another integer type to an INT (a BIGINT's low 32 bits, as Java's cast).
 */
const shiftInputTypes = ([x, n]: CompiledExpr[]): (TypeInfo | undefined)[] => [
  x?.integral !== undefined && x.integral < 32 ? { type: 'long', integral: 32 } : undefined,
  n?.type === 'long' && n.integral !== 32 ? { type: 'long', integral: 32 } : undefined,
];

/** A shift of an INT (a TINYINT or SMALLINT widened to one): 32-bit, the distance taken mod 32 as Java's. */
const shiftTyped = (op: (a: number, n: number) => number): FunctionDef['typed'] => (_e, args) => {
  const [x, y] = args;
  if (args.length !== 2 || !x.integral || !isIntegral(y)) return undefined;
  return nullSafeBinary({ type: 'long', integral: 32 }, x, y, (a, n) => op(a as number, Number(BigInt.asIntN(32, bigOf(n as Long))) & 31));
};

/**
 * Spark's BitwiseGet: bit `pos` of an integer (0 the lowest) as a TINYINT; a position outside
 * the type's bits (0 to 7 of a TINYINT … 63 of a BIGINT) fails the record, as Spark's.
 */
function bitGet(name: string): FunctionDef {
  const bit = (v: Long, pos: Long, size: number): number => {
    const p = Number(pos);
    if (!(p >= 0 && p < size)) {
      throw new RecordExpressionError(`[INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE] The value of parameter(s) \`pos\` in \`${name}\` is invalid: expects an integer value in [0, ${size}), but got ${p}.`, { function: name });
    }
    return Number((bigOf(v) >> BigInt(p)) & 1n);
  };
  return {
    min: 2, max: 2, exactLongs: true, resultIntegral: 8,
    type: (a) => (a.every((t) => t === 'long' || t === 'null') ? 'long' : 'takes (integer, bit position)'),
    impl: ([v, pos]) => bit(v as Long, pos as Long, 64),
    // Of an INT, SMALLINT or TINYINT: its own width of bits.
    typed: (_e, args) => {
      const [x, pos] = args;
      const size = x?.integral;
      if (args.length !== 2 || !size || !isIntegral(pos)) return undefined;
      return nullSafeBinary({ type: 'long', integral: 8 }, x, pos, (v, p) => bit(v as Long, p as Long, size));
    },
  };
}

export const MATH_FUNCTIONS: Record<string, FunctionDef> = {
  sin: unary(Math.sin),
  cos: unary(Math.cos),
  tan: unary(Math.tan),
  asin: unary(Math.asin),
  acos: unary(Math.acos),
  atan: unary(Math.atan),
  sinh: unary(Math.sinh),
  cosh: unary(Math.cosh),
  tanh: unary(Math.tanh),
  // Spark's Acosh, Atanh (NaN outside their domain) and Csc, Sec: 1 / sin, 1 / cos.
  acosh: unary(Math.acosh),
  // Spark's Asinh is its formula, log(x + sqrt(x * x + 1)), not Math.asinh (one ulp apart at 1).
  asinh: unary((x) => (x === -Infinity ? x : Math.log(x + Math.sqrt(x * x + 1)))),
  atanh: unary(Math.atanh),
  csc: unary((x) => 1 / Math.sin(x)),
  sec: unary((x) => 1 / Math.cos(x)),
  cot: unary((x) => 1 / Math.tan(x)),
  expm1: unary(Math.expm1),
  // Spark: NULL at or below the asymptote -1.
  log1p: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => ((x as number) <= -1 ? null : Math.log1p(x as number)) },
  rint: unary(rint),
  atan2: { min: 2, max: 2, type: (a) => nums(a) ?? 'double', impl: ([y, x]) => Math.atan2(y as number, x as number) },
  hypot: { min: 2, max: 2, type: (a) => nums(a) ?? 'double', impl: ([x, y]) => Math.hypot(x as number, y as number) },
  e: { min: 0, max: 0, type: () => 'double', impl: () => Math.E },
  // Spark: NULL outside 0..20 (21! does not fit a BIGINT).
  factorial: {
    min: 1, max: 1, type: (a) => (isNumeric(a[0]) ? 'long' : 'factorial() takes an integer'),
    // A double is cast to an integer first, as Spark casts it.
    impl: ([n]) => { const k = Math.trunc(n as number); if (k < 0 || k > 20) return null; let r = 1; for (let i = 2; i <= k; i++) r *= i; return r; },
  },
  hex: {
    min: 1, max: 1, type: (a) => (isNumeric(a[0]) || isStr(a[0]) || a[0] === 'binary' ? 'string' : 'hex() takes a number, a string or a binary'),
    impl: ([v], _c, t) => (t[0] === 'string' ? hexBytes(Buffer.from(v as string, 'utf8')) : t[0] === 'binary' ? hexBytes(v as Uint8Array) : unsigned64(v as number).toString(16).toUpperCase()),
  },
  unhex: { min: 1, max: 1, type: (a) => (isStr(a[0]) ? 'binary' : 'unhex() takes a string'), impl: ([s]) => unhex(s as string) },
  bin: { min: 1, max: 1, type: (a) => nums(a) ?? 'string', impl: ([v]) => unsigned64(v as number).toString(2) },
  conv: {
    min: 3, max: 3,
    type: (a) => ((isStr(a[0]) || isNumeric(a[0])) && (a[1] === 'long' || a[1] === 'null') && (a[2] === 'long' || a[2] === 'null') ? 'string' : 'conv() takes (number as text, from base, to base)'),
    // A number is read as its text, as Spark casts it to a string ('10.5' reads up to the point).
    impl: ([s, f, t], _c, types) => conv(types[0] === 'string' ? (s as string) : String(s), f as number, t as number),
  },
  // Spark's WidthBucket takes (DOUBLE, DOUBLE, DOUBLE, BIGINT): a string is read as a number.
  width_bucket: {
    min: 4, max: 4, exactLongs: true,
    inputTypes: (args) => args.map((a, i) => (i < 3 ? (a.type === 'double' && !a.float32 ? undefined : { type: 'double' }) : a.type === 'long' && a.integral === undefined ? undefined : { type: 'long' })),
    type: (a) => nums(a) ?? 'long',
    impl: ([v, lo, hi, n]) => widthBucket(Number(v), Number(lo), Number(hi), typeof n === 'number' ? Math.trunc(n) : (n as Long)),
  },
  try_add: tryArith('+', (a, b) => a + b, (a, b) => a + b),
  try_subtract: tryArith('-', (a, b) => a - b, (a, b) => a - b),
  try_multiply: tryArith('*', (a, b) => a * b, (a, b) => a * b),
  // try_divide(a, b) is a / b (NULL on a zero divisor), negative(x) is -x, DECIMAL scale included
  // (Spark's RuntimeReplaceable); their type and impl are what the replacement computes.
  try_divide: {
    min: 2, max: 2, type: (a) => nums(a) ?? 'double', impl: ([x, y]) => ((y as number) === 0 ? null : (x as number) / (y as number)),
    compile: (e, c) => {
      const quotient = c.compile({ kind: 'binary', op: '/', left: e.args[0], right: e.args[1], pos: e.pos });
      return DATETIME_OR_INTERVAL.has(c.compile(e.args[0]).type) ? nullOnArithmeticError(quotient) : quotient;
    },
  },
  negative: {
    min: 1, max: 1, type: (a) => nums(a) ?? (a[0] === 'null' ? 'long' : a[0]), impl: ([x]) => -(x as number),
    replacement: (e) => ({ kind: 'unary', op: '-', arg: e.args[0], pos: e.pos }),
  },
  // positive(x) is x, of its own type; a STRING or NULL is cast to a DOUBLE first (UnaryPositive
  // takes a numeric input: positive('25.5') is 25.5, positive('invalid') and positive(NULL) NULL).
  positive: {
    min: 1, max: 1, exactLongs: true, type: (a) => nums(a) ?? (a[0] === 'null' ? 'long' : a[0]), impl: ([x]) => x,
    compile: (e, c) => {
      let x = c.compile(e.args[0]);
      if (x.type === 'string' || x.type === 'null') x = c.compile({ kind: 'cast', arg: e.args[0], to: 'double', implicit: true, pos: e.pos });
      if (!isNumeric(x.type) && x.type !== 'decimal' && x.type !== 'day_time_interval' && x.type !== 'year_month_interval') {
        c.fail(e, `positive() takes a number or an interval, got ${x.type}`, 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
      }
      return x;
    },
  },
  abs: {
    min: 1, max: 1, exactLongs: true, typed: absTyped, type: (a) => (isNumeric(a[0]) ? (a[0] === 'null' ? 'long' : a[0]) : 'expects a number'),
    // abs(-9223372036854775808) wraps to itself, as Java's Math.abs does.
    impl: ([v]) => (typeof v === 'bigint' ? toLong(v < 0n ? -v : v) : Math.abs(v as number)),
  },
  round: {
    min: 1, max: 2, typed: roundTyped(false), type: (a) => (a.every(isNumeric) ? (a[0] === 'long' ? 'long' : 'double') : 'expects numbers'),
    impl: ([v, s]) => roundHalfUp(v as number, (s as number | undefined) ?? 0),
  },
  pow: { min: 2, max: 2, type: (a) => nums(a) ?? 'double', impl: ([x, y]) => strictPow(x as number, y as number) },
  power: { min: 2, max: 2, type: (a) => nums(a) ?? 'double', impl: ([x, y]) => strictPow(x as number, y as number) },
  sqrt: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => ((x as number) < 0 ? NaN : Math.sqrt(x as number)) },
  cbrt: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => Math.cbrt(x as number) },
  exp: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => strictExp(x as number) },
  // Spark: the log of a non-positive number is NULL.
  ln: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => ((x as number) <= 0 ? null : Math.log(x as number)) },
  log: {
    min: 1, max: 2, type: (a) => nums(a) ?? 'double',
    impl: ([b, x]) => (x === undefined ? ((b as number) <= 0 ? null : Math.log(b as number)) : (x as number) <= 0 || (b as number) <= 0 ? null : Math.log(x as number) / Math.log(b as number)),
  },
  log10: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => ((x as number) <= 0 ? null : Math.log10(x as number)) },
  log2: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => ((x as number) <= 0 ? null : Math.log2(x as number)) },
  sign: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => Math.sign(x as number) },
  signum: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => Math.sign(x as number) },
  // mod(a, b) is a % b, decimal scale included.
  mod: {
    min: 2, max: 2, type: (a) => nums(a) ?? (a.every((t) => t === 'long' || t === 'null') ? 'long' : 'double'), impl: ([x, y]) => ((y as number) === 0 ? null : (x as number) % (y as number)),
    replacement: (e) => ({ kind: 'binary', op: '%', left: e.args[0], right: e.args[1], pos: e.pos }),
  },
  // Spark's BitwiseCount: the bits set in the value sign-extended to 64 (bit_count(-1) is 64 for
  // any integer type), 1 or 0 for a boolean; an INT.
  bit_count: {
    min: 1, max: 1, exactLongs: true, resultIntegral: 32,
    type: (a) => (a[0] === 'long' || a[0] === 'boolean' || a[0] === 'null' ? 'long' : 'takes an integer or a boolean (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)'),
    impl: ([v]) => (typeof v === 'boolean' ? Number(v) : [...BigInt.asUintN(64, bigOf(v as Long)).toString(2)].filter((b) => b === '1').length),
  },
  bit_get: bitGet('bit_get'),
  getbit: bitGet('getbit'),
  // `a div b` (the compiler's IntegralDivide): a BIGINT, NULL for a zero divisor.
  div: { min: 2, max: 2, type: (a) => nums(a) ?? 'long', impl: ([x, y]) => ((y as number) === 0 ? null : Math.trunc((x as number) / (y as number))) },
  // Spark's Pmod: r = x % n, and (r + n) % n where r is negative (pmod(-7, -3) is -1); of
  // integers and FLOATs, pmodTyped's. Of two untyped NULLs a DOUBLE, NUMERIC's default.
  pmod: {
    min: 2, max: 2, replacement: pmodOperands, typed: pmodTyped, type: (a) => nums(a) ?? (a.every((t) => t === 'long' || t === 'null') && a.some((t) => t === 'long') ? 'long' : 'double'),
    impl: ([x, y]) => { const n = y as number; if (n === 0) return null; const r = (x as number) % n; return r < 0 ? (r + n) % n : r; },
  },
  // Spark's ShiftLeft, ShiftRight, ShiftRightUnsigned of a BIGINT: Java's 64-bit shifts (the
  // distance, an INT, taken mod 64). Of an INT, SMALLINT or TINYINT: 32-bit (shiftTyped).
  shiftleft: { ...shiftFunction((a, n) => a << n), inputTypes: shiftInputTypes, typed: shiftTyped((a, n) => a << n) },
  shiftright: { ...shiftFunction((a, n) => a >> n), inputTypes: shiftInputTypes, typed: shiftTyped((a, n) => a >> n) },
  shiftrightunsigned: { ...shiftFunction((a, n) => BigInt.asUintN(64, a) >> n), inputTypes: shiftInputTypes, typed: shiftTyped((a, n) => (a >>> n) | 0) },
  greatest: { min: 2, max: 64, nullIntolerant: false, valueArgs: 'all', ordersValues: true, type: (a) => unified(a, 'greatest'), impl: (args) => args.filter((v) => v !== null).reduce<unknown>((m, v) => (m === null || compareValues(v, m) > 0 ? v : m), null) },
  least: { min: 2, max: 64, nullIntolerant: false, valueArgs: 'all', ordersValues: true, type: (a) => unified(a, 'least'), impl: (args) => args.filter((v) => v !== null).reduce<unknown>((m, v) => (m === null || compareValues(v, m) < 0 ? v : m), null) },
  bround: { min: 1, max: 2, typed: roundTyped(true), type: (a) => nums(a) ?? (a[0] === 'long' ? 'long' : 'double'), impl: ([v, s]) => roundHalfEven(v as number, Math.trunc((s as number | undefined) ?? 0)) },
  ceil: { min: 1, max: 2, typed: floorCeilTyped(true), type: (a) => nums(a) ?? (a.length === 1 ? 'long' : 'double'), impl: ([v, s]) => (s === undefined ? longFromDouble(Math.ceil(v as number)) : roundWith(Math.ceil, v as number, Math.trunc(s as number))) },
  ceiling: { min: 1, max: 2, typed: floorCeilTyped(true), type: (a) => nums(a) ?? (a.length === 1 ? 'long' : 'double'), impl: ([v, s]) => (s === undefined ? longFromDouble(Math.ceil(v as number)) : roundWith(Math.ceil, v as number, Math.trunc(s as number))) },
  floor: { min: 1, max: 2, typed: floorCeilTyped(false), type: (a) => nums(a) ?? (a.length === 1 ? 'long' : 'double'), impl: ([v, s]) => (s === undefined ? longFromDouble(Math.floor(v as number)) : roundWith(Math.floor, v as number, Math.trunc(s as number))) },
  pi: { min: 0, max: 0, type: () => 'double', impl: () => Math.PI },
  degrees: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => ((x as number) * 180) / Math.PI },
  radians: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => ((x as number) * Math.PI) / 180 },
};
