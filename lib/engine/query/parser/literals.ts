/**
 * Spark's literals, typed as Spark's AstBuilder types them (the parse tree's text in, a
 * Literal out): an integer is INT if it fits, else BIGINT, else DECIMAL(n,0); `1.5` is
 * DECIMAL(2,1) (Java BigDecimal's precision and scale); `1.5e0` DOUBLE; the suffixes `Y` TINYINT,
 * `S` SMALLINT, `L` BIGINT, `D` DOUBLE, `F` FLOAT, `BD` DECIMAL, each range-checked with Spark's
 * INVALID_NUMERIC_LITERAL_RANGE; strings unescaped with Spark's rules (`unescapeSQLString`);
 * typed literals `DATE '…'`, `TIMESTAMP '…'`, `TIMESTAMP_NTZ '…'`, `X'…'`, `INTERVAL '…'`, the
 * date and timestamp ones with Spark's special values (`DATE 'today'`, see specialDatetimeValue).
 * Part of the Spark SQL front end (see unresolved-plan.ts).
 */
import { parseDate } from '../date';
import { SqlValidationError } from '../sql-error';
import { zoneOf } from '../time-zones';
import {
  BinaryType, ByteType, DateType, DecimalType, DoubleType, FloatType, IntegerType, LongType, MAX_DECIMAL_PRECISION,
  ShortType, StringType, TimestampNTZType, TimestampType,
} from './data-type';
import type { DataType } from './data-type';
import type { Literal, Position } from './unresolved-plan';

const lit = (value: Literal['value'], dataType: DataType, pos: Position): Literal => ({ kind: 'Literal', value, dataType, pos });

/** Java BigDecimal's view of a plain decimal text: unscaled digits, scale and precision. */
function bigDecimal(text: string, pos: Position): { unscaled: bigint; scale: number; precision: number } {
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new SqlValidationError(`[PARSE_SYNTAX_ERROR] Invalid number ${text}.`, pos, 'literal', 'PARSE_SYNTAX_ERROR');
  const frac = m[3] ?? '';
  let scale = frac.length - Number(m[4] ?? 0);
  let digits = `${m[2]}${frac}`.replace(/^0+(?=\d)/, '');
  if (scale < 0) { digits += '0'.repeat(-scale); scale = 0; }
  const unscaled = BigInt(m[1] + (digits || '0'));
  const precision = unscaled === 0n ? 1 : (unscaled < 0n ? -unscaled : unscaled).toString().length;
  return { unscaled, scale, precision };
}

function decimalLiteral(text: string, pos: Position): Literal {
  const d = bigDecimal(text, pos);
  const precision = Math.max(d.precision, d.scale);
  if (precision > MAX_DECIMAL_PRECISION) {
    throw new SqlValidationError(`[DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION] Decimal precision ${precision} exceeds max precision ${MAX_DECIMAL_PRECISION}.`, pos, 'literal', 'DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION');
  }
  return lit({ unscaled: d.unscaled, scale: d.scale }, DecimalType(precision, d.scale), pos);
}

const INT_RANGES = {
  tinyint: [-128n, 127n, ByteType],
  smallint: [-32768n, 32767n, ShortType],
  bigint: [-(2n ** 63n), 2n ** 63n - 1n, LongType],
} as const;

function rangeError(raw: string, typeName: string, min: string, max: string, pos: Position): SqlValidationError {
  return new SqlValidationError(
    `[INVALID_NUMERIC_LITERAL_RANGE] Numeric literal ${raw} is outside the valid range for ${typeName} with minimum value of ${min} and maximum value of ${max}. Please adjust the value accordingly.`,
    pos, 'literal', 'INVALID_NUMERIC_LITERAL_RANGE',
  );
}

/** A `number` token's text (with its sign, as the grammar's `number` rule has it). */
export function numberLiteral(text: string, pos: Position): Literal {
  const upper = text.toUpperCase();
  if (/^-?\d+$/.test(text)) {
    const v = BigInt(text);
    if (v >= -(2n ** 31n) && v < 2n ** 31n) return lit(v, IntegerType, pos);
    if (v >= INT_RANGES.bigint[0] && v <= INT_RANGES.bigint[1]) return lit(v, LongType, pos);
    return decimalLiteral(text, pos);
  }
  const suffix = /^(-?\d+)([YSL])$/.exec(upper);
  if (suffix) {
    const [min, max, type] = INT_RANGES[suffix[2] === 'Y' ? 'tinyint' : suffix[2] === 'S' ? 'smallint' : 'bigint'];
    const v = BigInt(suffix[1]);
    if (v < min || v > max) throw rangeError(suffix[1], suffix[2] === 'Y' ? 'tinyint' : suffix[2] === 'S' ? 'smallint' : 'bigint', String(min), String(max), pos);
    return lit(v, type, pos);
  }
  if (upper.endsWith('BD')) return decimalLiteral(text.slice(0, -2), pos);
  if (upper.endsWith('D') || upper.endsWith('F')) {
    const raw = text.slice(0, -1);
    const v = Number(raw);
    const float = upper.endsWith('F');
    const max = float ? 3.4028234663852886e38 : Number.MAX_VALUE;
    if (!Number.isFinite(v) || Math.abs(v) > max) {
      throw rangeError(raw, float ? 'float' : 'double', float ? '-3.4028234663852886E+38' : '-1.7976931348623157E+308', float ? '3.4028234663852886E+38' : '1.7976931348623157E+308', pos);
    }
    return lit(float ? Math.fround(v) : v, float ? FloatType : DoubleType, pos);
  }
  if (/E/.test(upper)) {
    const v = Number(text);
    if (!Number.isFinite(v)) throw rangeError(text, 'double', '-1.7976931348623157E+308', '1.7976931348623157E+308', pos);
    return lit(v, DoubleType, pos);
  }
  return decimalLiteral(text, pos);
}

const ESCAPES: Record<string, string> = { '0': '\u0000', "'": "'", '"': '"', b: '\b', n: '\n', r: '\r', t: '\t', Z: '\u001A', '\\': '\\', '%': '\\%', _: '\\_' };

/**
 * Spark's `unescapeSQLString`: a quoted token's value. `r'…'` and `R"…"` are raw (no escapes);
 * otherwise a doubled quote is one, and `\uXXXX`, `\UXXXXXXXX`, three octal digits, the escapes
 * above, and any other `\x` is x.
 */
export function unescapeSqlString(token: string): string {
  if (token[0] === 'r' || token[0] === 'R') return token.slice(2, -1);
  const s = token.slice(1, -1);
  const quote = token[0];
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    // A doubled quote (only in strings spark-parser.ts joined: the lexer ends one at its quote).
    if (c === quote && s[i + 1] === quote) { out += c; i++; continue; }
    if (c !== '\\' || i + 1 >= s.length) { out += c; continue; }
    const n = s[i + 1];
    if (n === 'u' && /^[0-9a-fA-F]{4}$/.test(s.slice(i + 2, i + 6))) { out += String.fromCharCode(parseInt(s.slice(i + 2, i + 6), 16)); i += 5; continue; }
    if (n === 'U' && /^[0-9a-fA-F]{8}$/.test(s.slice(i + 2, i + 10))) {
      const cp = parseInt(s.slice(i + 2, i + 10), 16);
      if (cp <= 0x10ffff) { out += String.fromCodePoint(cp); i += 9; continue; }
    }
    if (/^[01][0-7]{2}$/.test(s.slice(i + 1, i + 4))) { out += String.fromCharCode(parseInt(s.slice(i + 1, i + 4), 8)); i += 3; continue; }
    out += ESCAPES[n] ?? n;
    i++;
  }
  return out;
}

export const stringLiteral = (value: string, pos: Position): Literal => lit(value, StringType, pos);

function invalidTyped(type: string, value: string, pos: Position): SqlValidationError {
  return new SqlValidationError(`[INVALID_TYPED_LITERAL] The value of the typed literal "${type}" is invalid: '${value}'.`, pos, 'literal', 'INVALID_TYPED_LITERAL');
}

// A zone as parseTimestampLiteral reads one (Z, an offset, UTC+08:00, GMT-5, Europe/Paris, PST): the
// expression builder refuses a zone ID it does not know, with the same error class.
const ZONE = String.raw`\s*([A-Za-z+-][A-Za-z0-9_/+:-]*)?`;
const DATED_TIMESTAMP = new RegExp(String.raw`^\s*[+-]?\d{4,6}(-\d{1,2}(-\d{1,2}([ T]\d{1,2}(:\d{1,2}(:\d{1,2}(\.\d*)?)?)?)?${ZONE})?)?\s*$`);
const TIME_ONLY = new RegExp(String.raw`^\s*T?\d{1,2}:\d{1,2}(:\d{1,2}(\.\d*)?)?${ZONE}\s*$`);

export type SpecialDatetimeValue = 'epoch' | 'now' | 'today' | 'tomorrow' | 'yesterday';
const SPECIAL_VALUES: readonly string[] = ['epoch', 'now', 'today', 'tomorrow', 'yesterday'];

/**
 * Spark's special date and timestamp values (DateTimeUtils.extractSpecialValue), which its parser
 * reads only in a typed literal (convertSpecialDate, convertSpecialTimestamp[NTZ]): the word in
 * any case, after it a zone Spark checks and then ignores (none after `now`).
 */
export function specialDatetimeValue(value: string): SpecialDatetimeValue | undefined {
  const m = /^([A-Za-z]+)[ \t]*(.*)$/s.exec(value.trim());
  if (!m || m[0].length < 3) return undefined;
  const word = m[1].toLowerCase();
  if (!SPECIAL_VALUES.includes(word)) return undefined;
  if (m[2] !== '' && (word === 'now' || zoneOf(m[2]) === null)) return undefined;
  return word as SpecialDatetimeValue;
}

/**
 * `DATE '…'`, `TIMESTAMP[_NTZ|_LTZ] '…'`, `X'…'` (INTERVAL '…' is intervals.ts's). A special value
 * other than `epoch` is kept as its word, and a TIMESTAMP's time without a date as written: their
 * value is the batch's date's (expression-builder.ts), which validation does not know.
 */
export function typedLiteral(typeName: string, value: string, pos: Position): Literal {
  const t = typeName.toUpperCase();
  const special = t === 'X' ? undefined : specialDatetimeValue(value);
  switch (t) {
    case 'DATE': {
      if (special) return lit(special === 'epoch' ? 0 : special, DateType, pos);
      const days = parseDate(value);
      if (days === null) throw invalidTyped(t, value, pos);
      return lit(days, DateType, pos);
    }
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
    case 'TIMESTAMP_NTZ': {
      const type = t === 'TIMESTAMP_NTZ' ? TimestampNTZType : TimestampType;
      if (special) return lit(special === 'epoch' ? '1970-01-01 00:00:00' : special, type, pos);
      // Spark's stringToTimestamp reads a time alone (as of the current date); not a TIMESTAMP_NTZ.
      if (!DATED_TIMESTAMP.test(value) && (type === TimestampNTZType || !TIME_ONLY.test(value))) throw invalidTyped(t, value, pos);
      return lit(value, type, pos);
    }
    case 'X': {
      if (!/^[0-9a-fA-F]*$/.test(value)) throw invalidTyped(t, value, pos);
      const hex = value.length % 2 ? `0${value}` : value;
      const bytes = new Uint8Array(hex.length / 2);
      for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
      return lit(bytes, BinaryType, pos);
    }
    default:
      throw new SqlValidationError(`[UNSUPPORTED_TYPED_LITERAL] Literals of the type ${t} are not supported. Supported types are DATE, TIMESTAMP_NTZ, TIMESTAMP_LTZ, TIMESTAMP, INTERVAL, X.`, pos, 'literal', 'UNSUPPORTED_TYPED_LITERAL');
  }
}
