/**
 * Spark's CSV expressions (group csv_funcs): from_csv(text, 'DDL schema'[, options]) reads one CSV
 * line as a struct, to_csv(struct[, options]) writes one, schema_of_csv(sample[, options]) infers
 * the struct a line is. The line is split and each field read as the files source reads a CSV
 * file (operators/record-parser.ts), and written as the files sink writes one
 * (sinks/row-rendering.ts's text of a value, record-parser's quoting), with Spark's options sep,
 * quote, escape and nullValue; from_csv and to_csv also dateFormat and timestampFormat, and
 * schema_of_csv those and nanValue, positiveInf, negativeInf and preferDate, as Spark's
 * CSVInferSchema does.
 */
import type { Field } from '../types';
import { coerceField, csvField, splitCsvLine, type CsvFormat } from '../operators/record-parser';
import { renderText } from '../sinks/row-rendering';
import { typeText } from './data-types';
import { referencedColumns, type Expr } from './expression';
import { compiledByHook, foldedText } from './function-args';
import type { CallCompiler, CallExpr, CompiledExpr, FunctionDef } from './function-types';
import { mapped } from './compiled-expr';
import { checkOptionsMap, parseDdlSchema } from './json-functions';
import { formatWithPattern, parseWithPattern, tokenizePattern } from './datetime-patterns';
import { MAX_PRECISION } from './decimal';
import { binaryHexText, castValue } from './sql-values';
import { checkStringLength } from './value-limits';

interface CsvOptions extends CsvFormat {
  /** The text of a NULL field (Spark's nullValue, '' by default). */
  nullValue: string;
  /** from_csv reads a DATE field by it (Spark's dateFormat), else as CAST does. */
  dateFormat?: Pattern;
  /** from_csv reads a TIMESTAMP field by it (Spark's timestampFormat), else as CAST does. */
  timestampFormat?: Pattern;
}

/** The options Weir reads; Spark's others (mode, …) change nothing here. */
const ONE_CHAR = ['sep', 'quote', 'escape'] as const;

/** A CSV function's options as written, a constant map(…) as Spark requires. */
function optionMap(e: CallExpr, arg: Expr | undefined, c: CallCompiler): Record<string, unknown> {
  if (!arg) return {};
  const fn = `${e.name}()`;
  if (referencedColumns(arg).size > 0) c.fail(e, `${fn} needs its options as a constant map, such as map('sep', ';')`);
  const m = c.compile(arg);
  checkOptionsMap(e, m, c);
  return (m.eval({}, { batchTimestampMs: 0 }) ?? {}) as Record<string, unknown>;
}

/** A CSV function's options, a constant map(…) as Spark requires: Spark's defaults otherwise. */
function csvOptions(e: CallExpr, arg: Expr | undefined, c: CallCompiler): CsvOptions {
  const out: CsvOptions = { sep: ',', quote: '"', escape: '\\', nullValue: '' };
  const fn = `${e.name}()`;
  for (const [k, v] of Object.entries(optionMap(e, arg, c))) {
    if (typeof v !== 'string') continue;
    const key = ONE_CHAR.find((x) => x === k || (x === 'sep' && k === 'delimiter'));
    if (key) {
      // Spark takes a two-character `\t` for a tab.
      const ch = v === '\\t' ? '\t' : v;
      if (ch.length !== 1) c.fail(e, `${fn} option ${k} must be one character, got '${v}'`);
      out[key] = ch;
    } else if (k === 'nullValue') out.nullValue = v;
    else if (k === 'dateFormat' || k === 'timestampFormat') out[k] = datetimePattern(e, k, v, c);
  }
  return out;
}

/** A datetime pattern option; one Spark refuses fails the query with Spark's error. */
function datetimePattern(e: CallExpr, option: string, p: string, c: CallCompiler): Pattern {
  const tokens = tokenizePattern(p);
  if (typeof tokens === 'string') c.fail(e, `${e.name}() option ${option}: ${tokens}`);
  return tokens;
}

/**
 * A field whose text to_csv writes otherwise than a sink row renders it: a DATE or TIMESTAMP by
 * dateFormat or timestampFormat, when given, and a BINARY as Spark 4's UnivocityGenerator
 * writes it under the default binary style, its bytes in hex (`[45 61]`).
 */
function csvOwnText(v: unknown, f: Field, o: CsvOptions): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (f.type === 'binary') return binaryHexText(v as Uint8Array);
  if (f.type === 'date' && o.dateFormat) return formatWithPattern((v as number) * 86_400_000, o.dateFormat);
  if (f.type === 'timestamp' && !f.ntz && o.timestampFormat) return formatWithPattern(v as number, o.timestampFormat);
  return undefined;
}

/**
 * One field of from_csv's line as its column's type, NULL when it does not read as one; a DATE
 * or TIMESTAMP by dateFormat or timestampFormat when given (Spark's UnivocityParser).
 */
function readField(s: string, f: Field, o: CsvOptions): unknown {
  const pattern = f.type === 'date' ? o.dateFormat : f.type === 'timestamp' && !f.ntz ? o.timestampFormat : undefined;
  if (pattern) {
    const ms = parseWithPattern(s, pattern);
    return ms === null || f.type !== 'date' ? ms : Math.floor(ms / 86_400_000);
  }
  const read = coerceField(s, f, true);
  return read.ok ? read.value : null;
}

/** Spark's CSV functions take flat structs: a nested field is refused, as Spark refuses it. */
function flatFields(e: CallExpr, fields: Field[], c: CallCompiler): Field[] {
  const nested = fields.find((f) => f.type === 'array' || f.type === 'map' || f.type === 'struct' || f.type === 'window');
  if (nested) c.fail(e, `${e.name}() does not support the field ${nested.name} of type ${typeText(nested)}: CSV holds flat values (DATATYPE_MISMATCH.UNSUPPORTED_INPUT_TYPE)`);
  return fields;
}

/**
 * from_csv(text, 'a INT, b DOUBLE'[, options]): the line's fields by position, each read as its
 * column's type; a field that does not read as it, or is missing, is NULL (Spark's PERMISSIVE).
 */
function compileFromCsv(e: CallExpr, c: CallCompiler): CompiledExpr {
  const [text, schemaArg, optionsArg] = e.args;
  const schema = foldedText(schemaArg, c);
  if (schema === undefined) c.fail(e, "[INVALID_SCHEMA.NON_STRING_LITERAL] from_csv() needs its schema as a string literal (or a concatenation of literals), such as 'a INT, b DOUBLE'");
  // Spark's ExprUtils.evalSchemaExpr: a schema of one type other than a struct is INVALID_SCHEMA.NON_STRUCT_TYPE.
  const parsed = parseDdlSchema(schema, 'INVALID_SCHEMA.NON_STRUCT_TYPE');
  if (typeof parsed === 'string') c.fail(e, `from_csv(): ${parsed}`);
  const fields = flatFields(e, parsed, c);
  const options = csvOptions(e, optionsArg, c);
  const t = c.compile(text);
  if (t.type !== 'string' && t.type !== 'null') c.fail(e, `from_csv() reads a string, got ${typeText(t)}`);
  return mapped({ type: 'struct', fields }, t, (v) => {
    if (v === null || v === undefined) return null;
    const parts = splitCsvLine(String(v), options) ?? [];
    const out: Record<string, unknown> = {};
    fields.forEach((f, i) => {
      const s = parts[i];
      out[f.name] = s === undefined || s === options.nullValue ? null : readField(s, f, options);
    });
    return out;
  });
}

/** to_csv(struct[, options]): its fields' text as one CSV line, NULL as nullValue. */
function compileToCsv(e: CallExpr, c: CallCompiler): CompiledExpr {
  const a = c.compile(e.args[0]);
  if (a.type !== 'struct') c.fail(e, `to_csv() takes a struct, got ${typeText(a)} (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)`);
  const fields = flatFields(e, a.fields ?? [], c);
  const options = csvOptions(e, e.args[1], c);
  return mapped({ type: 'string' }, a, (raw) => {
    const v = raw as Record<string, unknown> | null;
    if (v === null || v === undefined) return null;
    const line = fields.map((f) => {
      const s = csvOwnText(v[f.name], f, options) ?? renderText(v[f.name], f);
      return s === null ? options.nullValue : csvField(s, options);
    }).join(options.sep);
    checkStringLength('to_csv()', line.length);
    return line;
  });
}

/** What schema_of_csv reads beside the line's format (Spark's CSVOptions of the same names). */
interface InferOptions {
  nanValue: string;
  positiveInf: string;
  negativeInf: string;
  /** A field that reads by dateFormat is a DATE (Spark 3.4+'s default); else it may be a TIMESTAMP. */
  preferDate: boolean;
  dateFormat: Pattern;
  /** Undefined: Spark's lenient default timestamp parser, as CAST(… AS TIMESTAMP). */
  timestampFormat?: Pattern;
}

type Pattern = Exclude<ReturnType<typeof tokenizePattern>, string>;

function inferOptions(e: CallExpr, map: Record<string, unknown>, c: CallCompiler): InferOptions {
  const text = (k: string) => (typeof map[k] === 'string' ? map[k] : undefined);
  const pattern = (k: string, fallback?: string): Pattern | undefined => {
    const p = text(k) ?? fallback;
    return p === undefined ? undefined : datetimePattern(e, k, p, c);
  };
  return {
    nanValue: text('nanValue') ?? 'NaN',
    positiveInf: text('positiveInf') ?? 'Inf',
    negativeInf: text('negativeInf') ?? '-Inf',
    preferDate: (text('preferDate') ?? 'true').toLowerCase() === 'true',
    // With preferDate, Spark reads dates by a strict yyyy-MM-dd unless dateFormat says otherwise.
    dateFormat: pattern('dateFormat', 'yyyy-MM-dd')!,
    timestampFormat: pattern('timestampFormat'),
  };
}

/** Java's Integer.parseInt and Long.parseLong: a sign, digits, nothing else; undefined past the range. */
function javaIntegral(s: string): bigint | undefined {
  return /^[+-]?\d+$/.test(s) ? BigInt(s) : undefined;
}

/**
 * Java's BigDecimal(String) as Spark's CSV inference reads it: the unscaled digits' precision and
 * the scale (digits after the point less the exponent); undefined for text that is not one.
 */
function javaBigDecimal(s: string): { precision: number; scale: number } | undefined {
  const m = /^[+-]?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (!m || (m[1] + (m[2] ?? '')).length === 0) return undefined;
  const digits = (m[1] + (m[2] ?? '')).replace(/^0+(?=\d)/, '');
  return { precision: digits.length, scale: (m[2] ?? '').length - Number(m[3] ?? 0) };
}

/** Java's Double.parseDouble: trims, then a decimal or hexadecimal float, NaN or Infinity, a d/f suffix allowed. */
const JAVA_DOUBLE = /^[+-]?(?:NaN|Infinity|(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|0[xX](?:[0-9a-fA-F]+\.?|[0-9a-fA-F]*\.[0-9a-fA-F]+)[pP][+-]?\d+)[fFdD]?)$/;
function javaDouble(s: string): boolean {
  // Java's String.trim: every character up to U+0020 at either end.
  let i = 0;
  let j = s.length;
  while (i < j && s.charCodeAt(i) <= 32) i++;
  while (j > i && s.charCodeAt(j - 1) <= 32) j--;
  return JAVA_DOUBLE.test(s.slice(i, j));
}

const INT_RANGE = [-(2n ** 31n), 2n ** 31n - 1n] as const;
const LONG_RANGE = [-(2n ** 63n), 2n ** 63n - 1n] as const;

/**
 * The type of one field, Spark's CSVInferSchema.inferField from NullType: INT, BIGINT, then a
 * DECIMAL of a whole number too long for a BIGINT (a fraction or an exponent is no DECIMAL), DOUBLE
 * (or nanValue, positiveInf, negativeInf), DATE by dateFormat (with preferDate), TIMESTAMP,
 * BOOLEAN (true or false in any case), else STRING. Undefined: no value (empty, or nullValue).
 */
function inferField(s: string, nullValue: string, o: InferOptions): string | undefined {
  if (s === '' || s === nullValue) return undefined;
  const n = javaIntegral(s);
  if (n !== undefined && n >= INT_RANGE[0] && n <= INT_RANGE[1]) return 'INT';
  if (n !== undefined && n >= LONG_RANGE[0] && n <= LONG_RANGE[1]) return 'BIGINT';
  // Spark's DecimalType refuses a negative scale (1E10) and over 38 digits: a DOUBLE then.
  const d = javaBigDecimal(s);
  if (d && d.scale === 0 && d.precision <= MAX_PRECISION) return `DECIMAL(${d.precision},0)`;
  if (javaDouble(s) || s === o.nanValue || s === o.positiveInf || s === o.negativeInf) return 'DOUBLE';
  if (o.preferDate && parseWithPattern(s, o.dateFormat) !== null) return 'DATE';
  const ts = o.timestampFormat ? parseWithPattern(s, o.timestampFormat) : castValue(s, 'string', 'timestamp');
  if (ts !== null) return 'TIMESTAMP';
  if (/^(true|false)$/i.test(s)) return 'BOOLEAN';
  return 'STRING';
}

/**
 * schema_of_csv(sample[, options]): the struct Spark infers for the one line, `_c0`, `_c1`, … by
 * position (Spark's SchemaOfCsv), a field without a value a STRING. Spark requires the sample
 * to be a constant; it is read once, at analysis, and the answer is a constant.
 */
function compileSchemaOfCsv(e: CallExpr, c: CallCompiler): CompiledExpr {
  const [sampleArg, optionsArg] = e.args;
  const sample = foldedText(sampleArg, c);
  if (sample === undefined) {
    const isNull = sampleArg.kind === 'literal' && sampleArg.value === null;
    c.fail(e, isNull
      ? 'schema_of_csv() needs a CSV line, got NULL (DATATYPE_MISMATCH.UNEXPECTED_NULL)'
      : "schema_of_csv() needs a constant sample line, such as schema_of_csv('1,abc') (DATATYPE_MISMATCH.NON_FOLDABLE_INPUT)");
  }
  const map = optionMap(e, optionsArg, c);
  const format = csvOptions(e, optionsArg, c);
  const o = inferOptions(e, map, c);
  const fields = splitCsvLine(sample, format);
  if (!fields) c.fail(e, `schema_of_csv() could not read '${sample}' as one CSV line: close its quote`);
  const ddl = `STRUCT<${fields.map((f, i) => `_c${i}: ${inferField(f, format.nullValue, o) ?? 'STRING'}`).join(', ')}>`;
  return { type: 'string', eval: () => ddl };
}

/** from_csv, to_csv and schema_of_csv read their options (and schemas) once: compiled by their hooks. */
export const CSV_FUNCTIONS: Record<string, FunctionDef> = {
  from_csv: { min: 2, max: 3, type: () => 'struct', impl: compiledByHook, compile: compileFromCsv },
  to_csv: { min: 1, max: 2, type: () => 'string', impl: compiledByHook, compile: compileToCsv },
  schema_of_csv: { min: 1, max: 2, type: () => 'string', impl: compiledByHook, compile: compileSchemaOfCsv },
};
