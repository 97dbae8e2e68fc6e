import { describe, expect, it } from 'vitest';
import { checkDraft, parseExplain } from './job-draft-presenter';

const spec = (sql: string, extra: Record<string, unknown> = {}) => ({
  name: 'draft',
  source: { name: 'clicks', type: 'files', options: { path: '/tmp/weir-draft-in', format: 'json' }, schema: [{ name: 'user', type: 'string' }, { name: 'ts', type: 'timestamp' }] },
  sql,
  sink: { type: 'console', options: {} },
  outputMode: 'append',
  trigger: { type: 'processing-time', interval: '1 second' },
  ...extra,
});

const ROOTS = { checkpointRoot: '/tmp/weir-draft-cp', filesRoots: ['/tmp'] };

describe('checkDraft', () => {
  it('an aggregation without a watermark: append refused with Spark’s text, update and complete legal, the aggregate stateful', () => {
    const d = checkDraft(spec('SELECT user, count(*) AS n FROM clicks GROUP BY user'), ROOTS);
    const byMode = Object.fromEntries(d.modes.map((m) => [m.mode, m]));
    expect(byMode.append.legal).toBe(false);
    expect(byMode.append.reasons.join()).toContain('Append output mode not supported when there are streaming aggregations');
    expect(byMode.update).toMatchObject({ legal: true, reasons: [] });
    expect(byMode.complete.legal).toBe(true);
    // The spec as written (append) is invalid, on the outputMode field.
    expect(d.ok).toBe(false);
    expect(d.errors.map((e) => e.path)).toEqual(['outputMode']);
    const agg = d.operators.find((o) => o.operator.startsWith('Aggregate'));
    expect(agg).toMatchObject({ kind: 'stateful', depth: 1 });
    expect(agg!.reason).toMatch(/one row per group/);
    expect(d.operators.at(-1)).toMatchObject({ kind: 'source', depth: 2 });
  });

  it('a stateless query: complete refused, the contract audited, the checkpoint defaulted under the root', () => {
    const d = checkDraft(spec('SELECT user FROM clicks WHERE user IS NOT NULL'), ROOTS);
    expect(d.ok).toBe(true);
    expect(d.modes.map((m) => [m.mode, m.legal])).toEqual([['append', true], ['update', true], ['complete', false]]);
    expect(d.modes[2].reasons[0]).toMatch(/Complete output mode not supported when there are no streaming aggregations/);
    expect(d.contract?.guarantee).toBe('at-least-once');
    expect(d.contract?.sink.signature).toBe('at-least-once');
    expect(d.operators.every((o) => o.kind !== 'stateful')).toBe(true);
  });

  it('bad SQL: the error has its line and column, and no mode is called legal', () => {
    const d = checkDraft(spec('SELECT user,\n  nosuch FROM clicks'), ROOTS);
    expect(d.ok).toBe(false);
    expect(d.errors[0]).toMatchObject({ path: 'sql', line: 2, column: 3 });
    expect(d.modes.every((m) => !m.legal)).toBe(true);
    // Nor illegal: an unknown column says nothing about the mode (the editor shows no "not allowed").
    expect(d.modes.every((m) => !m.decided)).toBe(true);
  });

  it('an unknown column in a GROUP BY is the first error in every mode, and no mode is judged on it', () => {
    for (const outputMode of ['append', 'update', 'complete']) {
      const d = checkDraft({ ...spec('SELECT usr, count(*) FROM clicks GROUP BY usr'), outputMode }, ROOTS);
      // At GROUP BY's `usr`, resolved first (Spark's order: the grouping expressions, then the select list).
      expect(d.errors[0], outputMode).toMatchObject({ path: 'sql', line: 1, column: 43 });
      expect(d.errors.filter((e) => e.path === 'outputMode'), outputMode).toEqual([]);
      expect(d.modes.map((m) => m.decided), outputMode).toEqual([false, false, false]);
    }
  });
});

describe("the SQL editor's completion", () => {
  it("offers the source's name and columns, also while the query does not analyse, and the engine's functions", () => {
    const d = checkDraft(spec('SELECT nosuch FROM clicks'), ROOTS);
    expect(d.ok).toBe(false);
    expect(d.completion.relations).toEqual([{ name: 'clicks', kind: 'source', columns: [{ name: 'user', type: 'string' }, { name: 'ts', type: 'timestamp' }] }]);
    const byName = new Map(d.completion.functions.map((f) => [f.name, f]));
    expect(byName.get('regexp_replace')).toEqual({ name: 'regexp_replace', signature: 'regexp_replace(expr1, expr2, expr3[, expr4])', kind: 'scalar' });
    expect(byName.get('count')?.kind).toBe('aggregate');
    expect(byName.get('explode')?.kind).toBe('generator');
  });

  it('offers nothing it cannot name when the source is not written yet', () => {
    const d = checkDraft({ ...spec('SELECT 1'), source: { type: 'files' } }, ROOTS);
    expect(d.completion.relations).toEqual([]);
  });

  it('offers every source of a job over several streams, in order', () => {
    const { source, ...rest } = spec('SELECT user FROM clicks UNION ALL SELECT who FROM views');
    const views = { ...source, name: 'views', schema: [{ name: 'who', type: 'string' }] };
    const d = checkDraft({ ...rest, sources: [source, views] }, ROOTS);
    expect(d.completion.relations.map((r) => `${r.name}: ${r.columns.map((c) => c.name).join(' ')}`)).toEqual(['clicks: user ts', 'views: who']);
  });

  it('offers the static tables after the sources, a DDL schema read as its columns, also while the query does not analyse', () => {
    const staticTables = [
      { name: 'regions', path: '/tmp/weir-draft-regions.json', format: 'json', schema: [{ name: 'code', type: 'string' }, { name: 'label', type: 'string' }] },
      { name: 'users', type: 'postgres', connectionString: 'postgres://127.0.0.1:5432/test', table: 'users', schema: 'id BIGINT, tier STRING' },
      { path: '/tmp/unnamed.json', schema: [{ name: 'x', type: 'string' }] },
    ];
    for (const sql of ['SELECT c.user, r.label FROM clicks c JOIN regions r ON c.user = r.code', 'SELECT r.nosuch FROM clicks c JOIN regions r ON c.user = r.code']) {
      const d = checkDraft(spec(sql, { staticTables }), ROOTS);
      expect(d.completion.relations.map((r) => `${r.kind} ${r.name}: ${r.columns.map((c) => `${c.name} ${c.type}`).join(', ')}`), sql).toEqual([
        'source clicks: user string, ts timestamp',
        'static regions: code string, label string',
        'static users: id long, tier string',
      ]);
    }
  });

  it('a query joining a static table analyses: the plan shows the join and the static relation', () => {
    const staticTables = [{ name: 'regions', path: '/tmp/weir-draft-regions.json', format: 'json', schema: [{ name: 'code', type: 'string' }, { name: 'label', type: 'string' }] }];
    const d = checkDraft(spec('SELECT c.user, r.label FROM clicks c LEFT JOIN regions r ON c.user = r.code', { staticTables }), ROOTS);
    expect(d.errors).toEqual([]);
    expect(d.operators.map((o) => o.operator.split(' ')[0])).toEqual(['Project', 'Join', 'StreamingRelation', 'StaticRelation']);
    expect(d.operators[1].operator).toMatch(/^Join LeftOuter/);
    expect(d.outputColumns?.map((c) => c.name)).toEqual(['user', 'label']);
  });
});

describe('parseExplain', () => {
  it('reads depth, kind and reason from the engine’s tree', () => {
    const ops = parseExplain('Project [a] [stateless]\n+- Deduplicate [a] [stateful: one key per row; evicted by watermark]\n   +- StreamingRelation s [source]');
    expect(ops).toEqual([
      { depth: 0, operator: 'Project [a]', kind: 'stateless', reason: null },
      { depth: 1, operator: 'Deduplicate [a]', kind: 'stateful', reason: 'one key per row; evicted by watermark' },
      { depth: 2, operator: 'StreamingRelation s', kind: 'source', reason: null },
    ]);
    expect(parseExplain(undefined)).toEqual([]);
  });
});
