/**
 * Built-in scalar functions for the stateless subset: strings, numbers, null handling and
 * dates on timestamps (UTC). Each declares its arity, its result type from its argument types
 * (a string result is an error message), and whether NULL in means NULL out (most do).
 */
import type { ColumnType } from '../types';
import { formatTimestamp, isNumeric, type ExprType } from './sql-values';

export interface FunctionDef {
  min: number;
  max: number;
  /** Result type, or an error message about the argument types. */
  type(args: ExprType[]): ExprType | string;
  /** NULL argument → NULL result, checked before `impl` runs (default true). */
  nullIntolerant?: boolean;
  impl(args: unknown[], ctx: { batchTimestampMs: number }, argTypes: ExprType[]): unknown;
}

const str = (args: ExprType[], n = args.length): string | undefined =>
  args.slice(0, n).every((t) => t === 'string' || t === 'null') ? undefined : 'expects string arguments';
const ts = (args: ExprType[], i = 0): string | undefined => (args[i] === 'timestamp' || args[i] === 'null' ? undefined : 'expects a timestamp argument (CAST a string with CAST(x AS TIMESTAMP))');
const num = (t: ExprType): boolean => isNumeric(t);

const chars = (s: string) => [...s];

const DATE_FIELDS: Record<string, (d: Date) => number> = {
  year: (d) => d.getUTCFullYear(),
  month: (d) => d.getUTCMonth() + 1,
  day: (d) => d.getUTCDate(),
  dayofmonth: (d) => d.getUTCDate(),
  hour: (d) => d.getUTCHours(),
  minute: (d) => d.getUTCMinutes(),
  second: (d) => d.getUTCSeconds(),
  // Spark: 1 = Sunday … 7 = Saturday
  dayofweek: (d) => d.getUTCDay() + 1,
  quarter: (d) => Math.floor(d.getUTCMonth() / 3) + 1,
};

const TRUNC_UNITS = ['year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second'] as const;

export function truncTimestamp(unit: string, ms: number): number | null {
  const d = new Date(ms);
  switch (unit.toLowerCase()) {
    case 'year': return Date.UTC(d.getUTCFullYear(), 0, 1);
    case 'quarter': return Date.UTC(d.getUTCFullYear(), Math.floor(d.getUTCMonth() / 3) * 3, 1);
    case 'month': return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    case 'week': {
      // ISO week: starts Monday.
      const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
      return day - ((d.getUTCDay() + 6) % 7) * 86_400_000;
    }
    case 'day': return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    case 'hour': return Math.floor(ms / 3_600_000) * 3_600_000;
    case 'minute': return Math.floor(ms / 60_000) * 60_000;
    case 'second': return Math.floor(ms / 1000) * 1000;
    default: return null;
  }
}

/** Spark's round: HALF_UP, i.e. halves away from zero. */
function roundHalfUp(v: number, scale: number): number {
  const f = 10 ** scale;
  const r = Math.round(Math.abs(v) * f) / f;
  return v < 0 ? -r : r;
}

function pad(s: string, len: number, fill: string, left: boolean): string {
  const cs = chars(s);
  if (len <= cs.length) return cs.slice(0, Math.max(0, len)).join('');
  if (fill === '') return s;
  const need = len - cs.length;
  const f = chars(fill);
  const padding = Array.from({ length: need }, (_, i) => f[i % f.length]).join('');
  return left ? padding + s : s + padding;
}

const dateField = (name: string): FunctionDef => ({
  min: 1, max: 1, type: (a) => ts(a) ?? 'long', impl: ([v]) => DATE_FIELDS[name](new Date(v as number)),
});

export const FUNCTIONS: Record<string, FunctionDef> = {
  upper: { min: 1, max: 1, type: (a) => str(a) ?? 'string', impl: ([s]) => (s as string).toUpperCase() },
  lower: { min: 1, max: 1, type: (a) => str(a) ?? 'string', impl: ([s]) => (s as string).toLowerCase() },
  length: { min: 1, max: 1, type: (a) => str(a) ?? 'long', impl: ([s]) => chars(s as string).length },
  char_length: { min: 1, max: 1, type: (a) => str(a) ?? 'long', impl: ([s]) => chars(s as string).length },
  trim: { min: 1, max: 1, type: (a) => str(a) ?? 'string', impl: ([s]) => (s as string).replace(/^ +| +$/g, '') },
  ltrim: { min: 1, max: 1, type: (a) => str(a) ?? 'string', impl: ([s]) => (s as string).replace(/^ +/, '') },
  rtrim: { min: 1, max: 1, type: (a) => str(a) ?? 'string', impl: ([s]) => (s as string).replace(/ +$/, '') },
  reverse: { min: 1, max: 1, type: (a) => str(a) ?? 'string', impl: ([s]) => chars(s as string).reverse().join('') },
  concat: {
    min: 1, max: 64, type: () => 'string',
    impl: (args, _c, types) => args.map((v, i) => (types[i] === 'timestamp' ? formatTimestamp(v as number) : String(v))).join(''),
  },
  concat_ws: {
    min: 1, max: 64, nullIntolerant: false, type: (a) => str(a, 1) ?? 'string',
    impl: ([sep, ...rest]) => (sep === null ? null : rest.filter((v) => v !== null && v !== undefined).map(String).join(sep as string)),
  },
  substring: {
    min: 2, max: 3,
    type: (a) => str(a, 1) ?? (a.slice(1).every(num) ? 'string' : 'expects (string, position[, length])'),
    impl: ([s, p, l]) => {
      // Spark: 1-based; 0 acts as 1; negative counts from the end.
      const cs = chars(s as string);
      const pos = p as number;
      let start = pos > 0 ? pos - 1 : pos < 0 ? Math.max(0, cs.length + pos) : 0;
      start = Math.min(start, cs.length);
      const end = l === undefined ? cs.length : Math.min(cs.length, start + Math.max(0, l as number));
      return cs.slice(start, end).join('');
    },
  },
  replace: {
    min: 2, max: 3, type: (a) => str(a) ?? 'string',
    impl: ([s, from, to]) => (from === '' ? s : (s as string).split(from as string).join((to as string | undefined) ?? '')),
  },
  lpad: { min: 3, max: 3, type: (a) => (a[0] === 'string' || a[0] === 'null') && num(a[1]) ? 'string' : 'expects (string, length, pad)', impl: ([s, n, f]) => pad(s as string, n as number, f as string, true) },
  rpad: { min: 3, max: 3, type: (a) => (a[0] === 'string' || a[0] === 'null') && num(a[1]) ? 'string' : 'expects (string, length, pad)', impl: ([s, n, f]) => pad(s as string, n as number, f as string, false) },
  abs: { min: 1, max: 1, type: (a) => (num(a[0]) ? (a[0] === 'null' ? 'long' : a[0]) : 'expects a number'), impl: ([v]) => Math.abs(v as number) },
  round: {
    min: 1, max: 2, type: (a) => (a.every(num) ? (a[0] === 'long' ? 'long' : 'double') : 'expects numbers'),
    impl: ([v, s]) => roundHalfUp(v as number, (s as number | undefined) ?? 0),
  },
  floor: { min: 1, max: 1, type: (a) => (num(a[0]) ? 'long' : 'expects a number'), impl: ([v]) => Math.floor(v as number) },
  ceil: { min: 1, max: 1, type: (a) => (num(a[0]) ? 'long' : 'expects a number'), impl: ([v]) => Math.ceil(v as number) },
  coalesce: { min: 1, max: 64, nullIntolerant: false, type: () => 'null', impl: (args) => args.find((v) => v !== null && v !== undefined) ?? null },
  nullif: { min: 2, max: 2, nullIntolerant: false, type: () => 'null', impl: ([a, b]) => (a !== null && b !== null && a === b ? null : a) },
  year: dateField('year'),
  month: dateField('month'),
  day: dateField('day'),
  dayofmonth: dateField('dayofmonth'),
  hour: dateField('hour'),
  minute: dateField('minute'),
  second: dateField('second'),
  dayofweek: dateField('dayofweek'),
  quarter: dateField('quarter'),
  extract: {
    min: 2, max: 2,
    type: (a) => ts(a, 1) ?? 'long',
    impl: ([field, v]) => (DATE_FIELDS[field as string] ?? DATE_FIELDS.day)(new Date(v as number)),
  },
  date_trunc: {
    min: 2, max: 2, type: (a) => str(a, 1) ?? ts(a, 1) ?? 'timestamp',
    impl: ([unit, v]) => truncTimestamp(unit as string, v as number),
  },
  to_timestamp: { min: 1, max: 1, type: (a) => str(a) ?? 'timestamp', impl: () => { throw new Error('compiled as CAST'); } },
  unix_timestamp: { min: 1, max: 1, type: (a) => ts(a) ?? 'long', impl: ([v]) => Math.floor((v as number) / 1000) },
  unix_millis: { min: 1, max: 1, type: (a) => ts(a) ?? 'long', impl: ([v]) => v },
  timestamp_millis: { min: 1, max: 1, type: (a) => (num(a[0]) ? 'timestamp' : 'expects a number'), impl: ([v]) => v },
  // The batch's timestamp (`batchTimestampMs` from offsets/N), so a re-run batch sees the same value.
  current_timestamp: { min: 0, max: 0, type: () => 'timestamp', impl: (_a, ctx) => ctx.batchTimestampMs },
  now: { min: 0, max: 0, type: () => 'timestamp', impl: (_a, ctx) => ctx.batchTimestampMs },
};

export const EXTRACT_FIELDS = Object.keys(DATE_FIELDS);
export const DATE_TRUNC_UNITS: readonly string[] = TRUNC_UNITS;
export type { ColumnType };
