/**
 * LATERAL subqueries over static tables beside a stream (the stream's row the outer row), as
 * Spark's LateralJoin answers them, checked against DuckDB running the same SQL over the same
 * rows: the subquery's rows for each stream row's values, after the row's columns; a LEFT join
 * pads a row that has none.
 */
import { describe, expect, it } from 'vitest';
import { validateJob } from '../spec/validate-job';
import { EVENTS, REGIONS, staticJoinDifferential } from './testing/static-join-differential';

const { same } = staticJoinDifferential('lateral');

describe('LATERAL subqueries beside a stream (Spark\'s LateralJoin)', () => {
  it('FROM e, LATERAL (… WHERE reads e): each stream row with its rows', async () => {
    const w = await same('SELECT e.id, r.weight FROM events e, LATERAL (SELECT weight FROM regions WHERE region = e.region) r');
    expect(w.explain).toMatch(/Generate inline\(scalar-subquery#\d+ \[region\]\)/);
    expect(w.explain).toMatch(/run for each tuple of its outer values/);
    // Correlated by a comparison, an aggregation per row, ORDER BY … LIMIT per row.
    await same('SELECT e.id, r.place, r.weight FROM events e, LATERAL (SELECT region AS place, weight FROM regions WHERE weight > e.amount) r');
    await same('SELECT e.id, r.n, r.top FROM events e, LATERAL (SELECT count(*) AS n, max(weight) AS top FROM regions WHERE weight <= e.amount) r');
    await same('SELECT e.id, r.weight FROM events e, LATERAL (SELECT weight FROM regions WHERE weight IS NOT NULL AND weight >= e.amount ORDER BY weight LIMIT 1) r');
  });

  it('JOIN LATERAL … ON, CROSS JOIN LATERAL, outer columns in its select list', async () => {
    await same('SELECT e.id, r.weight FROM events e JOIN LATERAL (SELECT weight FROM regions WHERE region = e.region) r ON r.weight > e.amount');
    await same('SELECT e.id, r.total FROM events e CROSS JOIN LATERAL (SELECT weight + e.amount AS total FROM regions WHERE region = e.region) r');
    // Over a join and a UNION of static tables.
    await same('SELECT e.id, u.place FROM events e JOIN LATERAL (SELECT region AS place FROM regions WHERE weight < e.amount UNION ALL SELECT region FROM blocked WHERE user = e.user) u ON true',
      'SELECT e.id, u.place FROM events e JOIN LATERAL (SELECT region AS place FROM regions WHERE weight < e.amount UNION ALL SELECT region FROM blocked WHERE "user" = e."user") u ON true');
    await same('SELECT e.id, x.weight FROM events e JOIN LATERAL (SELECT r.weight FROM regions r JOIN blocked b ON r.region = b.region WHERE b.user = e.user) x ON true',
      'SELECT e.id, x.weight FROM events e JOIN LATERAL (SELECT r.weight FROM regions r JOIN blocked b ON r.region = b.region WHERE b."user" = e."user") x ON true');
  });

  it('LEFT JOIN LATERAL: a stream row with no rows, or none meeting ON, padded with NULLs', async () => {
    await same('SELECT e.id, r.weight FROM events e LEFT JOIN LATERAL (SELECT weight FROM regions WHERE region = e.region) r ON true');
    await same('SELECT e.id, r.weight FROM events e LEFT JOIN LATERAL (SELECT weight FROM regions WHERE region = e.region) r ON r.weight > e.amount');
    await same('SELECT e.id, r.weight FROM events e LEFT OUTER JOIN LATERAL (SELECT weight FROM regions WHERE region = e.region ORDER BY weight DESC LIMIT 1) r ON true');
  });

  it('refuses what Spark refuses (a join type an outer side cannot correlate to, NATURAL, USING, an outer column in an aggregate, rand()), and a stream in the subquery', () => {
    const refusal = (sql: string) => validateJob({
      name: 'x', source: { name: 'events', type: 'memory', options: { stream: 'x' }, schema: EVENTS },
      staticTables: [{ name: 'regions', path: '/nonexistent.json', format: 'json', schema: REGIONS }],
      sql, sink: { type: 'memory', options: { table: 'x' } },
    }).errors.map((e) => `${e.errorClass ?? ''} ${e.message}`).join('\n');
    expect(refusal('SELECT * FROM events e RIGHT JOIN LATERAL (SELECT weight FROM regions WHERE region = e.region) r ON true'))
      .toContain('[INVALID_LATERAL_JOIN_TYPE] The RIGHT OUTER JOIN with LATERAL correlation is not allowed');
    expect(refusal('SELECT * FROM events e FULL JOIN LATERAL (SELECT weight FROM regions WHERE region = e.region) r ON true')).toContain('INVALID_LATERAL_JOIN_TYPE');
    expect(refusal('SELECT * FROM events e NATURAL JOIN LATERAL (SELECT weight FROM regions WHERE region = e.region) r')).toContain('UNSUPPORTED_FEATURE.LATERAL_NATURAL_JOIN');
    expect(refusal('SELECT * FROM events e JOIN LATERAL (SELECT region FROM regions WHERE weight = e.amount) r USING (region)')).toContain('UNSUPPORTED_FEATURE.LATERAL_JOIN_USING');
    expect(refusal('SELECT * FROM events e, LATERAL (SELECT sum(e.amount) AS s FROM regions) r')).toContain('UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.CORRELATED_REFERENCE');
    expect(refusal('SELECT * FROM events e, LATERAL (SELECT weight * rand() AS w FROM regions WHERE region = e.region) r')).toContain('UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.NON_DETERMINISTIC_LATERAL_SUBQUERIES');
    expect(refusal('SELECT * FROM events e, LATERAL (SELECT x.id AS other FROM events x WHERE x.id = e.id) s')).toContain('A scalar subquery over a stream is not supported');
    // A column named as one before it repeats the name, as Spark's output does: not refused.
    expect(refusal('SELECT * FROM events e, LATERAL (SELECT region FROM regions WHERE weight = e.amount) r')).toBe(refusal('SELECT * FROM events e, LATERAL (SELECT region AS place FROM regions WHERE weight = e.amount) r'));
  });
});
