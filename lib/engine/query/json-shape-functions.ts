/**
 * Spark's JSON functions that read a document's shape rather than its values: json_array_length,
 * json_object_keys and schema_of_json. Text that is not valid JSON gives NULL, as in Spark.
 *
 * Differences from Spark: a document is parsed whole (JSON.parse), so an object with a key twice
 * lists that key once in json_object_keys, where Spark's streaming parser lists it twice;
 * schema_of_json takes no options (Spark's second argument, a map of JSON options, is refused).
 */
import type { CollectionFunctionDef } from './collection-functions';
import type { TypeInfo } from './data-types';
import type { FunctionDef } from './functions';
import type { ExprType } from './sql-values';

const isStr = (t: ExprType) => t === 'string' || t === 'null';

function parse(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** Spark's DDL text of a name: backquoted unless it is letters, digits and underscores. */
const quoteName = (n: string) => (/^[A-Za-z0-9_]+$/.test(n) && !/^\d+$/.test(n) ? n : `\`${n.replace(/`/g, '``')}\``);

/** A JSON scalar's type as Spark infers it (a null: STRING, as Spark writes a type it cannot tell). */
const scalarType = (v: unknown): string => (typeof v === 'boolean' ? 'BOOLEAN' : 'STRING');

/** An integer that fits 64 bits is BIGINT, a longer one DECIMAL(p,0) (Spark's prefersDecimal off), a fraction DOUBLE. */
function inferNumber(raw: string): string {
  if (!/^-?\d+$/.test(raw)) return 'DOUBLE';
  const n = BigInt(raw);
  if (n >= -(2n ** 63n) && n < 2n ** 63n) return 'BIGINT';
  const digits = raw.replace('-', '').length;
  return digits <= 38 ? `DECIMAL(${digits},0)` : 'DOUBLE';
}

/** Spark's compatibleType for two inferred types of one array: numbers widen, anything else mixed is STRING. */
function widen(a: string, b: string): string {
  if (a === b) return a;
  const numeric = (t: string) => t === 'BIGINT' || t === 'DOUBLE' || t.startsWith('DECIMAL');
  if (numeric(a) && numeric(b)) return a === 'DOUBLE' || b === 'DOUBLE' ? 'DOUBLE' : a.startsWith('DECIMAL') ? a : b;
  return 'STRING';
}

/**
 * Number tokens as written (the text JSON.parse turned into doubles), so that 12345678901234567890
 * is typed from its digits. Replaces each number in the text by its index, parses that.
 */
function withRawNumbers(text: string): { value: unknown; raw: string[] } | undefined {
  const raw: string[] = [];
  // Strings are kept whole (their digits are not numbers); numbers become their index.
  const marked = text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (m) => (m.startsWith('"') ? m : `{"\\u0000n":${raw.push(m) - 1}}`));
  const p = parse(marked);
  return p && { value: p.value, raw };
}

function restoreType(v: unknown, raw: string[]): string {
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && '\u0000n' in v) {
    return inferNumber(raw[(v as Record<string, number>)['\u0000n']]);
  }
  if (Array.isArray(v)) {
    const types = v.filter((x) => x !== null).map((x) => restoreType(x, raw));
    return `ARRAY<${types.reduce<string | undefined>((t, x) => (t === undefined ? x : widen(t, x)), undefined) ?? 'STRING'}>`;
  }
  if (v !== null && typeof v === 'object') {
    const fields = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `STRUCT<${fields.map(([k, x]) => `${quoteName(k)}: ${restoreType(x, raw)}`).join(', ')}>`;
  }
  return scalarType(v);
}

export const JSON_SHAPE_FUNCTIONS: Record<string, FunctionDef> = {
  // The number of elements of a JSON array; NULL for any other value or invalid JSON.
  json_array_length: {
    min: 1, max: 1, type: (a) => (isStr(a[0]) ? 'long' : 'json_array_length() takes a string'),
    impl: ([s]) => { const p = parse(s as string); return p && Array.isArray(p.value) ? p.value.length : null; },
  },
  // Spark: the schema of the document as DDL text, for from_json; its argument must be a literal.
  schema_of_json: {
    min: 1, max: 1, type: (a) => (isStr(a[0]) ? 'string' : 'schema_of_json() takes a JSON string'),
    impl: ([s]) => { const p = withRawNumbers(s as string); return p ? restoreType(p.value, p.raw) : 'STRING'; },
    checkLiterals: ([s]) => (s === undefined ? 'schema_of_json() takes a literal JSON string, as in Spark' : undefined),
  },
};

const STRING_ARRAY: TypeInfo = { type: 'array', elementType: { name: 'element', type: 'string', nullable: true } };

export const JSON_ARRAY_FUNCTIONS: Record<string, CollectionFunctionDef> = {
  // The keys of the outermost JSON object; NULL for any other value or invalid JSON.
  json_object_keys: {
    min: 1, max: 1, type: (a) => (isStr(a[0].type) ? STRING_ARRAY : 'json_object_keys() takes a string'),
    impl: ([s]) => {
      const p = parse(s as string);
      return p && p.value !== null && typeof p.value === 'object' && !Array.isArray(p.value) ? Object.keys(p.value) : null;
    },
  },
};
