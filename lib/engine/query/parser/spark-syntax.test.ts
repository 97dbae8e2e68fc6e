/**
 * Spark syntax that a PostgreSQL grammar refuses or misreads, each checked for the node it
 * becomes and the text its position covers (Spark's SQL reference and its AstBuilder).
 */
import { describe, expect, it } from 'vitest';
import { SqlValidationError } from '../sql-error';
import { parseExpression, parsePlan } from './ast-builder';
import { expressionSql } from './expression-sql';
import { simpleString } from './data-type';
import type { Expression, LogicalPlan, Position } from './unresolved-plan';

type Node<K extends string, U> = Extract<U, { kind: K }>;

/** The first select item of `SELECT <item> FROM events`, and the text a position covers. */
function item(text: string): { e: Expression; at: (p: Position) => string } {
  const sql = `SELECT ${text} FROM events`;
  const plan = parsePlan(sql);
  if (plan.kind !== 'Project') throw new Error(plan.kind);
  return { e: plan.projectList[0], at: (p) => sql.slice(p.start, p.end) };
}

/** Checks that `text` as a select item is a node matching `shape`, positioned over all of `text`. */
function expectItem(text: string, shape: object): Expression {
  const { e, at } = item(text);
  expect(e).toMatchObject(shape);
  expect(at(e.pos)).toBe(text);
  expect(e.pos).toMatchObject({ line: 1, column: 8 });
  return e;
}

const attr = (...nameParts: string[]) => ({ kind: 'UnresolvedAttribute', nameParts });
const str = (value: string) => ({ kind: 'Literal', value, dataType: { kind: 'string' } });
const int = (n: number) => ({ kind: 'Literal', value: BigInt(n), dataType: { kind: 'integer' } });
const call = (name: string, ...args: object[]) => ({ kind: 'UnresolvedFunction', nameParts: [name], arguments: args });

function syntaxError(sql: string): SqlValidationError {
  try {
    parsePlan(sql);
  } catch (e) {
    if (e instanceof SqlValidationError) return e;
    throw e;
  }
  throw new Error(`parsed: ${sql}`);
}

describe('strings and names', () => {
  it('"x" is a string literal, alone and as an argument', () => {
    expectItem('"days"', str('days'));
    const f = expectItem('format_string("Hello %s", "x")', call('format_string', str('Hello %s'), str('x')));
    const { at } = item('format_string("Hello %s", "x")');
    expect((f as Node<'UnresolvedFunction', Expression>).arguments.map((a) => at(a.pos))).toEqual(['"Hello %s"', '"x"']);
    expectItem('left("abcd", 2)', call('left', str('abcd'), int(2)));
  });

  it("Kafka's columns are names (Spark's non-reserved keywords)", () => {
    const sql = 'SELECT key, value, topic, partition, offset, timestamp, timestampType FROM events';
    const plan = parsePlan(sql) as Node<'Project', LogicalPlan>;
    expect(plan.projectList.map((e) => (e.kind === 'UnresolvedAttribute' ? e.nameParts[0] : e.kind))).toEqual(['key', 'value', 'topic', 'partition', 'offset', 'timestamp', 'timestampType']);
    expect(plan.projectList.map((e) => sql.slice(e.pos.start, e.pos.end))).toEqual(['key', 'value', 'topic', 'partition', 'offset', 'timestamp', 'timestampType']);
    expect(plan.child).toMatchObject({ kind: 'UnresolvedRelation', multipartIdentifier: ['events'] });
  });

  it('keywords of statements only (TYPE, NAME, DATA, SOURCE, START, TIME, SET, …) are names', () => {
    const sql = 'SELECT type AS name, data, s.start, set FROM source s JOIN target USING (time) WHERE location IS NOT NULL GROUP BY type, data, s.start, set';
    const plan = parsePlan(sql) as Node<'Aggregate', LogicalPlan>;
    expect(plan.aggregateExpressions).toMatchObject([{ kind: 'Alias', name: 'name', child: attr('type') }, attr('data'), attr('s', 'start'), attr('set')]);
    expect(plan.groupingExpressions).toMatchObject([attr('type'), attr('data'), attr('s', 'start'), attr('set')]);
    expect(plan.child).toMatchObject({
      kind: 'Filter', condition: { kind: 'IsNotNull', child: attr('location') },
      child: { kind: 'Join', usingColumns: ['time'], left: { kind: 'SubqueryAlias', alias: 's', child: { multipartIdentifier: ['source'] } }, right: { multipartIdentifier: ['target'] } },
    });
    const data = plan.aggregateExpressions[1];
    expect(sql.slice(data.pos.start, data.pos.end)).toBe('data');
  });

  it('SELECT, FROM and TABLE are names where a name may stand, as in Spark', () => {
    const plan = parsePlan('SELECT t.from, select, table FROM t GROUP BY table') as Node<'Aggregate', LogicalPlan>;
    expect(plan.aggregateExpressions).toMatchObject([attr('t', 'from'), attr('select'), attr('table')]);
    expect(plan.groupingExpressions).toMatchObject([attr('table')]);
    expect(parsePlan('SELECT a FROM table')).toMatchObject({ child: { kind: 'UnresolvedRelation', multipartIdentifier: ['table'] } });
  });

  it('three-part names of tables and columns', () => {
    const sql = 'SELECT cat.db.t.a FROM cat.db.t';
    const plan = parsePlan(sql) as Node<'Project', LogicalPlan>;
    expect(plan.projectList).toMatchObject([attr('cat', 'db', 't', 'a')]);
    expect(plan.child).toMatchObject({ kind: 'UnresolvedRelation', multipartIdentifier: ['cat', 'db', 't'] });
    expect(sql.slice(plan.child.pos.start, plan.child.pos.end)).toBe('cat.db.t');
  });

  it("r'…' is a raw string: the backslash stays", () => {
    expectItem(String.raw`r'a\d'`, str(String.raw`a\d`));
  });
});

describe('lambdas and LATERAL VIEW', () => {
  it('transform(a, x -> x + 1) takes a LambdaFunction, not the JSON -> operator', () => {
    const text = 'transform(a, x -> x + 1)';
    const { e, at } = item(text);
    expect(e).toMatchObject(call('transform', attr('a'), {
      kind: 'LambdaFunction',
      arguments: [{ kind: 'UnresolvedNamedLambdaVariable', nameParts: ['x'] }],
      function: { kind: 'BinaryOperator', op: 'Add', left: { kind: 'UnresolvedNamedLambdaVariable', nameParts: ['x'] }, right: int(1) },
    }));
    const lambda = (e as Node<'UnresolvedFunction', Expression>).arguments[1] as Node<'LambdaFunction', Expression>;
    expect(at(lambda.pos)).toBe('x -> x + 1');
    expect(at(lambda.arguments[0].pos)).toBe('x');
    expect(at(lambda.function.pos)).toBe('x + 1');
  });

  it('LATERAL VIEW explode(…) t AS c is a Generate', () => {
    const sql = 'SELECT c FROM events LATERAL VIEW explode(xs) t AS c';
    const plan = parsePlan(sql) as Node<'Project', LogicalPlan>;
    const generate = plan.child as Node<'Generate', LogicalPlan>;
    expect(generate).toMatchObject({ kind: 'Generate', generator: call('explode', attr('xs')), outer: false, qualifier: 't', generatorOutput: ['c'], child: { kind: 'UnresolvedRelation' } });
    expect(sql.slice(generate.pos.start, generate.pos.end)).toBe('LATERAL VIEW explode(xs) t AS c');
    expect(sql.slice(generate.generator.pos.start, generate.generator.pos.end)).toBe('explode(xs)');
  });
});

describe('literals, typed as Spark types them', () => {
  const literal = (text: string) => {
    const { e } = item(text);
    expect(e.kind).toBe('Literal');
    const l = e as Node<'Literal', Expression>;
    expectItem(text, { kind: 'Literal' });
    return [l.value, simpleString(l.dataType)];
  };

  it("X'1F' is a binary", () => {
    expect(literal("X'1F'")).toEqual([new Uint8Array([0x1f]), 'binary']);
  });

  it('number suffixes: Y, S, L, D, F, BD', () => {
    expect(literal('1Y')).toEqual([1n, 'tinyint']);
    expect(literal('1S')).toEqual([1n, 'smallint']);
    expect(literal('1L')).toEqual([1n, 'bigint']);
    expect(literal('1D')).toEqual([1, 'double']);
    expect(literal('1F')).toEqual([1, 'float']);
    expect(literal('1BD')).toEqual([{ unscaled: 1n, scale: 0 }, 'decimal(1,0)']);
    expect(literal('1.50BD')).toEqual([{ unscaled: 150n, scale: 2 }, 'decimal(3,2)']);
  });

  it("DATE '…', TIMESTAMP '…', TIMESTAMP_NTZ '…', INTERVAL '…'", () => {
    expect(literal("DATE '2024-01-02'")).toEqual([19724, 'date']);
    expect(literal("TIMESTAMP '2024-01-02 03:04:05'")).toEqual(['2024-01-02 03:04:05', 'timestamp']);
    expect(literal("TIMESTAMP_NTZ '2024-01-02 03:04:05'")).toEqual(['2024-01-02 03:04:05', 'timestamp_ntz']);
    expect(literal("INTERVAL '2' DAY")).toEqual([2n * 86_400_000_000n, 'interval day']);
    expect(literal("INTERVAL '1-2' YEAR TO MONTH")).toEqual([14, 'interval year to month']);
    expect(literal('INTERVAL 5 MINUTES')).toEqual([300_000_000n, 'interval minute']);
  });
});

describe('casts', () => {
  it('CAST(x AS ARRAY<INT>)', () => {
    expectItem('CAST(x AS ARRAY<INT>)', { kind: 'Cast', child: attr('x'), dataType: { kind: 'array', elementType: { kind: 'integer' } }, evalMode: 'LEGACY' });
  });

  it('x :: long, and chained x::string::int', () => {
    expectItem('x :: long', { kind: 'Cast', child: attr('x'), dataType: { kind: 'long' } });
    const { e, at } = item('x::string::int');
    expect(e).toMatchObject({ kind: 'Cast', dataType: { kind: 'integer' }, child: { kind: 'Cast', dataType: { kind: 'string' }, child: attr('x') } });
    expect(at(e.pos)).toBe('x::string::int');
    expect(at((e as Node<'Cast', Expression>).child.pos)).toBe('x::string');
  });
});

describe("Spark 4's variant path", () => {
  const path = (child: object, field: string) => ({ kind: 'SemiStructuredExtract', child, field });

  it('v:a.b[0] is the JSON path $.a.b[0] of the primary expression before it, blanks dropped', () => {
    expectItem('v:a.b[0]', path(attr('v'), '$.a.b[0]'));
    expectItem("v : ['a b'] [\"c\"] [*]", path(attr('v'), "$['a b'][\"c\"][*]"));
    expectItem('t.v:`x`.from[i]', path(attr('t', 'v'), '$.`x`.from[i]'));
    expectItem('f(x):a', path(call('f', attr('x')), '$.a'));
    expectItem('NULL:a', path({ kind: 'Literal', value: null }, '$.a'));
  });

  it('binds as a postfix: ::type casts the value, unary minus and + take it whole', () => {
    const { e, at } = item('v:a.b::int');
    expect(e).toMatchObject({ kind: 'Cast', dataType: { kind: 'integer' }, child: path(attr('v'), '$.a.b') });
    expect(at((e as Node<'Cast', Expression>).child.pos)).toBe('v:a.b');
    expectItem('-v:a + 1', { kind: 'BinaryOperator', op: 'Add', left: { kind: 'UnaryMinus', child: path(attr('v'), '$.a') } });
    // A subscript past what a path reads is a subscript of the extracted value.
    expectItem('v:a[1 + 1]', { kind: 'UnresolvedExtractValue', child: path(attr('v'), '$.a') });
  });

  it('leaves the colons of types, casts and strings alone', () => {
    expectItem('CAST(x AS STRUCT<a: INT, b: ARRAY<STRUCT<c: STRING>>>)', { kind: 'Cast', dataType: { kind: 'struct' } });
    expectItem('x::map<string, struct<a:int>>', { kind: 'Cast', child: attr('x'), dataType: { kind: 'map' } });
    expectItem("'{\"a\": 1}'", str('{"a": 1}'));
    expect(expressionSql(parseExpression('v:a.b[0]::int'))).toBe('CAST(v:a.b[0] AS INT)');
  });

  it("refuses a colon after no expression, or after a string (Spark 4.1's parameter marker), at the colon", () => {
    expect(syntaxError('SELECT :a FROM t').message).toContain("[PARSE_SYNTAX_ERROR] Syntax error at or near ':'.");
    expect(syntaxError("SELECT 'str':col FROM t")).toMatchObject({ column: 13 });
    expect(syntaxError('SELECT (v:) FROM t').errorClass).toBe('PARSE_SYNTAX_ERROR');
  });
});

describe('aggregation', () => {
  it('GROUP BY 1 keeps the ordinal as a literal (the analyzer resolves it)', () => {
    const sql = 'SELECT a, count(*) FROM events GROUP BY 1';
    const plan = parsePlan(sql) as Node<'Aggregate', LogicalPlan>;
    expect(plan.groupingExpressions).toMatchObject([int(1)]);
    expect(sql.slice(plan.groupingExpressions[0].pos.start, plan.groupingExpressions[0].pos.end)).toBe('1');
  });

  it('count(*) FILTER (WHERE …)', () => {
    const { e, at } = item('count(*) FILTER (WHERE a > 1)');
    expect(e).toMatchObject({ ...call('count', int(1)), isDistinct: false, filter: { kind: 'BinaryOperator', op: 'GreaterThan', left: attr('a'), right: int(1) } });
    expect(at(e.pos)).toBe('count(*) FILTER (WHERE a > 1)');
    expect(at((e as Node<'UnresolvedFunction', Expression>).filter!.pos)).toBe('a > 1');
  });

  it('any(v) is a call, not ANY (subquery)', () => {
    expectItem('any(v)', call('any', attr('v')));
  });

  it("window.start and GROUP BY window(ts, '10 minutes')", () => {
    expectItem('window.start', attr('window', 'start'));
    const sql = "SELECT window, count(*) FROM events GROUP BY window(ts, '10 minutes')";
    const plan = parsePlan(sql) as Node<'Aggregate', LogicalPlan>;
    const key = plan.groupingExpressions[0];
    expect(key).toMatchObject(call('window', attr('ts'), str('10 minutes')));
    expect(sql.slice(key.pos.start, key.pos.end)).toBe("window(ts, '10 minutes')");
    expect(plan.aggregateExpressions[0]).toMatchObject(attr('window'));
  });
});

describe("Spark 4's WITHIN GROUP and * EXCEPT", () => {
  const sortOrder = (child: object, direction = 'Ascending') => ({ kind: 'SortOrder', child, direction });

  it('f(…) WITHIN GROUP (ORDER BY …) after any call, before its FILTER, IGNORE NULLS and OVER', () => {
    expectItem('mode() WITHIN GROUP (ORDER BY x DESC)', { ...call('mode'), orderingWithinGroup: [sortOrder(attr('x'), 'Descending')] });
    expectItem('percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FILTER (WHERE y > 1)', {
      kind: 'UnresolvedFunction', nameParts: ['percentile_cont'], orderingWithinGroup: [sortOrder(attr('x'))], filter: { kind: 'BinaryOperator', op: 'GreaterThan' },
    });
    expectItem('f(DISTINCT a, b) WITHIN GROUP (ORDER BY c, d + 1 DESC NULLS FIRST) OVER (PARTITION BY e)', {
      kind: 'UnresolvedWindowExpression', partitionSpec: [attr('e')],
      child: { kind: 'UnresolvedFunction', nameParts: ['f'], isDistinct: true, orderingWithinGroup: [sortOrder(attr('c')), { ...sortOrder({ kind: 'BinaryOperator', op: 'Add' }, 'Descending'), nullOrdering: 'NullsFirst' }] },
    });
    expectItem('first(a) WITHIN GROUP (ORDER BY b) IGNORE NULLS OVER w', { kind: 'UnresolvedWindowExpression', windowName: 'w', child: { nameParts: ['first'], ignoreNulls: true, orderingWithinGroup: [sortOrder(attr('b'))] } });
    // Inside another call's arguments and ordering, and cast after it.
    expectItem('g(mode() WITHIN GROUP (ORDER BY x)) WITHIN GROUP (ORDER BY h(y) WITHIN GROUP (ORDER BY z))', {
      nameParts: ['g'], arguments: [{ nameParts: ['mode'], orderingWithinGroup: [sortOrder(attr('x'))] }],
      orderingWithinGroup: [sortOrder({ nameParts: ['h'], orderingWithinGroup: [sortOrder(attr('z'))] })],
    });
    expectItem('mode() WITHIN GROUP (ORDER BY x)::string', { kind: 'Cast', child: { nameParts: ['mode'], orderingWithinGroup: [sortOrder(attr('x'))] } });
  });

  it('WITHIN GROUP after anything but a call, or without ORDER BY, is a syntax error at its text', () => {
    for (const [sql, near, column] of [
      ['SELECT (a) WITHIN GROUP (ORDER BY b) FROM t', 'WITHIN', 12],
      ['SELECT f(a) WITHIN GROUP (ORDER BY) FROM t', ')', 35],
      ['SELECT f(a) WITHIN GROUP (ORDER BY b ROWS 1 PRECEDING) FROM t', 'ROWS', 38],
    ] as const) {
      let error: unknown;
      try {
        parsePlan(sql);
      } catch (e) {
        error = e;
      }
      expect(error, sql).toBeInstanceOf(SqlValidationError);
      expect((error as SqlValidationError).message, sql).toMatch(new RegExp(`^\\[PARSE_SYNTAX_ERROR\\] Syntax error at or near '?${near.replace(/[()]/g, '\\$&')}'?\\.`));
      expect((error as SqlValidationError).column, sql).toBe(column);
    }
  });

  it('* EXCEPT (a, b.c), t.* EXCEPT (…), s.inner.* EXCEPT (…), as a select item and an argument', () => {
    expectItem('* EXCEPT (a, b.c)', { kind: 'UnresolvedStar', except: [['a'], ['b', 'c']] });
    expectItem('t.* EXCEPT (`a-b`)', { kind: 'UnresolvedStar', target: ['t'], except: [['a-b']] });
    expectItem('s.inner.* EXCEPT (f)', { kind: 'UnresolvedStar', target: ['s', 'inner'], except: [['f']] });
    expectItem('coalesce(* EXCEPT (a))', call('coalesce', { kind: 'UnresolvedStar', except: [['a']] }));
    expect(expressionSql(item('* EXCEPT (a, b.c)').e)).toBe('* EXCEPT (a, b.c)');
    // EXCEPT the set operation stays one.
    expect(parsePlan('SELECT * FROM t EXCEPT (SELECT * FROM u)')).toMatchObject({ kind: 'Except' });
  });
});

describe("Spark's keyword forms of functions", () => {
  it('substr(s FROM 2), substring(s FROM 2 FOR 3)', () => {
    expectItem('substr(s FROM 2)', call('substr', attr('s'), int(2)));
    expectItem('substring(s FROM 2 FOR 3)', call('substring', attr('s'), int(2), int(3)));
  });

  it('EXTRACT(SECONDS FROM ts)', () => {
    expectItem('EXTRACT(SECONDS FROM ts)', call('extract', str('SECONDS'), attr('ts')));
  });

  it('overlay(s PLACING r FROM p FOR n)', () => {
    expectItem('overlay(s PLACING r FROM p FOR n)', call('overlay', attr('s'), attr('r'), attr('p'), attr('n')));
  });

  it("trim(BOTH 'x' FROM s) is btrim(s, 'x'), as Spark's visitTrim", () => {
    expectItem("trim(BOTH 'x' FROM s)", call('btrim', attr('s'), str('x')));
  });

  it("position('a' IN s)", () => {
    expectItem("position('a' IN s)", call('position', str('a'), attr('s')));
  });
});

describe('named function arguments', () => {
  it("name => value is Spark 3.5's NamedArgumentExpression, after or among the positional ones", () => {
    expectItem("mask(s, upperChar => 'Y', `digitChar` => 'd')", call('mask', attr('s'), { kind: 'NamedArgumentExpression', key: 'upperChar', value: str('Y') }, { kind: 'NamedArgumentExpression', key: 'digitChar', value: str('d') }));
    expectItem("mask(lowerChar => 'q', 'x')", call('mask', { kind: 'NamedArgumentExpression', key: 'lowerChar', value: str('q') }, str('x')));
    expect(expressionSql(parseExpression("mask(s, upperChar => 'Y')"))).toBe("mask(s, upperChar => 'Y')");
  });
});

describe('field access on any expression', () => {
  it("from_json(s, 'a INT').a and named_struct('a', 1).a", () => {
    const { e, at } = item("from_json(s, 'a INT').a");
    expect(e).toMatchObject({ kind: 'UnresolvedExtractValue', child: call('from_json', attr('s'), str('a INT')), extraction: str('a') });
    expect(at(e.pos)).toBe("from_json(s, 'a INT').a");
    expect(at((e as Node<'UnresolvedExtractValue', Expression>).extraction.pos)).toBe('a');
    expectItem("named_struct('a', 1).a", { kind: 'UnresolvedExtractValue', child: call('named_struct', str('a'), int(1)), extraction: str('a') });
  });

  it('arr[0].b', () => {
    const { e, at } = item('arr[0].b');
    expect(e).toMatchObject({ kind: 'UnresolvedExtractValue', child: { kind: 'UnresolvedExtractValue', child: attr('arr'), extraction: int(0) }, extraction: str('b') });
    expect(at(e.pos)).toBe('arr[0].b');
    expect(at((e as Node<'UnresolvedExtractValue', Expression>).child.pos)).toBe('arr[0]');
  });
});

describe('predicates', () => {
  it("a RLIKE 'x'", () => {
    expectItem("a RLIKE 'x'", { kind: 'RLike', left: attr('a'), right: str('x') });
  });

  it('NOT a LIKE b is NOT (a LIKE b)', () => {
    const e = expectItem('NOT a LIKE b', { kind: 'Not', child: { kind: 'Like', left: attr('a'), right: attr('b'), escapeChar: '\\', caseInsensitive: false } });
    const { at } = item('NOT a LIKE b');
    expect(at((e as Node<'Not', Expression>).child.pos)).toBe('a LIKE b');
  });

  it('a IS DISTINCT FROM b is NOT (a <=> b); a <=> b', () => {
    expectItem('a IS DISTINCT FROM b', { kind: 'Not', child: { kind: 'BinaryOperator', op: 'EqualNullSafe', left: attr('a'), right: attr('b') } });
    expectItem('a <=> b', { kind: 'BinaryOperator', op: 'EqualNullSafe', left: attr('a'), right: attr('b') });
  });
});

describe('syntax errors', () => {
  it("name the token, as Spark's do", () => {
    const e = syntaxError('SELECT name\n  FROM events\n  WHERE id = 1 user');
    expect(e.message).toBe("[PARSE_SYNTAX_ERROR] Syntax error at or near 'user'. (line 3, column 16)");
    expect(e.errorClass).toBe('PARSE_SYNTAX_ERROR');
    expect([e.line, e.column]).toEqual([3, 16]);
  });

  // Spark's grammar (3.5 to 4.1) takes ANY, SOME and ALL only after LIKE and ILIKE: a quantified
  // comparison with a subquery is no Spark SQL, and `ANY (…)` reads as a call of the aggregate
  // any(), whose argument list a query cannot be.
  it('x op ANY | SOME | ALL (SELECT …) is a syntax error, as in Spark', () => {
    for (const where of ['a1 > ANY (SELECT b1 FROM b)', 'a1 <> SOME (SELECT b1 FROM b)', 'a1 >= ALL (SELECT b1 FROM b)', 'NOT (a1 = ANY (SELECT b1 FROM b))', '(a1, a2) = ANY (SELECT b1, b2 FROM b)']) {
      expect(syntaxError(`SELECT * FROM a WHERE ${where}`).errorClass, where).toBe('PARSE_SYNTAX_ERROR');
    }
    expectItem('a1 = ANY ((SELECT 1))', { kind: 'BinaryOperator', op: 'EqualTo', left: attr('a1'), right: call('ANY', { kind: 'ScalarSubquery' }) });
  });
});
