'use client';
/**
 * The SQL editor: CodeMirror with SQL highlighting in Spark's lexical rules (`"x"` a string,
 * back-quoted names), completion of each source's and static table's name and columns and of
 * the functions with their signatures (sql-completion.ts, fed by the draft check), and the
 * engine's analysis errors drawn at their line and column as lint diagnostics. The same errors are listed under the
 * editor as text, because a squiggle alone is invisible to a screen reader.
 */
import { setDiagnostics, lintGutter, type Diagnostic } from '@codemirror/lint';
import { EditorView } from '@codemirror/view';
import CodeMirror from '@uiw/react-codemirror';
import { useEffect, useMemo, useRef } from 'react';
import type { SqlCompletion } from '@/lib/server/presenters/job-draft-presenter';
import { sqlCompletionExtensions } from './sql-completion';
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
  /** The last draft check's: each source's and static table's name and columns, and the functions. */
  completion?: SqlCompletion;
}) {
  const viewRef = useRef<EditorView | null>(null);
  // The default syntax colours (a dark purple keyword) read 1.6:1 on the dark theme's background;
  // One Dark's read 4.5:1 or more there. The backgrounds stay the page's own (globals.css).
  const scheme = useColorScheme();
  // Rebuilt when the relations change, not on every draft check (each answer is a new object).
  const relationsKey = JSON.stringify(completion?.relations ?? []);
  const functions = completion?.functions;
  const extensions = useMemo(() => {
    const relations = JSON.parse(relationsKey) as SqlCompletion['relations'];
    return [
      ...sqlCompletionExtensions({ relations, functions: functions ?? [] }),
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
