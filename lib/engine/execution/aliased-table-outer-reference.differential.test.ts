/**
 * A static table aliased inside a subquery of a streaming query (`FROM regions r2`) answers to
 * its alias only, as Spark's SubqueryAlias qualifies its columns: `regions.weight` there is the
 * column of the query around it that reads `regions` (an outer reference). Checked against DuckDB,
 * which resolves the name so too, for a correlated scalar subquery, a LATERAL subquery and the
 * EXISTS and IN that Weir plans as semi joins, beside the stream and on a join's static side.
 */
import { describe, it } from 'vitest';
import { staticJoinDifferential } from './testing/static-join-differential';

const { same } = staticJoinDifferential('aliased-outer');
const JOIN = 'FROM events e JOIN regions ON e.region = regions.region';
const LATER = 'r2.weight > regions.weight';

describe('a static table\'s name its alias hides, in a subquery of a streaming query', () => {
  it('a correlated scalar subquery beside the stream and on a join\'s static side', async () => {
    await same(`SELECT e.id, regions.weight, (SELECT count(*) FROM regions r2 WHERE regions.region = r2.region AND ${LATER}) AS c ${JOIN}`);
    await same(`SELECT e.id, d.weight, d.c FROM events e JOIN (SELECT regions.*, (SELECT count(*) FROM regions r2 WHERE regions.region = r2.region AND ${LATER}) AS c FROM regions) d ON e.region = d.region`);
  });

  it('a LATERAL subquery on a join\'s static side', async () => {
    await same(`SELECT e.id, d.weight, d.c FROM events e JOIN (SELECT * FROM regions, LATERAL (SELECT count(*) c FROM regions r2 WHERE regions.region = r2.region AND ${LATER})) d ON e.region = d.region`);
  });

  it('[NOT] EXISTS and IN as semi joins', async () => {
    await same(`SELECT e.id, regions.weight ${JOIN} WHERE EXISTS (SELECT 1 FROM regions r2 WHERE regions.region = r2.region AND ${LATER})`);
    await same(`SELECT e.id, regions.weight ${JOIN} WHERE NOT EXISTS (SELECT 1 FROM regions r2 WHERE regions.region = r2.region AND ${LATER})`);
    await same(`SELECT e.id, regions.weight ${JOIN} WHERE regions.weight IN (SELECT r2.weight - 2 FROM regions r2 WHERE regions.region = r2.region)`);
    await same('SELECT e.id, d.weight FROM events e JOIN (SELECT * FROM regions WHERE weight IN (SELECT r2.weight - 2 FROM regions r2 WHERE regions.region = r2.region)) d ON e.region = d.region');
  });
});
