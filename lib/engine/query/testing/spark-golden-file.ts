/**
 * Spark's SQL test golden files (sql-tests/results/*.sql.out): each entry is `-- !query`, the
 * SQL, `-- !query schema`, the schema Spark printed (`struct<name:type,…>`, `struct<>` when the
 * query failed), `-- !query output`, then the rows Spark printed (columns tab-separated), or the
 * exception's class and, on the next line, its `"errorClass"`. The copies under sql-tests/ keep
 * the queries that need no table and cut an error's JSON to its class.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Field, Schema } from '../../types';
import { simpleTypeString } from '../data-types';
import { printed, select } from './spark-printed';
import { castIntervalFields, fullRange, type IntervalKind } from '../interval-utils';
import type { Long } from '../long';

export interface GoldenCase {
  query: string;
  schema: string;
  /** The rows Spark printed, or `error <errorClass>` when Spark refused the query. */
  output: string;
}

/** The cases of sql-tests/<name>.sql.out, in the file's order. */
export function goldenCases(name: string): GoldenCase[] {
  const text = readFileSync(join(import.meta.dirname, 'sql-tests', `${name}.sql.out`), 'utf8');
  return text.split(/^-- !query\n/m).slice(1).map((entry) => {
    const [query, rest] = entry.split(/^-- !query schema\n/m);
    const [schema, output] = rest.split(/^-- !query output\n/m);
    const out = output.replace(/\n+$/, '');
    const errorClass = /^\s*"errorClass" : "([^"]+)"/m.exec(out);
    return {
      query: query.replace(/\n$/, ''),
      schema: schema.replace(/\n$/, ''),
      output: schema.startsWith('struct<>') && errorClass ? `error ${errorClass[1]}` : out,
    };
  });
}

/** Whether Spark's printed schema has Weir's column types, whatever the columns' names. */
export function sameColumnTypes(spark: string, schema: Schema): boolean {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^struct<${schema.map((f) => `[^]*:${esc(simpleTypeString(f))}`).join(',')}>$`).test(spark);
}

/**
 * An ANSI interval as SQLQueryTestSuite prints it, HiveResult.toHiveString's Hive style (`1-2`,
 * `-0 01:59:59.876544000`, inside a map or an array too) where the shell's cast to STRING writes
 * `INTERVAL '1-2' YEAR TO MONTH`.
 */
function hiveInterval(v: unknown, f: Field): string {
  // The value goes through java.time first: collect() makes it a Period or a Duration, which
  // toHiveString reads back cut to the type's last field (periodToMonths and
  // durationToMicros with the end field), so INTERVAL HOUR TO MINUTE prints no seconds.
  const cut = castIntervalFields(f.type as IntervalKind, (f.interval ?? fullRange(f.type as IntervalKind)).end)(v as Long);
  if (f.type === 'year_month_interval') {
    const months = Number(cut);
    const abs = Math.abs(months);
    return `${months < 0 ? '-' : ''}${Math.trunc(abs / 12)}-${abs % 12}`;
  }
  const micros = BigInt(cut);
  const abs = micros < 0n ? -micros : micros;
  const two = (n: bigint) => n.toString().padStart(2, '0');
  const secs = abs / 1_000_000n;
  return `${micros < 0n ? '-' : ''}${secs / 86_400n} ${two((secs / 3600n) % 24n)}:${two((secs / 60n) % 60n)}:${two(secs % 60n)}.${((abs % 1_000_000n) * 1000n).toString().padStart(9, '0')}`;
}

/** A value as SQLQueryTestSuite prints it (its intervals in Hive's style). */
const goldenPrinted = (v: unknown, f: Field): string => printed(v, f, false, hiveInterval);

export interface WeirAnswer {
  /** What Weir prints (as `GoldenCase.output`): its row, or `error <errorClass>` when it refuses. */
  output: string;
  schema?: Schema;
}

/** A SELECT list's items: split at its top-level commas (not inside quotes, parentheses or brackets). */
function selectItems(list: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const ch = list[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = '';
    } else if (ch === "'" || ch === '"' || ch === '`') quote = ch;
    else if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    else if (ch === ',' && depth === 0) {
      items.push(list.slice(start, i));
      start = i + 1;
    }
  }
  return [...items, list.slice(start)];
}

/**
 * Runs a golden file's `SELECT …` (no FROM, or FROM its one-row view t, as the typeCoercion
 * files' `CREATE TEMPORARY VIEW t AS SELECT 1`, whose column none of them reads) through the
 * engine as `SELECT … FROM src` over a one-row stream and prints its row as Spark does. Weir refuses two output columns of one name
 * (a sink writes columns by name), where Spark's result may repeat one (`SELECT null, Null`):
 * such a query runs with its items aliased c1, c2, … so that their values are still compared.
 */
export async function weirAnswer(query: string): Promise<WeirAnswer> {
  const m = /^\s*select\s+([^]*?)(?:\s+from\s+t)?$/i.exec(query);
  if (!m) throw new Error(`not a SELECT without FROM: ${query}`);
  try {
    const { row, schema } = await select(m[1]).catch((e: unknown) => {
      if (!/appears twice/.test((e as Error).message)) throw e;
      return select(selectItems(m[1]).map((item, i) => `${item} AS c${i + 1}`).join(','));
    });
    return { output: schema.map((f) => goldenPrinted(row[f.name], f)).join('\t'), schema };
  } catch (e) {
    // The class the engine gives the error (a runtime error's in its details), else one its message opens with.
    const err = e as { errorClass?: string; details?: { errorClass?: unknown }; message?: string };
    const cls = err.errorClass ?? err.details?.errorClass ?? /^\[([A-Z0-9_.]+)\]/.exec(err.message ?? '')?.[1] ?? 'unclassified';
    return { output: `error ${cls}` };
  }
}
