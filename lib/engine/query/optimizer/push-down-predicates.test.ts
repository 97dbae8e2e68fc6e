/**
 * Where PushDownPredicates leaves a condition: a stream-stream join's one-sided ON conjuncts
 * below the sides Spark's PushPredicateThroughJoin moves them to (by join type), a filter that
 * reads no generated column below a Generate; and the join's state still named as before.
 */
import { describe, expect, it } from 'vitest';
import { exprToString } from '../expression';
import { children, type LogicalPlan, type StreamingRelation } from '../logical-plan';
import { optimizePlan } from '../optimizer';
import { compileStreamingQuery } from '../streaming-query';

const side = (p: string): StreamingRelation => ({
  kind: 'StreamingRelation',
  sourceName: `${p}Input`,
  schema: [{ name: 'key', type: 'long' }, { name: `${p}Time`, type: 'timestamp' }, { name: `${p}Value`, type: 'long' }],
  eventTime: `${p}Time`,
  watermarkDelayMs: 10_000,
});
const relations = [side('left'), side('right')];

const joinSql = (joinType: string) => `SELECT l.key, leftValue${joinType === 'LEFT SEMI' ? '' : ', rightValue'} FROM leftInput l ${joinType} JOIN rightInput r
  ON l.key = r.key AND leftTime BETWEEN rightTime - INTERVAL 5 SECONDS AND rightTime + INTERVAL 5 SECONDS
  AND leftValue > 10 AND rightValue < 300`;

/** The condition of the Filter right above each source's relation, by source name. */
function filtersOverSources(plan: LogicalPlan): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (p: LogicalPlan): void => {
    if (p.kind === 'Filter' && p.child.kind === 'StreamingRelation') out[p.child.sourceName] = exprToString(p.condition);
    children(p).forEach(walk);
  };
  walk(plan);
  return out;
}

describe('PushPredicateThroughJoin (a join of two streams)', () => {
  it.each([
    ['INNER', { leftInput: '(leftValue > 10)', rightInput: '(rightValue < 300)' }],
    ['LEFT SEMI', { leftInput: '(leftValue > 10)', rightInput: '(rightValue < 300)' }],
    // An outer join keeps its preserved side's conjuncts: a row failing them comes out padded.
    ['LEFT OUTER', { rightInput: '(rightValue < 300)' }],
    ['RIGHT OUTER', { leftInput: '(leftValue > 10)' }],
    ['FULL OUTER', {}],
  ])('%s JOIN: the one-sided ON conjuncts of the sides Spark moves go above their sources', (joinType, expected) => {
    const q = compileStreamingQuery(joinSql(joinType), relations);
    expect(filtersOverSources(q.plan)).toEqual(expected);
    const join = q.explain.split('\n').find((l) => l.includes('Join '))!;
    // The key and the time range stay in the join, and so do the conjuncts not moved.
    expect(join).toContain('(l.key = r.key)');
    expect(join).toContain('BETWEEN');
    expect(join.includes('leftValue')).toBe(!('leftInput' in expected));
    expect(join.includes('rightValue')).toBe(!('rightInput' in expected));
    expect(q.optimizations.some((o) => o.rule === 'PushPredicateThroughJoin')).toBe(Object.keys(expected).length > 0);
  });

  it('the join state keeps the name of the condition as written, so an older checkpoint restarts', () => {
    for (const joinType of ['INNER', 'LEFT OUTER', 'RIGHT OUTER', 'LEFT SEMI']) {
      const optimized = compileStreamingQuery(joinSql(joinType), relations).statefulOperators;
      const written = compileStreamingQuery(joinSql(joinType), relations, { optimize: false }).statefulOperators;
      expect(optimized).toEqual(written);
      expect(optimized[0].parts.condition).toContain('rightValue < 300');
    }
  });

  it('a WHERE an inner join takes into its condition goes on to the side it reads', () => {
    const q = compileStreamingQuery(`SELECT l.key, leftValue, rightValue FROM leftInput l JOIN rightInput r ON l.key = r.key AND leftTime = rightTime WHERE rightValue % 2 = 0`, relations);
    expect(filtersOverSources(q.plan)).toEqual({ rightInput: '((rightValue % 2) = 0)' });
  });
});

describe('InferFiltersFromConstraints (a join of two streams)', () => {
  // A filter of one side over its join key holds for the other side's key, by join type.
  const keyed = (joinType: string) => `SELECT l.key FROM (SELECT * FROM leftInput WHERE key % 2 = 0 AND leftValue > 1) l ${joinType} JOIN
    (SELECT * FROM rightInput WHERE key > 5) r ON l.key = r.key AND leftTime = rightTime`;
  it.each([
    ['INNER', { leftInput: '((((key % 2) = 0) AND (leftValue > 1)) AND (key > 5))', rightInput: '((key > 5) AND ((key % 2) = 0))' }],
    ['LEFT SEMI', { leftInput: '((((key % 2) = 0) AND (leftValue > 1)) AND (key > 5))', rightInput: '((key > 5) AND ((key % 2) = 0))' }],
    // An outer join infers for the side it does not preserve only.
    ['LEFT OUTER', { leftInput: '(((key % 2) = 0) AND (leftValue > 1))', rightInput: '((key > 5) AND ((key % 2) = 0))' }],
    ['RIGHT OUTER', { leftInput: '((((key % 2) = 0) AND (leftValue > 1)) AND (key > 5))', rightInput: '(key > 5)' }],
    ['FULL OUTER', { leftInput: '(((key % 2) = 0) AND (leftValue > 1))', rightInput: '(key > 5)' }],
  ])('%s JOIN: a side gets the other side\'s filters of the key, pushed down to its source', (joinType, expected) => {
    const q = compileStreamingQuery(keyed(joinType), relations);
    expect(filtersOverSources(q.plan)).toEqual(expected);
    expect(q.optimizations.some((o) => o.rule === 'InferFiltersFromConstraints')).toBe(joinType !== 'FULL OUTER');
  });

  it('reads a filter through a rename, and infers nothing over a NULL-safe key or a column that is not a key', () => {
    const renamed = compileStreamingQuery(`SELECT a.k FROM (SELECT key AS k, leftTime FROM leftInput) a JOIN (SELECT key AS j, rightTime FROM rightInput WHERE key % 2 = 0) b ON a.k = b.j AND leftTime = rightTime`, relations);
    expect(filtersOverSources(renamed.plan)).toEqual({ leftInput: '((key % 2) = 0)', rightInput: '((key % 2) = 0)' });
    const nullSafe = compileStreamingQuery(`SELECT l.key FROM leftInput l JOIN (SELECT * FROM rightInput WHERE key % 2 = 0) r ON l.key <=> r.key AND leftTime = rightTime`, relations);
    expect(filtersOverSources(nullSafe.plan)).toEqual({ rightInput: '((key % 2) = 0)' });
    const notKey = compileStreamingQuery(`SELECT l.key FROM leftInput l JOIN (SELECT * FROM rightInput WHERE rightValue > 2) r ON l.key = r.key AND leftTime = rightTime`, relations);
    expect(filtersOverSources(notKey.plan)).toEqual({ rightInput: '(rightValue > 2)' });
  });
});

describe('PushDownPredicates through a Generate', () => {
  const one = side('left');

  it('moves the conjuncts that read no generated column below it, keeps the others above', () => {
    const q = compileStreamingQuery(`SELECT key, w FROM (SELECT key, leftValue, window(leftTime, '10 seconds') AS w FROM leftInput) WHERE leftValue > 1 AND w.start IS NOT NULL`, one);
    expect(filtersOverSources(q.plan)).toEqual({ leftInput: '(leftValue > 1)' });
    expect(q.explain).toMatch(/Filter \(window\.start IS NOT NULL\)[\s\S]*Generate[\s\S]*Filter \(leftValue > 1\)/);
  });

  it('keeps a filter of the generated column above it', () => {
    const q = compileStreamingQuery(`SELECT key, x FROM (SELECT key, explode(array(leftValue, 1)) AS x FROM leftInput) WHERE x > 1`, one);
    expect(filtersOverSources(q.plan)).toEqual({});
  });
});

describe('a nondeterministic conjunct stays where it is written (Spark pushes deterministic ones only)', () => {
  it('neither below a join side, nor below a Generate, nor into a source\'s watermark', () => {
    const join = compileStreamingQuery(`SELECT l.key, leftValue, rightValue FROM leftInput l JOIN rightInput r
      ON l.key = r.key AND leftTime BETWEEN rightTime - INTERVAL 5 SECONDS AND rightTime + INTERVAL 5 SECONDS AND rand(1) * leftValue > 10`, relations);
    expect(filtersOverSources(join.plan)).toEqual({});
    const gen = compileStreamingQuery(`SELECT key, x FROM (SELECT key, leftValue, explode(array(leftValue, 1)) AS x FROM leftInput) WHERE rand(1) < 0.5`, side('left'));
    expect(filtersOverSources(gen.plan)).toEqual({});
    const where = compileStreamingQuery(`SELECT key FROM leftInput WHERE key = 1 AND rand(1) < 0.5`, side('left'));
    expect(where.eventTimeWatermarks.map((w) => w.filter !== undefined)).toEqual([true]);
    const onlyRand = compileStreamingQuery(`SELECT key FROM leftInput WHERE rand(1) < 0.5`, side('left'));
    expect(onlyRand.eventTimeWatermarks.map((w) => w.filter !== undefined)).toEqual([false]);
  });
});

describe('an Offset (a batch plan\'s): no filter moves below it, its columns are pruned through it', () => {
  // Built by hand: the SQL of a stream refuses an Offset, and a static side's plan is not optimized.
  const source: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'rows', schema: [{ name: 'n', type: 'long' }, { name: 'm', type: 'long' }, { name: 'unread', type: 'string' }] };
  const column = (name: string) => ({ kind: 'column' as const, name });
  const nAbove1 = { kind: 'binary' as const, op: '>', left: column('n'), right: { kind: 'literal' as const, value: 1, type: 'long' as const } } as const;
  const offset: LogicalPlan = { kind: 'Offset', offset: 2, child: { kind: 'Project', list: [{ name: 'n', expr: column('n') }, { name: 'm', expr: column('m') }], child: source } };
  const plan: LogicalPlan = { kind: 'Project', list: [{ name: 'n', expr: column('n') }], child: { kind: 'Filter', condition: nAbove1 as never, child: offset } };

  it('keeps the Filter above the Offset: below, it would change which rows are the ones skipped', () => {
    const { plan: optimized, applied } = optimizePlan(plan);
    const kinds: string[] = [];
    for (let p: LogicalPlan | undefined = optimized; p; p = children(p)[0]) kinds.push(p.kind);
    expect(kinds).toEqual(['Project', 'Filter', 'Offset', 'Project', 'StreamingRelation']);
    expect(applied.filter((a) => a.rule === 'PushDownPredicates')).toEqual([]);
    expect(filtersOverSources(optimized)).toEqual({});
  });

  it('prunes the columns nothing above reads through it', () => {
    const { plan: optimized } = optimizePlan(plan);
    const relation = (p: LogicalPlan): StreamingRelation => (p.kind === 'StreamingRelation' ? p : relation(children(p)[0]));
    expect(relation(optimized).requiredColumns).toEqual(['n', 'm']);
  });
});
