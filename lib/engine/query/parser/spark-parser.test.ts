import { CharStreams, CommonTokenStream } from 'antlr4ng';
import { SparkSqlLexer } from 'dt-sql-parser/dist/lib/spark/SparkSqlLexer';
import { describe, expect, it } from 'vitest';
import { parseExpression } from './ast-builder';
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
