import { ensureSyntaxTree } from '@codemirror/language';
import { EditorState } from '@uiw/react-codemirror';
import { describe, expect, it } from 'vitest';
import type { SqlCompletion } from '@/lib/server/presenters/job-draft-presenter';
import { sqlCompletionExtensions } from './sql-completion';

type Source = (ctx: unknown) => { from: number; options: readonly { label: string; detail?: string }[] } | null | Promise<unknown>;

/**
 * What CodeMirror offers at `|` in `doc`, asked for explicitly (Ctrl-Space): every completion
 * source's options, each as `label (detail)`. The context is CodeMirror's CompletionContext's
 * part the sources read. The state's syntax tree is parsed whole first: a new state parses for
 * 20 ms only (the editor's view goes on in the background), and on a loaded machine that leaves
 * the aliases after the cursor unparsed.
 */
function offered(completion: SqlCompletion, docWithCursor: string): string[] {
  const pos = docWithCursor.indexOf('|');
  const doc = docWithCursor.replace('|', '');
  const created = EditorState.create({ doc, extensions: sqlCompletionExtensions(completion) });
  if (!ensureSyntaxTree(created, doc.length, 60_000)) throw new Error('the SQL did not parse within a minute');
  // A transaction takes the parse's finished tree into the state the completion sources read.
  const state = created.update({}).state;
  const ctx = {
    state,
    pos,
    explicit: true,
    aborted: false,
    addEventListener: () => {},
    matchBefore(re: RegExp) {
      const line = state.doc.lineAt(pos);
      const before = doc.slice(line.from, pos);
      const m = new RegExp(`(?:${re.source})$`).exec(before);
      return m ? { from: pos - m[0].length, to: pos, text: m[0] } : null;
    },
    tokenBefore(types: readonly string[]) {
      void types;
      return null;
    },
  };
  const sources = state.languageDataAt<Source>('autocomplete', pos);
  return sources.flatMap((source) => {
    if (typeof source !== 'function') return [];
    const r = source(ctx);
    if (!r || r instanceof Promise) return [];
    return r.options.map((o) => (o.detail ? `${o.label} (${o.detail})` : o.label));
  });
}

const completion: SqlCompletion = {
  relations: [
    { name: 'events', kind: 'source', columns: [{ name: 'user', type: 'string' }, { name: 'region', type: 'string' }] },
    { name: 'regions', kind: 'static', columns: [{ name: 'code', type: 'string' }, { name: 'label', type: 'string' }] },
  ],
  functions: [{ name: 'upper', signature: 'upper(str)', kind: 'scalar' }],
};

describe("the SQL editor's completion", () => {
  it("offers a static table's name beside the source's, each said to be which", () => {
    const names = offered(completion, 'SELECT * FROM events e JOIN re|');
    expect(names).toContain('regions (static table)');
    expect(names).toContain('events (source)');
  });

  it("offers a static table's columns after its alias, and only its", () => {
    const doc = 'SELECT r.| FROM events e JOIN regions r ON e.region = r.code';
    expect(offered(completion, doc)).toEqual(['code (string)', 'label (string)']);
    expect(offered(completion, doc.replace('r.|', 'e.|'))).toEqual(['user (string)', 'region (string)']);
    expect(offered(completion, 'SELECT regions.| FROM events JOIN regions ON region = code')).toEqual(['code (string)', 'label (string)']);
  });

  it("offers every relation's columns unqualified in a select list, with their types and tables, and the functions", () => {
    const options = offered(completion, 'SELECT la| FROM events e JOIN regions r ON e.region = r.code');
    expect(options).toEqual(expect.arrayContaining(['label (string · regions)', 'code (string · regions)', 'user (string · events)', 'upper (upper(str))']));
  });

  it('a column two relations have is offered once, naming both', () => {
    const both: SqlCompletion = { ...completion, relations: [...completion.relations, { name: 'users', kind: 'static', columns: [{ name: 'user', type: 'bigint' }] }] };
    const options = offered(both, 'SELECT us| FROM events');
    expect(options.filter((o) => o.startsWith('user '))).toEqual(['user (string | bigint · events, users)']);
  });
});
