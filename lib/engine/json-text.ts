/**
 * JSON text with numbers read and written digit for digit. JSON.parse and JSON.stringify know
 * only doubles, so a 64-bit id (a Snowflake id) would lose its last digits, a DECIMAL(38,2) too,
 * and `2.50` would print `2.5`; Spark's JSON reader keeps a BIGINT's digits, and its JSON writer
 * and to_json print a decimal's exact digits (`{"amount":2.50}`). Reading, an integer past 2^53
 * becomes a bigint (query/long.ts); writing, a JsonNumber is written as its text,
 * a bigint as its digits, everything else as JSON.stringify writes it.
 */
export interface JsonNumber {
  readonly rawJSON: string;
}

// V8's JSON.rawJSON (Node 21+, Chromium 114+): JSON.stringify writes such a value as its text, at
// JSON.stringify's own speed, where a writer of its own in JavaScript was four times slower.
declare global {
  interface JSON {
    rawJSON(text: string): JsonNumber;
    isRawJSON(v: unknown): v is JsonNumber;
  }
}

/** A JSON number written as `text` (the digits of a decimal, a DOUBLE's `2.0`). */
export const jsonNumber = (text: string): JsonNumber => JSON.rawJSON(text);
export const isJsonNumber = (v: unknown): v is JsonNumber => JSON.isRawJSON(v);

export function stringifyJson(v: unknown): string {
  if (isJsonNumber(v)) return v.rawJSON;
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : stringifyJson(x))).join(',')}]`;
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const parts: string[] = [];
    for (const [k, x] of Object.entries(v)) if (x !== undefined) parts.push(`${JSON.stringify(k)}:${stringifyJson(x)}`);
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * JSON.stringify's speed for the common row, stringifyJson's exact digits for a row holding a
 * bigint (a BIGINT past 2^53), which JSON.stringify refuses with a TypeError.
 */
export function stringifyRow(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch (e) {
    if (e instanceof TypeError) return stringifyJson(v);
    throw e;
  }
}

/** Sixteen digits in a row: the only way a JSON text can hold an integer past 2^53. */
const LONG_DIGITS = /\d{16}/;

/**
 * JSON.parse, except that an integer past ±2^53 is a bigint with every digit of the text (read
 * through the reviver's source text). Texts without sixteen digits in a row, nearly all, take
 * JSON.parse's own path.
 */
export function parseJson(text: string): unknown {
  return LONG_DIGITS.test(text) ? JSON.parse(text, exactIntegers) : JSON.parse(text);
}

/**
 * A JSON object record whose fields `longs` are BIGINTs (or hold them: an ARRAY<BIGINT>, a
 * struct with a BIGINT field): JSON.parse, read again exactly only when one of those fields
 * came back holding a whole number past 2^53 (its digits rounded). A record of small numbers,
 * nearly every one, costs one JSON.parse and no scan of its text.
 */
export function parseJsonRecordText(text: string, longs: readonly string[]): unknown {
  const v: unknown = JSON.parse(text);
  if (longs.length === 0 || v === null || typeof v !== 'object') return v;
  for (const k of longs) {
    if (lostDigits((v as Record<string, unknown>)[k])) return JSON.parse(text, exactIntegers);
  }
  return v;
}

/** Whether a parsed JSON value is, or holds, a whole number past 2^53. */
function lostDigits(x: unknown): boolean {
  if (typeof x === 'number') return Number.isInteger(x) && !Number.isSafeInteger(x);
  if (x === null || typeof x !== 'object') return false;
  for (const y of Array.isArray(x) ? x : Object.values(x)) if (lostDigits(y)) return true;
  return false;
}

function exactIntegers(_key: string, v: unknown, context?: { source?: string }): unknown {
  if (typeof v !== 'number' || Number.isSafeInteger(v)) return v;
  const source = context?.source;
  return source !== undefined && /^-?\d+$/.test(source) ? BigInt(source) : v;
}
