/**
 * Spark's JSON functions that read a document's shape rather than its values: json_array_length,
 * json_object_keys and schema_of_json. Text that is not valid JSON gives NULL, as in Spark.
 *
 * Differences from Spark: a document is parsed whole (JSON.parse), so an object with a key twice
 * lists that key once in json_object_keys, where Spark's streaming parser lists it twice;
 * schema_of_json reads three of Spark's JSON options (allowNumericLeadingZeros, prefersDecimal,
 * primitivesAsString) and ignores the others, as Spark ignores options it does not know.
 */
import type { CollectionFunctionDef } from './function-types';
import type { TypeInfo } from './data-types';
import { compiledByHook, str } from './function-args';
import type { FunctionDef } from './function-types';
import { compileFromJson, compileToJson, getJsonObject, jsonTuple } from './json-functions';
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
export const quoteName = (n: string) => (/^[A-Za-z0-9_]+$/.test(n) && !/^\d+$/.test(n) ? n : `\`${n.replace(/`/g, '``')}\``);

/** An inferred type (Spark's JsonInferSchema): NULL until a value says more. */
type Inferred =
  | { k: 'NULL' | 'BOOLEAN' | 'BIGINT' | 'DOUBLE' | 'STRING' }
  | { k: 'DECIMAL'; p: number; s: number }
  | { k: 'ARRAY'; e: Inferred }
  | { k: 'STRUCT'; fields: Map<string, Inferred> };

/** The JSON options schema_of_json reads (Spark's JSONOptions of the same names). */
interface InferOptions {
  /** A fraction is a DECIMAL of its digits where one holds it (else DOUBLE). */
  prefersDecimal?: boolean;
  /** Every number and boolean is a STRING. */
  primitivesAsString?: boolean;
  /** A number written with leading zeros (01) is read; without it the text is not JSON. */
  allowNumericLeadingZeros?: boolean;
}

function inferOptions(map: unknown): InferOptions {
  const o: InferOptions = {};
  if (map === null || map === undefined) return o;
  for (const [k, v] of Object.entries(map as Record<string, unknown>)) {
    const on = String(v).toLowerCase() === 'true';
    switch (k.toLowerCase()) {
      case 'prefersdecimal': o.prefersDecimal = on; break;
      case 'primitivesasstring': o.primitivesAsString = on; break;
      case 'allownumericleadingzeros': o.allowNumericLeadingZeros = on; break;
    }
  }
  return o;
}

/**
 * An integer that fits 64 bits is BIGINT, a longer one DECIMAL(p,0), a fraction DOUBLE, or with
 * prefersDecimal the DECIMAL of its digits (Spark: DecimalType(max(precision, scale), scale)).
 */
function inferNumber(raw: string, o: InferOptions): Inferred {
  if (o.primitivesAsString) return { k: 'STRING' };
  const fraction = /^-?(\d+)\.(\d+)$/.exec(raw);
  if (fraction && o.prefersDecimal) {
    const digits = (fraction[1] + fraction[2]).replace(/^0+(?=\d)/, '');
    const s = fraction[2].length;
    const p = Math.max(digits.length, s);
    if (p <= 38) return { k: 'DECIMAL', p, s };
  }
  if (!/^-?\d+$/.test(raw)) return { k: 'DOUBLE' };
  const n = BigInt(raw);
  if (n >= -(2n ** 63n) && n < 2n ** 63n) return { k: 'BIGINT' };
  const digits = raw.replace('-', '').length;
  return digits <= 38 ? { k: 'DECIMAL', p: digits, s: 0 } : { k: 'DOUBLE' };
}

/**
 * Spark's compatibleType for two values at one place (array elements, a field across objects):
 * NULL gives way, numbers widen (BIGINT is DECIMAL(20,0) beside a decimal), arrays merge their
 * elements, structs their fields; anything else mixed is STRING.
 */
function merge(a: Inferred, b: Inferred): Inferred {
  if (a.k === 'NULL') return b;
  if (b.k === 'NULL') return a;
  if (a.k === 'ARRAY' && b.k === 'ARRAY') return { k: 'ARRAY', e: merge(a.e, b.e) };
  if (a.k === 'STRUCT' && b.k === 'STRUCT') {
    const fields = new Map(a.fields);
    for (const [name, t] of b.fields) fields.set(name, fields.has(name) ? merge(fields.get(name)!, t) : t);
    return { k: 'STRUCT', fields };
  }
  if (a.k === 'DOUBLE' && (b.k === 'BIGINT' || b.k === 'DECIMAL')) return a;
  if (b.k === 'DOUBLE' && (a.k === 'BIGINT' || a.k === 'DECIMAL')) return b;
  if ((a.k === 'DECIMAL' || a.k === 'BIGINT') && (b.k === 'DECIMAL' || b.k === 'BIGINT') && a.k !== b.k) {
    const [x, y] = [a, b].map((t) => (t.k === 'DECIMAL' ? t : { k: 'DECIMAL' as const, p: 20, s: 0 }));
    const sc = Math.max(x.s, y.s);
    return { k: 'DECIMAL', p: Math.min(38, sc + Math.max(x.p - x.s, y.p - y.s)), s: sc };
  }
  if (a.k === 'DECIMAL' && b.k === 'DECIMAL') return { k: 'DECIMAL', p: Math.max(a.p, b.p), s: Math.max(a.s, b.s) };
  return a.k === b.k ? a : { k: 'STRING' };
}

/** Spark's DDL text of an inferred type (a type it could not tell is STRING, as Spark writes it). */
function ddl(t: Inferred): string {
  switch (t.k) {
    case 'NULL': return 'STRING';
    case 'DECIMAL': return `DECIMAL(${t.p},${t.s})`;
    case 'ARRAY': return `ARRAY<${ddl(t.e)}>`;
    case 'STRUCT': {
      const names = [...t.fields.keys()].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
      return `STRUCT<${names.map((n) => `${quoteName(n)}: ${ddl(t.fields.get(n)!)}`).join(', ')}>`;
    }
    case 'BIGINT': case 'BOOLEAN': case 'DOUBLE': case 'STRING': return t.k;
  }
}

/**
 * Number tokens as written (the text JSON.parse turned into doubles), so that 12345678901234567890
 * is typed from its digits. Replaces each number in the text by its index, parses that.
 */
function withRawNumbers(text: string, o: InferOptions): { value: unknown; raw: string[] } | undefined {
  const raw: string[] = [];
  // Leading zeros are not JSON unless the option allows them (JSON.parse never sees the numbers).
  if (!o.allowNumericLeadingZeros && /(?:^|[[:,\s])-?0\d/.test(text.replace(/"(?:[^"\\]|\\.)*"/g, '""'))) return undefined;
  // Strings are kept whole (their digits are not numbers); numbers become their index.
  const marked = text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (m) => (m.startsWith('"') ? m : `{"\\u0000n":${raw.push(m) - 1}}`));
  const p = parse(marked);
  return p && { value: p.value, raw };
}

function infer(v: unknown, raw: string[], opts: InferOptions): Inferred {
  if (v === null) return { k: 'NULL' };
  if (typeof v === 'boolean') return { k: opts.primitivesAsString ? 'STRING' : 'BOOLEAN' };
  if (typeof v === 'string') return { k: 'STRING' };
  if (Array.isArray(v)) return { k: 'ARRAY', e: v.reduce<Inferred>((t, x) => merge(t, infer(x, raw, opts)), { k: 'NULL' }) };
  const o = v as Record<string, unknown>;
  if (Object.keys(o).length === 1 && '\u0000n' in o) return inferNumber(raw[o['\u0000n'] as number], opts);
  return { k: 'STRUCT', fields: new Map(Object.entries(o).map(([k, x]) => [k, infer(x, raw, opts)])) };
}

export const JSON_SHAPE_FUNCTIONS: Record<string, FunctionDef> = {
  // The number of elements of a JSON array; NULL for any other value or invalid JSON.
  json_array_length: {
    min: 1, max: 1, resultIntegral: 32, type: (a) => (isStr(a[0]) ? 'long' : 'takes a string (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)'),
    impl: ([s]) => { const p = parse(s as string); return p && Array.isArray(p.value) ? p.value.length : null; },
  },
  // Spark: the schema of the document as DDL text, for from_json; its argument must be a literal.
  schema_of_json: {
    min: 1, max: 2,
    type: (a) => (!isStr(a[0]) ? 'schema_of_json() takes a JSON string' : a.length > 1 && a[1] !== 'map' && a[1] !== 'null' ? "schema_of_json()'s options are a map, e.g. map('prefersDecimal', 'true')" : 'string'),
    nullIntolerant: false,
    impl: ([s, m]) => {
      if (s === null || s === undefined) return null;
      const o = inferOptions(m);
      const p = withRawNumbers(s as string, o);
      return p ? ddl(infer(p.value, p.raw, o)) : 'STRING';
    },
    checkLiterals: ([s]) => (s === undefined ? 'schema_of_json() takes a literal JSON string, as in Spark' : undefined),
  },
  // JSON (json-functions.ts); from_json and to_json carry struct types: compiled by their hooks.
  from_json: { min: 2, max: 3, type: () => 'struct', impl: compiledByHook, compile: compileFromJson },
  to_json: { min: 1, max: 2, type: () => 'string', impl: compiledByHook, compile: compileToJson },
  // One key of json_tuple (the planner expands json_tuple(j, k1, k2) into c0, c1 of these).
  json_tuple_item: { min: 2, max: 2, type: (a) => str(a) ?? 'string', impl: ([j, k]) => jsonTuple(j as string, [k as string])[0] },
  get_json_object: { min: 2, max: 2, type: (a) => str(a) ?? 'string', impl: ([j, p]) => getJsonObject(j as string, p as string) },
};

const STRING_ARRAY: TypeInfo = { type: 'array', elementType: { name: 'element', type: 'string', nullable: true } };

export const JSON_ARRAY_FUNCTIONS: Record<string, CollectionFunctionDef> = {
  // The keys of the outermost JSON object; NULL for any other value or invalid JSON.
  json_object_keys: {
    min: 1, max: 1, type: (a) => (isStr(a[0].type) ? STRING_ARRAY : 'json_object_keys() takes a string (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)'),
    impl: ([s]) => {
      const p = parse(s as string);
      return p && p.value !== null && typeof p.value === 'object' && !Array.isArray(p.value) ? Object.keys(p.value) : null;
    },
  },
};
