/**
 * Printing a random expression tree as SQL (expression-sql.ts, fewest parentheses by Spark's
 * precedence) and parsing it back (ast-builder.ts) gives the same tree: the parser's
 * precedence and associativity are Spark's, operator by operator.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseExpression } from './ast-builder';
import { BooleanType, DecimalType, IntegerType, LongType, NullType, StringType } from './data-type';
import type { DataType } from './data-type';
import { expressionSql } from './expression-sql';
import type { BinaryOp, Expression, Position } from './unresolved-plan';
import { propertyRuns } from '@/lib/testing/property-runs';

const pos: Position = { start: 0, end: 0, line: 1, column: 1 };

/** The tree without positions (the printed text has its own). */
function strip(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(strip);
  if (!v || typeof v !== 'object' || v instanceof Uint8Array) return v;
  return Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'pos').map(([k, x]) => [k, k === 'dataType' ? x : strip(x)]));
}

const OPS: BinaryOp[] = [
  'Add', 'Subtract', 'Multiply', 'Divide', 'Remainder', 'IntegralDivide', 'Concat', 'BitwiseAnd', 'BitwiseOr', 'BitwiseXor', 'ShiftLeft', 'ShiftRight', 'ShiftRightUnsigned',
  'EqualTo', 'EqualNullSafe', 'LessThan', 'LessThanOrEqual', 'GreaterThan', 'GreaterThanOrEqual', 'And', 'Or',
];
const lit = (value: Expression extends never ? never : Extract<Expression, { kind: 'Literal' }>['value'], dataType: DataType): Expression => ({ kind: 'Literal', value, dataType, pos });

const leaf: fc.Arbitrary<Expression> = fc.oneof(
  fc.constantFrom(['a'], ['b'], ['key'], ['window', 'start'], ['s', 'f', 'g'], ['my col']).map((nameParts): Expression => ({ kind: 'UnresolvedAttribute', nameParts, pos })),
  fc.integer({ min: 0, max: 2 ** 31 - 1 }).map((n) => lit(BigInt(n), IntegerType)),
  fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }).map((n) => lit(n, LongType)),
  fc.integer({ min: 0, max: 9999 }).map((n) => lit({ unscaled: BigInt(n), scale: 2 }, DecimalType(Math.max(String(n).length, 2), 2))),
  fc.string({ unit: fc.constantFrom('a', "'", '\\', '%', '_', ' ', '\n', 'é') , maxLength: 6 }).map((s) => lit(s, StringType)),
  fc.boolean().map((b) => lit(b, BooleanType)),
  fc.constant(lit(null, NullType)),
);

const exprArb = fc.letrec<{ expr: Expression }>((tie) => {
  const e = tie('expr');
  return {
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.tuple(fc.constantFrom(...OPS), e, e).map(([op, left, right]): Expression => ({ kind: 'BinaryOperator', op, left, right, pos })),
      e.map((child): Expression => ({ kind: 'Not', child, pos })),
      e.map((child): Expression => ({ kind: 'UnaryMinus', child, pos })),
      e.map((child): Expression => ({ kind: 'BitwiseNot', child, pos })),
      fc.tuple(fc.boolean(), e).map(([n, child]): Expression => ({ kind: n ? 'IsNull' : 'IsNotNull', child, pos })),
      fc.tuple(e, fc.array(e, { minLength: 1, maxLength: 3 })).map(([value, list]): Expression => ({ kind: 'In', value, list, pos })),
      fc.tuple(e, e, e).map(([value, lower, upper]): Expression => ({ kind: 'Between', value, lower, upper, pos })),
      fc.tuple(e, e, fc.boolean()).map(([left, right, ci]): Expression => ({ kind: 'Like', left, right, escapeChar: '\\', caseInsensitive: ci, pos })),
      fc.tuple(e, e).map(([left, right]): Expression => ({ kind: 'RLike', left, right, pos })),
      fc.tuple(fc.constantFrom(['coalesce'], ['f'], ['db', 'g']), fc.array(e, { maxLength: 3 }), fc.boolean()).map(([nameParts, args, isDistinct]): Expression => ({
        kind: 'UnresolvedFunction', nameParts, arguments: args, isDistinct: isDistinct && args.length > 0, pos,
      })),
      fc.tuple(e, fc.constantFrom(IntegerType, LongType, StringType, DecimalType(10, 2))).map(([child, dataType]): Expression => ({ kind: 'Cast', child, dataType, evalMode: 'LEGACY', pos })),
      fc.tuple(fc.array(fc.tuple(e, e), { minLength: 1, maxLength: 2 }), fc.option(e, { nil: undefined })).map(([branches, elseValue]): Expression => ({
        kind: 'CaseWhen', branches, ...(elseValue ? { elseValue } : {}), pos,
      })),
      fc.tuple(e, e).map(([child, extraction]): Expression => ({ kind: 'UnresolvedExtractValue', child, extraction, pos })),
    ),
  };
});

const { expr } = exprArb;
describe('expression SQL round trip', () => {
  it('parses the printed form of any expression back to the same tree', () => {
    fc.assert(
      fc.property(expr, (e) => {
        const text = expressionSql(e);
        expect(strip(parseExpression(text)), text).toEqual(strip(e));
      }),
      { numRuns: propertyRuns(100, 400) },
    );
  });

  it('associates left and binds as Spark does (fixed cases)', () => {
    const shape = (sql: string) => expressionSql(parseExpression(sql), {}).replace(/ /g, '');
    expect(expressionSql(parseExpression('a - b - c'))).toBe('a - b - c');
    expect(expressionSql(parseExpression('a - (b - c)'))).toBe('a - (b - c)');
    expect(shape('a OR b AND c')).toBe('aORbANDc');
    expect(parseExpression('a OR b AND c')).toMatchObject({ op: 'Or', right: { op: 'And' } });
    expect(parseExpression('NOT a AND b')).toMatchObject({ op: 'And', left: { kind: 'Not' } });
    expect(parseExpression('a = b = c')).toMatchObject({ op: 'EqualTo', left: { op: 'EqualTo' } });
    expect(parseExpression('a | b & c')).toMatchObject({ op: 'BitwiseOr', right: { op: 'BitwiseAnd' } });
    // Spark 4's shifts: between `+` and `&`, left-associative; a `>` closing a type is no shift.
    expect(parseExpression('a & b << c & d')).toMatchObject({ op: 'BitwiseAnd', left: { op: 'BitwiseAnd', right: { op: 'ShiftLeft' } }, right: { nameParts: ['d'] } });
    expect(parseExpression('a >> b + c >>> d')).toMatchObject({ op: 'ShiftRightUnsigned', left: { op: 'ShiftRight', right: { op: 'Add' } } });
    expect(parseExpression('a << b = c')).toMatchObject({ op: 'EqualTo', left: { op: 'ShiftLeft' } });
    expect(parseExpression('CAST(a AS ARRAY<ARRAY<INT>>) >> 1')).toMatchObject({ op: 'ShiftRight', left: { kind: 'Cast' } });
    expect(parseExpression('a::map<string, array<int>> >>> 1')).toMatchObject({ op: 'ShiftRightUnsigned', left: { kind: 'Cast' } });
    // A column named map, array or struct compared with `<` opens no type.
    expect(parseExpression('map < 5 AND b >> 1')).toMatchObject({ op: 'And', left: { op: 'LessThan' }, right: { op: 'ShiftRight' } });
    expect(parseExpression('array < x OR b >> 1')).toMatchObject({ op: 'Or', left: { op: 'LessThan' }, right: { op: 'ShiftRight' } });
    expect(parseExpression('struct < -1 AND b >>> 2')).toMatchObject({ op: 'And', right: { op: 'ShiftRightUnsigned' } });
    expect(parseExpression('a + b IS NULL')).toMatchObject({ kind: 'IsNull', child: { op: 'Add' } });
    expect(parseExpression('-a[0]')).toMatchObject({ kind: 'UnaryMinus', child: { kind: 'UnresolvedExtractValue' } });
  });
});
