'use client';
/**
 * The SQL editor: CodeMirror with SQL highlighting in Spark's lexical rules (`"x"` a string,
 * back-quoted names), completion of each source's name and columns and of the functions with
 * their signatures (from the engine, through the draft check), and the engine's analysis errors
 * drawn at their line and column as lint diagnostics. The same errors are listed under the
 * editor as text, because a squiggle alone is invisible to a screen reader.
 */
import { sql, SQLDialect, StandardSQL } from '@codemirror/lang-sql';
import { setDiagnostics, lintGutter, type Diagnostic } from '@codemirror/lint';
import { EditorView } from '@codemirror/view';
import CodeMirror from '@uiw/react-codemirror';
import { useEffect, useMemo, useRef } from 'react';
import type { SqlCompletion } from '@/lib/server/presenters/job-draft-presenter';
import { problemRange, problemText, type SqlProblem } from './sql-problem-range';
import { useColorScheme } from './use-color-scheme';

/**
 * Completion icons as plain letters. CodeMirror's defaults are symbols such as 🔑 and
 * mathematical italic 𝑥 / 𝑡 that the usual Linux fonts (DejaVu, Liberation) lack, so they drew
 * as empty boxes; a letter in the page's own font renders everywhere.
 */
const COMPLETION_ICONS: Record<string, string> = { keyword: 'K', type: 'T', variable: 'x', constant: 'C', function: 'f', method: 'f', property: 'p', namespace: 'N', class: 'C', interface: 'I', enum: 'E', text: 'abc' };
const completionIconTheme = EditorView.theme({
  '.cm-completionIcon': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace', fontStyle: 'normal', fontWeight: '600', opacity: '0.75' },
  ...Object.fromEntries(Object.entries(COMPLETION_ICONS).map(([type, letter]) => [`.cm-completionIcon-${type}:after`, { content: `'${letter}'`, fontSize: 'inherit', verticalAlign: 'baseline' }])),
});

/** Spark SQL's lexical rules: double quotes make a string, back quotes a name, `\` escapes. */
const SparkSQL = SQLDialect.define({ ...StandardSQL.spec, doubleQuotedStrings: true, identifierQuotes: '`', backslashEscapes: true });

interface CompletionContextLike {
  matchBefore(re: RegExp): { from: number; to: number; text: string } | null;
  explicit: boolean;
}

/** Completes a function name as it is typed, showing its signature. */
function functionCompletions(functions: SqlCompletion['functions']) {
  const options = functions.map((f) => ({ label: f.name, type: 'function', detail: f.signature, info: f.kind === 'scalar' ? undefined : `${f.kind} function`, boost: -1 }));
  return (ctx: CompletionContextLike) => {
    const word = ctx.matchBefore(/\w+/);
    if (!word || (word.from === word.to && !ctx.explicit)) return null;
    return { from: word.from, options, validFor: /^\w*$/ };
  };
}

export function SqlEditor({
  value,
  onChange,
  problems,
  label = 'SQL query',
  describedBy,
  completion,
}: {
  value: string;
  onChange: (v: string) => void;
  problems: SqlProblem[];
  label?: string;
  describedBy?: string;
  /** The last draft check's: each source's name and columns, and the functions. */
  completion?: SqlCompletion;
}) {
  const viewRef = useRef<EditorView | null>(null);
  // The default syntax colours (a dark purple keyword) read 1.6:1 on the dark theme's background;
  // One Dark's read 4.5:1 or more there. The backgrounds stay the page's own (globals.css).
  const scheme = useColorScheme();
  const relationsKey = JSON.stringify(completion?.relations ?? []);
  const functions = completion?.functions;
  const extensions = useMemo(() => {
    const relations = JSON.parse(relationsKey) as SqlCompletion['relations'];
    const schema = Object.fromEntries(relations.map((r) => [r.name, r.columns.map((c) => ({ label: c.name, type: 'property', detail: c.type }))]));
    // One source's columns complete unqualified; of several, each completes after its name (`clicks.`).
    const lang = sql({ dialect: SparkSQL, ...(relations.length ? { schema, ...(relations.length === 1 ? { defaultTable: relations[0].name } : {}) } : {}) });
    return [
      lang,
      ...(functions?.length ? [lang.language.data.of({ autocomplete: functionCompletions(functions) })] : []),
      lintGutter(),
      completionIconTheme,
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ 'aria-label': label, ...(describedBy ? { 'aria-describedby': describedBy } : {}) }),
    ];
  }, [label, describedBy, relationsKey, functions]);

  useEffect(() => {
    const view = viewRef.current;
    if (!view) return;
    const text = view.state.doc.toString();
    const diagnostics: Diagnostic[] = problems.map((p) => ({ ...problemRange(text, p), severity: 'error', message: problemText(p) }));
    view.dispatch(setDiagnostics(view.state, diagnostics));
  }, [problems, value]);

  return (
    <div className="sql-editor">
      <CodeMirror
        value={value}
        onChange={onChange}
        extensions={extensions}
        theme={scheme}
        minHeight="140px"
        maxHeight="360px"
        basicSetup={{ lineNumbers: true, foldGutter: false, autocompletion: true }}
        onCreateEditor={(view) => {
          viewRef.current = view;
        }}
      />
    </div>
  );
}
