import { describe, expect, it } from 'vitest';
import { writtenColumnName } from './column-names';
import { exprToString } from './expression';
import type { LogicalPlan, StreamingRelation } from './logical-plan';
import { buildLogicalPlan } from './query-planner';
import { selectStatic } from './testing/spark-printed';

const rel = (sourceName: string, names: string[]): StreamingRelation => ({
  kind: 'StreamingRelation', sourceName, schema: names.map((name) => ({ name, type: name.endsWith('Time') ? 'timestamp' : 'string' })), eventTime: names.find((n) => n.endsWith('Time')), watermarkDelayMs: 0,
});
const RELATIONS = [rel('impressions', ['key', 'impressionTime', 'campaign']), rel('clicks', ['clickTime', 'key', 'device'])];

/** The select list of the query's top Project, and the USING join's Project below it. */
function using(sql: string) {
  const top = buildLogicalPlan(sql, RELATIONS) as Extract<LogicalPlan, { kind: 'Project' }>;
  const below = top.child as Extract<LogicalPlan, { kind: 'Project' }>;
  expect(below.kind).toBe('Project');
  expect(below.child.kind).toBe('Join');
  return { output: top.list.map((n) => n.name), key: exprToString(below.list[0].expr) };
}

describe('USING (…) in a join of two streams: Spark\'s output of a USING join', () => {
  it.each([
    ['JOIN', 'impressions.key'],
    ['LEFT JOIN', 'impressions.key'],
    ['RIGHT JOIN', 'clicks.key'],
    ['FULL JOIN', 'coalesce(impressions.key, clicks.key)'],
    ['LEFT SEMI JOIN', 'impressions.key'],
  ])('%s: the key once and first (%s), then the left\'s other columns, then the right\'s', (join, key) => {
    const r = using(`SELECT * FROM impressions ${join} clicks USING (key)`);
    expect(r.key).toBe(key);
    expect(r.output).toEqual(join === 'LEFT SEMI JOIN' ? ['key', 'impressionTime', 'campaign'] : ['key', 'impressionTime', 'campaign', 'clickTime', 'device']);
  });
});

describe('the keys of a join of a stream with a static table', () => {
  const table = { name: 'codes', path: '/nonexistent.json', schema: [{ name: 'code', type: 'string' as const }, { name: 'label', type: 'string' as const }] };
  const keysOf = (sql: string) => {
    const find = (p: LogicalPlan): LogicalPlan | undefined => (p.kind === 'StaticRelation' ? p : [('child' in p ? p.child : undefined), ...(p.kind === 'Join' ? [p.left, p.right] : [])].map((c) => c && find(c)).find(Boolean));
    const stat = find(buildLogicalPlan(sql, RELATIONS, [table])) as Extract<LogicalPlan, { kind: 'StaticRelation' }>;
    return stat.keys.map(({ stream, static: s, nullSafe }) => ({ stream, static: s, ...(nullSafe ? { nullSafe } : {}) }));
  };
  it('= and <=> are each a key the table is hashed on (Spark\'s ExtractEquiJoinKeys), <=> one whose NULLs match', () => {
    expect(keysOf('SELECT key, label FROM impressions i JOIN codes c ON i.campaign = c.code')).toEqual([{ stream: 'campaign', static: 'code' }]);
    expect(keysOf('SELECT key, label FROM impressions i JOIN codes c ON i.campaign <=> c.code')).toEqual([{ stream: 'campaign', static: 'code', nullSafe: true }]);
    expect(keysOf('SELECT key, label FROM impressions i LEFT ANTI JOIN codes c ON i.campaign <=> c.code AND i.key <=> c.label')).toHaveLength(2);
  });

  it('a USING name of another case reads the column of both sides (Spark\'s resolver ignores case)', () => {
    const labels = { ...table, name: 'labels', schema: [{ name: 'campaign', type: 'string' as const }, { name: 'label', type: 'string' as const }] };
    const find = (p: LogicalPlan): LogicalPlan | undefined => (p.kind === 'StaticRelation' ? p : [('child' in p ? p.child : undefined), ...(p.kind === 'Join' ? [p.left, p.right] : [])].map((c) => c && find(c)).find(Boolean));
    const stat = find(buildLogicalPlan('SELECT * FROM impressions JOIN labels USING (CAMPAIGN)', RELATIONS, [labels])) as Extract<LogicalPlan, { kind: 'StaticRelation' }>;
    expect(stat.keys).toEqual([{ stream: 'campaign', static: 'campaign' }]);
  });
});

describe('the columns of a join with a static side, in Spark\'s order (ResolveNaturalAndUsingJoin)', () => {
  const codes = { name: 'codes', path: '/nonexistent.json', schema: [{ name: 'label', type: 'string' as const }, { name: 'campaign', type: 'string' as const }] };
  const columns = (sql: string) => {
    const top = buildLogicalPlan(sql, RELATIONS, [codes]) as Extract<LogicalPlan, { kind: 'Project' }>;
    return top.list.map((n) => writtenColumnName(n.name));
  };
  it('USING and NATURAL: the keys first, then the left\'s other columns, then the right\'s', () => {
    for (const join of ['JOIN', 'LEFT JOIN']) expect(columns(`SELECT * FROM impressions ${join} codes USING (campaign)`)).toEqual(['campaign', 'key', 'impressionTime', 'label']);
    expect(columns('SELECT * FROM impressions NATURAL JOIN codes')).toEqual(['campaign', 'key', 'impressionTime', 'label']);
    expect(columns('SELECT * FROM impressions LEFT SEMI JOIN codes USING (campaign)')).toEqual(['campaign', 'key', 'impressionTime']);
    // The static table on the left: its columns before the stream's, a USING key first.
    expect(columns('SELECT * FROM codes c JOIN impressions i ON c.campaign = i.campaign')).toEqual(['label', 'campaign', 'key', 'impressionTime', 'campaign']);
    expect(columns('SELECT * FROM codes RIGHT JOIN impressions USING (campaign)')).toEqual(['campaign', 'label', 'key', 'impressionTime']);
  });

  it('USING (k, k): the key twice, as Spark\'s leftKeys name it once for each', () => {
    expect(columns('SELECT * FROM impressions JOIN codes USING (campaign, campaign)')).toEqual(['campaign', 'campaign', 'key', 'impressionTime', 'label']);
    // Both are one column: unqualified it is no ambiguous name.
    expect(columns('SELECT campaign FROM impressions JOIN codes USING (campaign, campaign)')).toEqual(['campaign']);
  });

  it.each([
    ['JOIN', [['a', 'a', 1, 10]]],
    ['LEFT JOIN', [['a', 'a', 1, 10], ['b', 'b', 2, null]]],
    ['RIGHT JOIN', [['a', 'a', 1, 10], ['c', 'c', null, 30]]],
    ['FULL JOIN', [['a', 'a', 1, 10], ['b', 'b', 2, null], ['c', 'c', null, 30]]],
  ])('%s of static data USING (k, k), k not the left\'s first column: k twice, then v, then w', async (join, rows) => {
    const { rows: out } = await selectStatic(`SELECT * FROM VALUES (1, 'a'), (2, 'b') AS l(v, k) ${join} VALUES ('a', 10), ('c', 30) AS r(k, w) USING (k, k)`, []);
    expect(out.map((r) => Object.values(r))).toEqual(rows);
  });
});
