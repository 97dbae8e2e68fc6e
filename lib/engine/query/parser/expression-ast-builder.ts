/**
 * Expressions of dt-sql-parser's Spark parse tree as Weir's unresolved expressions, following
 * Spark's AstBuilder (visitPredicated, visitArithmeticBinary, visitFunctionCall, visitDereference,
 * …). One repair of that grammar's completion-oriented changes lives here: `"x"` is a string
 * literal (Spark's default); the grammar also lets it be a quoted identifier, and prefers that
 * where a bare column name may stand (GROUP BY, ORDER BY). (The select items and `a - b * c`
 * are spark-parser.ts's repairs.)
 * Part of the Spark SQL front end (see unresolved-plan.ts).
 */
import type { ParserRuleContext, Token } from 'antlr4ng';
import { SqlValidationError } from '../sql-error';
import { IntegerType, BooleanType, NullType } from './data-type';
import { dataTypeOf } from './data-type-parser';
import { identifierText } from './identifiers';
import { intervalString, multiUnitInterval, unitToUnitInterval } from './intervals';
import { numberLiteral, stringLiteral, typedLiteral, unescapeSqlString } from './literals';
import { Ctx, syntaxErrorAt } from './spark-parser';
import type { ParsedText } from './spark-parser';
import type { BinaryOp, Expression, FrameBound, LogicalPlan, Position, SortOrder, UnresolvedFunction, WindowFrame } from './unresolved-plan';

/** A window expression's specification (UnresolvedWindowExpression's fields but the function). */
export type WindowSpec = Pick<Extract<Expression, { kind: 'UnresolvedWindowExpression' }>, 'partitionSpec' | 'orderSpec' | 'frame' | 'frameSpec' | 'windowName'>;

type C<K extends keyof typeof Ctx> = InstanceType<(typeof Ctx)[K]>;

const ARITHMETIC: Record<string, BinaryOp> = {
  '*': 'Multiply', '/': 'Divide', '%': 'Remainder', DIV: 'IntegralDivide', '+': 'Add', '-': 'Subtract',
  '||': 'Concat', '&': 'BitwiseAnd', '^': 'BitwiseXor', '|': 'BitwiseOr',
};
/** Spark 4's shift operators: spark-parser.ts makes each one `&` token with the operator's text. */
const SHIFTS: Record<string, BinaryOp> = { '<<': 'ShiftLeft', '>>': 'ShiftRight', '>>>': 'ShiftRightUnsigned' };
const COMPARISON: Record<string, BinaryOp> = {
  '=': 'EqualTo', '==': 'EqualTo', '<': 'LessThan', '<=': 'LessThanOrEqual', '>': 'GreaterThan', '>=': 'GreaterThanOrEqual', '<=>': 'EqualNullSafe',
};

export function notSupported(what: string, pos: Position): SqlValidationError {
  return new SqlValidationError(`${what} is not supported yet`, pos, what);
}

export class ExpressionAstBuilder {
  constructor(
    readonly parsed: ParsedText,
    /** A subquery's plan (ast-builder.ts). */
    private readonly plan: (q: C<'QueryContext'>) => LogicalPlan,
  ) {}

  /**
   * A row constructor's values (`(1, 'a')` two values, as Spark's AstBuilder reads a
   * CreateNamedStruct in VALUES and before IN (subquery)); any other expression, struct(1, 'a')
   * too, one value.
   */
  rowValues(e: Expression): Expression[] {
    const rowConstructor = e.kind === 'UnresolvedFunction' && e.nameParts[0] === 'struct' && this.parsed.text.sql[e.pos.start] === '(';
    return rowConstructor ? e.arguments.map((a) => (a.kind === 'Alias' ? a.child : a)) : [e];
  }

  pos(ctx: ParserRuleContext): Position {
    return this.parsed.text.span(ctx.start!, ctx.stop);
  }

  tokenPos(t: Token): Position {
    return this.parsed.text.tokenPosition(t);
  }

  expression(ctx: C<'ExpressionContext'> | C<'BooleanExpressionContext'>): Expression {
    return this.boolean(ctx instanceof Ctx.ExpressionContext ? ctx.booleanExpression() : ctx);
  }

  boolean(ctx: C<'BooleanExpressionContext'>): Expression {
    const pos = this.pos(ctx);
    const op = ctx._operator?.text?.toUpperCase();
    if (op === 'AND' || op === 'OR') {
      return { kind: 'BinaryOperator', op: op === 'AND' ? 'And' : 'Or', left: this.boolean(ctx._left!), right: this.boolean(ctx._right!), pos };
    }
    if (ctx.KW_EXISTS()) return { kind: 'Exists', plan: this.plan(ctx.query()!), pos };
    if (ctx.KW_NOT() || ctx.NOT()) return { kind: 'Not', child: this.boolean(ctx.booleanExpression(0)!), pos };
    const value = this.value(ctx.valueExpression()!);
    const pred = ctx.predicate();
    return pred ? this.predicate(value, pred, pos) : value;
  }

  private predicate(e: Expression, ctx: C<'PredicateContext'>, pos: Position): Expression {
    const kind = ctx._kind!.text!.toUpperCase();
    const not = !!ctx.KW_NOT();
    const negate = (x: Expression): Expression => (not ? { kind: 'Not', child: x, pos } : x);
    switch (kind) {
      case 'BETWEEN':
        return negate({ kind: 'Between', value: e, lower: this.value(ctx._lower!), upper: this.value(ctx._upper!), pos });
      case 'IN':
        if (ctx.query()) return negate({ kind: 'InSubquery', values: this.rowValues(e), query: this.plan(ctx.query()!), pos });
        return negate({ kind: 'In', value: e, list: ctx.expression().map((x) => this.expression(x)), pos });
      case 'RLIKE':
      case 'REGEXP':
        return negate({ kind: 'RLike', left: e, right: this.value(ctx._pattern!), pos });
      case 'LIKE':
      case 'ILIKE': {
        let escapeChar = '\\';
        if (ctx._escapeChar) {
          escapeChar = unescapeSqlString(ctx._escapeChar.getText());
          if (escapeChar.length !== 1) throw new SqlValidationError(`[INVALID_ESC] Found an invalid escape string: '${escapeChar}'. The escape string must contain only one character.`, this.pos(ctx._escapeChar), 'literal', 'INVALID_ESC');
        }
        const like = (pattern: Expression): Expression => negate({ kind: 'Like', left: e, right: pattern, escapeChar, caseInsensitive: kind === 'ILIKE', pos });
        if (!ctx._quantifier) return like(this.value(ctx._pattern!));
        // `x [NOT] LIKE ANY|SOME|ALL (p1, p2, …)`: Spark's LikeAny/LikeAll (and NotLikeAny,
        // NotLikeAll), each pattern matched (or not) on its own, the results ORed for ANY and SOME
        // and ANDed for ALL, as Spark rewrites a list it cannot fold (three-valued: a NULL counts
        // where no pattern decides).
        const patterns = ctx.expression().map((x) => this.expression(x));
        if (patterns.length === 0) throw new SqlValidationError(`[INVALID_SQL_SYNTAX.EMPTY_QUANTIFIED_PATTERN] Invalid SQL syntax: ${kind} ${ctx._quantifier.text!.toUpperCase()} needs at least one pattern between '(' and ')'.`, pos, kind, 'INVALID_SQL_SYNTAX.EMPTY_QUANTIFIED_PATTERN');
        const op = ctx._quantifier.text!.toUpperCase() === 'ALL' ? 'And' : 'Or';
        return patterns.map(like).reduce((a, b) => ({ kind: 'BinaryOperator', op, left: a, right: b, pos }));
      }
      case 'NULL':
        return { kind: not ? 'IsNotNull' : 'IsNull', child: e, pos };
      case 'UNKNOWN':
        return { kind: not ? 'IsNotNull' : 'IsNull', child: e, pos };
      case 'TRUE':
      case 'FALSE':
        return negate({ kind: 'BinaryOperator', op: 'EqualNullSafe', left: e, right: { kind: 'Literal', value: kind === 'TRUE', dataType: BooleanType, pos: this.tokenPos(ctx._kind!) }, pos });
      case 'DISTINCT': {
        const eq: Expression = { kind: 'BinaryOperator', op: 'EqualNullSafe', left: e, right: this.value(ctx._right!), pos };
        return not ? eq : { kind: 'Not', child: eq, pos };
      }
      default:
        throw notSupported(kind, pos);
    }
  }

  value(ctx: C<'ValueExpressionContext'>): Expression {
    const primary = ctx.primaryExpression();
    if (primary) return this.primary(primary);
    const pos = this.pos(ctx);
    const cmp = ctx.comparisonOperator();
    if (cmp) {
      const sym = cmp.getText();
      const [left, right] = [this.value(ctx._left!), this.value(ctx._right!)];
      if (sym === '<>' || sym === '!=') return { kind: 'Not', child: { kind: 'BinaryOperator', op: 'EqualTo', left, right, pos }, pos };
      return { kind: 'BinaryOperator', op: COMPARISON[sym], left, right, pos };
    }
    const sym = ctx._operator!.text!.toUpperCase();
    if (ctx.valueExpression().length === 1) {
      const child = this.value(ctx.valueExpression(0)!);
      return sym === '-' ? { kind: 'UnaryMinus', child, pos } : sym === '+' ? { kind: 'UnaryPositive', child, pos } : { kind: 'BitwiseNot', child, pos };
    }
    if (sym === '&' || Object.hasOwn(SHIFTS, sym)) return this.andShifts(ctx);
    return { kind: 'BinaryOperator', op: ARITHMETIC[sym], left: this.value(ctx._left!), right: this.value(ctx._right!), pos };
  }

  /**
   * A chain of `&`s and shifts, which the grammar parses at one level, left-associative (see
   * SHIFTS): the shifts bind first, as Spark's shiftExpression sits between `+ - ||` and `&`.
   */
  private andShifts(ctx: C<'ValueExpressionContext'>): Expression {
    const operands: C<'ValueExpressionContext'>[] = [];
    const ops: string[] = [];
    let c = ctx;
    for (let op = c._operator?.text; c.valueExpression().length === 2 && !c.comparisonOperator() && (op === '&' || Object.hasOwn(SHIFTS, op!)); op = c._operator?.text) {
      operands.unshift(c._right!);
      ops.unshift(op!);
      c = c._left!;
    }
    operands.unshift(c);
    let result: Expression | undefined;
    let groupStart = 0;
    for (let i = 0; i <= ops.length; i++) {
      if (i < ops.length && ops[i] !== '&') continue;
      let shifted = this.value(operands[groupStart]);
      for (let k = groupStart; k < i; k++) {
        shifted = { kind: 'BinaryOperator', op: SHIFTS[ops[k]], left: shifted, right: this.value(operands[k + 1]), pos: this.parsed.text.span(operands[groupStart].start!, operands[k + 1].stop) };
      }
      result = result === undefined ? shifted : { kind: 'BinaryOperator', op: 'BitwiseAnd', left: result, right: shifted, pos: this.parsed.text.span(operands[0].start!, operands[i].stop) };
      groupStart = i + 1;
    }
    return result!;
  }

  /** A name in an expression: `a.b.c` is UnresolvedAttribute([a, b, c]); `"x".f` a string's field. */
  name(ctx: C<'MultipartIdentifierContext'>): Expression {
    const parts = ctx.errorCapturingIdentifier().map((p) => p.identifier());
    const pos = this.pos(ctx);
    if (!parts[0].getText().startsWith('"')) return { kind: 'UnresolvedAttribute', nameParts: parts.map(identifierText), pos };
    let e: Expression = stringLiteral(unescapeSqlString(parts[0].getText()), this.pos(parts[0]));
    for (const p of parts.slice(1)) e = { kind: 'UnresolvedExtractValue', child: e, extraction: stringLiteral(identifierText(p), this.pos(p)), pos: this.parsed.text.span(ctx.start!, p.stop) };
    return e;
  }

  /** A column in an expression: one name (spark-parser.ts reads `a.b` as the field b of a, as Spark does); `"x"` a string. */
  private columnReference(ctx: C<'ColumnNamePathContext'>): Expression {
    const id = ctx.getRuleContext(0, Ctx.ErrorCapturingIdentifierContext)!.identifier();
    const pos = this.pos(ctx);
    if (id.getText().startsWith('"')) return stringLiteral(unescapeSqlString(id.getText()), pos);
    return { kind: 'UnresolvedAttribute', nameParts: [identifierText(id)], pos };
  }

  /**
   * The grammar's bare-column alternative (a select item, GROUP BY, ORDER BY): it also takes
   * TRUE, FALSE and NULL as names, which Spark reads as literals there.
   */
  columnName(ctx: C<'ColumnNameContext'>): Expression {
    const name = ctx.multipartIdentifierAllowEmpty()!.multipartIdentifier()!;
    const word = name.getText().toUpperCase();
    if (word === 'TRUE' || word === 'FALSE') return { kind: 'Literal', value: word === 'TRUE', dataType: BooleanType, pos: this.pos(name) };
    if (word === 'NULL') return { kind: 'Literal', value: null, dataType: NullType, pos: this.pos(name) };
    return this.name(name);
  }

  private call(name: string, args: Expression[], pos: Position, extra: Partial<UnresolvedFunction> = {}): UnresolvedFunction {
    return { kind: 'UnresolvedFunction', nameParts: [name], arguments: args, isDistinct: false, ...extra, pos };
  }

  primary(ctx: C<'PrimaryExpressionContext'>): Expression {
    const pos = this.pos(ctx);
    const name = ctx._name?.text?.toLowerCase();
    if (ctx.LEFT_BRACKET()) {
      const base = this.primary(ctx._value!);
      const rewritten = this.parsed.brackets.get(ctx.LEFT_BRACKET()!.symbol);
      if (rewritten === 'cast') {
        const cast = ctx._index!.primaryExpression()!;
        const dataType = cast.dataType()!;
        return { kind: 'Cast', child: base, dataType: dataTypeOf(dataType, this.parsed.text), evalMode: 'LEGACY', pos: this.parsed.text.span(ctx.start!, dataType.stop) };
      }
      if (rewritten === 'withinGroup') return this.withinGroup(base, ctx, pos);
      if (rewritten === 'starExcept') return this.starExcept(base, ctx);
      // spark-parser.ts's variant path: the index is one token, whose text is the JSON path.
      if (rewritten === 'variantPath') return { kind: 'SemiStructuredExtract', child: base, field: ctx._index!.getText(), pos };
      return { kind: 'UnresolvedExtractValue', child: base, extraction: this.value(ctx._index!), pos };
    }
    if (ctx._base) {
      const base = this.primary(ctx._base);
      const field = identifierText(ctx._fieldName!);
      if (base.kind === 'UnresolvedAttribute') return { kind: 'UnresolvedAttribute', nameParts: [...base.nameParts, field], pos };
      return { kind: 'UnresolvedExtractValue', child: base, extraction: stringLiteral(field, this.pos(ctx._fieldName!)), pos };
    }
    if (ctx.ARROW()) {
      const vars = ctx.identifier().map((id) => ({ kind: 'UnresolvedNamedLambdaVariable' as const, nameParts: [identifierText(id)], pos: this.pos(id) }));
      const names = new Set(vars.map((v) => v.nameParts[0].toLowerCase()));
      return { kind: 'LambdaFunction', function: lambdaBody(this.expression(ctx.expression(0)!), names), arguments: vars, pos };
    }
    if (ctx.functionName()) return this.functionCall(ctx, pos);
    if (ctx.constant()) return this.constant(ctx.constant()!, pos);
    if (ctx.columnNamePath()) return this.columnReference(ctx.columnNamePath()!);
    if (ctx.KW_CASE()) {
      const whens = ctx.whenClause();
      const operand = ctx.expression().length > (ctx._elseExpression ? 1 : 0) ? this.expression(ctx.expression(0)!) : undefined;
      const branches = whens.map((w) => {
        const cond = this.expression(w._condition!);
        const c: Expression = operand ? { kind: 'BinaryOperator', op: 'EqualTo', left: operand, right: cond, pos: this.pos(w._condition!) } : cond;
        return [c, this.expression(w._result!)] as const;
      });
      return { kind: 'CaseWhen', branches, ...(ctx._elseExpression ? { elseValue: this.expression(ctx._elseExpression) } : {}), pos };
    }
    if (name === 'cast' || name === 'try_cast') {
      return { kind: 'Cast', child: this.expression(ctx.expression(0)!), dataType: dataTypeOf(ctx.dataType()!, this.parsed.text), evalMode: name === 'cast' ? 'LEGACY' : 'TRY', pos };
    }
    if (ctx.query()) return { kind: 'ScalarSubquery', plan: this.plan(ctx.query()!), pos };
    if (ctx.namedExpression().length > 0) return this.call('struct', ctx.namedExpression().map((n) => this.namedExpression(n)), pos);
    if (ctx.KW_STRUCT()) return this.call('struct', [], pos);
    if (ctx.ASTERISK()) {
      const q = ctx.qualifiedName();
      return { kind: 'UnresolvedStar', ...(q ? { target: q.identifier().map(identifierText) } : {}), pos };
    }
    if (ctx.KW_FIRST() || ctx.KW_LAST() || ctx.KW_ANY_VALUE()) {
      const fn = (ctx.KW_FIRST() ?? ctx.KW_LAST() ?? ctx.KW_ANY_VALUE())!.getText().toLowerCase();
      return this.call(fn, [this.expression(ctx.expression(0)!)], pos, ctx.KW_IGNORE() ? { ignoreNulls: true } : {});
    }
    if (ctx.KW_POSITION()) return this.call('position', [this.value(ctx._substr!), this.value(ctx._str!)], pos);
    if (ctx.KW_EXTRACT()) return this.call('extract', [stringLiteral(identifierText(ctx._field!), this.pos(ctx._field!)), this.value(ctx._source!)], pos);
    if (ctx.KW_SUBSTR() || ctx.KW_SUBSTRING()) {
      const args = [this.value(ctx._str!), this.value(ctx._pos!), ...(ctx._len ? [this.value(ctx._len)] : [])];
      return this.call((ctx.KW_SUBSTR() ?? ctx.KW_SUBSTRING())!.getText().toLowerCase(), args, pos);
    }
    if (ctx.KW_TRIM()) {
      const opt = ctx._trimOption?.text?.toUpperCase();
      const fn = opt === 'LEADING' ? 'ltrim' : opt === 'TRAILING' ? 'rtrim' : 'btrim';
      return this.call(fn, [this.value(ctx._srcStr!), ...(ctx._trimStr ? [this.value(ctx._trimStr)] : [])], pos);
    }
    if (ctx.KW_OVERLAY()) {
      return this.call('overlay', [this.value(ctx._input!), this.value(ctx._replace!), this.value(ctx._position!), ...(ctx._length ? [this.value(ctx._length)] : [])], pos);
    }
    if (name === 'timestampadd' || name === 'dateadd' || name === 'date_add' || name === 'timestampdiff' || name === 'datediff' || name === 'date_diff' || name === 'timediff') {
      // Spark's parser takes the unit bare (timestampadd(MONTH, …)); a quoted one is its
      // INVALID_PARAMETER_VALUE.DATETIME_UNIT, whatever the text.
      if (!ctx._unit) {
        const quoted = ctx._invalidUnit!.getText();
        throw new SqlValidationError(
          `[INVALID_PARAMETER_VALUE.DATETIME_UNIT] The value of parameter(s) \`unit\` in \`${name}\` is invalid: expects one of the units without quotes (MICROSECOND, MILLISECOND, SECOND, MINUTE, HOUR, DAY, DAYOFYEAR, WEEK, MONTH, QUARTER, YEAR), but got the string literal ${quoted}; write ${name}(${quoted.slice(1, -1).toUpperCase()}, …)`,
          this.pos(ctx._invalidUnit!), `${name}()`, 'INVALID_PARAMETER_VALUE.DATETIME_UNIT',
        );
      }
      const unit = stringLiteral(ctx._unit.getText().toUpperCase(), this.pos(ctx._unit));
      const args = ctx.valueExpression().map((v) => this.value(v));
      return this.call(name.includes('add') ? 'timestampadd' : 'timestampdiff', [unit, ...args], pos);
    }
    if (name === 'current_date' || name === 'current_timestamp' || name === 'current_user' || name === 'user' || name === 'session_user') {
      // Catalyst with ANSI off: a name the analyzer resolves to a column first, else the function.
      return { kind: 'UnresolvedAttribute', nameParts: [ctx._name!.text!], pos };
    }
    if (ctx.expression().length === 1 && ctx.LEFT_PAREN().length === 1) return this.expression(ctx.expression(0)!);
    // The query's own text: the parse tree's getText() joins the tokens without their spaces.
    throw notSupported(`The expression ${this.parsed.text.sql.slice(pos.start, pos.end)}`, pos);
  }

  private constant(ctx: C<'ConstantContext'>, pos: Position): Expression {
    if (ctx.KW_NULL()) return { kind: 'Literal', value: null, dataType: NullType, pos };
    if (ctx.number()) return numberLiteral(ctx.number()!.getText(), pos);
    if (ctx.booleanValue()) return { kind: 'Literal', value: ctx.booleanValue()!.getText().toUpperCase() === 'TRUE', dataType: BooleanType, pos };
    if (ctx.interval()) return this.interval(ctx.interval()!, pos);
    const strings = ctx.stringLit().map((s) => unescapeSqlString(s.getText()));
    if (ctx.literalType()) {
      const type = ctx.literalType()!.getText();
      // The grammar's type name may be a double-quoted string, which is Spark's only under
      // spark.sql.ansi.doubleQuotedIdentifiers: `"S" "par"` is two adjacent strings, as in Spark.
      if (type.startsWith('"')) return stringLiteral([unescapeSqlString(type), ...strings].join(''), pos);
      if (type.toUpperCase() === 'INTERVAL') return intervalString(strings[0], ctx.getText(), pos);
      return typedLiteral(type, strings[0], pos);
    }
    if (strings.length > 0) return stringLiteral(strings.join(''), pos);
    throw notSupported(`The parameter marker ${ctx.getText()}`, pos);
  }

  private intervalValueText(v: C<'IntervalValueContext'>): string {
    const s = v.stringLit();
    const body = s ? unescapeSqlString(s.getText()) : (v.INTEGER_VALUE() ?? v.DECIMAL_VALUE())!.getText();
    return v.MINUS() ? (body.startsWith('-') ? body.slice(1) : `-${body}`) : body;
  }

  private interval(ctx: C<'IntervalContext'>, pos: Position): Expression {
    const text = ctx.getText().length > 0 ? this.parsed.text.sql.slice(pos.start, pos.end) : '';
    const multi = ctx.errorCapturingMultiUnitsInterval();
    if (multi) {
      if (multi.unitToUnitInterval()) throw new SqlValidationError(`[_LEGACY_ERROR_TEMP_0024] Can only have a single from-to unit in the interval literal syntax.`, pos, 'literal', '_LEGACY_ERROR_TEMP_0024');
      const body = multi.multiUnitsInterval();
      return multiUnitInterval(body.intervalValue().map((v, i) => [this.intervalValueText(v), body.unitInMultiUnits(i)!.getText()] as const), text, pos);
    }
    const utu = ctx.errorCapturingUnitToUnitInterval()!;
    if (utu._error1 || utu._error2) throw new SqlValidationError(`[_LEGACY_ERROR_TEMP_0024] Can only have a single from-to unit in the interval literal syntax.`, pos, 'literal', '_LEGACY_ERROR_TEMP_0024');
    const body = utu.unitToUnitInterval(0)!;
    if (!body.intervalValue().stringLit()) {
      throw new SqlValidationError('[_LEGACY_ERROR_TEMP_0027] The value of from-to unit must be a string.', pos, 'literal', '_LEGACY_ERROR_TEMP_0027');
    }
    return unitToUnitInterval(this.intervalValueText(body.intervalValue()), body.unitInUnitToUnit(0)!.getText(), body.unitInUnitToUnit(1)!.getText(), text, pos);
  }

  private functionCall(ctx: C<'PrimaryExpressionContext'>, pos: Position): Expression {
    const fn = ctx.functionName()!;
    if (fn.KW_IDENTIFIER()) throw notSupported('IDENTIFIER(…)', this.pos(fn));
    const nameParts = fn.qualifiedName() ? fn.qualifiedName()!.identifier().map(identifierText) : [fn.getText()];
    const isDistinct = ctx.setQuantifier()?.getText().toUpperCase() === 'DISTINCT';
    let args = ctx.functionArgument().map((a): Expression => {
      const named = a.namedArgumentExpression();
      if (named) return { kind: 'NamedArgumentExpression', key: identifierText(named._key!), value: this.expression(named._value!), pos: this.pos(a) };
      return this.expression(a.expression()!);
    });
    // Spark: count(*) is count(1).
    if (nameParts.length === 1 && nameParts[0].toLowerCase() === 'count' && !isDistinct && args.length === 1 && args[0].kind === 'UnresolvedStar' && !args[0].target) {
      args = [{ kind: 'Literal', value: 1n, dataType: IntegerType, pos: args[0].pos }];
    }
    const f: UnresolvedFunction = {
      kind: 'UnresolvedFunction', nameParts, arguments: args, isDistinct,
      ...(ctx._where ? { filter: this.boolean(ctx._where) } : {}),
      ...(ctx._nullsOption?.text?.toUpperCase() === 'IGNORE' ? { ignoreNulls: true } : {}),
      pos,
    };
    return this.windowed(f, ctx, pos);
  }

  /**
   * Spark 4's `f(…) WITHIN GROUP (ORDER BY …)`, which spark-parser.ts writes as the subscript
   * `f(…) [FILTER …] [OVER …] [within_group() OVER (ORDER BY …)]`: the call with its ordering, as
   * Spark's UnresolvedFunction holds it; the analyzer decides which functions take it
   * (aggregate-planner.ts withinGroup). After anything but a call it is Spark's syntax error at
   * WITHIN.
   */
  private withinGroup(base: Expression, ctx: C<'PrimaryExpressionContext'>, pos: Position): Expression {
    const bracket = ctx.LEFT_BRACKET()!.symbol;
    const spec = ctx._index!.primaryExpression()!.windowSpec()!;
    const frame = spec.windowFrame();
    if (frame) throw syntaxErrorAt(this.parsed.text, frame.start!);
    const orderingWithinGroup = spec.orderOrSortByClause()!.sortItem().map((s) => this.sortItem(s));
    // The call's text runs to its FILTER or OVER when it has them (tokens before the `[` now).
    const all = this.parsed.text.position(pos.start, Math.max(pos.end, base.pos.end));
    if (base.kind === 'UnresolvedFunction') return { ...base, orderingWithinGroup, pos: all };
    if (base.kind === 'UnresolvedWindowExpression' && base.child.kind === 'UnresolvedFunction') return { ...base, child: { ...base.child, orderingWithinGroup, pos: all }, pos: all };
    throw syntaxErrorAt(this.parsed.text, bracket);
  }

  /**
   * Spark 4's `* EXCEPT (a, b.c)`, `t.* EXCEPT (…)`, `s.* EXCEPT (…)` (its exceptClause of
   * multi-part names), which spark-parser.ts writes as the subscript `*[(a, b.c)]`: the star with
   * the names it leaves out, as Spark's UnresolvedStarExcept.
   */
  private starExcept(base: Expression, ctx: C<'PrimaryExpressionContext'>): Expression {
    const list = ctx._index!.primaryExpression()!;
    const items: ParserRuleContext[] = list.namedExpression().length > 0 ? list.namedExpression() : [list.expression(0)!];
    const except = items.map((item) => {
      const e = item instanceof Ctx.NamedExpressionContext ? this.namedExpression(item) : this.expression(item as C<'ExpressionContext'>);
      if (e.kind !== 'UnresolvedAttribute') throw syntaxErrorAt(this.parsed.text, this.afterName(item));
      return e.nameParts;
    });
    if (base.kind !== 'UnresolvedStar') throw syntaxErrorAt(this.parsed.text, ctx.LEFT_BRACKET()!.symbol);
    return { ...base, except, pos: this.pos(ctx) };
  }

  /** The first token of `ctx` past the multi-part name it starts with (`a.b + 1`: the `+`). */
  private afterName(ctx: ParserRuleContext): Token {
    const tokens = this.parsed.tokens.slice(ctx.start!.tokenIndex, ctx.stop!.tokenIndex + 1).filter((t) => t.channel === 0);
    const dot = (t: Token) => t.text === '.';
    const at = tokens.findIndex((t, i) => (i % 2 === 1) !== dot(t));
    return tokens[at < 0 ? tokens.length - 1 : at];
  }

  /** An aggregate call, or the window expression of `f(…) OVER …` when the call has a window. */
  private windowed(f: UnresolvedFunction, ctx: C<'PrimaryExpressionContext'>, pos: Position): Expression {
    const spec = ctx.windowSpec();
    if (!spec) return f;
    return { kind: 'UnresolvedWindowExpression', child: f, ...this.windowSpec(spec), pos };
  }

  /**
   * A window specification: `(PARTITION BY … ORDER BY … <frame>)`, or the name of one a WINDOW
   * clause defines (`OVER w`, `WINDOW w2 AS w1`: Spark's WindowSpecReference).
   */
  windowSpec(spec: C<'WindowSpecContext'>): WindowSpec {
    if (spec._name) return { partitionSpec: [], orderSpec: [], windowName: identifierText(spec._name) };
    if (spec.KW_CLUSTER()) throw notSupported('CLUSTER BY in a window', this.pos(spec));
    const frame = spec.windowFrame();
    return {
      partitionSpec: spec._partition.map((p) => this.expression(p)),
      orderSpec: spec.orderOrSortByClause()?.sortItem().map((s) => this.sortItem(s)) ?? [],
      ...(frame ? { frame: this.parsed.text.sql.slice(this.pos(frame).start, this.pos(frame).end), frameSpec: this.windowFrame(frame) } : {}),
    };
  }

  /** Spark's visitWindowFrame: `ROWS|RANGE <bound>` is BETWEEN <bound> AND CURRENT ROW. */
  private windowFrame(ctx: C<'WindowFrameContext'>): WindowFrame {
    const bound = (b: C<'FrameBoundContext'>): FrameBound => {
      if (b.KW_CURRENT()) return { kind: 'CurrentRow' };
      const preceding = b.KW_PRECEDING() !== null;
      if (b.KW_UNBOUNDED()) return { kind: preceding ? 'UnboundedPreceding' : 'UnboundedFollowing' };
      return { kind: preceding ? 'Preceding' : 'Following', value: this.expression(b.expression()!) };
    };
    const [lower, upper] = [ctx.frameBound(0)!, ctx.frameBound(1)];
    return { frameType: ctx.KW_RANGE() ? 'Range' : 'Rows', lower: bound(lower), upper: upper ? bound(upper) : { kind: 'CurrentRow' }, pos: this.pos(ctx) };
  }

  sortItem(ctx: C<'SortItemContext'>): SortOrder {
    const child = ctx.columnName() ? this.columnName(ctx.columnName()!) : this.expression(ctx.expression()!);
    const direction = ctx._ordering?.text?.toUpperCase() === 'DESC' ? 'Descending' : 'Ascending';
    const nulls = ctx._nullOrder?.text?.toUpperCase();
    const nullOrdering = nulls ? (nulls === 'FIRST' ? 'NullsFirst' : 'NullsLast') : direction === 'Ascending' ? 'NullsFirst' : 'NullsLast';
    return { kind: 'SortOrder', child, direction, nullOrdering, pos: this.pos(ctx) };
  }

  /** A select item: `*`, `t.*`, `expr`, `expr [AS] name`, `expr AS (a, b)`. */
  namedExpression(ctx: C<'NamedExpressionContext'>): Expression {
    const pos = this.pos(ctx);
    const all = ctx.tableAllColumns();
    if (all) {
      const target = all.qualifiedName().flatMap((q) => q.identifier().map(identifierText));
      return { kind: 'UnresolvedStar', ...(target.length ? { target } : {}), pos };
    }
    // spark-parser.ts leaves the grammar no other alternative (a bare column name, as dt-sql-parser
    // has it, read `f(a, b)` as the column f with the aliases (a, b)).
    const child = this.expression(ctx.selectExpressionColumnName()!.expression());
    const list = ctx.identifierList();
    if (ctx._alias) return { kind: 'Alias', child, name: identifierText(ctx._alias), pos };
    if (list) return { kind: 'MultiAlias', child, names: list.identifierSeq().errorCapturingIdentifier().map(identifierText), pos };
    return child;
  }
}

/**
 * Spark's visitLambda: in the body, a name whose first part is a lambda variable (names compared
 * case-insensitively, as Spark's resolver) becomes that variable, its other parts its fields.
 * `names` are lower-cased.
 */
function lambdaBody(e: Expression, names: ReadonlySet<string>): Expression {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!v || typeof v !== 'object' || v instanceof Uint8Array) return v;
    const node = v as { kind?: string; nameParts?: string[]; pos?: Position };
    if (node.kind === 'UnresolvedAttribute' && names.has(node.nameParts![0].toLowerCase())) {
      return { kind: 'UnresolvedNamedLambdaVariable', nameParts: node.nameParts, pos: node.pos };
    }
    if (!node.kind) return v;
    if (node.kind === 'LambdaFunction') {
      // An inner lambda's own variables shadow the outer ones.
      const inner = v as { function: Expression; arguments: { nameParts: string[] }[] };
      const outer = new Set([...names].filter((n) => !inner.arguments.some((a) => a.nameParts[0].toLowerCase() === n)));
      return { ...inner, function: lambdaBody(inner.function, outer) };
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'pos' || k === 'dataType' || k === 'value' ? x : walk(x)]));
  };
  return walk(e) as Expression;
}
