/**
 * Spark's CheckAnalysis of an aggregate in a correlated subquery: one whose argument reads both
 * the outer row's column and the subquery's own is refused with
 * INVALID_SUBQUERY_EXPRESSION.AGGREGATE_FUNCTION_MIXED_OUTER_LOCAL_REFERENCES.
 */
import { describe, expect, it } from 'vitest';
import { validateJob } from '../spec/validate-job';
import type { Schema } from '../types';

const EVENTS: Schema = [{ name: 'id', type: 'long' }, { name: 'amount', type: 'long', integral: 32 }];
const REGIONS: Schema = [{ name: 'region', type: 'string' }, { name: 'weight', type: 'long', integral: 32 }];
const MIXED = 'INVALID_SUBQUERY_EXPRESSION.AGGREGATE_FUNCTION_MIXED_OUTER_LOCAL_REFERENCES';

const refusal = (sql: string) => validateJob({
  name: 'x', source: { name: 'events', type: 'memory', options: { stream: 'x' }, schema: EVENTS },
  staticTables: [{ name: 'regions', path: '/nonexistent.json', format: 'json', schema: REGIONS }],
  sql, sink: { type: 'memory', options: { table: 'x' } },
}).errors.filter((e) => e.path === 'sql').map((e) => e.errorClass ?? e.message);

describe('an aggregate over outer and local columns in a correlated subquery', () => {
  it('is refused in HAVING of an EXISTS or NOT EXISTS, and of one nested in an IN subquery', () => {
    expect(refusal('SELECT id FROM events e WHERE EXISTS (SELECT 1 FROM regions r GROUP BY region HAVING min(r.weight + e.amount) > 1)')).toEqual([MIXED]);
    expect(refusal('SELECT id FROM events e WHERE NOT EXISTS (SELECT 1 FROM regions r GROUP BY region HAVING min(r.weight + e.amount) > 1)')).toEqual([MIXED]);
    expect(refusal('SELECT id FROM events e WHERE id IN (SELECT weight FROM regions r WHERE EXISTS (SELECT 1 FROM regions q GROUP BY 1 HAVING min(q.weight + r.weight) > 1))')).toEqual([MIXED]);
  });

  it('is refused in the select list of an EXISTS (whose rows alone decide it), an IN and a scalar subquery', () => {
    expect(refusal('SELECT id FROM events e WHERE EXISTS (SELECT region, 1 + max(weight * e.amount) FROM regions GROUP BY region)')).toEqual([MIXED]);
    expect(refusal('SELECT id FROM events e WHERE EXISTS (SELECT max(weight * e.amount) FROM regions)')).toEqual([MIXED]);
    // Spark checks the aggregate before where the select list reads the outer row (CORRELATED_REFERENCE).
    expect(refusal('SELECT id FROM events e WHERE id IN (SELECT max(weight * e.amount) FROM regions GROUP BY region)')).toEqual([MIXED]);
    expect(refusal('SELECT id, (SELECT max(weight * e.amount) FROM regions) FROM events e')).toEqual([MIXED]);
  });

  it('not an aggregate of local columns beside an outer one', () => {
    expect(refusal('SELECT id FROM events e WHERE EXISTS (SELECT 1 FROM regions r GROUP BY region HAVING min(r.weight) > e.amount)')).not.toContain(MIXED);
  });
});
