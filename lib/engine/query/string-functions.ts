/**
 * Spark's string functions (group string_funcs) but for the regexp, encoding and formatting
 * ones (regexp-functions.ts, string-encoding-functions.ts, format-functions.ts): case, trim,
 * pad, substring, concat, search, aliases (lcase, ucase, character_length), byte lengths,
 * base64, encode/decode between strings and binary, split_part, substring_index, levenshtein,
 * soundex, find_in_set, elt, overlay, mask, luhn_check and Oracle-style decode. Lengths and
 * positions count characters (code points), as Spark's UTF8String does; BINARY values are
 * Uint8Arrays.
 */
import { RecordExpressionError } from '../errors';
import type { CollectionFunctionDef } from './function-types';
import type { TypeInfo } from './data-types';
import { chars, isStr, joinChecked, nums, str } from './function-args';
import type { FunctionDef } from './function-types';
import { CONCAT_ARRAYS, CONCAT_WS_ARRAYS, REVERSE_ARRAY } from './array-functions';
import { castValue, isNumeric, unifyTypes, type ExprType } from './sql-values';
import { checkStringLength, MAX_STRING_VALUE_LENGTH, stringTooLargeMessage } from './value-limits';

const isInt = (t: ExprType) => t === 'long' || t === 'null';
/** A string or a binary argument (Spark casts a string to its UTF-8 bytes where it expects binary). */
const isBytes = (t: ExprType) => isStr(t) || t === 'binary';

const bytesOf = (v: unknown): Buffer => (typeof v === 'string' ? Buffer.from(v, 'utf8') : Buffer.from(v as Uint8Array));

function fail(fn: string, msg: string): never {
  throw new RecordExpressionError(`${fn}: ${msg}`, { function: fn });
}

/**
 * Spark's UTF8String.substringSQL: 1-based `pos` (0 acts as 1, negative counts from the end),
 * the end computed before the start is clamped (substr('abc', -5, 3) is 'a').
 */
function substringSQL(cs: string[], pos: number, length: number): string {
  let start = pos > 0 ? pos - 1 : pos < 0 ? cs.length + pos : 0;
  const end = start + length;
  start = Math.max(start, 0);
  return start >= end ? '' : cs.slice(start, end).join('');
}

/** The charsets Spark 4 accepts for encode/decode (Java's names, any case). */
const CHARSETS = ['US-ASCII', 'ISO-8859-1', 'UTF-8', 'UTF-16BE', 'UTF-16LE', 'UTF-16', 'UTF-32'];
const charsetProblem = (fn: string, cs: string) => `${fn}: the charset '${cs}' is not supported (INVALID_PARAMETER_VALUE.CHARSET); use one of ${CHARSETS.join(', ')}`;

const malformed = (fn: string, charset: string) => `[MALFORMED_CHARACTER_CODING] Invalid value found when performing \`${fn}\` with \`${charset}\``;

function singleByte(s: string, limit: number, charset: string): Uint8Array {
  const out = Buffer.alloc(s.length);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= limit) fail('encode()', malformed('encode', charset));
    out[i] = c;
  }
  return out;
}

/** Java's UTF-32 encoder: each code point in four big-endian bytes, no byte-order mark. */
function utf32Bytes(s: string): Uint8Array {
  const points = Array.from(s, (c) => c.codePointAt(0)!);
  const out = Buffer.alloc(points.length * 4);
  points.forEach((p, i) => out.writeUInt32BE(p, i * 4));
  return out;
}

/** Java's UTF-32 decoder: big-endian unless a byte-order mark says otherwise; a partial or invalid code point is malformed. */
function utf32Text(b: Buffer, charset: string): string {
  if (b.length % 4 !== 0) return fail('decode()', malformed('decode', charset));
  const little = b.length >= 4 && b.readUInt32LE(0) === 0xfeff;
  const start = little || (b.length >= 4 && b.readUInt32BE(0) === 0xfeff) ? 4 : 0;
  let out = '';
  for (let i = start; i < b.length; i += 4) {
    const p = little ? b.readUInt32LE(i) : b.readUInt32BE(i);
    if (p > 0x10ffff || (p >= 0xd800 && p <= 0xdfff)) return fail('decode()', malformed('decode', charset));
    out += String.fromCodePoint(p);
  }
  return out;
}

function encodeText(s: string, charset: string): Uint8Array {
  switch (charset.toUpperCase()) {
    case 'UTF-8': return Buffer.from(s, 'utf8');
    // Spark (spark.sql.legacy.codingErrorAction=false) fails on a character the charset cannot
    // hold, where Java's default would write '?'.
    case 'US-ASCII': return singleByte(s, 0x80, charset);
    case 'ISO-8859-1': return singleByte(s, 0x100, charset);
    case 'UTF-16LE': return Buffer.from(s, 'utf16le');
    case 'UTF-16BE': return Buffer.from(s, 'utf16le').swap16();
    // Java's UTF-16 encoder writes a big-endian byte-order mark first.
    case 'UTF-16': return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(s, 'utf16le').swap16()]);
    case 'UTF-32': return utf32Bytes(s);
    default: return fail('encode()', charsetProblem('encode()', charset));
  }
}

function decodeBytes(b: Buffer, charset: string): string {
  switch (charset.toUpperCase()) {
    // Spark 4 (spark.sql.legacy.codingErrorAction=false) fails on bytes the charset cannot
    // read, where Java's default would read U+FFFD.
    case 'UTF-8':
      try {
        return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(b);
      } catch {
        return fail('decode()', malformed('decode', charset));
      }
    case 'US-ASCII':
      if (b.some((x) => x >= 0x80)) fail('decode()', malformed('decode', charset));
      return b.toString('latin1');
    case 'ISO-8859-1': return b.toString('latin1');
    case 'UTF-16LE': return new TextDecoder('utf-16le', { ignoreBOM: true }).decode(b);
    case 'UTF-16BE': return new TextDecoder('utf-16be', { ignoreBOM: true }).decode(b);
    // Java's UTF-16 decoder: big-endian unless a byte-order mark says otherwise.
    case 'UTF-16':
      if (b[0] === 0xff && b[1] === 0xfe) return new TextDecoder('utf-16le').decode(b);
      return new TextDecoder('utf-16be').decode(b);
    case 'UTF-32': return utf32Text(b, charset);
    default: return fail('decode()', charsetProblem('decode()', charset));
  }
}

const charsetLiterals = (fn: string) => (lits: unknown[]): string | undefined =>
  typeof lits[1] === 'string' && !CHARSETS.includes(lits[1].toUpperCase()) ? charsetProblem(fn, lits[1]) : undefined;

/**
 * Edit distance over code points, two rows of the table. Spark's levenshtein has no bound; here
 * the table is at most 10^8 cells, so that one record cannot hold the batch for minutes.
 */
const MAX_LEVENSHTEIN_CELLS = 1e8;
export function levenshtein(a: string[], b: string[], threshold?: number): number {
  if (a.length * b.length > MAX_LEVENSHTEIN_CELLS) {
    fail('levenshtein()', `strings of ${a.length} and ${b.length} characters make ${a.length * b.length} comparisons, over the limit of ${MAX_LEVENSHTEIN_CELLS}; compare shorter strings`);
  }
  let prev = Int32Array.from({ length: b.length + 1 }, (_, j) => j);
  let cur = new Int32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      rowMin = Math.min(rowMin, cur[j]);
    }
    // Every later row is at least this row's minimum: past the threshold already.
    if (threshold !== undefined && rowMin > threshold) return -1;
    [prev, cur] = [cur, prev];
  }
  const d = prev[b.length];
  return threshold !== undefined && d > threshold ? -1 : d;
}

/** Spark's UTF8String.soundex: American Soundex over the bytes; a value not starting with a letter is returned as is. */
const SOUNDEX = '01230127022455012623017202';
function soundex(s: string): string {
  const bytes = Buffer.from(s, 'utf8');
  if (bytes.length === 0) return '';
  const letter = (b: number) => (b >= 97 && b <= 122 ? b - 32 : b >= 65 && b <= 90 ? b : -1);
  const first = letter(bytes[0]);
  if (first < 0) return s;
  const out = [String.fromCharCode(first)];
  let last = SOUNDEX[first - 65];
  for (let i = 1; i < bytes.length && out.length < 4; i++) {
    const b = letter(bytes[i]);
    if (b < 0) { last = '0'; continue; }
    const code = SOUNDEX[b - 65];
    if (code === '7') continue; // H and W do not separate equal codes
    if (code !== '0' && code !== last) out.push(code);
    last = code;
  }
  return out.join('').padEnd(4, '0');
}

/** Spark's Mask: each upper-case letter, lower-case letter and digit replaced; NULL keeps that class. */
function mask(s: string, upper: unknown, lower: unknown, digit: unknown, other: unknown): string {
  const pick = (c: string): unknown => (/\p{Lu}/u.test(c) ? upper : /\p{Ll}/u.test(c) ? lower : /\p{Nd}/u.test(c) ? digit : other);
  return chars(s).map((c) => { const r = pick(c); return r === null || r === undefined ? c : (r as string); }).join('');
}

const MASK_ARGS = ['upperChar', 'lowerChar', 'digitChar', 'otherChar'];
const maskLiterals = (lits: unknown[]): string | undefined => {
  const i = lits.slice(1).findIndex((l) => typeof l === 'string' && chars(l).length !== 1);
  return i < 0 ? undefined : `[DATATYPE_MISMATCH.INPUT_SIZE_NOT_ONE] mask(): ${MASK_ARGS[i]} must be one character (or NULL to keep those characters), got '${String(lits[i + 1])}'`;
};

/** Spark's luhn_check: digits only, not empty, the Luhn sum a multiple of 10. */
function luhn(s: string): boolean {
  if (s === '' || !/^[0-9]+$/.test(s)) return false;
  let sum = 0;
  for (let i = s.length - 1, second = false; i >= 0; i--, second = !second) {
    let d = s.charCodeAt(i) - 48;
    if (second) { d *= 2; if (d > 9) d -= 9; }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Spark's split_part: the delimiter is text, not a pattern; part 0 is an error, past the end ''. */
function splitPart(s: string, delim: string, part: number): string {
  if (part === 0) fail('split_part()', 'the index 0 is invalid: SQL array indices start at 1 (INVALID_INDEX_OF_ZERO)');
  // An empty delimiter does not split (Spark's UTF8String.splitSQL).
  const parts = delim === '' ? [s] : s.split(delim);
  const i = part > 0 ? part - 1 : parts.length + part;
  return i >= 0 && i < parts.length ? parts[i] : '';
}

/** Spark's substring_index: before the count-th delimiter (after it from the right when negative); overlapping finds count. */
function substringIndex(s: string, delim: string, count: number): string {
  if (delim === '' || count === 0) return '';
  if (count > 0) {
    let at = -1;
    for (let k = 0; k < count; k++) { at = s.indexOf(delim, at + 1); if (at < 0) return s; }
    return s.slice(0, at);
  }
  let at = s.length - delim.length + 1;
  for (let k = 0; k < -count; k++) { at = at - 1 < 0 ? -1 : s.lastIndexOf(delim, at - 1); if (at < 0) return s; }
  return s.slice(at + delim.length);
}

/** The unified type of elt's and decode's value arguments (NULL-only: a string). */
function unified(args: ExprType[]): ExprType | string {
  let t: ExprType | undefined = 'null';
  for (const a of args) {
    t = unifyTypes(t, a);
    if (!t) return `arguments have incompatible types (${args.join(', ')})`;
  }
  return t === 'null' ? 'string' : t;
}

/** Spark's base64 text of bytes: Java's MIME encoder, lines of 76 characters joined by CRLF. */
export function base64Text(fn: string, b: Uint8Array): string {
  const n = Math.ceil(b.length / 3) * 4;
  checkStringLength(fn, n + 2 * Math.max(0, Math.ceil(n / 76) - 1));
  const text = Buffer.from(b).toString('base64');
  return text.length <= 76 ? text : (text.match(/.{1,76}/g) ?? []).join('\r\n');
}

const lengthOf = (fn: string, unit: 8 | 1): FunctionDef => ({
  min: 1, max: 1, resultIntegral: 32, type: (a) => (isBytes(a[0]) ? 'long' : `${fn} takes a string or a binary`),
  impl: ([v]) => (typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : (v as Uint8Array).length) * unit,
});

/**
 * Spark's lpad/rpad: pads with `fill` (cycled) to `len` characters, or cuts to `len`. The
 * result's length is known from the arguments, so an oversize one fails before any allocation.
 */
function pad(fn: string, s: string, len: number, fill: string, left: boolean): string {
  const n = Math.trunc(len);
  // n characters take at least n code units: refuse before splitting anything into characters.
  if (fill !== '' && n > MAX_STRING_VALUE_LENGTH) checkStringLength(fn, n);
  const cs = chars(s);
  if (!(n > cs.length)) return cs.slice(0, Math.max(0, n || 0)).join('');
  if (fill === '') return s;
  const need = n - cs.length;
  const f = chars(fill);
  const rest = f.slice(0, need % f.length).join('');
  const cycles = Math.floor(need / f.length);
  checkStringLength(fn, s.length + cycles * fill.length + rest.length);
  const padding = fill.repeat(cycles) + rest;
  return left ? padding + s : s + padding;
}

/**
 * lpad/rpad's types: (binary, length[, binary]) → BINARY (Spark's BinaryPad); else STRING, a
 * BINARY beside a string cast to STRING (its UTF-8 text) as Spark's implicit cast does:
 * lpad('abc', 5, X'57') is 'WWabc'.
 */
function padType(a: ExprType[]): ExprType | string {
  if (!isNumeric(a[1])) return 'expects (string, length[, pad]) or (binary, length[, binary pad])';
  if (padsBytes(a)) return 'binary';
  const text = (t: ExprType | undefined) => t === undefined || t === 'binary' || t === 'string' || t === 'null';
  return text(a[0]) && text(a[2]) ? 'string' : 'expects (string, length[, pad]) or (binary, length[, binary pad])';
}

/** Whether lpad/rpad pad bytes: a BINARY padded with a BINARY (or the zero byte). */
const padsBytes = (t: ExprType[]) => t[0] === 'binary' && (t.length < 3 || t[2] === 'binary' || t[2] === 'null');

/** Spark's ByteArray.lpad/rpad: cut to `len` bytes, or padded with `fill` (cycled; a zero byte by default). */
function padBytes(fn: string, b: Uint8Array, len: number, fill: Uint8Array | undefined, left: boolean): Uint8Array {
  const n = Math.max(0, Math.trunc(len));
  const f = fill ?? new Uint8Array([0]);
  if (n <= b.length || f.length === 0) return b.subarray(0, Math.min(n, b.length));
  checkStringLength(fn, n);
  const out = new Uint8Array(n);
  const padLength = n - b.length;
  for (let i = 0; i < padLength; i++) out[left ? i : b.length + i] = f[i % f.length];
  out.set(b, left ? padLength : 0);
  return out;
}

/** At validation: a literal length over the limit with a literal non-empty fill always fails. */
const padLiterals = (fn: string) => (lits: unknown[]): string | undefined => {
  const [, n, fill] = lits;
  return typeof n === 'number' && typeof fill === 'string' && fill !== '' && Math.trunc(n) > MAX_STRING_VALUE_LENGTH
    ? stringTooLargeMessage(fn, Math.trunc(n))
    : undefined;
};

/** Upper/lower-casing can lengthen a string (ß → SS): checked on the result, at most 3× the input. */
function cased(fn: string, r: string): string {
  checkStringLength(fn, r.length);
  return r;
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

/**
 * startswith/endswith/contains: two binaries compare bytes (Spark's ByteArray.startsWith …);
 * otherwise both are read as strings, a BINARY beside a string, a number or a NULL cast to STRING
 * (its UTF-8 text) as Spark's implicit cast does: contains(X'12', 12) is false.
 */
const textOrBytes = (a: ExprType[]): ExprType | string => (a.every((t) => t === 'binary' || isStr(t)) ? 'boolean' : 'expects strings or binaries');

/** The two arguments of startswith/endswith/contains as text: bytes as one character a byte when both are BINARY, else a BINARY's UTF-8 text. */
const searchTexts = (s: unknown, p: unknown, t: ExprType[]): [string, string] => {
  const bytes = t.every((x) => x === 'binary' || x === 'null');
  return [bytes ? bytesAsText(s) : utf8Text(s), bytes ? bytesAsText(p) : utf8Text(p)];
};

/** A STRING's value, or a BINARY's bytes as CAST(b AS STRING) reads them (UTF-8, a malformed sequence replaced). */
const utf8Text = (v: unknown): string => (typeof v === 'string' ? v : new TextDecoder().decode(v as Uint8Array));

/** A binary as one character a byte, so that the string searches compare bytes. */
const bytesAsText = (v: unknown): string => (typeof v === 'string' ? v : Buffer.from((v as Uint8Array).buffer, (v as Uint8Array).byteOffset, (v as Uint8Array).byteLength).toString('latin1'));


/**
 * concat and concat_ws take each argument as its text, but Spark casts only atomic values to a
 * string there: a struct or a map is a type mismatch (to_json it, or pick its fields).
 */
const noStructOrMap = (a: ExprType[]): string | undefined =>
  a.some((t) => t === 'struct' || t === 'map') ? 'takes strings, numbers, dates, binaries or arrays, not a struct or a map: to_json() it, or pick its fields'
    // Spark casts only atomic types to a STRING here (ImplicitTypeCasts), and an interval is none.
    : a.includes('calendar_interval') ? 'takes strings, numbers, dates, binaries or arrays, not an INTERVAL: CAST it AS STRING first (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)' : undefined;

export const STRING_FUNCTIONS: Record<string, FunctionDef> = {
  bit_length: lengthOf('bit_length()', 8),
  octet_length: lengthOf('octet_length()', 1),
  // Spark's default (spark.sql.chunkBase64String.enabled=true): Java's MIME encoder, lines of
  // 76 characters joined by CRLF, none after the last.
  base64: {
    min: 1, max: 1, type: (a) => (isBytes(a[0]) ? 'string' : 'base64() takes a binary or a string'),
    impl: ([v]) => base64Text('base64()', bytesOf(v)),
  },
  // Lenient as Spark's (Commons Codec): characters outside the alphabet are skipped.
  unbase64: { min: 1, max: 1, type: (a) => str(a) ?? 'binary', impl: ([s]) => new Uint8Array(Buffer.from(s as string, 'base64')) },
  encode: {
    min: 2, max: 2, type: (a) => (isStr(a[0]) && isStr(a[1]) ? 'binary' : 'encode() takes (string, charset)'),
    impl: ([s, cs]) => encodeText(s as string, cs as string),
    checkLiterals: charsetLiterals('encode()'),
  },
  // decode(bin, charset); with more arguments, Spark's decode(expr, search, result, …[, default]).
  decode: {
    min: 2, max: 64, nullIntolerant: false,
    type: (a) => {
      if (a.length === 2) return isBytes(a[0]) && isStr(a[1]) ? 'string' : 'decode() takes (binary, charset) or (expr, search, result, …[, default])';
      const rest = a.slice(1);
      return unified(rest.filter((_, i) => i % 2 === 1 || (i === rest.length - 1 && rest.length % 2 === 1)));
    },
    impl: (args) => {
      if (args.length === 2) {
        const [b, cs] = args;
        return b === null || cs === null ? null : decodeBytes(bytesOf(b), cs as string);
      }
      // Null-safe comparison: decode(NULL, …, NULL, 'x') finds 'x', as Spark's.
      const [x, ...pairs] = args;
      for (let i = 0; i + 1 < pairs.length; i += 2) if (pairs[i] === x) return pairs[i + 1];
      return pairs.length % 2 === 1 ? pairs[pairs.length - 1] : null;
    },
    checkLiterals: (lits) => (lits.length === 2 ? charsetLiterals('decode()')(lits) : undefined),
  },
  space: {
    min: 1, max: 1, type: (a) => (isInt(a[0]) ? 'string' : 'space() takes a number of spaces'),
    impl: ([n]) => { const k = Math.max(0, Math.trunc(n as number)); checkStringLength('space()', k); return ' '.repeat(k); },
    checkLiterals: ([n]) => (typeof n === 'number' && n > MAX_STRING_VALUE_LENGTH ? stringTooLargeMessage('space()', n) : undefined),
  },
  split_part: {
    min: 3, max: 3, type: (a) => (isStr(a[0]) && isStr(a[1]) && isInt(a[2]) ? 'string' : 'split_part() takes (string, delimiter, part number)'),
    impl: ([s, d, n]) => splitPart(s as string, d as string, Math.trunc(n as number)),
    checkLiterals: ([, , n]) => (n === 0 ? 'split_part(): the index 0 is invalid: SQL array indices start at 1 (INVALID_INDEX_OF_ZERO)' : undefined),
  },
  substring_index: {
    min: 3, max: 3, type: (a) => (isStr(a[0]) && isStr(a[1]) && isInt(a[2]) ? 'string' : 'substring_index() takes (string, delimiter, count)'),
    impl: ([s, d, n]) => substringIndex(s as string, d as string, Math.trunc(n as number)),
  },
  levenshtein: {
    min: 2, max: 3, resultIntegral: 32, type: (a) => (isStr(a[0]) && isStr(a[1]) && (a.length < 3 || isInt(a[2])) ? 'long' : 'levenshtein() takes (string, string[, threshold])'),
    impl: ([a, b, t]) => levenshtein(chars(a as string), chars(b as string), t === undefined ? undefined : Math.trunc(t as number)),
  },
  soundex: { min: 1, max: 1, type: (a) => str(a) ?? 'string', impl: ([s]) => soundex(s as string) },
  // 1-based index of `s` among the comma-separated values; 0 when absent or when `s` has a comma.
  find_in_set: {
    min: 2, max: 2, resultIntegral: 32, type: (a) => str(a) ?? 'long',
    impl: ([s, list]) => ((s as string).includes(',') ? 0 : (list as string).split(',').indexOf(s as string) + 1),
  },
  // The n-th value (1-based) as a string, as Spark casts elt's values; NULL out of range (ANSI off).
  elt: {
    min: 2, max: 64, nullIntolerant: false,
    // Spark's inputTypes (INT, then strings or binaries): an index written as text or a fraction is cast to an INT.
    inputTypes: ([n]) => [n && ['string', 'double', 'decimal'].includes(n.type) ? { type: 'long', integral: 32 } : undefined],
    type: (a) => (!isInt(a[0]) ? 'elt() takes (index, value, value, …)' : a.slice(1).every((t) => t === 'binary' || t === 'null') && a.slice(1).includes('binary') ? 'binary' : a.slice(1).some((t) => t === 'array' || t === 'map' || t === 'struct') ? 'elt() takes string values' : 'string'),
    impl: ([n, ...vs], _c, t) => {
      if (n === null) return null;
      const i = Math.trunc(n as number);
      const v = vs[i - 1] ?? null;
      return v === null || t[i] === 'string' || t[i] === 'binary' ? v : castValue(v, t[i], 'string');
    },
  },
  // Spark's Overlay: `replace` put over `len` characters (default its own length) from `pos`.
  overlay: {
    min: 3, max: 4, type: (a) => (isStr(a[0]) && isStr(a[1]) && isInt(a[2]) && (a.length < 4 || isInt(a[3])) ? 'string' : 'overlay() takes (input, replace, position[, length])'),
    impl: ([s, r, p, l]) => {
      const cs = chars(s as string);
      const pos = Math.trunc(p as number);
      const len = l === undefined || (l as number) < 0 ? chars(r as string).length : Math.trunc(l as number);
      const out = substringSQL(cs, 1, pos - 1) + (r as string) + substringSQL(cs, pos + len, Number.MAX_SAFE_INTEGER);
      checkStringLength('overlay()', out.length);
      return out;
    },
  },
  mask: {
    min: 1, max: 5, nullIntolerant: false, type: (a) => str(a) ?? 'string',
    impl: ([s, u, l, d, o], _c, t) => (s === null ? null : mask(s as string, t.length > 1 ? u : 'X', t.length > 2 ? l : 'x', t.length > 3 ? d : 'n', o ?? null)),
    checkLiterals: maskLiterals,
  },
  luhn_check: { min: 1, max: 1, numbersAsText: true, type: (a) => str(a) ?? 'boolean', impl: ([s]) => luhn(s as string) },
  upper: { min: 1, max: 1, type: (a) => str(a) ?? 'string', impl: ([s]) => cased('upper()', (s as string).toUpperCase()) },
  lower: { min: 1, max: 1, type: (a) => str(a) ?? 'string', impl: ([s]) => cased('lower()', (s as string).toLowerCase()) },
  trim: { min: 1, max: 1, type: (a) => str(a) ?? 'string', impl: ([s]) => (s as string).replace(/^ +| +$/g, '') },
  reverse: { min: 1, max: 1, ofArrays: REVERSE_ARRAY, type: (a) => str(a) ?? 'string', impl: ([s]) => chars(s as string).reverse().join('') },
  concat: {
    // Spark's ConcatCoercion casts every argument to a STRING unless all are BINARYs, whose bytes
    // concatenate to a BINARY (spark.sql.function.concatBinaryAsString false, the default).
    // Without arguments it is the empty STRING (Concat's dataType of no children).
    min: 0, max: 64, exactLongs: true, textArgs: true, ofArrays: CONCAT_ARRAYS, type: (a) => noStructOrMap(a) ?? (a.length > 0 && a.every((t) => t === 'binary') ? 'binary' : 'string'),
    impl: (args, _c, t) => (t.length > 0 && t.every((x) => x === 'binary') ? new Uint8Array(Buffer.concat(args as Uint8Array[])) : joinChecked('concat()', args.map(utf8Text), '')),
  },
  concat_ws: {
    min: 1, max: 64, exactLongs: true, nullIntolerant: false, textArgs: true, ofArrays: CONCAT_WS_ARRAYS, type: (a) => str(a, 1) ?? noStructOrMap(a) ?? 'string',
    impl: ([sep, ...rest]) => (sep === null ? null : joinChecked('concat_ws()', rest.filter((v) => v !== null && v !== undefined).map(String), sep as string)),
  },
  substring: {
    min: 2, max: 3,
    type: (a) => (a[0] === 'binary' ? undefined : str(a, 1)) ?? (a.slice(1).every(isNumeric) ? (a[0] === 'binary' ? 'binary' : 'string') : 'expects (string or binary, position[, length])'),
    impl: ([s, p, l]) => {
      // Spark's UTF8String.substringSQL: 1-based; 0 acts as 1; negative counts from the end, and
      // the end is reckoned from the start before it is clamped (substr('abc', -5, 3) is 'a').
      // A binary's positions are bytes (ByteArray.subStringSQL).
      const bytes = s instanceof Uint8Array;
      const cs = bytes ? s : chars(s as string);
      const pos = Math.trunc(p as number);
      const from = pos > 0 ? pos - 1 : pos < 0 ? cs.length + pos : 0;
      const end = l === undefined ? cs.length : Math.min(cs.length, from + Math.trunc(l as number));
      const start = Math.max(0, from);
      if (bytes) return (cs as Uint8Array).slice(start, Math.max(start, end));
      return start >= end ? '' : (cs as string[]).slice(start, end).join('');
    },
  },
  replace: {
    min: 2, max: 3, type: (a) => str(a) ?? 'string',
    impl: ([s, from, to]) => {
      const src = s as string;
      const f = from as string;
      const t = (to as string | undefined) ?? '';
      if (f === '') return src;
      if (t.length > f.length) {
        // Count the occurrences first: the result's length, before building anything.
        let count = 0;
        for (let i = src.indexOf(f); i >= 0; i = src.indexOf(f, i + f.length)) count++;
        checkStringLength('replace()', src.length + count * (t.length - f.length));
      }
      return src.split(f).join(t);
    },
  },
  lpad: {
    // Spark: the pad defaults to a space (a zero byte for a binary).
    min: 2, max: 3, type: padType,
    impl: ([s, n, f], _c, t) => (padsBytes(t) ? padBytes('lpad()', s as Uint8Array, n as number, f as Uint8Array | undefined, true) : pad('lpad()', utf8Text(s), n as number, f === undefined ? ' ' : utf8Text(f), true)),
    checkLiterals: padLiterals('lpad()'),
  },
  rpad: {
    // Spark: the pad defaults to a space (a zero byte for a binary).
    min: 2, max: 3, type: padType,
    impl: ([s, n, f], _c, t) => (padsBytes(t) ? padBytes('rpad()', s as Uint8Array, n as number, f as Uint8Array | undefined, false) : pad('rpad()', utf8Text(s), n as number, f === undefined ? ' ' : utf8Text(f), false)),
    checkLiterals: padLiterals('rpad()'),
  },
  // Spark's StringTrimBoth is StringTrim's: of STRINGs, a BINARY read as its text (a STRING result).
  btrim: { min: 1, max: 2, type: (a) => str(a) ?? 'string', impl: ([s, c]) => trimChars(s as string, (c as string | undefined) ?? ' ', true, true) },
  ltrim: { min: 1, max: 2, type: (a) => str(a) ?? 'string', impl: ([s, c]) => trimChars(s as string, (c as string | undefined) ?? ' ', true, false) },
  rtrim: { min: 1, max: 2, type: (a) => str(a) ?? 'string', impl: ([s, c]) => trimChars(s as string, (c as string | undefined) ?? ' ', false, true) },
  instr: { min: 2, max: 2, resultIntegral: 32, type: (a) => str(a) ?? 'long', impl: ([s, sub]) => chars((s as string).slice(0, Math.max(0, (s as string).indexOf(sub as string)))).length + ((s as string).includes(sub as string) ? 1 : 0) },
  locate: {
    min: 2, max: 3, resultIntegral: 32, type: (a) => str(a, 2) ?? (a.length < 3 || isNumeric(a[2]) ? 'long' : 'expects (substring, string[, position])'),
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
    min: 2, max: 3, resultIntegral: 32, type: (a) => str(a, 2) ?? (a.length < 3 || isNumeric(a[2]) ? 'long' : 'expects (substring, string[, position])'),
    impl: (args, c, t) => STRING_FUNCTIONS.locate.impl(args, c, t),
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
  ascii: { min: 1, max: 1, numbersAsText: true, resultIntegral: 32, type: (a) => str(a) ?? 'long', impl: ([s]) => ((s as string).length ? (s as string).codePointAt(0)! : 0) },
  chr: { min: 1, max: 1, type: (a) => nums(a) ?? 'string', impl: ([n]) => { const v = Math.trunc(n as number); return v < 0 ? '' : String.fromCharCode(v % 256); } },
  char: { min: 1, max: 1, type: (a) => nums(a) ?? 'string', impl: ([n]) => { const v = Math.trunc(n as number); return v < 0 ? '' : String.fromCharCode(v % 256); } },
  startswith: { min: 2, max: 2, numbersAsText: true, type: textOrBytes, impl: ([s, p], _c, t) => { const [a, b] = searchTexts(s, p, t); return a.startsWith(b); } },
  endswith: { min: 2, max: 2, numbersAsText: true, type: textOrBytes, impl: ([s, p], _c, t) => { const [a, b] = searchTexts(s, p, t); return a.endsWith(b); } },
  contains: { min: 2, max: 2, numbersAsText: true, type: textOrBytes, impl: ([s, p], _c, t) => { const [a, b] = searchTexts(s, p, t); return a.includes(b); } },
};
STRING_FUNCTIONS.substr = STRING_FUNCTIONS.substring;
STRING_FUNCTIONS.lcase = { min: 1, max: 1, type: (a) => str(a) ?? 'string', impl: ([s]) => { const r = (s as string).toLowerCase(); checkStringLength('lcase()', r.length); return r; } };
STRING_FUNCTIONS.ucase = { min: 1, max: 1, type: (a) => str(a) ?? 'string', impl: ([s]) => { const r = (s as string).toUpperCase(); checkStringLength('ucase()', r.length); return r; } };
// Spark's length: characters of a string, bytes of a binary (length(x'537061726b') is 5).
STRING_FUNCTIONS.length = { min: 1, max: 1, resultIntegral: 32, type: (a) => (isBytes(a[0]) ? 'long' : 'expects a string or a binary'), impl: ([s]) => (typeof s === 'string' ? chars(s).length : (s as Uint8Array).length) };
STRING_FUNCTIONS.char_length = STRING_FUNCTIONS.length;
STRING_FUNCTIONS.len = STRING_FUNCTIONS.length;
STRING_FUNCTIONS.character_length = STRING_FUNCTIONS.length;

/**
 * Spark's sentences: Java's BreakIterator sentences, each split into its words (segments that
 * start with a letter or a digit). Here Intl.Segmenter (ICU's rules, which Java's BreakIterator
 * also follows in spirit) does the splitting, in the given language (default English); rare
 * cases (abbreviations such as "Mr.") can break differently from Java's.
 */
function sentences(s: string, lang: string, country: string): string[][] {
  let locale = 'en';
  try {
    locale = Intl.getCanonicalLocales(country ? `${lang}-${country}` : lang || 'en')[0] ?? 'en';
  } catch {
    // An unknown language tag: Java falls back to its default locale.
  }
  const words = new Intl.Segmenter(locale, { granularity: 'word' });
  return [...new Intl.Segmenter(locale, { granularity: 'sentence' }).segment(s)].map((sentence) =>
    [...words.segment(sentence.segment)].map((w) => w.segment).filter((w) => /^[\p{L}\p{N}]/u.test(w)),
  );
}

const STRING_ARRAY_ARRAY: TypeInfo = {
  type: 'array',
  elementType: { name: 'element', type: 'array', nullable: true, elementType: { name: 'element', type: 'string', nullable: true } },
};

export const STRING_ARRAY_FUNCTIONS: Record<string, CollectionFunctionDef> = {
  sentences: {
    min: 1, max: 3,
    type: (a) => (a.every((t) => isStr(t.type)) ? STRING_ARRAY_ARRAY : 'sentences() takes (string[, language[, country]])'),
    impl: ([s, lang, country]) => sentences(s as string, (lang as string | undefined) ?? '', (country as string | undefined) ?? ''),
  },
};
