import { TerminalNode } from 'antlr4ng';
import { describe, expect, it } from 'vitest';
import { SqlValidationError } from '../sql-error';
import { parseExpression, parsePlan } from './ast-builder';
import { ExpressionAstBuilder } from './expression-ast-builder';
import { expressionSql } from './expression-sql';
import { parseSpark, SparkSqlParser } from './spark-parser';
import { treeString } from './tree-string';
import type { Expression, LogicalPlan } from './unresolved-plan';

const tree = (sql: string) => treeString(parsePlan(sql));
/** The select list of a one-table query, Catalyst style. */
const items = (list: string) => {
  const p = parsePlan(`SELECT ${list} FROM t`);
  if (p.kind !== 'Project') throw new Error(p.kind);
  return p.projectList.map((e) => expressionSql(e, { catalyst: true }));
};
const expr = (sql: string) => expressionSql(parseExpression(sql), { catalyst: true });

function parseError(sql: string): SqlValidationError {
  try {
    parsePlan(sql);
  } catch (e) {
    if (e instanceof SqlValidationError) return e;
    throw e;
  }
  throw new Error(`parsed: ${sql}`);
}

describe('Spark syntax that the PostgreSQL grammar misreads or refuses', () => {
  it('reads "x" as a string literal, in calls and as a whole select item', () => {
    expect(items('"days", format_string("Hello %s", "x"), left("abcd", 2)')).toEqual(["'days'", "'format_string('Hello %s', 'x')", "'left('abcd', 2)"]);
    expect(expr('a = "x"')).toBe("'a = 'x'");
  });

  it("takes Spark's non-reserved keywords as column names (Kafka's columns and others)", () => {
    expect(tree('SELECT key, value, topic, partition, offset, timestamp, timestampType, window, date, year FROM events')).toBe(
      "'Project ['key, 'value, 'topic, 'partition, 'offset, 'timestamp, 'timestampType, 'window, 'date, 'year]\n+- 'UnresolvedRelation [events]",
    );
  });

  it('reads a call as a call, not as a column with an alias list', () => {
    // The grammar's completion rule reads `upper(name)` as the column upper AS (name).
    expect(items('upper(name), any(v), f(a-b), g(a) AS x')).toEqual(["'upper('name)", "'any('v)", "'f('a - 'b)", "'g('a) AS x"]);
  });

  it('reads a-b as a subtraction, with its precedence, and NOT j as a negation', () => {
    expect(items('a-b, a-b-c.d, NOT j, b bb')).toEqual(["'a - 'b", "'a - 'b - 'c.d", "NOT 'j", "'b AS bb"]);
    // The grammar's error-capturing names read `a - b * c` as `(a - b) * c`.
    const e = parseExpression('a - b * c');
    expect(e).toMatchObject({ op: 'Subtract', left: { nameParts: ['a'] }, right: { op: 'Multiply' } });
  });

  it('reads lambdas, with their variables', () => {
    const e = parseExpression('transform(a, x -> x + 1)');
    expect(expressionSql(e, { catalyst: true })).toBe("'transform('a, x -> 'x + 1)");
    const lambda = (e as Extract<Expression, { kind: 'UnresolvedFunction' }>).arguments[1];
    expect(lambda).toMatchObject({ kind: 'LambdaFunction', arguments: [{ nameParts: ['x'] }], function: { left: { kind: 'UnresolvedNamedLambdaVariable', nameParts: ['x'] } } });
    expect(expr('zip_with(a, b, (x, y) -> x + y + z)')).toBe("'zip_with('a, 'b, (x, y) -> 'x + 'y + 'z)");
  });

  it('reads x :: type and chained casts as CAST', () => {
    expect(items('x :: long, x::int::string, y::array<int>, z::decimal(10,2), -x::int')).toEqual([
      "CAST('x AS BIGINT)", "CAST(CAST('x AS INT) AS STRING)", "CAST('y AS ARRAY<INT>)", "CAST('z AS DECIMAL(10,2))", "-CAST('x AS INT)",
    ]);
  });

  it("reads CAST to Spark's complex types", () => {
    expect(items('CAST(x AS ARRAY<INT>), CAST(x AS DECIMAL(10,2)), CAST(x AS MAP<STRING,INT>), CAST(x AS STRUCT<a: INT, b: STRING>), TRY_CAST(x AS LONG)')).toEqual([
      "CAST('x AS ARRAY<INT>)", "CAST('x AS DECIMAL(10,2))", "CAST('x AS MAP<STRING, INT>)", "CAST('x AS STRUCT<a: INT, b: STRING>)", "TRY_CAST('x AS BIGINT)",
    ]);
  });

  it('reads the FROM-first form as the SELECT it stands for, its clauses and ORDER BY/LIMIT too', () => {
    expect(tree('FROM (SELECT * FROM t WHERE k = 1) AS s SELECT *')).toBe(tree('SELECT * FROM (SELECT * FROM t WHERE k = 1) AS s'));
    expect(tree('FROM t SELECT a, count(*) WHERE b > 1 GROUP BY a HAVING count(*) > 2 ORDER BY a LIMIT 3')).toBe(tree('SELECT a, count(*) FROM t WHERE b > 1 GROUP BY a HAVING count(*) > 2 ORDER BY a LIMIT 3'));
  });

  it('reads aggregate forms: count(*), FILTER, DISTINCT over several columns, GROUP BY ordinal', () => {
    expect(tree('SELECT count(*) FILTER (WHERE a > 1), count(DISTINCT a, b), any(v), substr(s FROM 2) FROM t GROUP BY 1')).toBe(
      "'Aggregate [1], ['count(1) FILTER (WHERE 'a > 1), 'count(DISTINCT 'a, 'b), 'any('v), 'substr('s, 2)]\n+- 'UnresolvedRelation [t]",
    );
  });

  it('reads field access on any expression, subscripts and window.start', () => {
    expect(items("from_json(s, 'a INT').a, named_struct('a', 1).a, arr[0], m['k'], window.start, parsed.id, a.b.c")).toEqual([
      "'from_json('s, 'a INT')['a']", "'named_struct('a', 1)['a']", "'arr[0]", "'m['k']", "'window.start", "'parsed.id", "'a.b.c",
    ]);
  });

  it('gives AND precedence over OR after IN', () => {
    const p = parsePlan('SELECT * FROM t WHERE a = 1 AND b IN (1) OR c = 2') as Extract<LogicalPlan, { kind: 'Project' }>;
    const filter = p.child as Extract<LogicalPlan, { kind: 'Filter' }>;
    expect(filter.condition).toMatchObject({ op: 'Or', left: { op: 'And', right: { kind: 'In' } }, right: { op: 'EqualTo' } });
  });

  it('reads backquoted identifiers', () => {
    expect(items('`my col` AS c, `a``b`, t.`x y`')).toEqual(["'`my col` AS c", "'`a``b`", "'t.`x y`"]);
  });
});

describe('query shapes of docs/sql.md', () => {
  it('projection with WHERE, t.*, aliases with and without AS', () => {
    expect(tree('SELECT s.*, a AS x, b bb FROM src s WHERE a IS NOT NULL')).toBe([
      "'Project [s.*, 'a AS x, 'b AS bb]",
      "+- 'Filter 'a IS NOT NULL",
      "   +- 'SubqueryAlias s",
      "      +- 'UnresolvedRelation [src]",
    ].join('\n'));
  });

  it('CTEs reading earlier CTEs, subqueries in FROM and UNION ALL', () => {
    expect(tree('WITH a AS (SELECT * FROM src), b AS (SELECT x FROM a) SELECT * FROM (SELECT * FROM b) s UNION ALL SELECT 1 UNION ALL SELECT 2')).toBe([
      "'UnresolvedWith [a, b]",
      ":- 'SubqueryAlias a",
      ":  +- 'Project [*]",
      ":     +- 'UnresolvedRelation [src]",
      ":- 'SubqueryAlias b",
      ":  +- 'Project ['x]",
      ":     +- 'UnresolvedRelation [a]",
      "+- 'Union",
      "   :- 'Project [*]",
      "   :  +- 'SubqueryAlias s",
      "   :     +- 'Project [*]",
      "   :        +- 'UnresolvedRelation [b]",
      "   :- 'Project [1]",
      "   :  +- OneRowRelation",
      "   +- 'Project [2]",
      "      +- OneRowRelation",
    ].join('\n'));
    expect(tree('SELECT a FROM t UNION SELECT a FROM u')).toBe("'Distinct\n+- 'Union\n   :- 'Project ['a]\n   :  +- 'UnresolvedRelation [t]\n   +- 'Project ['a]\n      +- 'UnresolvedRelation [u]");
  });

  it('GROUP BY with HAVING, DISTINCT, ORDER BY and LIMIT', () => {
    expect(tree('SELECT region, count(*) AS n FROM src GROUP BY region HAVING count(*) > 1 ORDER BY n DESC LIMIT 10')).toBe([
      "'Limit 10",
      "+- 'Sort ['n DESC NULLS LAST], true",
      "   +- 'UnresolvedHaving 'count(1) > 1",
      "      +- 'Aggregate ['region], ['region, 'count(1) AS n]",
      "         +- 'UnresolvedRelation [src]",
    ].join('\n'));
    expect(tree('SELECT DISTINCT a FROM src')).toBe("'Distinct\n+- 'Project ['a]\n   +- 'UnresolvedRelation [src]");
  });

  it('GROUP BY window(…) keys', () => {
    expect(tree("SELECT window(ts, '10 minutes', '5 minutes') AS w, count(*) FROM src GROUP BY window(ts, '10 minutes', '5 minutes')")).toBe(
      "'Aggregate ['window('ts, '10 minutes', '5 minutes')], ['window('ts, '10 minutes', '5 minutes') AS w, 'count(1)]\n+- 'UnresolvedRelation [src]",
    );
  });

  it('joins: ON, USING, LEFT, and LATERAL VIEW', () => {
    expect(tree('SELECT a FROM src s JOIN dim d ON s.k = d.k LEFT JOIN v USING (k) LATERAL VIEW OUTER explode(xs) e AS x')).toBe([
      "'Project ['a]",
      "+- 'Generate 'explode('xs), true, e, ['x]",
      "   +- 'Join UsingJoin(LeftOuter, [k])",
      "      :- 'Join Inner, 's.k = 'd.k",
      "      :  :- 'SubqueryAlias s",
      "      :  :  +- 'UnresolvedRelation [src]",
      "      :  +- 'SubqueryAlias d",
      "      :     +- 'UnresolvedRelation [dim]",
      "      +- 'UnresolvedRelation [v]",
    ].join('\n'));
  });

  it('LATERAL VIEW explode(…) AS c: the table is named AS (a name, ANSI off) and c is its column, as Spark reads it', () => {
    expect(tree('SELECT c FROM src LATERAL VIEW explode(xs) AS c')).toBe("'Project ['c]\n+- 'Generate 'explode('xs), false, AS, ['c]\n   +- 'UnresolvedRelation [src]");
    expect(tree('SELECT c FROM src LATERAL VIEW explode(xs) t AS c')).toBe("'Project ['c]\n+- 'Generate 'explode('xs), false, t, ['c]\n   +- 'UnresolvedRelation [src]");
  });

  it("generators in the select list and Spark's word count", () => {
    expect(items("json_tuple(v, 'k1', 'k2'), explode(xs), posexplode_outer(m), explode(xs) AS (p, c)")).toEqual([
      "'json_tuple('v, 'k1', 'k2')", "'explode('xs)", "'posexplode_outer('m)", "'explode('xs) AS (p, c)",
    ]);
    expect(tree("SELECT word, count(*) AS count FROM (SELECT explode(split(line, ' ')) AS word FROM lines) GROUP BY word")).toBe([
      "'Aggregate ['word], ['word, 'count(1) AS count]",
      "+- 'Project ['explode('split('line, ' ')) AS word]",
      "   +- 'UnresolvedRelation [lines]",
    ].join('\n'));
  });

  it('the Kafka shape reading JSON values', () => {
    expect(tree(`WITH orders AS (
  SELECT from_json(CAST(value AS STRING), 'id BIGINT, region STRING, ts TIMESTAMP') AS o FROM kafka
)
SELECT o.region, window(o.ts, '1 minute') AS w, count(*) AS n
FROM orders GROUP BY o.region, window(o.ts, '1 minute')`)).toBe([
      "'UnresolvedWith [orders]",
      ":- 'SubqueryAlias orders",
      ":  +- 'Project ['from_json(CAST('value AS STRING), 'id BIGINT, region STRING, ts TIMESTAMP') AS o]",
      ":     +- 'UnresolvedRelation [kafka]",
      "+- 'Aggregate ['o.region, 'window('o.ts, '1 minute')], ['o.region, 'window('o.ts, '1 minute') AS w, 'count(1) AS n]",
      "   +- 'UnresolvedRelation [orders]",
    ].join('\n'));
  });

  it("Spark's keyword forms of functions", () => {
    expect(items("EXTRACT(SECONDS FROM ts), overlay(s PLACING r FROM 2 FOR 3), trim(BOTH 'x' FROM s), trim(LEADING FROM s), position('a' IN s), substring(s, 1, 2)")).toEqual([
      "'extract('SECONDS', 'ts)", "'overlay('s, 'r, 2, 3)", "'btrim('s, 'x')", "'ltrim('s)", "'position('a', 's)", "'substring('s, 1, 2)",
    ]);
  });

  it('operators and predicates', () => {
    expect(items("a LIKE 'a%' ESCAPE '!', b NOT ILIKE 'x', c RLIKE 'd+', c REGEXP 'e', e NOT BETWEEN 1 AND 2, f NOT IN (1, 2), g IS TRUE, h IS DISTINCT FROM i, -k, ~l, m DIV 2, n || o, p <=> q, r != s, r <> s, r == s")).toEqual([
      "'a LIKE 'a%' ESCAPE '!'", "NOT 'b ILIKE 'x'", "'c RLIKE 'd+'", "'c RLIKE 'e'", "NOT 'e BETWEEN 1 AND 2", "NOT 'f IN (1, 2)", "'g <=> TRUE",
      "NOT 'h <=> 'i", "-'k", "~'l", "'m DIV 2", "'n || 'o", "'p <=> 'q", "NOT 'r = 's", "NOT 'r = 's", "'r = 's",
    ]);
    expect(items("CASE WHEN a THEN 1 ELSE 2 END, CASE a WHEN 1 THEN 'x' END, d + 1")).toEqual(["CASE WHEN 'a THEN 1 ELSE 2 END", "CASE WHEN 'a = 1 THEN 'x' END", "'d + 1"]);
  });

  it('keeps OVER and subqueries for the analyzer to judge', () => {
    expect(items('row_number() OVER (PARTITION BY a ORDER BY b) AS rn')).toEqual(["'row_number() OVER (PARTITION BY 'a ORDER BY 'b ASC NULLS FIRST) AS rn"]);
    const p = parsePlan('SELECT a FROM t WHERE x IN (SELECT y FROM u) AND EXISTS (SELECT 1 FROM u)') as Extract<LogicalPlan, { kind: 'Project' }>;
    expect((p.child as Extract<LogicalPlan, { kind: 'Filter' }>).condition).toMatchObject({
      op: 'And', left: { kind: 'InSubquery', query: { kind: 'Project' } }, right: { kind: 'Exists', plan: { kind: 'Project' } },
    });
  });
});

describe("Spark's query result clauses, PIVOT and UNPIVOT", () => {
  it('DISTRIBUTE BY, SORT BY and CLUSTER BY as AstBuilder.withQueryResultClauses builds them', () => {
    expect(tree('SELECT a FROM t DISTRIBUTE BY a, b')).toBe("'RepartitionByExpression ['a, 'b]\n+- 'Project ['a]\n   +- 'UnresolvedRelation [t]");
    expect(tree('SELECT a FROM t DISTRIBUTE BY a SORT BY b DESC')).toBe("'Sort ['b DESC NULLS LAST], false\n+- 'RepartitionByExpression ['a]\n   +- 'Project ['a]\n      +- 'UnresolvedRelation [t]");
    expect(tree('SELECT a FROM t SORT BY a')).toBe("'Sort ['a ASC NULLS FIRST], false\n+- 'Project ['a]\n   +- 'UnresolvedRelation [t]");
    expect(tree('SELECT a FROM t CLUSTER BY a')).toBe("'Sort ['a ASC NULLS FIRST], false\n+- 'RepartitionByExpression ['a]\n   +- 'Project ['a]\n      +- 'UnresolvedRelation [t]");
    expect(parseError('SELECT a FROM t CLUSTER BY a SORT BY a').errorClass).toBe('_LEGACY_ERROR_TEMP_0011');
  });

  it("the WINDOW clause's definitions put in place of their names", () => {
    const p = parsePlan('SELECT sum(x) OVER w2, max(x) OVER v FROM t WINDOW w1 AS (PARTITION BY a ORDER BY b), w2 AS w1');
    const [w2, v] = (p as Extract<LogicalPlan, { kind: 'Project' }>).projectList as Extract<Expression, { kind: 'UnresolvedWindowExpression' }>[];
    expect([w2.windowName, w2.definition, w2.partitionSpec.map((e) => expressionSql(e)), w2.orderSpec.length]).toEqual([undefined, '(PARTITION BY a ORDER BY b)', ['a'], 1]);
    expect(v.windowName).toBe('v');
    expect(parseError('SELECT a FROM t WINDOW w AS (PARTITION BY a), w AS (PARTITION BY b)').errorClass).toBe('INVALID_SQL_SYNTAX.REPETITIVE_WINDOW_DEFINITION');
  });

  it('PIVOT and UNPIVOT after a relation, in FROM or after a join', () => {
    expect(tree("SELECT * FROM t PIVOT (sum(x) AS s, max(y) FOR c IN ('a' AS a1, 'b'))")).toBe(
      "'Project [*]\n+- 'Pivot 'c, ['a' AS a1, 'b'], ['sum('x) AS s, 'max('y)]\n   +- 'UnresolvedRelation [t]");
    expect(tree('SELECT * FROM t UNPIVOT INCLUDE NULLS ((v1, v2) FOR n IN ((a, b) AS x, (c, d))) AS u')).toBe(
      "'Project [*]\n+- 'SubqueryAlias u\n   +- 'Unpivot [['a, 'b] AS x, ['c, 'd]], n, [v1, v2]\n      +- 'UnresolvedRelation [t]");
    expect(tree('SELECT * FROM t JOIN s ON t.k = s.k UNPIVOT (v FOR n IN (a, b))')).toMatch(/^'Project \[\*\]\n\+- 'Unpivot \[\['a\], \['b\]\], n, \[v\]\n {3}\+- 'Join Inner/);
    expect(parseError("SELECT * FROM t PIVOT (sum(x) FOR c IN ('a')) UNPIVOT (v FOR n IN (a))").errorClass).toBe('NOT_ALLOWED_IN_FROM.UNPIVOT_WITH_PIVOT');
  });
});

describe('positions', () => {
  it('every node points at its text, with line and column', () => {
    const sql = 'SELECT a,\n  upper(name) AS n\nFROM t\nWHERE x :: long > 1';
    const p = parsePlan(sql) as Extract<LogicalPlan, { kind: 'Project' }>;
    const text = (pos: { start: number; end: number }) => sql.slice(pos.start, pos.end);
    const [a, alias] = p.projectList;
    expect(a.pos).toEqual({ start: 7, end: 8, line: 1, column: 8 });
    expect(alias.pos).toMatchObject({ line: 2, column: 3 });
    expect(text(alias.pos)).toBe('upper(name) AS n');
    const call = (alias as Extract<Expression, { kind: 'Alias' }>).child;
    expect(text(call.pos)).toBe('upper(name)');
    const filter = p.child as Extract<LogicalPlan, { kind: 'Filter' }>;
    expect(filter.pos).toMatchObject({ line: 4, column: 1 });
    const cmp = filter.condition as Extract<Expression, { kind: 'BinaryOperator' }>;
    expect(text(cmp.left.pos)).toBe('x :: long');
    expect(text(cmp.right.pos)).toBe('1');
    expect(cmp.right.pos).toMatchObject({ line: 4, column: 19 });
    expect(text((filter.child as LogicalPlan).pos)).toBe('t');
  });

  it('counts columns in UTF-16 units after characters above U+FFFF', () => {
    const sql = "SELECT '😀😀', b FROM t";
    const p = parsePlan(sql) as Extract<LogicalPlan, { kind: 'Project' }>;
    expect(p.projectList[1].pos).toEqual({ start: 15, end: 16, line: 1, column: 16 });
    expect(sql[p.projectList[1].pos.start]).toBe('b');
  });
});

describe("Spark's syntax errors", () => {
  it('refuses a text that ends inside a bracketed comment, and reads nested ones (UnclosedCommentProcessor)', () => {
    const e = parseError('SELECT a FROM t /* one /* two */ still open');
    expect(e.errorClass).toBe('_LEGACY_ERROR_TEMP_0055');
    expect(e.message).toMatch(/^\[_LEGACY_ERROR_TEMP_0055\] Unclosed bracketed comment/);
    expect(() => parsePlan('SELECT /* one /* two */ still a comment */ a FROM t')).not.toThrow();
  });
  it('names the token with its line and column', () => {
    const e = parseError('SELECT a\nFROM t\nWHERE a = = 1');
    expect(e.message).toBe("[PARSE_SYNTAX_ERROR] Syntax error at or near '='. (line 3, column 11)");
    expect(e.errorClass).toBe('PARSE_SYNTAX_ERROR');
    expect([e.line, e.column]).toEqual([3, 11]);
    expect(parseError('SELECT a b c FROM t').message).toBe("[PARSE_SYNTAX_ERROR] Syntax error at or near 'c'. (line 1, column 12)");
    expect(parseError('SELECT a FROM t WHERE a =').message).toMatch(/^\[PARSE_SYNTAX_ERROR\] Syntax error at or near end of input\./);
    expect(parseError('SELECT a FROM').message).toBe('[PARSE_SYNTAX_ERROR] Syntax error at or near end of input. (line 1, column 14)');
  });

  it("carries Spark's error class, at the text it is about", () => {
    const cases: [string, string, string][] = [
      ["SELECT a FROM t WHERE a LIKE 'x' ESCAPE 'ab'", 'INVALID_ESC', "'ab'"],
      ['WITH a AS (SELECT 1), a AS (SELECT 2) SELECT * FROM a', '_LEGACY_ERROR_TEMP_0038', 'WITH a AS (SELECT 1), a AS (SELECT 2)'],
      ["SELECT INTERVAL '1' DAY TO HOUR '1' MINUTE FROM t", '_LEGACY_ERROR_TEMP_0024', "INTERVAL '1' DAY TO HOUR '1' MINUTE"],
      ["SELECT INTERVAL '1' YEAR '1' DAY FROM t", '_LEGACY_ERROR_TEMP_0029', "INTERVAL '1' YEAR '1' DAY"],
      ['SELECT CAST(x AS DECIMAL(2, 3)) FROM t', '_LEGACY_ERROR_TEMP_1228', 'DECIMAL(2, 3)'],
      ['SELECT CAST(x AS DECIMAL(39, 0)) FROM t', 'DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION', 'DECIMAL(39, 0)'],
      ['SELECT CAST(x AS FOO) FROM t', 'UNSUPPORTED_DATATYPE', 'FOO'],
      ['SELECT 1000Y FROM t', 'INVALID_NUMERIC_LITERAL_RANGE', '1000Y'],
      ["SELECT DATE 'x' FROM t", 'INVALID_TYPED_LITERAL', "DATE 'x'"],
      ['SELECT a FROM t ORDER BY a SORT BY b', '_LEGACY_ERROR_TEMP_0011', 'ORDER BY a SORT BY b'],
      ['SELECT a FROM t WHERE a = = 1', 'PARSE_SYNTAX_ERROR', '='],
      ["SELECT 'abc FROM t", 'PARSE_SYNTAX_ERROR', "'"],
    ];
    for (const [sql, errorClass, text] of cases) {
      const e = parseError(sql);
      expect([sql, e.errorClass]).toEqual([sql, errorClass]);
      const { start, end } = e.details as { start: number; end: number };
      expect([sql, sql.slice(start, end)]).toEqual([sql, text]);
    }
  });

  it('refuses anything but one query', () => {
    const two = parseError('SELECT 1;\n SELECT 2');
    expect(two.message).toBe("[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELECT'. A stream runs one query: found 2 statements; remove all but one. (line 2, column 2)");
    expect(two.errorClass).toBe('PARSE_SYNTAX_ERROR');
    expect(parseError(' -- nothing\n ').errorClass).toBe('PARSE_EMPTY_STATEMENT');
    expect(parseError(' ; ').message).toBe("[PARSE_SYNTAX_ERROR] Syntax error at or near ';'. (line 1, column 2)");
    expect(tree('WITH x AS (SELECT 1) SELECT * FROM x;;')).toMatch(/^'UnresolvedWith \[x\]/);
    expect(parseError('DROP TABLE t').message).toBe('Only SELECT queries can run as streams, found DROP (line 1, column 1)');
    expect(parseError('SELECT a FROM t ORDER BY a SORT BY b').errorClass).toBe('_LEGACY_ERROR_TEMP_0011');
    expect(parseError('SELECT a FROM my-tbl').message).toBe("[PARSE_SYNTAX_ERROR] Syntax error at or near '-'. (line 1, column 17)");
  });
});

describe('a form of the grammar the builder has no case for', () => {
  it("is named by the query's own text, its spaces kept", () => {
    const sql = "map('k', 1)  ['k']";
    const { tree, parsed } = parseSpark(sql, (p) => p.expression());
    const primary = tree.booleanExpression().valueExpression()!.primaryExpression()!;
    // A subscript without its `[`: no case of the builder's.
    primary.children = (primary.children ?? []).filter((c) => !(c instanceof TerminalNode && c.symbol.type === SparkSqlParser.LEFT_BRACKET));
    const builder = new ExpressionAstBuilder(parsed, () => {
      throw new Error('no subquery here');
    });
    expect(() => builder.primary(primary)).toThrow(`The expression ${sql} is not supported yet (line 1, column 1)`);
  });
});
