/**
 * Spark's CSV expressions (group csv_funcs): from_csv(text, 'DDL schema'[, options]) reads one CSV
 * line as a struct, to_csv(struct[, options]) writes one. The line is split and each field read
 * as the files source reads a CSV file (operators/record-parser.ts), and written as the files sink
 * writes one (sinks/row-rendering.ts's text of a value, record-parser's quoting), with Spark's
 * options sep, quote, escape and nullValue.
 */
import type { Field } from '../types';
import { coerceField, csvField, splitCsvLine, type CsvFormat } from '../operators/record-parser';
import { renderText } from '../sinks/row-rendering';
import { typeText } from './data-types';
import { referencedColumns, type Expr } from './expression';
import { compiledByHook, foldedText } from './function-args';
import type { CallCompiler, CallExpr, CompiledExpr, FunctionDef } from './function-types';
import { parseDdlSchema } from './json-functions';
import { checkStringLength } from './value-limits';

interface CsvOptions extends CsvFormat {
  /** The text of a NULL field (Spark's nullValue, '' by default). */
  nullValue: string;
}

/** The options Weir reads; Spark's others (dateFormat, mode, …) change nothing here. */
const ONE_CHAR = ['sep', 'quote', 'escape'] as const;

/** A CSV function's options, a constant map(…) as Spark requires: Spark's defaults otherwise. */
function csvOptions(e: CallExpr, arg: Expr | undefined, c: CallCompiler): CsvOptions {
  const out: CsvOptions = { sep: ',', quote: '"', escape: '\\', nullValue: '' };
  if (!arg) return out;
  const fn = `${e.name}()`;
  if (referencedColumns(arg).size > 0) c.fail(e, `${fn} needs its options as a constant map, such as map('sep', ';')`);
  const m = c.compile(arg);
  if (m.type !== 'map') c.fail(e, `${fn} takes its options as a map, got ${typeText(m)}`);
  for (const [k, v] of Object.entries((m.eval({}, { batchTimestampMs: 0 }) ?? {}) as Record<string, unknown>)) {
    if (typeof v !== 'string') continue;
    const key = ONE_CHAR.find((x) => x === k || (x === 'sep' && k === 'delimiter'));
    if (key) {
      // Spark takes a two-character `\t` for a tab.
      const ch = v === '\\t' ? '\t' : v;
      if (ch.length !== 1) c.fail(e, `${fn} option ${k} must be one character, got '${v}'`);
      out[key] = ch;
    } else if (k === 'nullValue') out.nullValue = v;
  }
  return out;
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
  if (schema === undefined) c.fail(e, "from_csv() needs its schema as a string literal (or a concatenation of literals), such as 'a INT, b DOUBLE'");
  const parsed = parseDdlSchema(schema);
  if (typeof parsed === 'string') c.fail(e, `from_csv(): ${parsed}`);
  const fields = flatFields(e, parsed, c);
  const options = csvOptions(e, optionsArg, c);
  const t = c.compile(text);
  if (t.type !== 'string' && t.type !== 'null') c.fail(e, `from_csv() reads a string, got ${typeText(t)}`);
  return {
    type: 'struct',
    fields,
    eval: (r, x) => {
      const v = t.eval(r, x);
      if (v === null || v === undefined) return null;
      const parts = splitCsvLine(String(v), options) ?? [];
      const out: Record<string, unknown> = {};
      fields.forEach((f, i) => {
        const s = parts[i];
        const read = s === undefined || s === options.nullValue ? undefined : coerceField(s, f, true);
        out[f.name] = read?.ok ? read.value : null;
      });
      return out;
    },
  };
}

/** to_csv(struct[, options]): its fields' text as one CSV line, NULL as nullValue. */
function compileToCsv(e: CallExpr, c: CallCompiler): CompiledExpr {
  const a = c.compile(e.args[0]);
  if (a.type !== 'struct') c.fail(e, `to_csv() takes a struct, got ${typeText(a)} (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)`);
  const fields = flatFields(e, a.fields ?? [], c);
  const options = csvOptions(e, e.args[1], c);
  return {
    type: 'string',
    eval: (r, x) => {
      const v = a.eval(r, x) as Record<string, unknown> | null;
      if (v === null || v === undefined) return null;
      const line = fields.map((f) => {
        const s = renderText(v[f.name], f);
        return s === null ? options.nullValue : csvField(s, options);
      }).join(options.sep);
      checkStringLength('to_csv()', line.length);
      return line;
    },
  };
}

/** from_csv and to_csv carry struct types: compiled by their hooks. */
export const CSV_FUNCTIONS: Record<string, FunctionDef> = {
  from_csv: { min: 2, max: 3, type: () => 'struct', impl: compiledByHook, compile: compileFromCsv },
  to_csv: { min: 1, max: 2, type: () => 'string', impl: compiledByHook, compile: compileToCsv },
};
