/**
 * Spark's SQL test golden files (sql-tests/results/*.sql.out): each entry is `-- !query`, the
 * SQL, `-- !query schema`, the schema Spark printed (`struct<name:type,…>`, `struct<>` when the
 * query failed), `-- !query output`, then the rows Spark printed (columns tab-separated), or the
 * exception's class and, on the next line, its `"errorClass"`. The copies under sql-tests/ cut
 * an error's JSON to its class.
 *
 * A file's tables are Spark's views of static data: `CREATE [OR REPLACE] [TEMPORARY] VIEW
 * name [(cols)] AS SELECT …` (of VALUES, or of no table: one row) or `AS VALUES …`, and a
 * `CREATE TABLE name (col type, …) [USING …]` (or a `CREATE TEMPORARY VIEW name (col type, …)
 * USING …` of no path: no rows) filled by `INSERT INTO name VALUES …` (each value cast to its
 * column's type) or `INSERT INTO name SELECT …` (of other tables), an INSERT that Spark refused
 * inserting nothing, and emptied by `TRUNCATE TABLE name`, or `CREATE TABLE name
 * USING … AS SELECT …`. Each defines
 * a view for the file's later queries (goldenCases reads them in order). A query that reads views
 * runs through the engine's path for static data beside a stream: the views are the CTEs of a
 * query that joins the one-row stream with the golden query as a derived table
 * (`WITH t AS (…) SELECT q.* FROM src CROSS JOIN (<query>) q`), so that the golden query runs as
 * the static side of a stream-static join does, as a batch (its aggregations, sorts and limits
 * in Complete mode over every row at once). The engine joins two tables of static data only as
 * static tables it loads: a query it refuses so (a join of two views) runs again with its views
 * declared as the job's static tables, each loaded with the rows of `SELECT * FROM view`
 * (selectStaticTables). A view's own entry (empty output in Spark) agrees
 * when Weir reads the view, `SELECT * FROM name`. As SQLQueryTestSuite does, rows of a query with
 * no top-level ORDER BY are compared sorted. What the harness cannot run (other DDL, an INSERT of
 * a query, SET and the queries under it, tables of files) is a case with `skip` set, shown
 * skipped with its reason.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Field, Schema } from '../../types';
import { simpleTypeString } from '../data-types';
import { printed, select, selectStatic, selectStaticTables, type BinaryOutputStyle, type HeldTable } from './spark-printed';
import { castIntervalFields, fullRange, type IntervalKind } from '../interval-utils';
import type { Long } from '../long';

export interface GoldenCase {
  query: string;
  schema: string;
  /** The rows Spark printed, or `error <errorClass>` when Spark refused the query. */
  output: string;
  /** The views defined by the file's earlier entries, which the query may read. */
  views: readonly GoldenView[];
  /** Why the harness cannot run this entry (unset: it runs). */
  skip?: string;
  /** The file's spark.sql.binaryOutputStyle, how its BINARY values are printed (unset: UTF-8). */
  binaryOutputStyle?: BinaryOutputStyle;
}

/** A temporary view of static data (or a table of inserted rows): its name and a SELECT of its rows. */
export interface GoldenView {
  name: string;
  sql: string;
}

/** The text with its quoted strings and parenthesized parts blanked: what is at the statement's top level. */
function topLevel(sql: string): string {
  let depth = 0;
  let quote = '';
  let out = '';
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = '';
      out += ' ';
    } else if (ch === "'" || ch === '"' || ch === '`') {
      quote = ch;
      out += ' ';
    } else if (ch === '(') {
      depth++;
      out += ' ';
    } else if (ch === ')') {
      depth--;
      out += ' ';
    } else out += depth > 0 ? ' ' : ch;
  }
  return out;
}

/**
 * The length of the SQL's leading comments and white space: `--` to the line's end and bracketed
 * comments, nested as Spark's lexer nests them (an unclosed one is not skipped).
 */
function leadingComments(sql: string): number {
  let i = 0;
  for (;;) {
    while (i < sql.length && /\s/.test(sql[i])) i++;
    if (sql.startsWith('--', i)) {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end + 1;
    } else if (sql.startsWith('/*', i)) {
      let depth = 0;
      let j = i;
      for (; j < sql.length; j++) {
        if (sql.startsWith('/*', j)) { depth++; j++; } else if (sql.startsWith('*/', j)) { depth--; j++; if (depth === 0) break; }
      }
      if (depth !== 0) return i;
      i = j + 1;
    } else return i;
  }
}

/** A view's SELECT: `VALUES …` selected from, a SELECT of no table over one row, the column list as the columns' names. */
function viewSelect(name: string, columns: string | undefined, body: string): string {
  // `AS (VALUES …)`: the query in brackets is the query.
  if (/^\s*\(/.test(body) && topLevel(body).trim() === '') body = body.trim().slice(1, -1);
  let select = /^\s*values\b/i.test(body) ? `SELECT * FROM ${body}` : body;
  // Spark's SELECT without FROM reads its one-row relation; Weir's needs a table to read.
  if (!/\bfrom\b/i.test(topLevel(select))) {
    // Its FROM goes before a WHERE (`SELECT 1 WHERE false`: no row).
    const where = /\swhere\s/i.exec(topLevel(select))?.index ?? select.length;
    select = `${select.slice(0, where)} FROM VALUES (0) AS one_row(one_row)${select.slice(where)}`;
  }
  if (!columns) return select;
  // A column's `COMMENT 'text'` (Spark's identifierCommentList) is the column's description, not part of its name.
  const names = selectItems(columns).map((c) => c.replace(/\s+comment\s+(?:'(?:[^']|'')*'|"(?:[^"]|"")*")\s*$/i, '').trim());
  return `SELECT * FROM (${select}) AS ${name}(${names.join(', ')})`;
}

/** The columns of `CREATE TABLE t (a INT, b DECIMAL(3, 1), m MAP<INT, INT>)`: each name and type. */
function tableColumns(list: string): { name: string; type: string }[] {
  // A type's own commas (MAP<INT, INT>, STRUCT<a: INT, b: INT>) sit inside its angle brackets;
  // a column's `-- comment` to its line's end is no part of it, nor is its NOT NULL (a
  // constraint on the rows inserted, which changes no answer over them).
  const columns: string[] = [];
  for (const item of selectItems(list.replace(/--[^\n]*/g, ''))) {
    const last = columns.at(-1);
    if (last !== undefined && last.split('<').length > last.split('>').length) columns[columns.length - 1] = `${last},${item}`;
    else columns.push(item);
  }
  return columns.map((c) => {
    const m = /^\s*(\S+)\s+([^]+?)\s*$/.exec(c)!;
    return { name: m[1], type: m[2].replace(/\s+not\s+null$/i, '') };
  });
}

/** The cases of sql-tests/<name>.sql.out, in the file's order, each with the views its file defined before it. */
/**
 * SQLQueryTestSuite's own tables (its createTestTables), which a file may read without defining:
 * testdata (key 1 to 100, value its text), arraydata and mapdata.
 */
const SUITE_TABLES: readonly GoldenView[] = [
  { name: 'testdata', sql: `SELECT * FROM VALUES ${Array.from({ length: 100 }, (_, i) => `(${i + 1}, '${i + 1}')`).join(', ')} AS testdata(key, value)` },
  { name: 'arraydata', sql: 'SELECT * FROM VALUES (array(1, 2, 3), array(array(1, 2, 3))), (array(2, 3, 4), array(array(2, 3, 4))) AS arraydata(arraycol, nestedarraycol)' },
  { name: 'mapdata', sql: "SELECT * FROM VALUES (map(1, 'a1', 2, 'b1', 3, 'c1', 4, 'd1', 5, 'e1')), (map(1, 'a2', 2, 'b2', 3, 'c2', 4, 'd2')), (map(1, 'a3', 2, 'b3', 3, 'c3')), (map(1, 'a4', 2, 'b4')), (map(1, 'a5')) AS mapdata(mapcol)" },
];

/**
 * The values of the settings a file SETs under which Weir answers as under no SET: Spark 4's
 * defaults, and ANSI off, the mode Weir's SQL always has.
 */
const SPARK_DEFAULTS: Readonly<Record<string, string>> = {
  'spark.sql.legacy.nullinemptylistbehavior': 'false',
  'spark.sql.crossjoin.enabled': 'true',
  'spark.sql.ansi.enabled': 'false',
  'spark.sql.optimizer.decorrelateinnerquery.enabled': 'true',
  'spark.sql.legacy.scalarsubquerycountbugbehavior': 'false',
  'spark.sql.legacy.cteprecedencepolicy': 'corrected',
};

/**
 * Settings that change only the order of a query's rows, which the harness compares sorted where
 * the query has no ORDER BY: spark.sql.shuffle.partitions, the partitions DISTRIBUTE BY and
 * CLUSTER BY spread the rows over.
 */
const ROW_ORDER_SETTINGS = new Set(['spark.sql.shuffle.partitions']);

/**
 * Settings that change only the answer of a query that joins: spark.sql.crossJoin.enabled=false
 * refuses a join without a condition; a query of one table answers alike.
 */
const JOIN_SETTINGS = new Set(['spark.sql.crossjoin.enabled']);

/** Whether the query joins relations at its top level (JOIN, or FROM a list). */
const joins = (sql: string) => /\bjoin\b|\bfrom\b[^]*?,/i.test(topLevel(sql));

export function goldenCases(name: string): GoldenCase[] {
  return casesOf(readFileSync(join(import.meta.dirname, 'sql-tests', `${name}.sql.out`), 'utf8'));
}

/**
 * The worked examples of a page of Spark's SQL reference (sql-ref/<page>.sql: the page's Examples
 * as it writes them, each statement ending in `;`, a query followed by the table Spark printed,
 * `+---+` borders and `|`-separated cells), as the cases of a golden file: each statement a
 * query, its output the printed table's rows (its header row left out), each cell trimmed, as the
 * pages' tables are written by hand in the shell's or the DataFrame's layout. Their `null` is
 * written NULL, as Weir prints it; a statement followed by no table printed nothing.
 */
export function sqlRefCases(page: string): GoldenCase[] {
  const lines = readFileSync(join(import.meta.dirname, 'sql-ref', `${page}.sql`), 'utf8').split('\n');
  const entries: string[] = [];
  let statement: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!statement.length && (/^\s*(?:--|$)/.test(line))) continue;
    // A statement ends at its `;`, or where its printed table starts (a page that left the `;` out).
    const tableNext = /^\s*[+|]/.test(lines[i + 1] ?? '');
    statement.push(line);
    if (!/;\s*$/.test(line) && !tableNext) continue;
    const sql = statement.join('\n').replace(/;\s*$/, '');
    statement = [];
    // The table printed under it, past blank lines: its rows are the `|` lines after the header's.
    let j = i + 1;
    while (j < lines.length && lines[j].trim() === '' && /^\s*[+|]/.test(lines.slice(j).find((l) => l.trim() !== '') ?? '')) j++;
    const table: string[] = [];
    for (; j < lines.length && /^\s*[+|]/.test(lines[j]); j++) table.push(lines[j].trim());
    // Or the error Spark raised: the exception's class, then its JSON, to the next blank line.
    if (!table.length && /^\s*(?:org\.apache|java)\.\S+(?:Exception|Error)\s*$/.test(lines[j] ?? '')) {
      const error: string[] = [];
      for (; j < lines.length && lines[j].trim() !== ''; j++) error.push(lines[j]);
      i = j - 1;
      entries.push(`-- !query\n${sql}\n-- !query schema\nstruct<>\n-- !query output\n${error.join('\n')}\n`);
      continue;
    }
    i = j - 1;
    // Its header is the row between its first two borders; a table drawn without one starts with its rows.
    const headed = table[0]?.startsWith('+') && table[1]?.startsWith('|') && table[2]?.startsWith('+');
    const rows = table.filter((l) => l.startsWith('|')).slice(headed ? 1 : 0).map((l) => l.replace(/^\|/, '').replace(/\|$/, '').split('|').map((cell) => {
      const v = cell.trim();
      return v === 'null' ? 'NULL' : v;
    }).join('\t'));
    entries.push(`-- !query\n${sql}\n-- !query schema\n\n-- !query output\n${rows.join('\n')}\n`);
  }
  return casesOf(`-- ${page}\n${entries.join('')}`);
}

/** The cases of a golden file's text. */
function casesOf(text: string): GoldenCase[] {
  let views: GoldenView[] = [...SUITE_TABLES];
  // A table's rows: those inserted as VALUES, and the queries whose rows were inserted.
  const tables = new Map<string, { columns: { name: string; type: string }[]; rows: string[]; queries: string[] }>();
  const define = (view: GoldenView) => (views = [...views.filter((v) => v.name.toLowerCase() !== view.name.toLowerCase()), view]);
  const tableView = (table: string) => {
    const { columns, rows, queries } = tables.get(table.toLowerCase())!;
    const cast = columns.map((c, i) => `CAST(col${i + 1} AS ${c.type}) AS ${c.name}`).join(', ');
    if (queries.length) {
      // Each source's columns by position, as INSERT INTO … SELECT takes them.
      const names = columns.map((_, i) => `col${i + 1}`).join(', ');
      const sources = [...(rows.length ? [`SELECT * FROM VALUES ${rows.map(castRow(columns)).join(', ')}`] : []), ...queries.map((q, i) => `SELECT * FROM (${q}) AS inserted${i}(${names})`)];
      define({ name: table, sql: `SELECT ${cast} FROM (${sources.join(' UNION ALL ')}) AS ${table}_rows(${names})` });
      return;
    }
    // A table of no rows: one row of NULLs filtered out.
    const values = rows.length ? rows.map(castRow(columns)).join(', ') : `(${columns.map(() => 'NULL').join(', ')})`;
    define({ name: table, sql: `SELECT ${cast} FROM VALUES ${values}${rows.length ? '' : ' WHERE false'}` });
  };
  // The settings a SET changed: Spark's files SET a key, then SET it back (or RESET it); the queries between answer under it.
  const settings = new Set<string>();
  const reset = new Set([...text.matchAll(/^reset\s+([\w.]+)\s*$/gim)].map((m) => m[1].toLowerCase()));
  // A setting of the whole file is its input's `--SET key=value` line, which SQLQueryTestSuite
  // applies before the first query (the results do not show it): the copy's first line names it.
  // The file's databases (CREATE DATABASE), whose tables a query reads by name in the current one
  // (USE): each database's tables, by lower-cased name, as views; the others' are out of `views`.
  const databases = new Map<string, Map<string, GoldenView>>();
  let database = 'default';
  const inDatabase = (name: string) => {
    const view = views.find((v) => v.name.toLowerCase() === name.toLowerCase());
    if (databases.size && view) databases.get(database)?.set(name.toLowerCase(), view);
  };
  const style = /--SET spark\.sql\.binaryOutputStyle=([\w-]+)/i.exec(text.split('\n', 1)[0])?.[1].toUpperCase() as BinaryOutputStyle | undefined;
  return text.split(/^-- !query\n/m).slice(1).map((entry) => {
    const [query, rest] = entry.split(/^-- !query schema\n/m);
    const [schema, output] = rest.split(/^-- !query output\n/m);
    // SQLQueryTestSuite writes the output with its trailing white space cut (replaceAll("\\s+$", "")).
    const out = output.replace(/\s+$/, '');
    const errorClass = /^\s*"errorClass" : "([^"]+)"/m.exec(out);
    const sql = query.replace(/\n$/, '');
    const c: GoldenCase = {
      query: sql,
      schema: schema.replace(/\n$/, ''),
      output: schema.startsWith('struct<>') && errorClass ? `error ${errorClass[1]}` : out,
      views,
      ...(style ? { binaryOutputStyle: style } : {}),
    };
    const view = /^\s*create\s+(?:or\s+replace\s+)?(?:temp(?:orary)?\s+)?view\s+(?!identifier\s*\()(\w+)\s*(?:\(([^)]*)\))?\s+as\s+([^]*?);?\s*$/i.exec(sql);
    // A temporary view of a data source with no path (`CREATE TEMPORARY VIEW t (a INT) USING
    // parquet`) is, as Spark reads it, a table of those columns and no rows. One named by
    // IDENTIFIER(…), or whose columns hold `AS (` (a generated column), is none.
    const table = /^\s*create\s+(?:table|(?:or\s+replace\s+)?temp(?:orary)?\s+view)\s+(?!identifier\s*\()(\w+)\s*\(((?:(?!\bas\s*\(|\bidentifier\s*\()[^])*)\)\s*(?:using\s+\w+\s*)?$/i.exec(sql);
    const tableAs = /^\s*create\s+table\s+(\w+)\s+using\s+\w+\s+as\s+([^]*?)\s*$/i.exec(sql);
    const insert = /^\s*insert\s+into\s+(\w+)\s+values\s*([^]*?)\s*$/i.exec(sql);
    const truncate = /^\s*truncate\s+table\s+(\w+)\s*$/i.exec(sql);
    const insertQuery = /^\s*insert\s+into\s+(\w+)\s+((?:select|with)\b[^]*?)\s*$/i.exec(sql);
    const drop = /^\s*drop\s+(?:view|table)\s+(?:if\s+exists\s+)?(\w+)\s*$/i.exec(sql);
    const set = /^\s*set\s+([\w.]+)\s*=\s*(.*?)\s*$/i.exec(sql);
    const refused = (name: string, undo: () => void): GoldenCase => {
      const answered = { ...c, views };
      undo();
      tableView(name);
      inDatabase(name);
      return answered;
    };
    const unset = /^\s*reset\s+([\w.]+)\s*$/i.exec(sql);
    if (set) {
      const key = set[1].toLowerCase();
      // A SET to Spark's default changes nothing; of a key the file RESETs, each SET holds until the RESET.
      if (ROW_ORDER_SETTINGS.has(key)) return { ...c, skip: 'a SET of how rows are partitioned: it changes only their order, and the queries after it run' };
      if (SPARK_DEFAULTS[key] === set[2].toLowerCase()) settings.delete(key);
      else if (settings.has(key) && !reset.has(key)) settings.delete(key);
      else settings.add(key);
      return { ...c, skip: 'a SET: the queries until it is SET back answer under it, and are not run' };
    }
    if (unset) {
      settings.delete(unset[1].toLowerCase());
      return { ...c, skip: 'a RESET: the setting is Spark\'s default again for the later queries' };
    }
    const under = [...settings].filter((k) => !JOIN_SETTINGS.has(k) || joins(sql));
    if (under.length) return { ...c, skip: `answered under SET ${under.join(', ')}, which Weir has no setting for` };
    const createDatabase = /^\s*create\s+database\s+(\w+)\s*$/i.exec(sql);
    const use = /^\s*use\s+(\w+)\s*$/i.exec(sql);
    if (createDatabase) databases.set(createDatabase[1].toLowerCase(), new Map());
    if (databases.size && databases.get(database) === undefined) databases.set(database, new Map());
    if (use) {
      const [from, to] = [databases.get(database), databases.get(use[1].toLowerCase()) ?? new Map<string, GoldenView>()];
      views = views.filter((v) => !from?.has(v.name.toLowerCase()));
      for (const v of to.values()) define(v);
      database = use[1].toLowerCase();
      return { ...c, skip: 'a USE: the later queries read the tables of its database by name' };
    }
    // A table named with its database (`mydb1.t1`, in FROM): Weir's SQL has no databases.
    const qualified = [...databases.keys()].find((d) => new RegExp(`(?:\\bfrom|\\bjoin|,)\\s*${d}\\.\\w+`, 'i').test(sql));
    if (qualified) return { ...c, skip: `reads a table of the database ${qualified} by its qualified name: Weir's SQL has no databases or catalogs` };
    // A CREATE that Spark refused (its output the error, where a table's or view's is empty) made nothing.
    if ((view || table || tableAs) && c.output !== '') return { ...c, skip: 'Spark refused the statement (its output is the error): it defines no table or view' };
    if (view) define({ name: view[1], sql: viewSelect(view[1], view[2], view[3]) });
    // CREATE TABLE … AS SELECT: a table of the query's rows, as a view of it.
    else if (tableAs) {
      define({ name: tableAs[1], sql: tableAs[2] });
      inDatabase(tableAs[1]);
    }
    else if (table) {
      tables.set(table[1].toLowerCase(), { columns: tableColumns(table[2]), rows: [], queries: [] });
      tableView(table[1]);
      inDatabase(table[1]);
    } else if (insert && tables.has(insert[1].toLowerCase())) {
      const { rows } = tables.get(insert[1].toLowerCase())!;
      rows.push(...valueRows(insert[2]));
      tableView(insert[1]);
      inDatabase(insert[1]);
      // An INSERT that Spark refused inserted nothing: Weir answers it over its rows, the later queries read the table without them.
      if (c.output !== '') return refused(insert[1], () => rows.splice(rows.length - valueRows(insert[2]).length));
    } else if (insertQuery && tables.has(insertQuery[1].toLowerCase()) && !reads(insertQuery[2], insertQuery[1])) {
      const { queries } = tables.get(insertQuery[1].toLowerCase())!;
      queries.push(insertQuery[2]);
      tableView(insertQuery[1]);
      if (c.output !== '') return refused(insertQuery[1], () => queries.pop());
    } else if (truncate && tables.has(truncate[1].toLowerCase())) {
      Object.assign(tables.get(truncate[1].toLowerCase())!, { rows: [], queries: [] });
      tableView(truncate[1]);
    } else if (drop) {
      tables.delete(drop[1].toLowerCase());
      databases.get(database)?.delete(drop[1].toLowerCase());
      views = views.filter((v) => v.name.toLowerCase() !== drop[1].toLowerCase());
      c.skip = 'a DROP: the view is gone for the later queries, and Spark printed nothing to compare';
    } else if (!/^\s*(?:select|with|values|from|table\b|\()/i.test(sql.slice(leadingComments(sql))) || /^\s*with\b[^]*\binsert\s+into\b/i.test(sql)) c.skip = 'a statement the harness does not run (it runs queries over views of static data)';
    // A view's or table's entry answers by reading it; a drop answers nothing.
    return table || tableAs || insert || insertQuery || truncate || view ? { ...c, views } : c;
  });
}

/**
 * A row of `INSERT INTO t VALUES …` with each value cast to its column's type, as Spark's INSERT
 * casts the statement's values: a table's rows are one VALUES list, whose column would otherwise
 * widen every row's value with the others' (a DECIMAL of 27 digits with a DOUBLE NaN of another
 * row to a DOUBLE, losing its last digits). A row of the wrong arity is left as written.
 */
const castRow = (columns: readonly { type: string }[]) => (row: string): string => {
  const values = selectItems(row.slice(1, -1));
  return values.length === columns.length ? `(${values.map((v, i) => `CAST(${v.trim()} AS ${columns[i].type})`).join(', ')})` : row;
};

/** The rows of `INSERT INTO t VALUES (1, 2), (3, 4)`: each parenthesized. */
function valueRows(values: string): string[] {
  return selectItems(values).map((r) => r.trim()).map((r) => (r.startsWith('(') ? r : `(${r})`));
}

/**
 * Whether Spark's printed schema has Weir's column types, whatever the columns' names. A copy of
 * Spark 2.x names NullType `null`, which Spark 3.0+ prints as `void`.
 */
export function sameColumnTypes(spark: string, schema: Schema): boolean {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const printed = spark.replace(/(?<=[:<,])null(?=[,>])/g, 'void');
  return new RegExp(`^struct<${schema.map((f) => `[^]*:${esc(simpleTypeString(f))}`).join(',')}>$`).test(printed);
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
const goldenPrinted = (v: unknown, f: Field, binary?: BinaryOutputStyle): string => printed(v, f, false, hiveInterval, binary);

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

/** Whether the SQL reads a table of this name (a word of its text outside quotes). */
const reads = (sql: string, name: string) => new RegExp(`\\b${name}\\b`, 'i').test(sql.replace(/'(?:[^'\\]|\\.)*'/g, "''"));

/** The error an answer is: the class the engine gives it (a runtime error's in its details), else one its message opens with. */
function errorAnswer(e: unknown): WeirAnswer {
  const err = e as { errorClass?: string; details?: { errorClass?: unknown }; message?: string };
  const cls = err.errorClass ?? err.details?.errorClass ?? /^\[([A-Z0-9_.]+)\]/.exec(err.message ?? '')?.[1] ?? 'unclassified';
  return { output: `error ${cls}` };
}

/**
 * Runs a golden file's query as Weir would answer it and prints its rows as Spark's sql-tests
 * do. A query that reads none of `views`, one `SELECT …` of no table (or of the typeCoercion
 * files' one-row view t, `CREATE TEMPORARY VIEW t AS SELECT 1`, whose column none of them
 * reads), runs as `SELECT … FROM src` over a one-row stream, or, an aggregate (which Weir
 * refuses over a stream without a watermark) or a window function (which it refuses over a
 * stream), over one row of VALUES as the static side of a
 * join with it, as Spark's one-row relation is a batch. A query that reads views runs as the
 * static side of a join with that stream (see the file's comment), as does one of tables of VALUES, of a table-valued function
 * (range(…), explode(…) in FROM) or a set operation of SELECTs; a view's own entry answers by
 * reading the view.
 */
export async function weirAnswer(query: string, views: readonly GoldenView[] = [], binary?: BinaryOutputStyle): Promise<WeirAnswer> {
  const view = /^\s*create\s+(?:or\s+replace\s+)?(?:temp(?:orary)?\s+)?view\s+(\w+)/i.exec(query) ?? /^\s*(?:create\s+table|insert\s+into|truncate\s+table)\s+(\w+)/i.exec(query);
  if (view) {
    const read = await staticAnswer(`SELECT * FROM ${view[1]}`, views, binary);
    return read.output.startsWith('error ') ? read : { output: '' };
  }
  const used = views.filter((v) => reads(query, v.name));
  // The query's leading comments stay in its text, after the SELECT that the one-row query writes.
  const comments = leadingComments(query);
  const m = /^select\s+([^]*?)(?:\s+from\s+t)?$/i.exec(query.slice(comments));
  if (used.length || !m || /\b(?:from|union|except|minus|intersect|where|group\s+by|having|order\s+by|limit)\b|\|>/i.test(topLevel(m[1]))) return staticAnswer(query, views, binary);
  try {
    // A generator's rows (none, or more than one), sorted as Spark's suite sorts a query's unordered rows.
    const { rows, schema } = await select(`${query.slice(0, comments)}${m[1]}`);
    return { output: rows.map((row) => schema.map((f) => goldenPrinted(row[f.name], f, binary)).join('\t')).sort().join('\n'), schema };
  } catch (e) {
    // An aggregate over the stream, which Weir refuses without a watermark (_LEGACY_ERROR_TEMP_3102),
    // or a window function, which it refuses over a stream (NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING):
    // Spark's one-row relation is a batch, which the static side of the join is.
    if (['error _LEGACY_ERROR_TEMP_3102', 'error NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING'].includes(errorAnswer(e).output)) return staticAnswer(`SELECT ${m[1]} FROM VALUES (0) AS one_row(one_row)`, [], binary);
    return errorAnswer(e);
  }
}

/** Whether the query orders its rows (an ORDER BY at its top level, not a window's or a subquery's). */
export const ordersRows = (query: string) => /\border\s+by\b/i.test(topLevel(query));

/** The query over the views it reads: its rows printed one a line, sorted unless it orders them at its top level. */
async function staticAnswer(query: string, views: readonly GoldenView[], binary?: BinaryOutputStyle): Promise<WeirAnswer> {
  // The views it reads, and the views and tables those read (a view of a table), in the file's
  // order (a Set's loop visits what it adds).
  const read = new Set(views.filter((v) => reads(query, v.name)));
  for (const v of read) for (const w of views) if (w !== v && reads(v.sql, w.name)) read.add(w);
  const used = views.filter((v) => read.has(v));
  const sql = query.replace(/;\s*$/, '');
  const ctes = used.map((v) => `${v.name} AS (${v.sql})`);
  const run = (text: string) => selectStatic(text, ctes).catch(async (e: unknown) => {
    // The engine joins two tables of static data only as static tables it loads, not as CTEs.
    if (!/A join needs the stream/.test((e as Error).message)) throw e;
    const tables: HeldTable[] = [];
    for (const [i, v] of used.entries()) tables.push({ name: v.name, ...(await selectStatic(`SELECT * FROM ${v.name}`, ctes.slice(0, i + 1))) });
    return selectStaticTables(text, tables);
  });
  try {
    const { rows, schema } = await run(sql);
    const lines = rows.map((row) => schema.map((f) => goldenPrinted(row[f.name], f, binary)).join('\t'));
    return { output: (ordersRows(query) ? lines : lines.sort()).join('\n'), schema };
  } catch (e) {
    return errorAnswer(e);
  }
}
