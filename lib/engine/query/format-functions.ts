/**
 * Spark's functions that print numbers by a format: format_number (Java's DecimalFormat, HALF_EVEN
 * on the double's exact value), format_string/printf (Java's Formatter: %s %S %d %x %X %o %f %e
 * %E %b %c %% %n with flags - 0 + space , # and width/precision; other conversions are refused)
 * and to_char/to_number with Spark's number formats (number-format.ts).
 */
import { RecordExpressionError } from '../errors';
import type { DecimalType } from './decimal';
import type { FunctionDef } from './function-types';
import { formatNumber, numberFormat, parseNumber, type NumberFormat } from './number-format';
import { exactDigits, group, roundDigits, shortestDigits, splitDigits, type DecimalDigits } from './number-text';
import { castValue, isNumeric, type ExprType } from './sql-values';
import { base64Text } from './string-functions';
import { checkStringLength } from './value-limits';

function fail(fn: string, msg: string): never {
  throw new RecordExpressionError(`${fn}: ${msg}`, { function: fn });
}

const isStr = (t: ExprType) => t === 'string' || t === 'null';

// --- format_number ---

interface DecimalPattern { minInt: number; grouping: number; minFrac: number; maxFrac: number }

/** A DecimalFormat pattern of # 0 , . only, or a message. */
function decimalPattern(p: string): DecimalPattern | string {
  if (!/^[#0,]*(\.[#0]*)?$/.test(p)) return `the format '${p}' is not supported: Weir takes DecimalFormat patterns of # 0 , and . only (such as '#,##0.00')`;
  const [int, frac = ''] = p.split('.');
  const lastComma = int.lastIndexOf(',');
  return { minInt: (int.match(/0/g) ?? []).length, grouping: lastComma < 0 ? 0 : int.length - lastComma - 1, minFrac: (frac.match(/0/g) ?? []).length, maxFrac: frac.length };
}

/** A DECIMAL argument's exact text (decimalAsText) as digits. */
function textDigits(text: string): DecimalDigits {
  const [int, frac = ''] = text.replace('-', '').split('.');
  return { neg: text.startsWith('-'), digits: BigInt(int + frac), scale: frac.length };
}

function formatDecimalPattern(v: number | string, p: DecimalPattern): string {
  if (typeof v === 'number' && Number.isNaN(v)) return 'NaN';
  if (typeof v === 'number' && !Number.isFinite(v)) return v > 0 ? '∞' : '-∞';
  const r = roundDigits(typeof v === 'string' ? textDigits(v) : exactDigits(v), p.maxFrac, 'HALF_EVEN');
  let { int, frac } = splitDigits(r);
  int = int.replace(/^0+/, '').padStart(p.minInt, '0');
  frac = frac.slice(0, p.minFrac) + frac.slice(p.minFrac).replace(/0+$/, '');
  const text = group(int, p.grouping) + (frac ? `.${frac}` : '');
  return (r.neg ? '-' : '') + (text === '' ? '0' : text);
}

// --- format_string ---

const SPEC = /%(?:(\d+)\$)?([-#+ 0,(]*)(\d+)?(?:\.(\d+))?([a-zA-Z%])/g;
const CONVERSIONS = '%s %S %d %x %X %o %f %e %E %b %B %c %% %n';

function pad(s: string, width: number | undefined, left: boolean, zero: boolean): string {
  if (width === undefined || s.length >= width) return s;
  if (zero) {
    const sign = /^[-+ ]/.test(s) ? s[0] : '';
    return sign + s.slice(sign.length).padStart(width - sign.length, '0');
  }
  return left ? s.padEnd(width) : s.padStart(width);
}

function signed(neg: boolean, body: string, flags: string): string {
  if (neg) return flags.includes('(') ? `(${body})` : `-${body}`;
  return (flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '') + body;
}

function formatOne(fn: string, conv: string, flags: string, width: number | undefined, prec: number | undefined, v: unknown, t: ExprType): string {
  const left = flags.includes('-');
  const zero = flags.includes('0');
  if (conv === 's' || conv === 'S') {
    let s = v === null ? 'null' : t === 'string' ? (v as string) : (castValue(v, t, 'string') as string);
    if (prec !== undefined) s = [...s].slice(0, prec).join('');
    return pad(conv === 'S' ? s.toUpperCase() : s, width, left, false);
  }
  if (conv === 'b' || conv === 'B') {
    const s = String(v === null ? false : t === 'boolean' ? v : true);
    return pad(conv === 'B' ? s.toUpperCase() : s, width, left, false);
  }
  if (v === null) return pad('null', width, left, false);
  const integral = t === 'long';
  if ('dxXoc'.includes(conv) && !integral) fail(fn, `%${conv} takes an integer, got ${t} (Java's IllegalFormatConversionException); CAST it to BIGINT`);
  if ('feE'.includes(conv) && t !== 'double') fail(fn, `%${conv} takes a floating-point number, got ${t} (Java's IllegalFormatConversionException); CAST it to DOUBLE`);
  const n = v as number;
  switch (conv) {
    case 'd': {
      const digits = String(Math.abs(n));
      return pad(signed(n < 0, flags.includes(',') ? group(digits, 3) : digits, flags), width, left, zero);
    }
    case 'x': case 'X': case 'o': {
      const u = BigInt.asUintN(64, BigInt(n)).toString(conv === 'o' ? 8 : 16);
      const s = (flags.includes('#') ? (conv === 'o' ? '0' : '0x') : '') + u;
      return pad(conv === 'X' ? s.toUpperCase() : s, width, left, zero);
    }
    case 'c': return pad(String.fromCodePoint(n), width, left, false);
    case 'f': {
      if (!Number.isFinite(n)) return pad(Number.isNaN(n) ? 'NaN' : signed(n < 0, 'Infinity', flags), width, left, false);
      const { int, frac } = splitDigits(roundDigits(shortestDigits(Math.abs(n)), prec ?? 6, 'HALF_UP'));
      const body = (flags.includes(',') ? group(int, 3) : int) + (frac ? `.${frac}` : '');
      return pad(signed(n < 0 || Object.is(n, -0), body, flags), width, left, zero);
    }
    default: { // e, E
      if (!Number.isFinite(n)) return pad(Number.isNaN(n) ? 'NaN' : signed(n < 0, 'Infinity', flags), width, left, false);
      const p = prec ?? 6;
      const d = shortestDigits(Math.abs(n));
      const text = d.digits.toString();
      let exp = n === 0 ? 0 : text.length - 1 - d.scale;
      let r = roundDigits({ neg: false, digits: d.digits, scale: d.scale + exp }, p, 'HALF_UP');
      if (r.digits >= 10n ** BigInt(p + 1)) { exp += 1; r = roundDigits({ neg: false, digits: d.digits, scale: d.scale + exp }, p, 'HALF_UP'); }
      const { int, frac } = splitDigits(r);
      const s = `${int}${frac ? `.${frac}` : ''}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
      return pad(signed(n < 0, conv === 'E' ? s.toUpperCase() : s, flags), width, left, zero);
    }
  }
}

function formatString(fn: string, fmt: string, args: unknown[], types: ExprType[]): string {
  let next = 0;
  let out = '';
  let last = 0;
  for (const m of fmt.matchAll(SPEC)) {
    out += fmt.slice(last, m.index);
    last = m.index + m[0].length;
    const [, index, flags, w, p, conv] = m;
    if (conv === '%') { out += '%'; continue; }
    if (conv === 'n') { out += '\n'; continue; }
    if (!'sSdxXofeEbBc'.includes(conv)) fail(fn, `the conversion %${conv} is not supported; Weir takes ${CONVERSIONS}`);
    const i = index !== undefined ? Number(index) - 1 : next++;
    if (i < 0 || i >= args.length) fail(fn, `the format '${m[0]}' has no argument (Java's MissingFormatArgumentException)`);
    out += formatOne(fn, conv, flags, w === undefined ? undefined : Number(w), p === undefined ? undefined : Number(p), args[i], types[i]);
    checkStringLength(fn, out.length);
  }
  if (fmt.slice(last).includes('%')) fail(fn, `the format '${fmt.slice(last)}' is not a conversion Weir takes (${CONVERSIONS})`);
  return out + fmt.slice(last);
}

const formatLiterals = (fn: string) => ([fmt]: unknown[]): string | undefined => {
  if (typeof fmt !== 'string') return undefined;
  // Spark's FormatString refuses a literal format that indexes argument 0 (Java's Formatter would
  // read it as the first), unless spark.sql.legacy.allowZeroIndexInFormatString.
  if (fmt.includes('%0$')) return `[INVALID_PARAMETER_VALUE.ZERO_INDEX] ${fn}: the format's argument indexes are %1$, %2$ and so on, not %0$`;
  for (const m of fmt.matchAll(SPEC)) if (!'sSdxXofeEbBc%n'.includes(m[5])) return `${fn}: the conversion %${m[5]} is not supported; Weir takes ${CONVERSIONS}`;
  return undefined;
};

const FORMAT_STRING: FunctionDef = {
  min: 1, max: 64, nullIntolerant: false,
  type: (a) => (isStr(a[0]) ? 'string' : 'format_string() takes (format, argument, …)'),
  impl: ([fmt, ...args], _c, t) => (fmt === null ? null : formatString('format_string()', fmt as string, args, t.slice(1))),
  checkLiterals: formatLiterals('format_string()'),
};

// --- to_char / to_number (number-format.ts) ---

function formatOf(fn: string, f: string): NumberFormat {
  const nf = numberFormat(f);
  if (typeof nf === 'string') fail(fn, nf);
  return nf;
}

const numberFormatLiterals = (fn: string) => ([, f]: unknown[]): string | undefined => {
  if (f === undefined) return `${fn}: the format must be a literal string, as in Spark`;
  const nf = typeof f === 'string' ? numberFormat(f) : undefined;
  return typeof nf === 'string' ? `${fn}: ${nf}` : undefined;
};

const toNumberDef = (fn: string, onMismatch: 'fail' | 'null'): FunctionDef => ({
  min: 2, max: 2, type: (a) => (isStr(a[0]) && isStr(a[1]) ? 'decimal' : `${fn} takes (string, format)`),
  resultDecimal: ([, f]) => {
    const nf = typeof f === 'string' ? numberFormat(f) : undefined;
    return typeof nf === 'object' ? { precision: nf.precision, scale: nf.scale } : ({ precision: 38, scale: 0 } satisfies DecimalType);
  },
  impl: ([s, f]) => {
    const nf = formatOf(fn, f as string);
    const v = parseNumber(s as string, nf);
    if (v === undefined && onMismatch === 'fail') fail(fn, `the input '${s as string}' does not match the format '${nf.text}' (INVALID_FORMAT.MISMATCH_INPUT); try_to_number gives NULL instead`);
    return v ?? null;
  },
  checkLiterals: numberFormatLiterals(fn),
});

/** to_char of a binary: Spark's 'base64', 'hex' and 'utf-8' forms. */
const BINARY_FORMATS = ['base64', 'hex', 'utf-8'];
function binaryToChar(b: Uint8Array, f: string): string {
  const buf = Buffer.from(b);
  switch (f.trim().toLowerCase()) {
    case 'base64': return base64Text('to_char()', buf);
    case 'hex': return buf.toString('hex').toUpperCase();
    case 'utf-8': return buf.toString('utf8');
    default: return fail('to_char()', `a binary takes the format 'base64', 'hex' or 'utf-8', got '${f}' (INVALID_PARAMETER_VALUE.BINARY_FORMAT)`);
  }
}

const TO_CHAR: FunctionDef = {
  min: 2, max: 2,
  // Spark 4's ToCharacterBuilder: a DATE, TIMESTAMP or TIMESTAMP_NTZ is formatted by a datetime
  // pattern, as date_format.
  replacement: (e, c) => (['date', 'timestamp'].includes(c.compile(e.args[0]).type) ? { ...e, name: 'date_format' } : undefined),
  type: (a) => ((isNumeric(a[0]) || a[0] === 'decimal' || a[0] === 'binary') && isStr(a[1]) ? 'string' : 'to_char() takes (number, format), (date or timestamp, datetime pattern) or (binary, \'base64\' | \'hex\' | \'utf-8\')'),
  decimalAsText: true,
  impl: ([v, f], _c, t) => {
    if (t[0] === 'binary') return binaryToChar(v as Uint8Array, f as string);
    const d = typeof v === 'string' ? textDigits(v) : shortestDigits(v as number);
    const { int, frac } = splitDigits(d);
    return formatNumber(int, frac, d.neg && d.digits !== 0n, formatOf('to_char()', f as string));
  },
  checkLiterals: (lits) => (typeof lits[1] === 'string' && BINARY_FORMATS.includes(lits[1].trim().toLowerCase()) ? undefined : numberFormatLiterals('to_char()')(lits)),
};

export const FORMAT_FUNCTIONS: Record<string, FunctionDef> = {
  // Spark: x rounded HALF_EVEN to d places with grouping, or printed by a DecimalFormat pattern; NULL for d < 0.
  format_number: {
    min: 2, max: 2,
    type: (a) => ((isNumeric(a[0]) || a[0] === 'decimal') && (a[1] === 'long' || isStr(a[1])) ? 'string' : 'format_number() takes (number, decimal places or pattern)'),
    decimalAsText: true,
    impl: ([v, d], _c, t) => {
      if (t[1] === 'long') {
        const k = Math.trunc(d as number);
        return k < 0 ? null : formatDecimalPattern(v as number | string, { minInt: 1, grouping: 3, minFrac: k, maxFrac: k });
      }
      const p = (d as string) === '' ? { minInt: 1, grouping: 3, minFrac: 0, maxFrac: 0 } : decimalPattern(d as string);
      if (typeof p === 'string') fail('format_number()', p);
      return formatDecimalPattern(v as number | string, p);
    },
    checkLiterals: ([, d]) => { const p = typeof d === 'string' && d !== '' ? decimalPattern(d) : undefined; return typeof p === 'string' ? `format_number(): ${p}` : undefined; },
  },
  format_string: FORMAT_STRING,
  printf: FORMAT_STRING,
  to_char: TO_CHAR,
  to_varchar: TO_CHAR,
  to_number: toNumberDef('to_number()', 'fail'),
  try_to_number: toNumberDef('try_to_number()', 'null'),
};

