/**
 * Spark's string functions about bytes and text encodings: to_binary/try_to_binary (hex, base64
 * or UTF-8 text to bytes), the UTF-8 validity checks (is_valid_utf8, make_valid_utf8,
 * validate_utf8, try_validate_utf8) and quote.
 *
 * A Weir STRING is JavaScript text, decoded from UTF-8 on the way in, so it is valid UTF-8 unless
 * it holds a lone surrogate; the validity checks see a BINARY's own bytes, as Spark sees the bytes
 * of a string cast from one.
 */
import { RecordExpressionError } from '../errors';
import type { FunctionDef } from './function-types';
import type { ExprType } from './sql-values';

const isStr = (t: ExprType) => t === 'string' || t === 'null';
const isText = (t: ExprType) => isStr(t) || t === 'binary';

function fail(fn: string, msg: string): never {
  throw new RecordExpressionError(`${fn}: ${msg}`, { function: fn });
}

const FORMATS = ['base64', 'hex', 'utf-8', 'utf8'];
const badFormat = (fn: string, f: string) =>
  `${fn}: [INVALID_PARAMETER_VALUE.BINARY_FORMAT] The value of parameter(s) \`format\` in \`${fn.slice(0, -2)}\` is invalid: expects one of binary formats 'base64', 'hex', 'utf-8', but got '${f}'.`;

const BASE64_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Spark's Unhex (an odd length reads as if led by 0) and strict UnBase64; null when malformed. */
function toBinary(s: string, format: string): Uint8Array | null {
  switch (format.toLowerCase()) {
    case 'hex': {
      const t = s.length % 2 ? `0${s}` : s;
      return /^[0-9a-fA-F]*$/.test(t) ? new Uint8Array(Buffer.from(t, 'hex')) : null;
    }
    case 'base64': {
      const t = s.replace(/\s+/g, '');
      if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/.test(t)) return null;
      // Strict decoding (commons-codec's CodecPolicy.STRICT, which Spark's UnBase64 follows): the
      // bits of the last character that no byte takes must be zero, so 'ef==' (f = 011001) is
      // malformed where 'eQ==' is one byte.
      const tail = t.replace(/=+$/, '').length % 4;
      const last = t.replace(/=+$/, '').slice(-1);
      const unused = tail === 2 ? 0b1111 : tail === 3 ? 0b11 : 0;
      if (unused && (BASE64_DIGITS.indexOf(last) & unused) !== 0) return null;
      return new Uint8Array(Buffer.from(t, 'base64'));
    }
    default:
      return new Uint8Array(Buffer.from(s, 'utf8'));
  }
}

const binaryFn = (fn: string, tolerant: boolean): FunctionDef => ({
  min: 1, max: 2, type: (a) => (a.every(isStr) ? 'binary' : `takes (string[, format])`),
  impl: ([s, f]) => {
    const format = (f as string | undefined) ?? 'hex';
    // try_to_binary gives NULL for a format it does not know too, as Spark's.
    if (!FORMATS.includes(format.toLowerCase())) {
      if (tolerant) return null;
      throw new RecordExpressionError(badFormat(fn, format), { function: fn });
    }
    const out = toBinary(s as string, format);
    if (out === null && !tolerant) {
      fail(fn, `[CONVERSION_INVALID_INPUT] The value '${s as string}' (STRING) cannot be converted to BINARY because it is malformed. Correct the value as per the syntax, or change its format. Use 'try_to_binary' to tolerate malformed input and return NULL instead.`);
    }
    return out;
  },
  checkLiterals: ([, f]) => (!tolerant && typeof f === 'string' && !FORMATS.includes(f.toLowerCase()) ? badFormat(fn, f) : undefined),
});

/** A value's UTF-8 text, or null when its bytes are not valid UTF-8 (a lone surrogate in a string is not). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

function validText(v: unknown): string | null {
  if (typeof v === 'string') return LONE_SURROGATE.test(v) ? null : v;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(v as Uint8Array);
  } catch {
    return null;
  }
}

/** Invalid sequences replaced by U+FFFD, as Spark's UTF8String.makeValid. */
const madeValid = (v: unknown): string =>
  typeof v === 'string' ? v.replace(LONE_SURROGATES, '\uFFFD') : new TextDecoder('utf-8', { ignoreBOM: true }).decode(v as Uint8Array);

const utf8 = (type: ExprType, impl: (v: unknown) => unknown): FunctionDef => ({
  min: 1, max: 1, type: (a) => (isText(a[0]) ? type : 'takes a string or a binary'), impl: ([v]) => impl(v),
});

export const STRING_ENCODING_FUNCTIONS: Record<string, FunctionDef> = {
  to_binary: binaryFn('to_binary()', false),
  try_to_binary: binaryFn('try_to_binary()', true),
  is_valid_utf8: utf8('boolean', (v) => validText(v) !== null),
  make_valid_utf8: utf8('string', madeValid),
  validate_utf8: utf8('string', (v) => {
    const t = validText(v);
    if (t === null) {
      const bytes = typeof v === 'string' ? Buffer.from(v, 'utf8') : Buffer.from(v as Uint8Array);
      fail('validate_utf8()', `[INVALID_UTF8_STRING] Invalid UTF8 byte sequence found in string: ${[...bytes].map((b) => (b < 0x80 ? String.fromCharCode(b) : `\\x${b.toString(16).toUpperCase()}`)).join('')}.`);
    }
    return t;
  }),
  try_validate_utf8: utf8('string', validText),
  // Spark's Quote: in single quotes, with `\` and `'` escaped by a backslash.
  quote: { min: 1, max: 1, type: (a) => (isStr(a[0]) ? 'string' : 'takes a string'), impl: ([s]) => `'${(s as string).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` },
};
