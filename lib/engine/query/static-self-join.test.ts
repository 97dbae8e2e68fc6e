/**
 * A relation of static data joined with itself below a stream-static join: a static table or a
 * CTE over one, one side aliased or neither, as Spark joins them. Spark reads the side without
 * an alias by the relation's name, the aliased side by its alias alone; a column name both sides
 * have is ambiguous unqualified (AMBIGUOUS_REFERENCE). Weir runs such a join with its left side
 * standing in the stream's place, a stand-in the right side, the same relation, must not resolve to.
 */
import { describe, expect, it } from 'vitest';
import type { StaticTableSpec } from '../operators/stream-static-join';
import type { Row, Schema } from '../types';
import { writtenColumnName } from './column-names';
import type { StreamingRelation } from './logical-plan';
import { compileStreamingQuery } from './streaming-query';

const EVENTS: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'events', schema: [{ name: 'id', type: 'long' }, { name: 'amount', type: 'long' }] };
const USERS: Schema = [{ name: 'id', type: 'long' }, { name: 'name', type: 'string' }];
const users: StaticTableSpec = { name: 'users', type: 'file', path: 'memory:users', schema: USERS };
const USER_ROWS: Row[] = [{ id: 1, name: 'ann' }, { id: 2, name: 'bob' }];
const EVENT_ROWS: Row[] = [{ id: 1, amount: 10 }, { id: 3, amount: 30 }];

const compile = (sql: string) => compileStreamingQuery(sql, EVENTS, { staticTables: [users] });

/** The query over one batch of EVENT_ROWS, USER_ROWS the table's: its output's written names and its rows, sorted. */
async function answer(sql: string): Promise<{ names: string[]; rows: string[] }> {
  const q = compile(sql);
  let out: Row[] = EVENT_ROWS;
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0, loadStaticTable: async () => USER_ROWS });
  return { names: q.outputSchema.map((f) => writtenColumnName(f.name)), rows: out.map((r) => q.outputSchema.map((f) => String(r[f.name])).join(',')).sort() };
}

describe('a static table joined with itself', () => {
  it('reads the side without an alias by the table name, the other by its alias', async () => {
    expect(await answer('SELECT e.amount, q.* FROM events e JOIN (SELECT users.id, u2.name AS next FROM users JOIN users u2 ON users.id + 1 = u2.id) q ON e.id = q.id'))
      .toEqual({ names: ['amount', 'id', 'next'], rows: ['10,1,bob'] });
    expect(await answer('SELECT e.amount, q.* FROM events e JOIN (SELECT users.id, u2.name AS next FROM users JOIN users u2 ON users.id < u2.id) q ON e.id = q.id'))
      .toEqual({ names: ['amount', 'id', 'next'], rows: ['10,1,bob'] });
  });

  it('joins it without an alias on either side, SELECT * repeating its columns', async () => {
    expect(await answer('SELECT q.* FROM events e CROSS JOIN (SELECT * FROM users JOIN users) q WHERE e.id = 1'))
      .toEqual({ names: ['id', 'name', 'id', 'name'], rows: ['1,ann,1,ann', '1,ann,2,bob', '2,bob,1,ann', '2,bob,2,bob'] });
    expect(await answer('SELECT q.* FROM events e CROSS JOIN (SELECT * FROM users LEFT ANTI JOIN users) q WHERE e.id = 1'))
      .toEqual({ names: ['id', 'name'], rows: [] });
  });

  it('pads the right side\'s rows and the left side\'s apart in a RIGHT and a FULL join without aliases', async () => {
    const self = (join: string) => answer(`SELECT q.* FROM events e CROSS JOIN (SELECT * FROM users ${join}) q WHERE e.id = 1`);
    expect(await self('RIGHT JOIN users ON false')).toEqual({ names: ['id', 'name', 'id', 'name'], rows: ['null,null,1,ann', 'null,null,2,bob'] });
    expect(await self('FULL JOIN users ON false')).toEqual({ names: ['id', 'name', 'id', 'name'], rows: ['1,ann,null,null', '2,bob,null,null', 'null,null,1,ann', 'null,null,2,bob'] });
    expect(await self('RIGHT JOIN users')).toEqual({ names: ['id', 'name', 'id', 'name'], rows: ['1,ann,1,ann', '1,ann,2,bob', '2,bob,1,ann', '2,bob,2,bob'] });
  });

  it('refuses a column name both sides have unqualified (AMBIGUOUS_REFERENCE)', () => {
    expect(() => compile('SELECT e.amount, q.* FROM events e JOIN (SELECT name FROM users JOIN users u2 ON users.id = u2.id) q ON true'))
      .toThrow(expect.objectContaining({ errorClass: 'AMBIGUOUS_REFERENCE', message: expect.stringContaining('Reference `name` is ambiguous, could be: [`users`.`name`, `u2`.`name`]') }));
  });
});

describe('a CTE over a static table joined with itself', () => {
  const cte = 'WITH c AS (SELECT id, name FROM users) ';
  it('joins it INNER, LEFT, RIGHT and FULL, the side without an alias read by the CTE name', async () => {
    const self = (join: string) => answer(`${cte}SELECT q.* FROM events e CROSS JOIN (SELECT c.id, c.name, c2.id AS id2, c2.name AS name2 FROM c ${join} c c2 ON c.id = c2.id + 1) q WHERE e.id = 1`);
    expect(await self('JOIN')).toEqual({ names: ['id', 'name', 'id2', 'name2'], rows: ['2,bob,1,ann'] });
    expect(await self('LEFT JOIN')).toEqual({ names: ['id', 'name', 'id2', 'name2'], rows: ['1,ann,null,null', '2,bob,1,ann'] });
    expect(await self('RIGHT JOIN')).toEqual({ names: ['id', 'name', 'id2', 'name2'], rows: ['2,bob,1,ann', 'null,null,2,bob'] });
    expect(await self('FULL JOIN')).toEqual({ names: ['id', 'name', 'id2', 'name2'], rows: ['1,ann,null,null', '2,bob,1,ann', 'null,null,2,bob'] });
  });

  it('joins it as a comma join, `c, c AS c2`', async () => {
    expect(await answer(`${cte}SELECT q.* FROM events e CROSS JOIN (SELECT * FROM c, c AS c2 WHERE c.id < c2.id) q WHERE e.id = 1`))
      .toEqual({ names: ['id', 'name', 'id', 'name'], rows: ['1,ann,2,bob'] });
  });
});

describe('a RIGHT JOIN whose left side is a join of static tables', () => {
  it('reads the left side\'s columns, not the right side\'s of the same name, NULL where no left row matched', async () => {
    expect(await answer('SELECT q.* FROM events e CROSS JOIN (SELECT a.id, a.name, c.id AS cid, c.name AS cname FROM users a JOIN users b ON a.id = b.id RIGHT JOIN users c ON a.id = c.id + 1) q WHERE e.id = 1'))
      .toEqual({ names: ['id', 'name', 'cid', 'cname'], rows: ['2,bob,1,ann', 'null,null,2,bob'] });
  });
});

describe('a relation joined with itself without an alias on either side', () => {
  // Spark qualifies both sides' columns by the one name: `id` and `users.id` each mean two columns.
  const self = (item: string, join = 'JOIN users ON true') => compile(`SELECT q.* FROM events e CROSS JOIN (SELECT ${item} FROM users ${join}) q WHERE e.id = 1`);
  const ambiguous = (name: string, candidates: string) => expect.objectContaining({ errorClass: 'AMBIGUOUS_REFERENCE', message: expect.stringContaining(`Reference \`${name}\` is ambiguous, could be: [${candidates}]`) });

  it.each(['JOIN users ON true', 'JOIN users', ', users', 'LEFT JOIN users ON true', 'RIGHT JOIN users ON true', 'FULL JOIN users ON true'])('refuses a column name unqualified or qualified by the name (users %s)', (join) => {
    expect(() => self('name', join)).toThrow(ambiguous('name', '`users`.`name`, `users`.`name`'));
    expect(() => self('users.name', join)).toThrow(ambiguous('name', '`users`.`name`, `users`.`name`'));
  });

  it('expands `users.*` to both sides\' columns', async () => {
    expect(await answer('SELECT q.* FROM events e CROSS JOIN (SELECT users.* FROM users JOIN users) q WHERE e.id = 1'))
      .toEqual({ names: ['id', 'name', 'id', 'name'], rows: ['1,ann,1,ann', '1,ann,2,bob', '2,bob,1,ann', '2,bob,2,bob'] });
  });

  it('refuses a name two aliases alike qualify, and reads the name of the side the alias leaves', async () => {
    expect(() => self('u.id', 'u JOIN users u ON true')).toThrow(ambiguous('id', '`u`.`id`, `u`.`id`'));
    expect(await answer('SELECT q.* FROM events e CROSS JOIN (SELECT users.name FROM users u JOIN users ON u.id + 1 = users.id) q WHERE e.id = 1'))
      .toEqual({ names: ['name'], rows: ['bob'] });
  });

  it('refuses the name of a CTE and a subquery aliased alike', () => {
    expect(() => compile('WITH c(x) AS (SELECT id FROM users) SELECT q.* FROM events e CROSS JOIN (SELECT c.x FROM (SELECT 10) AS c(x), c) q'))
      .toThrow(ambiguous('x', '`c`.`x`, `c`.`x`'));
  });
});
