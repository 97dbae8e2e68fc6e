import { describe, expect, it } from 'vitest';
import { exprToString } from './expression';
import type { LogicalPlan, StreamingRelation } from './logical-plan';
import { buildLogicalPlan } from './query-planner';

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
