/**
 * What the SQL editor completes, from the draft check's `completion`: the relations (sources and
 * static tables) by name, their columns after `name.` or `alias.` (`FROM events e JOIN regions r`
 * then `r.` gives the regions' columns: CodeMirror's SQL schema completion reads the aliases of
 * FROM), every relation's columns unqualified (a select list, a WHERE, an ON), and the functions
 * with their signatures. Free of React, so that a test drives it on an EditorState.
 */
import { sql, SQLDialect, StandardSQL } from '@codemirror/lang-sql';
import type { Extension } from '@uiw/react-codemirror';
import type { SqlCompletion } from '@/lib/server/presenters/job-draft-presenter';

/** Spark SQL's lexical rules: double quotes make a string, back quotes a name, `\` escapes. */
const SparkSQL = SQLDialect.define({ ...StandardSQL.spec, doubleQuotedStrings: true, identifierQuotes: '`', backslashEscapes: true });

/** The part of CodeMirror's CompletionContext the completion sources here read. */
interface CompletionContextLike {
  matchBefore(re: RegExp): { from: number; to: number; text: string } | null;
  explicit: boolean;
}

interface Option {
  label: string;
  type: string;
  detail?: string;
  info?: string;
  boost?: number;
}

type Relations = SqlCompletion['relations'];

/** A word being typed (or, asked for explicitly, an empty one), not a member after `x.`. */
function wordAt(ctx: CompletionContextLike): { from: number } | null {
  const word = ctx.matchBefore(/(?:\.\s*)?\w*/);
  if (!word || word.text.startsWith('.') || (word.from === word.to && !ctx.explicit)) return null;
  return word;
}

/** Completes a function name as it is typed, showing its signature. */
function functionCompletions(functions: SqlCompletion['functions']) {
  const options: Option[] = functions.map((f) => ({ label: f.name, type: 'function', detail: f.signature, info: f.kind === 'scalar' ? undefined : `${f.kind} function`, boost: -1 }));
  return (ctx: CompletionContextLike) => {
    const word = wordAt(ctx);
    return word && { from: word.from, options, validFor: /^\w*$/ };
  };
}

/**
 * Every relation's columns, unqualified: each name once, its type and the relations that have it
 * as the detail (a name two relations have is read qualified, which `alias.` then completes).
 */
function columnCompletions(relations: Relations) {
  const byName = new Map<string, { types: Set<string>; tables: string[] }>();
  for (const r of relations) {
    for (const c of r.columns) {
      const e = byName.get(c.name) ?? { types: new Set<string>(), tables: [] };
      e.types.add(c.type);
      e.tables.push(r.name);
      byName.set(c.name, e);
    }
  }
  const options: Option[] = [...byName].map(([label, e]) => ({ label, type: 'property', detail: `${[...e.types].join(' | ')} · ${e.tables.join(', ')}` }));
  return (ctx: CompletionContextLike) => {
    const word = wordAt(ctx);
    return word && options.length ? { from: word.from, options, validFor: /^\w*$/ } : null;
  };
}

/**
 * The SQL language with completion of `completion`'s relations, columns and functions: the
 * relations' names as tables (a static table marked as one), and their columns after `name.` or
 * `alias.` through CodeMirror's SQL schema completion; unqualified columns and functions as
 * completion sources of their own.
 */
export function sqlCompletionExtensions(completion: SqlCompletion | undefined): Extension[] {
  const relations = completion?.relations ?? [];
  // A name's `self` is how the name itself is offered (names are identifiers: no dot reads as a path).
  const schema = Object.fromEntries(relations.map((r) => [
    r.name,
    { self: { label: r.name, type: 'type', detail: r.kind === 'static' ? 'static table' : 'source' }, children: r.columns.map((c) => ({ label: c.name, type: 'property', detail: c.type })) },
  ]));
  const functions = completion?.functions ?? [];
  const lang = sql({ dialect: SparkSQL, ...(relations.length ? { schema } : {}) });
  return [
    lang,
    ...(relations.length ? [lang.language.data.of({ autocomplete: columnCompletions(relations) })] : []),
    ...(functions.length ? [lang.language.data.of({ autocomplete: functionCompletions(functions) })] : []),
  ];
}
