/**
 * Spark's built-in scalar functions beyond the first set in functions.ts: the rest of the
 * string, regexp, conditional/null, math and date-time groups of Spark's function reference,
 * with Spark's names, optional arguments, NULL handling and results (ANSI mode off; UTC).
 *
 * Date-time: functions Spark types DATE (to_date, date_add, date_sub, current_date, last_day,
 * add_months) return a DATE (days since 1970-01-01, date.ts) and take a DATE, a timestamp (its day)
 * or a string cast to a DATE, as Spark casts it; the other date-time functions take a DATE as its
 * midnight timestamp (the compiler converts it) and a string cast to a timestamp.
 */
import { RecordExpressionError } from '../errors';
import { chars, nums, str, unified } from './function-args';
import type { FunctionDef } from './function-types';
import { regexLiterals, regexMatches, walkRegex, type RegexMatch } from './regex';
import { isNumeric, type ExprType } from './sql-values';
import { bigOf, toLong, type Long } from './long';
import { checkStringLength, MAX_STRING_VALUE_LENGTH, stringTooLargeMessage } from './value-limits';

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

/** Java's Matcher.replaceAll replacement: `$n` is group n, `\x` is x. */
function expandReplacement(rep: string, m: RegexMatch, room: number): string {
  let out = '';
  for (let i = 0; i < rep.length; i++) {
    const c = rep[i];
    if (c === '\\' && i + 1 < rep.length) out += rep[++i];
    else if (c === '$' && /\d/.test(rep[i + 1] ?? '')) {
      let j = i + 1;
      let g = '';
      while (j < rep.length && /\d/.test(rep[j]) && Number(g + rep[j]) <= m.groupCount) g += rep[j++];
      if (g === '') throw new RecordExpressionError(`regexp_replace(): no group ${rep[i + 1]} in the pattern`, { function: 'regexp_replace()' });
      out += m.group(Number(g)) ?? '';
      i = j - 1;
      // Each group can be as long as the value: `$0$0…` must not grow without end before the check.
      if (out.length > room) checkStringLength('regexp_replace()', MAX_STRING_VALUE_LENGTH - room + out.length);
    } else out += c;
  }
  return out;
}

/**
 * The code-unit offset of code point `cp` of `s` (its length when past the end): SQL positions
 * count code points, JavaScript slices in UTF-16 code units.
 */
function codeUnitIndex(s: string, cp: number): number {
  if (!/[\uD800-\uDFFF]/.test(s)) return Math.min(cp, s.length);
  let i = 0;
  for (let n = 0; n < cp && i < s.length; n++) i += s.codePointAt(i)! > 0xffff ? 2 : 1;
  return i;
}

function trimChars(s: string, set: string, left: boolean, right: boolean): string {
  const cs = chars(s);
  const drop = new Set(chars(set));
  let a = 0;
  let b = cs.length;
  if (left) while (a < b && drop.has(cs[a])) a++;
  if (right) while (b > a && drop.has(cs[b - 1])) b--;
  return cs.slice(a, b).join('');
}

const compare = (a: unknown, b: unknown) => ((a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0);

/** The bytes of `b` without the leading and trailing bytes that are in `set`. */
function trimBytes(b: Uint8Array, set: Uint8Array): Uint8Array {
  let from = 0, to = b.length;
  while (from < to && set.includes(b[from])) from++;
  while (to > from && set.includes(b[to - 1])) to--;
  return b.subarray(from, to);
}

/** Spark's check of regexp_replace's position (RegExpReplace.checkInputDataTypes). */
const positionOutOfRange = (pos: number) =>
  `[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] The \`position\` must be between (0, 2147483647], but got ${Math.trunc(pos)}.`;

/** Functions Spark refuses on streaming DataFrames, or that Weir refuses because a replay would differ. */
export const STREAMING_REFUSED: Record<string, { message: string; errorClass?: string }> = {
  monotonically_increasing_id: { message: 'Expression(s): monotonically_increasing_id() is not supported with streaming DataFrames/Datasets', errorClass: '_LEGACY_ERROR_TEMP_3102' },
  ...Object.fromEntries(['rand', 'random', 'randn', 'uuid', 'shuffle'].map((f) => [f, {
    message: `${f}() is not deterministic: a batch re-run after a crash would compute different rows than its first attempt, which breaks exactly-once, so Weir refuses it (Spark accepts it). Derive the value from the row instead, for example from hash(...) of its columns`,
  }])),
};

/** startswith/endswith/contains: two strings, or two binaries (Spark's ByteArray.startsWith …). */
const textOrBytes = (a: ExprType[]): ExprType | string => (str(a) === undefined || a.every((t) => t === 'binary' || t === 'null') ? 'boolean' : 'expects two strings or two binaries');
/** A binary as one character a byte, so that the string searches compare bytes. */
const bytesAsText = (v: unknown): string => (typeof v === 'string' ? v : Buffer.from((v as Uint8Array).buffer, (v as Uint8Array).byteOffset, (v as Uint8Array).byteLength).toString('latin1'));

export const SPARK_FUNCTIONS: Record<string, FunctionDef> = {
  // --- string ---
  // On a BINARY (with BINARY trim bytes) Spark trims bytes, a space byte by default.
  btrim: {
    min: 1, max: 2, type: (a) => (a[0] === 'binary' && (a.length < 2 || a[1] === 'binary' || a[1] === 'null') ? 'binary' : str(a) ?? 'string'),
    impl: ([s, c], _c, t) => (t[0] === 'binary' ? trimBytes(s as Uint8Array, (c as Uint8Array | undefined) ?? new Uint8Array([0x20])) : trimChars(s as string, (c as string | undefined) ?? ' ', true, true)),
  },
  ltrim: { min: 1, max: 2, type: (a) => str(a) ?? 'string', impl: ([s, c]) => trimChars(s as string, (c as string | undefined) ?? ' ', true, false) },
  rtrim: { min: 1, max: 2, type: (a) => str(a) ?? 'string', impl: ([s, c]) => trimChars(s as string, (c as string | undefined) ?? ' ', false, true) },
  instr: { min: 2, max: 2, type: (a) => str(a) ?? 'long', impl: ([s, sub]) => chars((s as string).slice(0, Math.max(0, (s as string).indexOf(sub as string)))).length + ((s as string).includes(sub as string) ? 1 : 0) },
  locate: {
    min: 2, max: 3, type: (a) => str(a, 2) ?? (a.length < 3 || isNumeric(a[2]) ? 'long' : 'expects (substring, string[, position])'),
    // Spark: 1-based; a position below 1 finds nothing (0).
    impl: ([sub, s, p]) => {
      const pos = p === undefined ? 1 : Math.trunc(p as number);
      if (pos < 1) return 0;
      const cs = chars(s as string);
      const from = cs.slice(0, pos - 1).join('').length;
      const i = (s as string).indexOf(sub as string, from);
      return i < 0 ? 0 : chars((s as string).slice(0, i)).length + 1;
    },
  },
  position: {
    min: 2, max: 3, type: (a) => str(a, 2) ?? (a.length < 3 || isNumeric(a[2]) ? 'long' : 'expects (substring, string[, position])'),
    impl: (args, c, t) => SPARK_FUNCTIONS.locate.impl(args, c, t),
  },
  initcap: { min: 1, max: 1, type: (a) => str(a) ?? 'string', impl: ([s]) => (s as string).toLowerCase().replace(/(^|\s)(\S)/gu, (_m, sp: string, c: string) => sp + c.toUpperCase()) },
  translate: {
    min: 3, max: 3, type: (a) => str(a) ?? 'string',
    impl: ([s, from, to]) => {
      const f = chars(from as string);
      const t = chars(to as string);
      const map = new Map<string, string>();
      f.forEach((c, i) => { if (!map.has(c)) map.set(c, t[i] ?? ''); });
      return chars(s as string).map((c) => map.get(c) ?? c).join('');
    },
  },
  left: { min: 2, max: 2, type: (a) => str(a, 1) ?? (isNumeric(a[1]) ? 'string' : 'expects (string, length)'), impl: ([s, n]) => chars(s as string).slice(0, Math.max(0, Math.trunc(n as number))).join('') },
  right: {
    min: 2, max: 2, type: (a) => str(a, 1) ?? (isNumeric(a[1]) ? 'string' : 'expects (string, length)'),
    impl: ([s, n]) => { const k = Math.trunc(n as number); const cs = chars(s as string); return k <= 0 ? '' : cs.slice(Math.max(0, cs.length - k)).join(''); },
  },
  repeat: {
    min: 2, max: 2, type: (a) => str(a, 1) ?? (isNumeric(a[1]) ? 'string' : 'expects (string, count)'),
    impl: ([s, n]) => { const k = Math.max(0, Math.trunc(n as number)); checkStringLength('repeat()', (s as string).length * k); return (s as string).repeat(k); },
    checkLiterals: ([s, n]) => (typeof s === 'string' && typeof n === 'number' && s.length * n > MAX_STRING_VALUE_LENGTH ? stringTooLargeMessage('repeat()', s.length * n) : undefined),
  },
  ascii: { min: 1, max: 1, type: (a) => str(a) ?? 'long', impl: ([s]) => ((s as string).length ? (s as string).codePointAt(0)! : 0) },
  chr: { min: 1, max: 1, type: (a) => nums(a) ?? 'string', impl: ([n]) => { const v = Math.trunc(n as number); return v < 0 ? '' : String.fromCharCode(v % 256); } },
  char: { min: 1, max: 1, type: (a) => nums(a) ?? 'string', impl: ([n]) => { const v = Math.trunc(n as number); return v < 0 ? '' : String.fromCharCode(v % 256); } },
  startswith: { min: 2, max: 2, type: textOrBytes, impl: ([s, p]) => bytesAsText(s).startsWith(bytesAsText(p)) },
  endswith: { min: 2, max: 2, type: textOrBytes, impl: ([s, p]) => bytesAsText(s).endsWith(bytesAsText(p)) },
  contains: { min: 2, max: 2, type: textOrBytes, impl: ([s, p]) => bytesAsText(s).includes(bytesAsText(p)) },
  regexp_replace: {
    min: 3, max: 4, type: (a) => str(a, 3) ?? (a.length < 4 || isNumeric(a[3]) ? 'string' : 'expects (string, pattern, replacement[, position])'),
    impl: ([s, p, r, posArg]) => {
      const src = s as string;
      const re = walkRegex('regexp_replace()', p as string);
      // Spark's position counts characters (code points). The search runs on the rest of the
      // value, as Java's region with opaque bounds: `^` and `\b` see the position as the start.
      if (posArg !== undefined && Math.trunc(posArg as number) <= 0) throw new RecordExpressionError(`regexp_replace(): ${positionOutOfRange(posArg as number)}`, { function: 'regexp_replace()' });
      const start = posArg === undefined ? 0 : codeUnitIndex(src, Math.trunc(posArg as number) - 1);
      const rest = src.slice(start);
      const literal = /[$\\]/.test(r as string) ? undefined : (r as string);
      let out = src.slice(0, start);
      let from = 0;
      for (const m of regexMatches(re, rest)) {
        out += rest.slice(from, m.start);
        out += literal ?? expandReplacement(r as string, m, MAX_STRING_VALUE_LENGTH - out.length);
        checkStringLength('regexp_replace()', out.length);
        from = m.end;
      }
      return out + rest.slice(from);
    },
    checkLiterals: (lits) => (typeof lits[3] === 'number' && Math.trunc(lits[3]) <= 0 ? `regexp_replace(): ${positionOutOfRange(lits[3])}` : regexLiterals('regexp_replace()', true)(lits)),
  },
  // --- conditional and null ---
  if: {
    min: 3, max: 3, nullIntolerant: false,
    type: (a) => (a[0] === 'boolean' || a[0] === 'null' ? unified(a.slice(1), 'if') : 'needs a boolean condition first'),
    impl: ([c, x, y]) => (c === true ? x : y),
  },
  nvl: { min: 2, max: 2, nullIntolerant: false, type: (a) => unified(a, 'nvl'), impl: ([x, y]) => x ?? y },
  ifnull: { min: 2, max: 2, nullIntolerant: false, type: (a) => unified(a, 'ifnull'), impl: ([x, y]) => x ?? y },
  nvl2: { min: 3, max: 3, nullIntolerant: false, type: (a) => unified(a.slice(1), 'nvl2'), impl: ([x, y, z]) => (x !== null ? y : z) },
  isnull: { min: 1, max: 1, nullIntolerant: false, type: () => 'boolean', impl: ([x]) => x === null },
  isnotnull: { min: 1, max: 1, nullIntolerant: false, type: () => 'boolean', impl: ([x]) => x !== null },
  // --- math ---
  pow: { min: 2, max: 2, type: (a) => nums(a) ?? 'double', impl: ([x, y]) => (x as number) ** (y as number) },
  power: { min: 2, max: 2, type: (a) => nums(a) ?? 'double', impl: ([x, y]) => (x as number) ** (y as number) },
  sqrt: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => ((x as number) < 0 ? NaN : Math.sqrt(x as number)) },
  cbrt: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => Math.cbrt(x as number) },
  exp: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => Math.exp(x as number) },
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
  mod: { min: 2, max: 2, type: (a) => nums(a) ?? (a.every((t) => t === 'long' || t === 'null') ? 'long' : 'double'), impl: ([x, y]) => ((y as number) === 0 ? null : (x as number) % (y as number)) },
  // `a div b` (the compiler's IntegralDivide): a BIGINT, NULL for a zero divisor.
  div: { min: 2, max: 2, type: (a) => nums(a) ?? 'long', impl: ([x, y]) => ((y as number) === 0 ? null : Math.trunc((x as number) / (y as number))) },
  // Spark's Pmod: r = x % n, and (r + n) % n where r is negative (pmod(-7, -3) is -1). Integers
  // (exact, and keeping an INT, SMALLINT or TINYINT) and FLOATs are the compiler's.
  pmod: {
    min: 2, max: 2, type: (a) => nums(a) ?? (a.every((t) => t === 'long' || t === 'null') ? 'long' : 'double'),
    impl: ([x, y]) => { const n = y as number; if (n === 0) return null; const r = (x as number) % n; return r < 0 ? (r + n) % n : r; },
  },
  // Spark's ShiftLeft, ShiftRight, ShiftRightUnsigned of a BIGINT: Java's 64-bit shifts (the
  // distance, an INT, taken mod 64). Of an INT, SMALLINT or TINYINT: the compiler's, 32-bit.
  shiftleft: shiftFunction((a, n) => a << n),
  shiftright: shiftFunction((a, n) => a >> n),
  shiftrightunsigned: shiftFunction((a, n) => BigInt.asUintN(64, a) >> n),
  greatest: { min: 2, max: 64, nullIntolerant: false, type: (a) => unified(a, 'greatest'), impl: (args) => args.filter((v) => v !== null).reduce<unknown>((m, v) => (m === null || compare(v, m) > 0 ? v : m), null) },
  least: { min: 2, max: 64, nullIntolerant: false, type: (a) => unified(a, 'least'), impl: (args) => args.filter((v) => v !== null).reduce<unknown>((m, v) => (m === null || compare(v, m) < 0 ? v : m), null) },
  bround: { min: 1, max: 2, type: (a) => nums(a) ?? (a[0] === 'long' ? 'long' : 'double'), impl: ([v, s]) => roundHalfEven(v as number, Math.trunc((s as number | undefined) ?? 0)) },
  ceil: { min: 1, max: 2, type: (a) => nums(a) ?? (a.length === 1 ? 'long' : 'double'), impl: ([v, s]) => (s === undefined ? Math.ceil(v as number) || 0 : roundWith(Math.ceil, v as number, Math.trunc(s as number))) },
  ceiling: { min: 1, max: 2, type: (a) => nums(a) ?? (a.length === 1 ? 'long' : 'double'), impl: ([v, s]) => (s === undefined ? Math.ceil(v as number) || 0 : roundWith(Math.ceil, v as number, Math.trunc(s as number))) },
  floor: { min: 1, max: 2, type: (a) => nums(a) ?? (a.length === 1 ? 'long' : 'double'), impl: ([v, s]) => (s === undefined ? Math.floor(v as number) || 0 : roundWith(Math.floor, v as number, Math.trunc(s as number))) },
  pi: { min: 0, max: 0, type: () => 'double', impl: () => Math.PI },
  degrees: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => ((x as number) * 180) / Math.PI },
  radians: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => ((x as number) * Math.PI) / 180 },
};

