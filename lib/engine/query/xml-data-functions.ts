/**
 * Spark 4's XML functions of its XML data source (group xml_funcs): from_xml(xml, schema[,
 * options]) reads one XML record as a struct (XmlToStructs over StaxXmlParser), schema_of_xml(xml[,
 * options]) infers the DDL schema of a sample record (SchemaOfXml, XmlInferSchema), and
 * to_xml(struct[, options]) writes a struct as one record (StructsToXml, StaxXmlGenerator).
 *
 * A record is its root element: the root's attributes and children are the struct's fields. An
 * attribute is the field named by attributePrefix (`_`) and its name (`<a id="1">` gives `_id`),
 * an element's text beside attributes or child elements the field valueTag (`_VALUE`), and an
 * element that repeats is an ARRAY of its values. Options as Spark's XmlOptions, their names
 * read case-insensitively: mode (PERMISSIVE, FAILFAST), columnNameOfCorruptRecord,
 * attributePrefix, valueTag, excludeAttribute, ignoreSurroundingSpaces, ignoreNamespace,
 * nullValue, dateFormat, timestampFormat, timestampNTZFormat, prefersDecimal, preferDate,
 * inferSchema; and to_xml's rowTag, arrayElementName and indent.
 *
 * from_xml (PERMISSIVE): a value that does not read as its field's type leaves the field NULL
 * (or, in an array, leaves its element out) and the rest of the record is read, as Spark keeps
 * the partial row; a record that is not XML is a struct of NULLs. Either way the field named
 * columnNameOfCorruptRecord (`_corrupt_record`), when the schema has one, holds the record's
 * text. FAILFAST fails the query on such a record. A date or timestamp read by a pattern that
 * only Spark 2's lenient parser would have read fails the query
 * (INCONSISTENT_BEHAVIOR_CROSS_VERSION.PARSE_DATETIME_BY_NEW_PARSER), as Spark's does.
 *
 * to_xml writes as Spark's StaxXmlGenerator through Woodstox: `<ROW>`, each field a child element
 * on its own line indented by four spaces a level, NULL fields left out, an element without
 * content closed as `<a/>`, `<` and `&` escaped in text (and `>` where it could end `]]>`).
 *
 * Differences from Spark: to_xml writes a BINARY field as Spark's default binary text (the bytes
 * in hex, `[45 61]`), Weir having no spark.sql.binaryOutputStyle; the wildcard column
 * (wildcardColName), rowValidationXSDPath and locale are not read; a DECIMAL is written with its
 * digits (Java's BigDecimal.toString writes a small one with an exponent).
 *
 * Untrusted input: the text is parsed by saxes, which fetches no DTD and expands no entity a
 * DTD declares (a reference to one makes the record malformed); the work is linear in the text.
 */
import { variantToJson, type Variant } from './variant';
import { SaxesParser } from 'saxes';
import { RecordExpressionError } from '../errors';
import type { Field } from '../types';
import { coerceField } from '../operators/record-parser';
import { toMultiUnitsString, type CalendarInterval } from './calendar-interval';
import { formatDate } from './date';
import { formatDecimal } from './decimal';
import { fieldOfDataType, typeText, variantColumnRefusal } from './data-types';
import { formatWithPattern, parseDatetime, parseWithPattern, tokenizePattern } from './datetime-patterns';
import { exprToString, referencedColumns, type Expr } from './expression';
import { parseTimestampLiteral } from './expression-builder';
import { formatFloat } from './float';
import { formatInterval, fullRange } from './interval-utils';
import { compiledByHook, foldedText } from './function-args';
import type { CallCompiler, CallExpr, CompiledExpr, FunctionDef } from './function-types';
import { mapped } from './compiled-expr';
import { checkOptionsMap, timestampJson } from './json-functions';
import { quoteName } from './json-shape-functions';
import { parseDataType, parseSchema } from './parser/data-type-parser';
import { binaryHexText, castValue, formatDouble } from './sql-values';
import { checkStringLength } from './value-limits';

// ---------------------------------------------------------------------------------------------
// Options

type Pattern = Exclude<ReturnType<typeof tokenizePattern>, string>;

interface XmlOptions {
  mode: 'PERMISSIVE' | 'FAILFAST' | 'DROPMALFORMED';
  corruptColumn: string;
  attributePrefix: string;
  valueTag: string;
  excludeAttribute: boolean;
  ignoreSurroundingSpaces: boolean;
  ignoreNamespace: boolean;
  /** The text read as NULL and written for one (Spark's default: none, NULLs are left out). */
  nullValue: string | null;
  dateFormat?: Pattern;
  timestampFormat?: Pattern;
  timestampNTZFormat?: Pattern;
  prefersDecimal: boolean;
  preferDate: boolean;
  inferSchema: boolean;
  rowTag: string;
  arrayElementName: string;
  indent: string;
}

const DEFAULTS: XmlOptions = {
  mode: 'PERMISSIVE', corruptColumn: '_corrupt_record', attributePrefix: '_', valueTag: '_VALUE', excludeAttribute: false,
  ignoreSurroundingSpaces: true, ignoreNamespace: false, nullValue: null, prefersDecimal: false, preferDate: true, inferSchema: true,
  rowTag: 'ROW', arrayElementName: 'item', indent: '    ',
};

const BOOLEAN_OPTIONS = { excludeattribute: 'excludeAttribute', ignoresurroundingspaces: 'ignoreSurroundingSpaces', ignorenamespace: 'ignoreNamespace', prefersdecimal: 'prefersDecimal', preferdate: 'preferDate', inferschema: 'inferSchema' } as const;
const TEXT_OPTIONS = { columnnameofcorruptrecord: 'corruptColumn', attributeprefix: 'attributePrefix', valuetag: 'valueTag', nullvalue: 'nullValue', rowtag: 'rowTag', arrayelementname: 'arrayElementName', indent: 'indent' } as const;
const PATTERN_OPTIONS = { dateformat: 'dateFormat', timestampformat: 'timestampFormat', timestampntzformat: 'timestampNTZFormat' } as const;

/** A function's options, a constant map(…) of strings as Spark requires, read as Spark's XmlOptions. */
function xmlOptions(e: CallExpr, arg: Expr | undefined, c: CallCompiler): XmlOptions {
  const o: XmlOptions = { ...DEFAULTS };
  if (!arg) return o;
  const fn = `${e.name}()`;
  if (referencedColumns(arg).size > 0) c.fail(e, `${fn} needs its options as a constant map, such as map('mode', 'FAILFAST')`);
  const m = c.compile(arg);
  checkOptionsMap(e, m, c);
  for (const [key, v] of Object.entries((m.eval({}, { batchTimestampMs: 0 }) ?? {}) as Record<string, unknown>)) {
    if (typeof v !== 'string') continue;
    const k = key.toLowerCase();
    if (k === 'mode') {
      // Spark's ParseMode.fromString: an unknown mode is PERMISSIVE.
      const mode = v.toUpperCase();
      o.mode = mode === 'FAILFAST' || mode === 'DROPMALFORMED' ? mode : 'PERMISSIVE';
    } else if (k in BOOLEAN_OPTIONS) {
      if (!/^(true|false)$/i.test(v)) c.fail(e, `${fn} option ${key} must be 'true' or 'false', got '${v}'`);
      o[BOOLEAN_OPTIONS[k as keyof typeof BOOLEAN_OPTIONS]] = v.toLowerCase() === 'true';
    } else if (k in TEXT_OPTIONS) {
      o[TEXT_OPTIONS[k as keyof typeof TEXT_OPTIONS]] = v;
    } else if (k in PATTERN_OPTIONS) {
      const tokens = tokenizePattern(v);
      if (typeof tokens === 'string') c.fail(e, `${fn} option ${key}: ${tokens}`);
      o[PATTERN_OPTIONS[k as keyof typeof PATTERN_OPTIONS]] = tokens;
    }
  }
  if (o.attributePrefix === '' && e.name === 'to_xml') c.fail(e, "to_xml() option attributePrefix should not be empty string");
  if (o.valueTag === '' || o.valueTag === o.attributePrefix) c.fail(e, `${fn} option valueTag should be neither empty nor the attributePrefix`);
  if (o.rowTag === '' || o.rowTag.startsWith('<') || o.rowTag.endsWith('>')) c.fail(e, `${fn} option rowTag should be a name without angle brackets, got '${o.rowTag}'`);
  return o;
}

// ---------------------------------------------------------------------------------------------
// Reading

interface XmlElement {
  name: string;
  attributes: [string, string][];
  children: XmlChild[];
}
type XmlChild = XmlElement | { text: string };

const isElement = (n: XmlChild): n is XmlElement => 'name' in n;
/** StAX's Characters.isWhiteSpace: text of XML white space only. */
const isWhiteSpace = (n: XmlChild) => !isElement(n) && /^[ \t\r\n]*$/.test(n.text);

/** A record that is not XML, or a value that does not read as its type. */
class BadRecord extends Error {}

/**
 * The record's root element, by saxes without namespaces (as Spark's reader, which is not
 * namespace-aware): adjacent text and CDATA are one text, comments and processing instructions
 * are left out; what follows the root is not read, as Spark stops there.
 */
function parseRecord(xml: string, o: XmlOptions): XmlElement {
  const parser = new SaxesParser({ xmlns: false });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let done = false;
  const name = (n: string) => (o.ignoreNamespace && n.includes(':') ? n.slice(n.indexOf(':') + 1) : n);
  parser.on('error', (err) => {
    if (!done) throw new BadRecord(err.message);
  });
  const text = (t: string) => {
    const parent = stack.at(-1);
    if (!parent || done) return;
    const last = parent.children.at(-1);
    if (last && !isElement(last)) last.text += t;
    else parent.children.push({ text: t });
  };
  parser.on('text', text);
  parser.on('cdata', text);
  parser.on('opentag', (tag) => {
    if (done) return;
    const attributes = Object.entries(tag.attributes as Record<string, string>).filter(([n]) => n !== 'xmlns' && !n.startsWith('xmlns:')).map(([n, v]): [string, string] => [name(n), v]);
    const el: XmlElement = { name: name(tag.name), attributes, children: [] };
    stack.at(-1)?.children.push(el);
    stack.push(el);
    root ??= el;
  });
  parser.on('closetag', () => {
    if (done) return;
    stack.pop();
    if (stack.length === 0) done = true;
  });
  parser.write(xml).close();
  if (!root || !done) throw new BadRecord('the text holds no whole XML element');
  return root;
}

/** Java's Double.parseDouble grammar (after trimming), and the number NumberFormat reads at the text's start. */
const JAVA_DOUBLE = /^[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?)$/;
const NUMBER_FORMAT = /^-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?/;

function readDouble(s: string): number {
  const t = s.trim();
  if (JAVA_DOUBLE.test(t)) return Number(t.replace(/[fFdD]$/, '').replace(/^\+/, ''));
  const m = NUMBER_FORMAT.exec(t);
  if (!m) throw new BadRecord(`'${s}' is not a number`);
  return Number(m[0].replace(/,/g, ''));
}

/** What reads the record: its options and the function's name for errors. */
interface Reader {
  o: XmlOptions;
  fn: string;
}

/** Spark's convertTo: one text as a field's type (trimmed by ignoreSurroundingSpaces); throws BadRecord when it does not read. */
function convertTo(datum: string, f: Field, r: Reader): unknown {
  const { o } = r;
  const v = o.ignoreSurroundingSpaces ? datum.trim() : datum;
  if (v === o.nullValue) return null;
  const fail = (): never => { throw new BadRecord(`'${v}' is not a ${typeText(f)}`); };
  switch (f.type) {
    case 'string':
      return v;
    case 'long': {
      if (!/^[+-]?\d+$/.test(v)) fail();
      const c = coerceField(v, f, true);
      return c.ok ? c.value : fail();
    }
    case 'decimal': {
      const c = coerceField(v, f, true);
      return c.ok && c.value !== null ? c.value : fail();
    }
    case 'double': {
      const n = readDouble(v);
      return f.float32 ? Math.fround(n) : n;
    }
    case 'boolean': {
      const b = v.toLowerCase();
      return b === 'true' || b === '1' ? true : b === 'false' || b === '0' ? false : fail();
    }
    case 'date': {
      // preferDate (on by default) reads a date by yyyy-MM-dd when no dateFormat is given.
      const pattern = o.dateFormat ?? (o.preferDate ? YYYY_MM_DD : undefined);
      if (!pattern) return castValue(v, 'string', 'date') ?? fail();
      const ms = parseDatetime(r.fn, v, pattern, 'lenient');
      return ms === null ? fail() : Math.floor(ms / 86_400_000);
    }
    case 'timestamp': {
      if (f.ntz) {
        const ms = o.timestampNTZFormat ? parseDatetime(r.fn, v, o.timestampNTZFormat, 'lenient') : parseTimestampLiteral(v, true, true);
        return ms ?? fail();
      }
      const ms = o.timestampFormat ? parseDatetime(r.fn, v, o.timestampFormat, 'lenient') : castValue(v, 'string', 'timestamp');
      return ms ?? fail();
    }
    // Spark's convertTo reads no other type from text.
    case 'array': case 'map': case 'struct': case 'binary': case 'window': case 'day_time_interval': case 'year_month_interval': case 'calendar_interval': case 'variant': case 'unknown':
      return fail();
  }
}

const YYYY_MM_DD = tokenizePattern('yyyy-MM-dd') as Pattern;

/** A field by its name, case-insensitively (Spark's default spark.sql.caseSensitive=false). */
function fieldIndex(fields: Field[], name: string): number {
  const exact = fields.findIndex((f) => f.name === name);
  return exact >= 0 ? exact : fields.findIndex((f) => f.name.toLowerCase() === name.toLowerCase());
}

/** The attributes as fields' values: `_` + name (Spark's convertAttributesToValuesMap). */
function attributeValues(el: XmlElement, o: XmlOptions): [string, string][] {
  return o.excludeAttribute ? [] : el.attributes.map(([n, v]) => [o.attributePrefix + n, v]);
}

/** An element's content as text (Spark's currentStructureAsString): its text, and its children as XML. */
function structureAsString(children: XmlChild[]): string {
  return children.map((n) => (isElement(n) ? `<${n.name}${n.attributes.map(([k, v]) => ` ${k}="${v}"`).join('')}>${structureAsString(n.children)}</${n.name}>` : n.text)).join('');
}

/** Spark's convertField: an element's content as the type `f`. */
function convertField(el: XmlElement, f: Field, r: Reader, children = el.children): unknown {
  const first = children[0];
  if (first === undefined) return f.type === 'string' ? (r.o.nullValue === '' ? null : '') : null;
  if (isElement(first)) {
    switch (f.type) {
      case 'struct': return convertObject(children, f.fields ?? [], [], r).row;
      case 'map': return convertMap(el, f, r);
      case 'array': return convertField(el, f.elementType!, r, children);
      case 'string': return convertTo(structureAsString(children), f, r);
      case 'long': case 'double': case 'boolean': case 'timestamp': case 'date': case 'decimal': case 'binary': case 'window': case 'day_time_interval': case 'year_month_interval': case 'calendar_interval': case 'variant': case 'unknown': throw new BadRecord(`<${el.name}> holds elements, not a ${typeText(f)}`);
    }
  }
  if (f.type === 'array') return convertTo(first.text, f.elementType!, r);
  if (f.type === 'struct') return convertObject(children, f.fields ?? [], [], r).row;
  if (f.type === 'string') return convertTo(structureAsString(children), f, r);
  // White space before an element: the element decides.
  if (isWhiteSpace(first)) return convertField(el, f, r, children.slice(1));
  return convertTo(first.text, f, r);
}

/** Spark's convertMap: the attributes (`_name`), child elements and text (`_VALUE`) as a map. */
function convertMap(el: XmlElement, f: Field, r: Reader): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const put = (k: string, v: unknown) => Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  for (const [k, v] of attributeValues(el, r.o)) put(k, convertTo(v, f.valueType!, r));
  for (const n of el.children) {
    if (isElement(n)) put(n.name, convertField(n, f.valueType!, r));
    else if (!isWhiteSpace(n)) put(r.o.valueTag, convertTo(n.text, f.valueType!, r));
  }
  return out;
}

/** Spark's convertObjectWithAttributes: a nested element as a struct, its attributes beside its content. */
function convertObjectWithAttributes(el: XmlElement, fields: Field[], r: Reader): { row: Record<string, unknown>; bad?: BadRecord } {
  const attrs = convertAttributes(attributeValues(el, r.o), fields, r);
  let content: Record<string, unknown> = {};
  let bad: BadRecord | undefined;
  const first = el.children.find((n) => !isWhiteSpace(n)) ?? el.children[0];
  if (first !== undefined && (isElement(first) || !isWhiteSpace(first))) {
    const inner = convertObject(el.children, fields, [], r);
    content = inner.row;
    bad = inner.bad;
  }
  const row = Object.fromEntries(fields.map((f) => [f.name, null])) as Record<string, unknown>;
  for (const [k, v] of Object.entries({ ...content, ...attrs })) {
    const i = fieldIndex(fields, k);
    if (i >= 0 && v !== null) row[fields[i].name] = v;
  }
  return { row, bad };
}

function convertAttributes(values: [string, string][], fields: Field[], r: Reader): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of values) {
    const i = fieldIndex(fields, k);
    if (i >= 0) out[fields[i].name] = convertTo(v, fields[i], r);
  }
  return out;
}

/**
 * Spark's convertObject: the children (and the root's attributes) as a struct of `fields`. A
 * child that does not read leaves its field as it was and marks the record bad (`bad`): Spark
 * keeps such a partial row.
 */
function convertObject(children: XmlChild[], fields: Field[], rootAttributes: [string, string][], r: Reader): { row: Record<string, unknown>; bad?: BadRecord } {
  const row: Record<string, unknown> = Object.fromEntries(fields.map((f) => [f.name, null]));
  Object.assign(row, convertAttributes(rootAttributes, fields, r));
  let bad: BadRecord | undefined;
  for (const n of children) {
    if (!isElement(n)) {
      if (isWhiteSpace(n)) continue;
      // Text beside elements: the value tag's field, when the schema has one.
      const i = fields.findIndex((f) => f.name === r.o.valueTag);
      if (i < 0) continue;
      const f = fields[i];
      if (f.type === 'array') row[f.name] = [...((row[f.name] as unknown[] | null) ?? []), convertTo(n.text, f.elementType!, r)];
      else row[f.name] = convertTo(n.text, f, r);
      continue;
    }
    const i = fieldIndex(fields, n.name);
    if (i < 0) continue;
    const f = fields[i];
    try {
      if (f.type === 'struct') {
        const inner = convertObjectWithAttributes(n, f.fields ?? [], r);
        row[f.name] = inner.row;
        bad ??= inner.bad;
      } else if (f.type === 'array') {
        const e = f.elementType!;
        let v: unknown;
        if (e.type === 'struct') {
          const inner = convertObjectWithAttributes(n, e.fields ?? [], r);
          v = inner.row;
          bad ??= inner.bad;
        } else v = convertField(n, e, r);
        row[f.name] = [...((row[f.name] as unknown[] | null) ?? []), v];
      } else row[f.name] = convertField(n, f, r);
    } catch (err) {
      if (!(err instanceof BadRecord)) throw err;
      bad ??= err;
    }
  }
  return { row, bad };
}

/** from_xml's struct of a record: Spark's doParseColumn under FailureSafeParser. */
function fromXml(text: string, fields: Field[], r: Reader): Record<string, unknown> {
  const { o } = r;
  const corrupt = fields.find((f) => f.name === o.corruptColumn);
  let row: Record<string, unknown> | undefined;
  let bad: BadRecord | undefined;
  try {
    const root = parseRecord(text, o);
    ({ row, bad } = convertObject(root.children, fields, attributeValues(root, o), r));
  } catch (err) {
    if (!(err instanceof BadRecord)) throw err;
    bad = err;
  }
  if (!bad) return row!;
  if (o.mode === 'FAILFAST') {
    throw new RecordExpressionError(`${r.fn}: [MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION] Malformed records are detected in record parsing: ${bad.message}. Parse Mode: FAILFAST. To process malformed records as null result, try setting the option 'mode' as 'PERMISSIVE'.`, { function: r.fn });
  }
  const out = row ?? Object.fromEntries(fields.map((f) => [f.name, null]));
  if (corrupt) out[corrupt.name] = text;
  return out;
}

/**
 * from_xml(xml, schema[, options]): the schema a DDL string (`a INT, b STRING` or `STRUCT<…>`)
 * literal, or schema_of_xml of a literal, read at planning as from_json reads its schema.
 */
function compileFromXml(e: CallExpr, c: CallCompiler): CompiledExpr {
  const [text, schemaArg, optionsArg] = e.args;
  const written = foldedText(schemaArg, c);
  if (written === undefined) c.fail(e, `[INVALID_SCHEMA.NON_STRING_LITERAL] from_xml() needs its schema as a string literal (or schema_of_xml('<p><a>1</a></p>') of a sample), such as 'a INT, b STRING', got ${exprToString(schemaArg)}`);
  const fields = xmlSchema(e, written, c);
  const o = xmlOptions(e, optionsArg, c);
  if (o.mode === 'DROPMALFORMED') c.fail(e, '[PARSE_MODE_UNSUPPORTED] The function from_xml() doesn\'t support the DROPMALFORMED mode. Acceptable modes are PERMISSIVE and FAILFAST.');
  const corrupt = fields.find((f) => f.name === o.corruptColumn);
  if (corrupt && corrupt.type !== 'string') c.fail(e, `[INVALID_CORRUPT_RECORD_TYPE] The column \`${corrupt.name}\` for corrupt records must have the nullable STRING type, but got ${typeText(corrupt)}.`);
  const t = c.compile(text);
  if (t.type !== 'string' && t.type !== 'null') c.mismatch(e, 'UNEXPECTED_INPUT_TYPE', `The first parameter requires the "STRING" type, however "${exprToString(text)}" has the type "${typeText(t)}".`, 'Cast it to a STRING.');
  const r: Reader = { o, fn: 'from_xml()' };
  return mapped({ type: 'struct', fields }, t, (v) => (v === null || v === undefined ? null : fromXml(v as string, fields, r)));
}

/** The schema's fields; Spark's DataType.fromDDL reports a text that is neither a type nor a column list by its first reading, as one type. */
function xmlSchema(e: CallExpr, ddl: string, c: CallCompiler): Field[] {
  let t;
  try {
    t = parseSchema(ddl);
  } catch (schemaError) {
    let message = (schemaError as Error).message;
    try {
      parseDataType(ddl);
    } catch (typeError) {
      message = (typeError as Error).message;
    }
    c.fail(e, `from_xml(): cannot read the schema '${ddl}': ${message}`, /^\[([A-Z_.]+)\]/.exec(message)?.[1]);
  }
  if (t.kind !== 'struct') c.fail(e, `from_xml() reads a record as a struct: its schema '${ddl}' is one ${t.kind} type; write it as 'name TYPE, …' or 'STRUCT<…>'`);
  const f = fieldOfDataType('from_xml', t);
  if (typeof f === 'string') c.fail(e, `from_xml(): ${f}`);
  const variant = variantColumnRefusal(f);
  if (variant) c.fail(e, `from_xml(): ${variant}`);
  return f.fields ?? [];
}

// ---------------------------------------------------------------------------------------------
// Inference

/** An inferred type (Spark's XmlInferSchema): NULL until a value says more. */
type Inferred =
  | { k: 'NULL' | 'BOOLEAN' | 'BIGINT' | 'DOUBLE' | 'STRING' | 'DATE' | 'TIMESTAMP' }
  | { k: 'DECIMAL'; p: number; s: number }
  | { k: 'ARRAY'; e: Inferred }
  | { k: 'STRUCT'; fields: [string, Inferred][] };

const LONG_MAX = 2n ** 63n;

/**
 * Spark's inferFrom, its cascade Long → Decimal (prefersDecimal) → Double → Date (preferDate) →
 * Timestamp → Boolean → String, of one trimmed text.
 */
function inferFrom(datum: string, o: XmlOptions): Inferred {
  const v = o.ignoreSurroundingSpaces ? datum.trim() : datum;
  if (!o.inferSchema) return { k: 'STRING' };
  if (v === '' || v === o.nullValue) return { k: 'NULL' };
  const unsigned = /^[+-]/.test(v) ? v.slice(1) : v;
  if (/^\d+$/.test(unsigned) && BigInt(unsigned) < LONG_MAX + (v.startsWith('-') ? 1n : 0n)) return { k: 'BIGINT' };
  const numeric = /^[\d.]/.test(unsigned) && !/[dDfF]$/.test(unsigned);
  if (numeric && o.prefersDecimal) {
    const m = /^(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(unsigned);
    if (m && (m[1] || m[2])) {
      const digits = ((m[1] ?? '') + (m[2] ?? '')).replace(/^0+(?=\d)/, '');
      const s = (m[2] ?? '').length - Number(m[3] ?? 0);
      const p = Math.max(digits.replace(/^0+(?=\d)/, '').length, s, 1);
      if (s >= 0 && p <= 38) return { k: 'DECIMAL', p: Math.max(p, s), s };
    }
  }
  if (numeric && JAVA_DOUBLE.test(unsigned)) return { k: 'DOUBLE' };
  // Spark tries each parser catching every error: a text only Spark 2 read is not of the type.
  if (o.preferDate && parseWithPattern(v, o.dateFormat ?? YYYY_MM_DD) !== null) return { k: 'DATE' };
  const ts = o.timestampFormat ? parseWithPattern(v, o.timestampFormat) : castValue(v, 'string', 'timestamp');
  if (ts !== null) return { k: 'TIMESTAMP' };
  if (/^(true|false)$/i.test(v)) return { k: 'BOOLEAN' };
  return { k: 'STRING' };
}

const byName = (a: [string, Inferred], b: [string, Inferred]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** Spark's compatibleType of two types at one place. */
function compatible(a: Inferred, b: Inferred, o: XmlOptions): Inferred {
  if (a.k === 'NULL') return b;
  if (b.k === 'NULL') return a;
  if (a.k === 'STRUCT' && b.k === 'STRUCT') {
    const merged = new Map<string, [string, Inferred]>();
    for (const [n, t] of [...a.fields, ...b.fields]) {
      const was = merged.get(n.toLowerCase());
      merged.set(n.toLowerCase(), was ? [was[0], compatible(was[1], t, o)] : [n, t]);
    }
    return { k: 'STRUCT', fields: [...merged.values()].sort(byName) };
  }
  if (a.k === 'ARRAY' && b.k === 'ARRAY') return { k: 'ARRAY', e: compatible(a.e, b.e, o) };
  if (a.k === b.k && a.k !== 'DECIMAL') return a;
  if ((a.k === 'DOUBLE' && (b.k === 'BIGINT' || b.k === 'DECIMAL')) || (b.k === 'DOUBLE' && (a.k === 'BIGINT' || a.k === 'DECIMAL'))) return { k: 'DOUBLE' };
  if ((a.k === 'DECIMAL' || a.k === 'BIGINT') && (b.k === 'DECIMAL' || b.k === 'BIGINT')) {
    const [x, y] = [a, b].map((t) => (t.k === 'DECIMAL' ? t : { k: 'DECIMAL' as const, p: 20, s: 0 }));
    const s = Math.max(x.s, y.s);
    const range = Math.max(x.p - x.s, y.p - y.s);
    return range + s > 38 ? { k: 'DOUBLE' } : { k: 'DECIMAL', p: range + s, s };
  }
  if ((a.k === 'DATE' && b.k === 'TIMESTAMP') || (a.k === 'TIMESTAMP' && b.k === 'DATE')) return { k: 'TIMESTAMP' };
  if (a.k === 'ARRAY') return { k: 'ARRAY', e: compatible(a.e, b, o) };
  if (b.k === 'ARRAY') return { k: 'ARRAY', e: compatible(a, b.e, o) };
  // A struct with a value tag beside a primitive: the value tag's type widens.
  for (const [st, other] of [[a, b], [b, a]] as const) {
    if (st.k === 'STRUCT' && st.fields.some(([n]) => n === o.valueTag)) {
      return { k: 'STRUCT', fields: st.fields.map(([n, t]): [string, Inferred] => (n === o.valueTag ? [n, compatible(t, other, o)] : [n, t])) };
    }
  }
  return { k: 'STRING' };
}

/** Spark's addOrUpdateType: a name seen again is an ARRAY of its values' types. */
function addOrUpdate(types: Map<string, [string, Inferred]>, name: string, t: Inferred, o: XmlOptions): void {
  const was = types.get(name.toLowerCase());
  if (!was) types.set(name.toLowerCase(), [name, t]);
  else types.set(name.toLowerCase(), [was[0], was[1].k === 'ARRAY' ? compatible(was[1], t, o) : { k: 'ARRAY', e: compatible(was[1], t, o) }]);
}

function inferField(el: XmlElement, o: XmlOptions): Inferred {
  const first = el.children[0];
  if (first === undefined) return { k: 'NULL' };
  const st = inferObject(el.children, [], o);
  if (isElement(first)) return st;
  if (st.fields.length === 0) return { k: 'NULL' };
  const [only] = st.fields;
  if (st.fields.length === 1 && only[0].toLowerCase() === o.valueTag.toLowerCase() && only[1].k !== 'STRUCT' && only[1].k !== 'ARRAY') return only[1];
  return st;
}

function inferObject(children: XmlChild[], rootAttributes: [string, string][], o: XmlOptions): Extract<Inferred, { k: 'STRUCT' }> {
  const types = new Map<string, [string, Inferred]>();
  for (const [n, v] of rootAttributes) addOrUpdate(types, n, inferFrom(v, o), o);
  for (const n of children) {
    if (!isElement(n)) {
      if (!isWhiteSpace(n)) addOrUpdate(types, o.valueTag, inferFrom(n.text, o), o);
      continue;
    }
    const attrs = attributeValues(n, o);
    let t = inferField(n, o);
    if (attrs.length > 0) {
      const fields: [string, Inferred][] = t.k === 'STRUCT' ? [...t.fields] : t.k === 'NULL' ? [] : [[o.valueTag, t]];
      for (const [k, v] of attrs) fields.push([k, inferFrom(v, o)]);
      t = { k: 'STRUCT', fields: fields.sort(byName) };
    }
    addOrUpdate(types, n.name, t, o);
  }
  return { k: 'STRUCT', fields: [...types.values()].sort(byName) };
}

/** Spark's canonicalizeType: NULL is STRING, a struct without fields is left out. */
function canonical(t: Inferred): Inferred | undefined {
  switch (t.k) {
    case 'NULL': return { k: 'STRING' };
    case 'ARRAY': { const e = canonical(t.e); return e && { k: 'ARRAY', e }; }
    case 'STRUCT': {
      const fields = t.fields.flatMap(([n, f]): [string, Inferred][] => { const c = n === '' ? undefined : canonical(f); return c ? [[n, c]] : []; });
      return fields.length ? { k: 'STRUCT', fields } : undefined;
    }
    case 'BIGINT': case 'BOOLEAN': case 'DATE': case 'DECIMAL': case 'DOUBLE': case 'STRING': case 'TIMESTAMP': return t;
  }
}

/** Spark's DataType.sql of an inferred type. */
function ddl(t: Inferred): string {
  switch (t.k) {
    case 'NULL': return 'STRING';
    case 'DECIMAL': return `DECIMAL(${t.p},${t.s})`;
    case 'ARRAY': return `ARRAY<${ddl(t.e)}>`;
    case 'STRUCT': return `STRUCT<${t.fields.map(([n, f]) => `${quoteName(n)}: ${ddl(f)}`).join(', ')}>`;
    case 'BIGINT': case 'BOOLEAN': case 'DATE': case 'DOUBLE': case 'STRING': case 'TIMESTAMP': return t.k;
  }
}

/** schema_of_xml's answer: the record's schema as DDL; a record that is not XML is one `_corrupt_record` STRING (PERMISSIVE). */
function schemaOfXml(xml: string, o: XmlOptions): string {
  let root: XmlElement;
  try {
    root = parseRecord(xml, o);
  } catch (err) {
    if (!(err instanceof BadRecord)) throw err;
    if (o.mode === 'FAILFAST') throw new RecordExpressionError(`schema_of_xml(): [MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION] Malformed records are detected in schema inference: ${err.message}. Parse Mode: FAILFAST.`, { function: 'schema_of_xml()' });
    return `STRUCT<${quoteName(o.corruptColumn)}: STRING>`;
  }
  return ddl(canonical(inferObject(root.children, attributeValues(root, o), o)) ?? { k: 'STRUCT', fields: [] });
}

/** schema_of_xml(xml[, options]): the sample a foldable STRING (a literal), its answer folded once. */
function compileSchemaOfXml(e: CallExpr, c: CallCompiler): CompiledExpr {
  const [xmlArg, optionsArg] = e.args;
  const x = c.compile(xmlArg);
  const sample = foldedText(xmlArg, c);
  if (sample === undefined) {
    if (x.type === 'null') c.mismatch(e, 'UNEXPECTED_NULL', 'the xml must not be null.', 'Write the sample XML as a string literal.');
    c.mismatch(e, 'NON_FOLDABLE_INPUT', `the input \`xml\` should be a foldable "STRING" expression; however, got "${exprToString(xmlArg)}".`, 'Write the sample XML as a string literal.');
  }
  const o = xmlOptions(e, optionsArg, c);
  if (o.mode === 'DROPMALFORMED') c.fail(e, '[PARSE_MODE_UNSUPPORTED] The function schema_of_xml() doesn\'t support the DROPMALFORMED mode. Acceptable modes are PERMISSIVE and FAILFAST.');
  // A constant: inferred once, at the first row that asks.
  let schema: string | undefined;
  return { type: 'string', eval: () => (schema ??= schemaOfXml(sample, o)) };
}

// ---------------------------------------------------------------------------------------------
// Writing

/** Woodstox's text escaping: `<` and `&`, `>` first in a text or after `]`, a carriage return. */
const escapeText = (s: string) => s.replace(/[<&\r]|(?:^|(?<=\]))>/g, (ch) => (ch === '<' ? '&lt;' : ch === '&' ? '&amp;' : ch === '>' ? '&gt;' : '&#13;'));
const escapeAttribute = (s: string) => s.replace(/[<&"\r\n\t]/g, (ch) => (ch === '<' ? '&lt;' : ch === '&' ? '&amp;' : ch === '"' ? '&quot;' : `&#${ch.charCodeAt(0)};`));

/**
 * Spark's IndentingXMLStreamWriter over Woodstox: each element on its own line, indented by its
 * depth; an element that had child elements closes on its own line, one of text beside its
 * start; an element with no content at all is closed in its start tag (`<a/>`). No indent: one
 * line.
 */
class XmlWriter {
  out = '';
  private depth = 0;
  /** Whether the element open now closes on a line of its own (it had child elements since its last text). */
  private newlineOnEnd = false;
  private readonly states: boolean[] = [];
  private startOpen = false;
  constructor(private readonly indent: string) {}

  private closeStart(): void {
    if (this.startOpen) this.out += '>';
    this.startOpen = false;
  }

  start(name: string): void {
    this.closeStart();
    if (this.indent !== '') {
      // The parent, when this child ends, closes on its own line.
      this.states.push(true);
      this.newlineOnEnd = false;
      if (this.depth > 0) this.out += '\n';
      this.out += this.indent.repeat(this.depth);
      this.depth++;
    }
    this.out += `<${name}`;
    this.startOpen = true;
  }

  attribute(name: string, value: string): void {
    this.out += ` ${name}="${escapeAttribute(value)}"`;
  }

  characters(text: string): void {
    this.newlineOnEnd = false;
    this.closeStart();
    this.out += escapeText(text);
  }

  end(name: string): void {
    if (this.indent !== '') {
      this.depth--;
      if (this.newlineOnEnd) this.out += `\n${this.indent.repeat(this.depth)}`;
      this.newlineOnEnd = this.states.pop() ?? false;
    }
    this.out += this.startOpen ? '/>' : `</${name}>`;
    this.startOpen = false;
  }
}

/** A primitive value as Spark's writer writes it. */
function valueText(v: unknown, f: Field, o: XmlOptions): string {
  switch (f.type) {
    case 'timestamp': {
      const pattern = f.ntz ? o.timestampNTZFormat : o.timestampFormat;
      return pattern ? formatWithPattern(v as number, pattern) : timestampJson(v as number, f.ntz);
    }
    case 'date': return o.dateFormat ? formatWithPattern((v as number) * 86_400_000, o.dateFormat) : formatDate(v as number);
    case 'double': return f.float32 ? formatFloat(v as number) : formatDouble(v as number);
    case 'decimal': return formatDecimal(v as bigint, f.scale ?? 0);
    // Spark's default binary text (ToStringBase.getBinaryFormatter with no style set): hex bytes.
    case 'binary': return binaryHexText(v as Uint8Array);
    case 'long': case 'string': case 'boolean':
      return String(v);
    // An interval as its ANSI text, as the JSON writer writes one (Spark's XML writer has none).
    case 'day_time_interval': case 'year_month_interval':
      return formatInterval(f.type, v, f.interval ?? fullRange(f.type));
    case 'calendar_interval': return toMultiUnitsString(v as CalendarInterval);
    // Written as elements, never as one text; as an attribute, its JSON.
    case 'variant': return variantToJson(v as Variant);
    case 'window': case 'unknown': case 'array': case 'map': case 'struct':
      return JSON.stringify(v);
  }
}

const isAttribute = (name: string, o: XmlOptions) => name.startsWith(o.attributePrefix) && name !== o.valueTag;

/** StaxXmlGenerator.writeChildElement: a NULL is left out (no nullValue), the value tag is its parent's text. */
function writeChildElement(w: XmlWriter, name: string, f: Field, v: unknown, o: XmlOptions): void {
  if (v === null || v === undefined) {
    if (o.nullValue === null) return;
  }
  if (name === o.valueTag) {
    writeElement(w, f, v, o);
    return;
  }
  w.start(name);
  writeElement(w, f, v, o);
  w.end(name);
}

/** StaxXmlGenerator.writeChild: an attribute, each element of an array as the field's element, or a child element. */
function writeChild(w: XmlWriter, name: string, f: Field, v: unknown, o: XmlOptions): void {
  if (isAttribute(name, o)) {
    const text = v === null || v === undefined ? o.nullValue : valueText(v, f, o);
    if (text !== null) w.attribute(name.slice(o.attributePrefix.length), text);
  } else if (f.type === 'array' && v !== null && v !== undefined) {
    for (const x of v as unknown[]) writeChildElement(w, name, f.elementType!, x, o);
  } else writeChildElement(w, name, f, v, o);
}

function writeElement(w: XmlWriter, f: Field, v: unknown, o: XmlOptions): void {
  if (v === null || v === undefined) {
    w.characters(o.nullValue ?? '');
    return;
  }
  switch (f.type) {
    case 'array':
      for (const x of v as unknown[]) writeChild(w, o.arrayElementName, f.elementType!, x, o);
      return;
    case 'map': {
      const entries = Object.entries(v as Record<string, unknown>);
      for (const attributes of [true, false]) {
        for (const [k, x] of entries) if (isAttribute(k, o) === attributes) writeChild(w, k, f.valueType!, x, o);
      }
      return;
    }
    case 'struct': case 'window': {
      const fields = f.type === 'window' ? [{ name: 'start', type: 'timestamp' as const, ntz: f.ntz }, { name: 'end', type: 'timestamp' as const, ntz: f.ntz }] : f.fields ?? [];
      const row = v as Record<string, unknown>;
      // Attributes first: they belong to the start tag.
      for (const attributes of [true, false]) {
        for (const g of fields) if (isAttribute(g.name, o) === attributes) writeChild(w, g.name, g, row[g.name], o);
      }
      return;
    }
    case 'long': case 'double': case 'string': case 'boolean': case 'timestamp': case 'date': case 'decimal': case 'binary': case 'day_time_interval': case 'year_month_interval': case 'calendar_interval': case 'variant': case 'unknown':
      w.characters(valueText(v, f, o));
  }
}

/** to_xml(struct[, options]): the struct as one record, `<ROW>` by default. */
function compileToXml(e: CallExpr, c: CallCompiler): CompiledExpr {
  const a = c.compile(e.args[0]);
  if (a.type !== 'struct') c.mismatch(e, 'UNEXPECTED_INPUT_TYPE', `The first parameter requires the "STRUCT" type, however "${exprToString(e.args[0])}" has the type "${typeText(a)}".`, 'Pass a struct, such as named_struct(…).');
  const o = xmlOptions(e, e.args[1], c);
  const f: Field = { name: o.rowTag, type: 'struct', fields: a.fields ?? [] };
  return mapped({ type: 'string' }, a, (v) => {
    if (v === null || v === undefined) return null;
    const w = new XmlWriter(o.indent);
    writeChildElement(w, o.rowTag, f, v, o);
    if (o.indent === '') w.out += '\n';
    checkStringLength('to_xml()', w.out.length);
    return w.out;
  });
}

export const XML_DATA_SOURCE_FUNCTIONS: Record<string, FunctionDef> = {
  // The record's type comes from its schema, a literal: compiled by the hooks.
  from_xml: { min: 2, max: 3, type: () => 'struct', impl: compiledByHook, compile: compileFromXml },
  schema_of_xml: { min: 1, max: 2, type: () => 'string', impl: compiledByHook, compile: compileSchemaOfXml },
  to_xml: { min: 1, max: 2, type: () => 'string', impl: compiledByHook, compile: compileToXml },
};
