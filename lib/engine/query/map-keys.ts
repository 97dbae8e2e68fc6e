/**
 * A map key's text, and the key read back from it. A MAP value is a plain object from each key's
 * text to its value (map-functions.ts says why), so everything that builds, searches, unfolds,
 * casts or prints a map goes through these two functions, for a key of any type Spark allows.
 *
 * The text, by key type:
 * - a simple type: CAST(key AS STRING) (`1`, `a`, `2016-03-14`, `1.50`), the text every map in
 *   an existing checkpoint or state store holds, read back by CAST(text AS type) (an interval's
 *   ANSI text over its type's full range, read back by parsing it);
 * - a DOUBLE or FLOAT: -0.0 is 0.0, as Spark's ArrayBasedMapBuilder normalizes a floating key
 *   (NaN has one text already), so `map(0.0D, 1, -0.0D, 2)` repeats a key;
 * - a BINARY: its UTF-8 text when the bytes are well-formed UTF-8 and do not start with NUL (the
 *   text such keys always had), else NUL and the bytes in hex, so X'FF' and X'FE' are two keys;
 * - an ARRAY or a STRUCT: a JSON-like list of its elements, a struct's fields by position (as
 *   Spark's to_json writes a struct key, `{"[1,2]":…}`): a number or a boolean as its text, any
 *   other value as a JSON string of its text, NULL as `null`: `[1,2]`, `["a",[1.5,null]]`.
 *   Equal keys by Spark's ordering of complex keys (0.0 = -0.0, NaN = NaN) have one text.
 * A MAP cannot be a map key, nor hold one (Spark's INVALID_MAP_KEY_TYPE).
 */
import { typeOfField, type TypeInfo } from './data-types';
import { fullRange, parseInterval } from './interval-utils';
import { castValue, isInterval } from './sql-values';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const HEX_MARK = '\u0000';

function binaryText(b: Uint8Array): string {
  if (b[0] !== 0) {
    try {
      return utf8.decode(b);
    } catch {
      // Not UTF-8: hex below.
    }
  }
  return HEX_MARK + Buffer.from(b).toString('hex');
}

/** A simple (not nested) key's text. */
function simpleText(k: unknown, t: TypeInfo): string {
  if (t.type === 'string') return k as string;
  if (t.type === 'binary') return binaryText(k as Uint8Array);
  return castValue(t.type === 'double' && Object.is(k, -0) ? 0 : k, t.type, 'string', t.decimal) as string;
}

function simpleValue(text: string, t: TypeInfo): unknown {
  if (t.type === 'string' || t.type === 'null') return text;
  if (t.type === 'binary' && text.startsWith(HEX_MARK)) return Buffer.from(text.slice(1), 'hex');
  // An interval key's text is its ANSI text over the type's full range (castValue's), which no cast reads back.
  if (isInterval(t.type)) return parseInterval(text, t.type, fullRange(t.type));
  return castValue(text, 'string', t.type as never, undefined, t.decimal);
}

const isNested = (t: TypeInfo) => t.type === 'array' || t.type === 'struct';
/** Types whose text is written bare inside an array or struct key (it holds no `,`, `]` or `"`). */
const BARE = new Set(['long', 'double', 'decimal', 'boolean']);

function nestedText(v: unknown, t: TypeInfo): string {
  if (v === null || v === undefined) return 'null';
  if (t.type === 'array') {
    const et = typeOfField(t.elementType!);
    return `[${(v as unknown[]).map((x) => nestedText(x, et)).join(',')}]`;
  }
  if (isNested(t)) return `[${(t.fields ?? []).map((f) => nestedText((v as Record<string, unknown>)[f.name], typeOfField(f))).join(',')}]`;
  const text = simpleText(v, t);
  return BARE.has(t.type) ? text : JSON.stringify(text);
}

/** A map key's text, its identity inside the map value. */
export function mapKeyText(k: unknown, t: TypeInfo): string {
  return isNested(t) ? nestedText(k, t) : simpleText(k, t);
}

class KeyReader {
  i = 0;
  constructor(readonly s: string) {}

  read(t: TypeInfo): unknown {
    const s = this.s;
    if (s.startsWith('null', this.i)) { this.i += 4; return null; }
    if (isNested(t)) {
      this.expect('[');
      const types = t.type === 'array' ? undefined : (t.fields ?? []).map(typeOfField);
      const et = t.type === 'array' ? typeOfField(t.elementType!) : undefined;
      const items: unknown[] = [];
      if (s[this.i] !== ']') {
        for (;;) {
          const it = et ?? types![items.length];
          if (it === undefined) throw new Error('more fields than the struct has');
          items.push(this.read(it));
          if (s[this.i] !== ',') break;
          this.i++;
        }
      }
      this.expect(']');
      if (types === undefined) return items;
      if (items.length !== types.length) throw new Error('fewer fields than the struct has');
      return Object.fromEntries(t.fields!.map((f, n) => [f.name, items[n]]));
    }
    let text: string;
    if (s[this.i] === '"') {
      let j = this.i + 1;
      while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
      text = JSON.parse(s.slice(this.i, j + 1)) as string;
      this.i = j + 1;
    } else {
      let j = this.i;
      while (j < s.length && s[j] !== ',' && s[j] !== ']') j++;
      text = s.slice(this.i, j);
      this.i = j;
    }
    const v = simpleValue(text, t);
    if (v === null) throw new Error(`${text} is no ${t.type}`);
    return v;
  }

  expect(c: string): void {
    if (this.s[this.i] !== c) throw new Error(`expected ${c}`);
    this.i++;
  }
}

/** A key read back from its text as a value of the key type; NULL when the text is no key of that type. */
export function mapKeyValue(text: string, t: TypeInfo): unknown {
  if (!isNested(t)) return simpleValue(text, t);
  try {
    const r = new KeyReader(text);
    const v = r.read(t);
    return r.i === text.length ? v : null;
  } catch {
    return null;
  }
}
