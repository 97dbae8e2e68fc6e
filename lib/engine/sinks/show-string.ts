/**
 * Spark's Dataset.showString: the table `df.show()` prints, which Spark's console sink prints
 * for each batch. Each value as Spark 3.5's ToPrettyString writes it (CAST's text, NULL as
 * `NULL` at any depth, a BINARY as hex bytes `[01 FF]`, a struct `{a, b}`, a map `{k -> v}`),
 * meta characters escaped (`\n` as the two characters), a value longer than `truncate`
 * characters cut to `truncate - 3` and `...`, each column right-aligned to its widest cell (at
 * least 3; a full-width character counts 2), between `+---+` lines:
 *
 *     +---+-----+
 *     | id| name|
 *     +---+-----+
 *     |  1|alice|
 *     +---+-----+
 *     only showing top 1 row
 */
import { variantToJson, type Variant } from '../query/variant';
import { formatFloat } from '../query/float';
import { formatInterval, fullRange } from '../query/interval-utils';
import { toMultiUnitsString, type CalendarInterval } from '../query/calendar-interval';
import { castValue } from '../query/sql-values';
import { typeOfField } from '../query/data-types';
import { mapKeyValue } from '../query/map-keys';
import type { Field, Row, Schema } from '../types';
import { writtenColumnName } from '../query/column-names';

/** A map key as ToPrettyString writes it: a simple key's text (query/map-keys.ts) is its CAST text. */
function mapKeyPretty(text: string, f: Field): string {
  return f.type === 'array' || f.type === 'struct' ? prettyString(mapKeyValue(text, typeOfField(f)), f) : text;
}

/** A value as Spark's ToPrettyString writes it. */
export function prettyString(v: unknown, f: Field): string {
  if (v === null || v === undefined) return 'NULL';
  switch (f.type) {
    case 'array':
      return `[${(v as unknown[]).map((x) => prettyString(x, f.elementType!)).join(', ')}]`;
    case 'map':
      // A simple key's text (query/map-keys.ts) is its CAST text; an array or struct key is read back.
      return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${mapKeyPretty(k, f.keyType!)} -> ${prettyString(x, f.valueType!)}`).join(', ')}}`;
    case 'struct':
      return `{${(f.fields ?? []).map((c) => prettyString((v as Row)[c.name], c)).join(', ')}}`;
    case 'window':
      return `{${prettyString((v as Row).start, { name: 'start', type: 'timestamp', ntz: f.ntz })}, ${prettyString((v as Row).end, { name: 'end', type: 'timestamp', ntz: f.ntz })}}`;
    case 'binary':
      return `[${[...(v as Uint8Array)].map((b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ')}]`;
    case 'double':
      return f.float32 ? formatFloat(v as number) : String(castValue(v, 'double', 'string'));
    case 'decimal':
      return String(castValue(v, 'decimal', 'string', { precision: f.precision ?? 38, scale: f.scale ?? 0 }));
    case 'day_time_interval': case 'year_month_interval':
      return formatInterval(f.type, v, f.interval ?? fullRange(f.type));
    case 'calendar_interval':
      return toMultiUnitsString(v as CalendarInterval);
    case 'variant':
      return variantToJson(v as Variant);
    case 'long': case 'string': case 'boolean': case 'date': case 'timestamp':
      return String(castValue(v, f.type, 'string'));
    case 'unknown': default:
      return String(v);
  }
}

/** Spark's SchemaUtils.escapeMetaCharacters: a control character as its escape, so that a cell stays on its line. */
const META_CHARACTERS: readonly [string, string][] = [['\n', '\\n'], ['\r', '\\r'], ['\t', '\\t'], ['\f', '\\f'], ['\b', '\\b'], ['\v', '\\v'], ['\u0007', '\\a']];
const escapeMetaCharacters = (s: string): string => META_CHARACTERS.reduce((t, [c, escape]) => t.split(c).join(escape), s);

/** Spark's Utils.stringHalfWidth: the columns a text takes, a full-width (East Asian) character two. */
const FULL_WIDTH = /[\u1100-\u115F\u2E80-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE10-\uFE19\uFE30-\uFE6F\uFF00-\uFF60\uFFE0-\uFFE6]/g;
const halfWidth = (s: string) => s.length + (s.match(FULL_WIDTH)?.length ?? 0);

/**
 * The table of the first `numRows` of `rows`, as `show(numRows, truncate)` prints it
 * (`truncate`: the most characters of a cell, 0 for no limit), ending in a newline.
 */
export function showString(rows: readonly Row[], schema: Schema, numRows = 20, truncate = 20): string {
  const cut = (s: string) => (truncate > 0 && s.length > truncate ? (truncate < 4 ? s.slice(0, truncate) : `${s.slice(0, truncate - 3)}...`) : s);
  const table = [
    schema.map((f) => escapeMetaCharacters(writtenColumnName(f.name))),
    ...rows.slice(0, numRows).map((r) => schema.map((f) => cut(escapeMetaCharacters(prettyString(r[f.name], f))))),
  ];
  const widths = schema.map((_, i) => Math.max(3, ...table.map((cells) => halfWidth(cells[i]))));
  // Right-aligned when truncating, left-aligned otherwise, as Spark pads them.
  const pad = (s: string, i: number) => (truncate > 0 ? ' '.repeat(widths[i] - halfWidth(s)) + s : s + ' '.repeat(widths[i] - halfWidth(s)));
  const line = (cells: string[]) => `|${cells.map(pad).join('|')}|\n`;
  const sep = `+${widths.map((w) => '-'.repeat(w)).join('+')}+\n`;
  let out = sep + line(table[0]) + sep + table.slice(1).map(line).join('') + sep;
  if (rows.length > numRows) out += `only showing top ${numRows} ${numRows === 1 ? 'row' : 'rows'}\n`;
  return out;
}
