/**
 * Spark's CheckAnalysis of correlated subqueries (checkCorrelationsInSubquery), at validation:
 * a query Spark refuses is refused with Spark's error class, whichever way Weir would run (or
 * refuse) the subquery otherwise.
 */
import { describe, expect, it } from 'vitest';
import { validateJob } from '../spec/validate-job';
import type { Schema } from '../types';

const EVENTS: Schema = [
  { name: 'id', type: 'long' }, { name: 'region', type: 'string' }, { name: 'amount', type: 'long', integral: 32 },
  { name: 'attrs', type: 'map', keyType: { name: 'key', type: 'long', integral: 32, nullable: false }, valueType: { name: 'value', type: 'long', integral: 32, nullable: true } },
];
const REGIONS: Schema = [{ name: 'region', type: 'string' }, { name: 'weight', type: 'long', integral: 32 }];

/** The classes (or, without one, the messages) of the errors validation gives the query's SQL. */
const refusal = (sql: string) => validateJob({
  name: 'x', source: { name: 'events', type: 'memory', options: { stream: 'x' }, schema: EVENTS },
  staticTables: [{ name: 'regions', path: '/nonexistent.json', format: 'json', schema: REGIONS }],
  sql, sink: { type: 'memory', options: { table: 'x' } },
}).errors.filter((e) => e.path === 'sql').map((e) => e.errorClass ?? e.message);

describe('an outer reference below an OFFSET (ACCESSING_OUTER_QUERY_COLUMN_IS_NOT_ALLOWED)', () => {
  const ACCESSING = 'UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.ACCESSING_OUTER_QUERY_COLUMN_IS_NOT_ALLOWED';

  it('in EXISTS and NOT EXISTS, of any shape below the OFFSET', () => {
    expect(refusal('SELECT id FROM events e WHERE EXISTS (SELECT * FROM regions r WHERE r.region = e.region LIMIT 1 OFFSET 2)')).toEqual([ACCESSING]);
    expect(refusal('SELECT id FROM events e WHERE NOT EXISTS (SELECT max(weight) FROM regions WHERE region = e.region GROUP BY weight ORDER BY weight LIMIT 2 OFFSET 1)')).toEqual([ACCESSING]);
    expect(refusal('SELECT id FROM events e WHERE EXISTS (SELECT region FROM regions WHERE weight <> e.amount OFFSET 2)')).toEqual([ACCESSING]);
  });

  it('not a scalar or LATERAL subquery, which runs per outer row as Spark decorrelates it since SPARK-49166', () => {
    expect(refusal('SELECT id FROM events e WHERE (SELECT sum(weight) FROM regions WHERE region = e.region LIMIT 1 OFFSET 2) > 2')).toEqual([]);
    expect(refusal('SELECT e.id, r.weight FROM events e JOIN LATERAL (SELECT weight FROM regions WHERE region = e.region LIMIT 1 OFFSET 2) r')).toEqual([]);
  });

  it('not an OFFSET over no outer reference, nor one under the correlation', () => {
    expect(refusal('SELECT id FROM events e WHERE EXISTS (SELECT region FROM regions WHERE weight > 10 LIMIT 1 OFFSET 2)')).toEqual([]);
    expect(refusal('SELECT id FROM events e WHERE (SELECT max(weight) FROM (SELECT weight FROM regions ORDER BY weight LIMIT 2 OFFSET 1) r WHERE r.weight > e.amount) > 2')).toEqual([]);
  });
});

describe('a map outer reference below an aggregate (UNSUPPORTED_CORRELATED_REFERENCE_DATA_TYPE)', () => {
  const MAP_TYPE = 'UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_REFERENCE_DATA_TYPE';

  it('refused where Spark\'s decorrelation would join on the map (no equality stands for it)', () => {
    expect(refusal('SELECT id FROM events e WHERE (SELECT sum(weight) FROM regions WHERE e.attrs[weight] = 1) > 2')).toEqual([MAP_TYPE]);
    expect(refusal('SELECT id, (SELECT count(*) FROM regions WHERE weight + e.attrs[weight] > 2) AS n FROM events e')).toEqual([MAP_TYPE]);
    expect(refusal('SELECT e.id, r.n FROM events e JOIN LATERAL (SELECT count(*) AS n FROM regions WHERE e.attrs[weight] = 1) r')).toEqual([MAP_TYPE]);
  });

  it('not a map\'s value by a key of the outer row (Spark pulls it out as an outer column), nor a map with no aggregate over it', () => {
    expect(refusal('SELECT id FROM events e WHERE (SELECT sum(weight) FROM regions WHERE weight = e.amount) > 2')).toEqual([]);
    expect(refusal('SELECT id, (SELECT count(*) FROM regions WHERE weight + e.attrs[1] > 2) AS n FROM events e')).toEqual([]);
    expect(refusal('SELECT e.id, r.n FROM events e JOIN LATERAL (SELECT count(*) AS n FROM regions WHERE e.attrs[e.amount] = weight) r')).toEqual([]);
    expect(refusal('SELECT e.id, r.weight FROM events e JOIN LATERAL (SELECT weight FROM regions WHERE weight = e.attrs[1]) r')).toEqual([]);
  });
});

describe('a correlated scalar subquery in ORDER BY (UNSUPPORTED_CORRELATED_SCALAR_SUBQUERY)', () => {
  it('refused as the Sort\'s own expression; selected and sorted on by name, it runs', () => {
    const sorted = (order: string) => refusal(`SELECT e.id, q.region FROM events e CROSS JOIN (SELECT region${order}) q`);
    expect(sorted(' FROM regions r ORDER BY (SELECT max(weight) FROM regions x WHERE x.region = r.region)'))
      .toEqual(['UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_SCALAR_SUBQUERY']);
    expect(sorted(', (SELECT max(weight) FROM regions x WHERE x.region = r.region) AS top FROM regions r ORDER BY top')).toEqual([]);
    // Uncorrelated, it is a value the sort reads once.
    expect(sorted(' FROM regions r ORDER BY weight * (SELECT max(weight) FROM regions)')).toEqual([]);
  });
});
