import { CharStreams, CommonTokenStream } from 'antlr4ng';
import { SparkSqlLexer } from 'dt-sql-parser/dist/lib/spark/SparkSqlLexer';
import { describe, expect, it } from 'vitest';
import { parseExpression, parsePlan } from './ast-builder';
import { SparkSqlParser } from './spark-parser';

describe('the grammar changes', () => {
  it("stay in Weir's copy of the ATN: dt-sql-parser's own parser keeps the grammar as published", () => {
    parseExpression('a - b * c');
    // The published grammar reads `a-b` as one identifier with an error-capturing `-b`.
    const parser = new SparkSqlParser(new CommonTokenStream(new SparkSqlLexer(CharStreams.fromString('a-b'))));
    parser.removeErrorListeners();
    const name = parser.errorCapturingIdentifier();
    expect(name.errorCapturingIdentifierExtra().identifier().map((i) => i.getText())).toEqual(['b']);
    expect(parseExpression('a-b')).toMatchObject({ kind: 'BinaryOperator', op: 'Subtract' });
  });
});

describe('a double-quoted text (spark.sql.ansi.doubleQuotedIdentifiers off, as Spark runs by default)', () => {
  it('is never a name: a syntax error at it, where the grammar reads a name', () => {
    for (const [sql, near] of [
      ['SELECT 1 FROM "t"', '"t"'],
      ['SELECT 1 AS "x" FROM t', '"x"'],
      ['SELECT 1 FROM t AS x("a")', '"a"'],
      ['SELECT "f"() FROM t', '"f"'],
      ['SELECT "s".f() FROM t', '"s"'],
      ['SELECT 1 FROM "no_""t"', '"no_""t"'],
    ]) {
      expect(() => parsePlan(sql), sql).toThrow(`[PARSE_SYNTAX_ERROR] Syntax error at or near '${near}'.`);
    }
  });

  it('is a string everywhere else', () => {
    expect(parseExpression('"he""llo"')).toMatchObject({ kind: 'Literal', value: 'he"llo' });
    expect(parseExpression(`'a' "b"`)).toMatchObject({ kind: 'Literal', value: 'ab' });
    expect(parseExpression('INTERVAL "1" YEAR')).toMatchObject({ kind: 'Literal' });
    expect(() => parsePlan('SELECT "a", `b` AS c FROM t')).not.toThrow();
  });
});

describe("the strict-non-reserved keywords of ANSI's non-reserved list (ANTI, SEMI, MINUS), ANSI off as Weir runs", () => {
  it('are no table alias: `t SEMI JOIN u` is a semi join, `t MINUS SELECT …` a set operation', () => {
    expect(parsePlan('SELECT * FROM t SEMI JOIN u ON t.a = u.a')).toMatchObject({ child: { kind: 'Join', joinType: 'LeftSemi' } });
    expect(parsePlan('SELECT * FROM t ANTI JOIN u ON t.a = u.a')).toMatchObject({ child: { kind: 'Join', joinType: 'LeftAnti' } });
    expect(parsePlan('SELECT a FROM t MINUS SELECT a FROM u')).toMatchObject({ kind: 'Except' });
    for (const sql of ['SELECT * FROM t semi', 'SELECT * FROM t AS anti']) expect(() => parsePlan(sql), sql).toThrow('[PARSE_SYNTAX_ERROR]');
  });

  it('are names elsewhere, as Spark reads them through strictNonReserved', () => {
    expect(() => parsePlan('SELECT a AS semi, b AS minus, anti FROM t')).not.toThrow();
  });
});
