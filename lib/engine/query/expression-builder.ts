/**
 * Converts an expression of the Spark SQL front end's unresolved plan (parser/unresolved-plan.ts)
 * into Weir's safe Expr AST, which the compiler turns into closures. Names are resolved as far as
 * the planner knows them here: a qualifier (`src.a`) is dropped, any other first part is a struct
 * column whose fields follow (`window.start`, `parsed.id`), as Spark's resolution order has it.
 * Anything outside the subset Weir runs is refused here with a SqlValidationError naming the
 * construct at its exact position in the text.
 */
import { DAY_MS, dateFromTimestamp, daysFromCivil, daysInMonth, utc } from './date';
import { timestampOf } from './timestamp-micros';
import { fromWallClock, offsetAt, zoneOf } from './time-zones';
import { fitsLong, INTEGRAL_BITS, toLong, wrapToWidth } from './long';
import { METADATA_COLUMN, structFieldName, type BinaryOp, type Expr, type SqlPosition, type SqlType } from './expression';
import type { DataType } from './parser/data-type';
import { sql as dataTypeSql } from './parser/data-type';
import { specialDatetimeValue, type SpecialDatetimeValue } from './parser/literals';
import type { DecimalValue, Expression, LogicalPlan as UnresolvedPlan, Position } from './parser/unresolved-plan';
import { notSupportedYet, SqlValidationError } from './sql-error';
import { unsupportedSyntax, WITHIN_GROUP_NAMES } from './within-group';
import { fieldOfDataType } from './data-types';
import { someExpression } from './parser/expression-tree';
import { positionalArguments } from './named-arguments';
import { DUPLICATE_COLUMN_MARK, sideColumnName, writtenColumnName, writtenName } from './column-names';
import type { Schema } from '../types';

/** 1-based line and column of a front-end position (what errors and `explain` carry). */
export function lineColumn(pos: Position | undefined): SqlPosition | undefined {
  return pos ? { line: pos.line, column: pos.column } : undefined;
}

const BINARY: Partial<Record<Extract<Expression, { kind: 'BinaryOperator' }>['op'], BinaryOp>> = {
  Add: '+', Subtract: '-', Multiply: '*', Divide: '/', Remainder: '%', EqualTo: '=', LessThan: '<', LessThanOrEqual: '<=',
  GreaterThan: '>', GreaterThanOrEqual: '>=', And: 'AND', Or: 'OR', Concat: '||',
};

/**
 * Catalyst's operators that Weir runs as the function of the same meaning; the bitwise ones as
 * calls named by their operator, a name no SQL call can have (Spark's bit_and … are aggregates).
 */
const BINARY_FUNCTIONS: Partial<Record<Extract<Expression, { kind: 'BinaryOperator' }>['op'], string>> = {
  EqualNullSafe: 'equal_null', IntegralDivide: 'div', BitwiseAnd: '&', BitwiseOr: '|', BitwiseXor: '^',
};

/** Spark 4's shift operators: its functions of the same names, shown as the operator was written. */
const SHIFT_FUNCTIONS: Partial<Record<Extract<Expression, { kind: 'BinaryOperator' }>['op'], [string, string]>> = {
  ShiftLeft: ['shiftleft', '<<'], ShiftRight: ['shiftright', '>>'], ShiftRightUnsigned: ['shiftrightunsigned', '>>>'],
};

/** Spark's data types as the types Weir's values have (an integral one's width travels beside). */
function sqlTypeOf(t: DataType): SqlType | undefined {
  switch (t.kind) {
    case 'byte': case 'short': case 'integer': case 'long': return 'long';
    case 'float': case 'double': return 'double';
    case 'decimal': return 'decimal';
    case 'string': case 'char': case 'varchar': return 'string';
    case 'boolean': return 'boolean';
    case 'timestamp': case 'timestamp_ntz': return 'timestamp';
    case 'date': return 'date';
    case 'binary': return 'binary';
    // `INTERVAL` alone: Spark's CalendarIntervalType (calendar-interval.ts).
    case 'calendar_interval': return 'calendar_interval';
    case 'variant': return 'variant';
    case 'null': case 'array': case 'map': case 'struct': case 'day_time_interval': case 'year_month_interval':
    default: return undefined;
  }
}

/** Spark's AMBIGUOUS_REFERENCE: a name that more than one side of a join has. */
export function ambiguousReference(name: string, columns: string[], pos: SqlPosition | undefined): SqlValidationError {
  const quoted = columns.map((c) => {
    const dot = c.length - name.length - 1;
    return dot > 0 && c[dot] === '.' ? `\`${c.slice(0, dot)}\`.\`${c.slice(dot + 1)}\`` : `\`${c}\``;
  });
  return new SqlValidationError(
    `Reference \`${name}\` is ambiguous, could be: [${quoted.join(', ')}]. Qualify it with the table's name or alias (${columns[0]})`,
    pos, 'column reference', 'AMBIGUOUS_REFERENCE',
  );
}

/** Names that are a function when no column has them (Catalyst with ANSI off: current_date, user…). */
const NILADIC = new Set(['current_date', 'current_timestamp', 'current_user', 'user', 'session_user']);

export interface Scope {
  /** Table names and aliases that may qualify a column (`src.a`), lower-cased. */
  qualifiers: ReadonlySet<string>;
  /** Column names of the input, lower-cased (a niladic name that is a column stays a column). */
  columns?: ReadonlySet<string>;
  /**
   * Below a join whose sides share column names: each side's columns by its qualifiers (lower-
   * cased), each lower-cased name → the joined row's column (`a.value` for a shared `value`, the
   * name itself otherwise). A qualified name reads its side's column; an unqualified one its only
   * side's, or is ambiguous (Spark's AMBIGUOUS_REFERENCE).
   */
  sides?: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** The columns of USING joins (lower-cased name → the row's column), which an unqualified name means. */
  merged?: ReadonlyMap<string, string>;
  /** The query reads a files source: `_metadata` is its hidden metadata column (unless a column has the name). */
  metadataColumn?: boolean;
  /**
   * The names of FROM's tables that an alias hides (`t1` of `FROM t1 t2`), lower-cased, which no
   * other relation of FROM is read by. Spark's SubqueryAlias qualifies the table's columns by the
   * alias only, so that in a subquery `t1.c1` is a column of a query around it that reads t1;
   * Weir still reads the table's own column by it where none does.
   */
  hidden?: ReadonlySet<string>;
}

export class ExpressionBuilder {
  /**
   * The parameters of the lambdas being built, innermost last (Spark's ResolveLambdaVariables):
   * in a lambda's body a name whose first part is one of them is that variable, any other name
   * is a column of the row.
   */
  private readonly lambdaScopes: (readonly string[])[] = [];

  /** Unqualified names (lower-cased) → the joined row's columns they may mean (one: that column; more: ambiguous). */
  private readonly unqualified = new Map<string, Set<string>>();
  /** The joined row's disambiguated columns → the name the user wrote for them (`a.value` → `value`). */
  private readonly written = new Map<string, string>();
  /** A side's plain-named column → `<its side>.<name>`, as an ambiguous reference lists it. */
  private readonly qualified = new Map<string, string>();

  /**
   * Where a select item is built: the columns a `*` or `t.*` argument of a function stands for
   * (Spark expands a star in a function's arguments: `to_json(struct(*))`, `hash(*)`); unset, a
   * star there is refused.
   */
  expandStar?: (star: Extract<Expression, { kind: 'UnresolvedStar' }>) => Expr[];

  /** Plans a scalar subquery `(SELECT …)` (query-planner.ts); unset, one is refused. */
  scalarSubquery?: (plan: UnresolvedPlan, pos: SqlPosition | undefined) => Expr;
  /**
   * Runs Spark's checks of a correlated subquery (CheckAnalysis) on an EXISTS or IN subquery that
   * is refused where it is, throwing the error Spark gives one it refuses (query-planner.ts).
   */
  checkSubquery?: (plan: UnresolvedPlan, pos: SqlPosition | undefined) => void;
  /**
   * In a correlated subquery's plan: a name none of this scope's columns or qualifiers has, read
   * in the queries around it as Spark resolves an OuterReference (outer-references.ts);
   * undefined where none of them has it either.
   */
  outer?: (parts: readonly string[], pos: SqlPosition | undefined) => Expr | undefined;
  /** Building a batch plan's expressions (a static side), where a window function runs in a select list only. */
  batch = false;

  /**
   * Spark's lateral column aliases (3.4+): while a select list is built, the earlier items'
   * aliases (lower-cased) and what they stand for, which a later item may read by name
   * (`SELECT amount * 2 AS a2, a2 + 1 AS a3`, `named_struct('a', 1) AS st, st.a`). An input column
   * of the name wins, and so does a lambda's variable, as in Spark. The reading item gets the
   * aliased expression inline: in an aggregation's select list that is already the aggregate's
   * output (`sum(n) AS s, s * 2` reads the same sum).
   */
  private readonly lateralAliases = new Map<string, Expr>();
  /** How many times a name was read as a lateral alias (whether a build read one). */
  private lateralReads = 0;
  /** Whether an alias wins over an input column of its name (an ORDER BY item's, sortItem). */
  private selectOutputFirst = false;

  /**
   * Builds a select item (with `build`, by default this builder's): what it computes, and what
   * names it. An item that reads an earlier item's alias is named as written, by the alias
   * (`(a2 + 1)`), not by what the alias stands for, as Spark names it.
   */
  selectItem(e: Expression, build: (e: Expression) => Expr = (x) => this.build(x)): { expr: Expr; named: Expr } {
    const reads = this.lateralReads;
    const expr = build(e);
    if (this.lateralReads === reads) return { expr, named: expr };
    const saved = new Map(this.lateralAliases);
    this.lateralAliases.clear();
    try {
      return { expr, named: build(e) };
    } finally {
      for (const [k, v] of saved) this.lateralAliases.set(k, v);
    }
  }

  /**
   * Builds an ORDER BY item as Spark's ResolveReferencesInSort resolves it: its names read the
   * select list's output (an alias) before the input's column of the name (`SELECT b AS a …
   * ORDER BY a + 0` sorts on b). Where that reading fails, or `fails` finds it extracting what
   * the alias does not hold (`col1.a` or `col1[0]` of a STRING alias), the names read the input
   * instead, as Spark's failed resolution against the output leaves them to the input's columns.
   */
  sortItem(build: () => Expr, fails: (e: Expr) => boolean): Expr {
    if (this.lateralAliases.size > 0) {
      try {
        const e = this.outputFirst(build);
        if (!fails(e)) return e;
      } catch {
        // read over the input below, which fails as the item fails there
      }
    }
    return build();
  }

  /**
   * Builds HAVING as Spark resolves it over an aggregation: its names read the input's columns
   * before the select list's aliases; where `fails` finds a dotted name extracting a field the
   * input column does not hold (`col1.a` of a STRING column), the aliases first, as Spark
   * resolves such a name against the Aggregate's output when it fails against its input. A
   * subscript (`col1[0]`) of that column stays the column's, as in Spark.
   */
  havingCondition(build: () => Expr, fails: (e: Expr) => boolean): Expr {
    const e = build();
    if (this.lateralAliases.size === 0 || !fails(e)) return e;
    try {
      const aliased = this.outputFirst(build);
      return fails(aliased) ? e : aliased;
    } catch {
      return e;
    }
  }

  private outputFirst(build: () => Expr): Expr {
    this.selectOutputFirst = true;
    try {
      return build();
    } finally {
      this.selectOutputFirst = false;
    }
  }

  /** Lets the select items built after this one read `expr` by `alias`. */
  addLateralAlias(alias: string, expr: Expr): void {
    this.lateralAliases.set(alias.toLowerCase(), expr);
  }

  /** Ends a select list: its aliases are not names any more. */
  endSelectList(): void {
    this.lateralAliases.clear();
  }

  /**
   * The first name in `e` that reads a lateral alias, if any: an aggregate function's argument
   * must not, as in Spark (UNSUPPORTED_FEATURE.LATERAL_COLUMN_ALIAS_IN_AGGREGATE_FUNC).
   */
  lateralAliasRead(e: Expression): string | undefined {
    let found: string | undefined;
    someExpression(e, (x) => {
      if (x.kind === 'UnresolvedAttribute' && this.lateralAlias(x.nameParts)) found = x.nameParts[0];
      return found !== undefined;
    });
    return found;
  }

  constructor(
    private readonly scope: Scope,
    /** The query's text: an extraction is `.field` or `[key]` by the character before it. */
    private readonly sql: string,
  ) {
    for (const [qualifier, columns] of scope.sides ?? []) {
      // A name two sides of one qualifier have is the later side's under a key of its own (sidesByQualifier).
      for (const [key, column] of columns) {
        const name = sideColumnName(key, column);
        // A subquery's repeated output name (`f1` of `(x CROSS JOIN y) j`) keys its own column:
        // the name as written reads it and the first alike, ambiguous as in Spark.
        const written = writtenColumnName(name);
        if (!this.unqualified.has(written)) this.unqualified.set(written, new Set());
        this.unqualified.get(written)!.add(column);
        if (column.toLowerCase() !== name) {
          this.written.set(column, writtenName(name, column));
          // A generator's repeat of a name (a LATERAL VIEW's `t.id` beside `src.id`) by its side too.
          if (writtenColumnName(column) !== column && !qualifier.includes(DUPLICATE_COLUMN_MARK)) this.qualified.set(column, `${qualifier}.${writtenColumnName(column)}`);
        }
        // A side's column that kept its plain name is named by the side in a message, as Spark's
        // AMBIGUOUS_REFERENCE names each attribute (`e`.`region`, `b`.`region`): the last of its
        // side's names, its alias.
        else this.qualified.set(column, `${qualifier}.${writtenColumnName(column)}`);
      }
    }
    for (const [name, column] of scope.merged ?? []) this.unqualified.set(name, new Set([column]));
    // A repeated output name of a subquery reads as neither of its columns (a side's repeat is read above).
    const ofSides = new Set([...scope.sides?.values() ?? []].flatMap((m) => [...m.values()].map((c) => c.toLowerCase())));
    for (const column of scope.columns ?? []) {
      const name = writtenColumnName(column);
      if (name !== column && !ofSides.has(column)) this.unqualified.set(name, new Set([...this.unqualified.get(name) ?? [name], column]));
    }
  }

  /**
   * The output name of a column reference, as Spark names it: a join's disambiguated column by
   * the name the user wrote (`a.value` is `value`), any other by itself.
   */
  outputName(column: string): string {
    return this.written.get(column) ?? writtenColumnName(column);
  }

  build(e: Expression): Expr {
    const out = this.convert(e);
    out.pos ??= lineColumn(e.pos);
    return out;
  }

  private convert(e: Expression): Expr {
    const pos = lineColumn(e.pos);
    switch (e.kind) {
      case 'UnresolvedAttribute':
        if (e.exact) return { kind: 'column', name: e.nameParts[0], pos };
        return this.attribute(e.nameParts, pos);
      case 'Literal':
        return this.literal(e);
      case 'UnresolvedFunction': {
        const name = e.nameParts.join('.').toLowerCase();
        if (e.orderingWithinGroup && !WITHIN_GROUP_NAMES.includes(name)) throw unsupportedSyntax(name, 'WITHIN GROUP (ORDER BY ...)', pos);
        if (e.isDistinct || e.filter || e.orderingWithinGroup) {
          const form = e.isDistinct ? 'DISTINCT …)' : e.filter ? '…) FILTER (…)' : '…) WITHIN GROUP (…)';
          throw new SqlValidationError(`${name}(${form} is only allowed in the select list or HAVING of an aggregation`, pos, name);
        }
        // struct(a AS x, b): Spark names a field by its alias; as named_struct('x', a, 'b', b).
        const written = positionalArguments(name, e.arguments, e.pos);
        if (name === 'struct' && written.some((a) => a.kind === 'Alias')) return this.aliasedStruct(written, pos);
        const args = written.flatMap((a) => this.argument(a));
        if (name === 'not' && args.length === 1) return { kind: 'unary', op: 'NOT', arg: args[0], pos };
        return { kind: 'call', name, args, pos };
      }
      case 'Cast': {
        if (e.dataType.kind === 'array' || e.dataType.kind === 'map' || e.dataType.kind === 'struct') {
          const target = fieldOfDataType('cast', e.dataType);
          if (typeof target === 'string') throw new SqlValidationError(`CAST to ${dataTypeSql(e.dataType)}: ${target}`, pos, 'CAST');
          const cast: Expr = { kind: 'cast', arg: this.build(e.child), to: e.dataType.kind, target, pos };
          return e.evalMode === 'TRY' ? { ...cast, try: true } : cast;
        }
        if (e.dataType.kind === 'day_time_interval' || e.dataType.kind === 'year_month_interval') {
          const cast: Expr = { kind: 'cast', arg: this.build(e.child), to: e.dataType.kind, interval: { start: e.dataType.startField, end: e.dataType.endField }, pos };
          return e.evalMode === 'TRY' ? { ...cast, try: true } : cast;
        }
        const to = sqlTypeOf(e.dataType);
        if (!to) throw new SqlValidationError(`CAST to ${dataTypeSql(e.dataType)} is not supported yet; use BIGINT (LONG, INT), DOUBLE, DECIMAL(p,s), STRING, BINARY, BOOLEAN, TIMESTAMP or DATE`, pos, 'CAST');
        const arg = this.build(e.child);
        const integral = INTEGRAL_BITS[e.dataType.kind as 'byte'];
        const cast: Expr = e.dataType.kind === 'decimal'
          ? { kind: 'cast', arg, to, decimal: { precision: e.dataType.precision, scale: e.dataType.scale }, pos }
          : { kind: 'cast', arg, to, ...(integral ? { integral } : {}), ...(e.dataType.kind === 'float' ? { float32: true as const } : {}), ...(e.dataType.kind === 'timestamp_ntz' ? { ntz: true as const } : {}), pos };
        return e.evalMode === 'TRY' ? { ...cast, try: true } : cast;
      }
      case 'BinaryOperator': {
        const shift = SHIFT_FUNCTIONS[e.op];
        if (shift) return { kind: 'call', name: shift[0], args: [this.build(e.left), this.build(e.right)], operator: shift[1], pos };
        const op = BINARY[e.op];
        if (op) return { kind: 'binary', op, left: this.build(e.left), right: this.build(e.right), pos };
        return { kind: 'call', name: BINARY_FUNCTIONS[e.op]!, args: [this.build(e.left), this.build(e.right)], pos };
      }
      case 'UnaryMinus': {
        const child = this.build(e.child);
        // `-5` is one literal, as Spark folds it (and a name `-5` reads better than `(- 5)`).
        if (child.kind === 'literal' && (child.type === 'long' || child.type === 'double' || child.type === 'decimal') && child.value !== null) {
          // An integer wraps at its width: -(-128Y) is -128Y, as Spark's non-ANSI UnaryMinus.
          if (child.type === 'long') return { ...child, value: wrapToWidth(child.integral, typeof child.value === 'bigint' ? -child.value : -(child.value as number)), pos };
          return { ...child, value: typeof child.value === 'bigint' ? -child.value : -(child.value as number), pos };
        }
        return { kind: 'unary', op: '-', arg: child, pos };
      }
      // Spark's UnaryPositive, which positive(x) is too: x itself, of a number or an interval
      // (a string read as a DOUBLE); anything else refused.
      case 'UnaryPositive':
        return { kind: 'call', name: 'positive', args: [this.build(e.child)], pos };
      case 'BitwiseNot':
        return { kind: 'call', name: '~', args: [this.build(e.child)], pos };
      case 'Not':
        return this.not(e.child, pos);
      case 'IsNull':
      case 'IsNotNull':
        return { kind: 'isNull', arg: this.build(e.child), negated: e.kind === 'IsNotNull', pos };
      case 'In':
        // A star in the list is its columns where the builder expands one, as Spark's ResolveReferences expands In's list.
        return { kind: 'in', arg: this.build(e.value), list: e.list.flatMap((x) => this.argument(x)), negated: false, pos };
      case 'Between':
        return { kind: 'between', arg: this.build(e.value), low: this.build(e.lower), high: this.build(e.upper), negated: false, pos };
      case 'Like':
        return {
          kind: 'like', arg: this.build(e.left), pattern: this.build(e.right), negated: false, caseInsensitive: e.caseInsensitive,
          ...(e.escapeChar !== '\\' ? { escape: e.escapeChar } : {}), pos,
        };
      case 'RLike':
        return { kind: 'call', name: 'rlike', args: [this.build(e.left), this.build(e.right)], pos };
      case 'CaseWhen':
        return {
          kind: 'case', branches: e.branches.map(([when, then]) => ({ when: this.build(when), then: this.build(then) })),
          ...(e.elseValue ? { otherwise: this.build(e.elseValue) } : {}), pos,
        };
      case 'UnresolvedExtractValue': {
        const child = this.build(e.child);
        const x = e.extraction;
        // `expr.field` (a struct's field) or `expr[key]` (an array element, a map value).
        if (x.kind === 'Literal' && typeof x.value === 'string' && this.charBefore(x.pos.start) === '.') return { kind: 'field', arg: child, field: x.value, pos };
        return { kind: 'call', name: 'get', args: [child, this.build(x)], subscript: true, pos };
      }
      case 'SemiStructuredExtract':
        // Spark's ExtractSemiStructuredFields: variant_get(v, path) of a VARIANT, checked when typed (variant-functions.ts).
        return { kind: 'call', name: 'variant_get', args: [this.build(e.child), { kind: 'literal', value: e.field, type: 'string', pos }], variantPath: true, pos };
      case 'ScalarSubquery':
        if (this.scalarSubquery) return this.scalarSubquery(e.plan, pos);
        throw notSupportedYet('A scalar subquery here', pos, 'write it in the select list, WHERE, GROUP BY or HAVING of the query');
      case 'InSubquery':
      case 'Exists':
        // Spark's analysis of the subquery comes first: one it refuses is refused with its class.
        this.checkSubquery?.(e.kind === 'Exists' ? e.plan : e.query, pos);
        throw notSupportedYet('A subquery in an expression', pos, 'of them WHERE <column> IN (SELECT <column> FROM <static table>) runs, as a LEFT SEMI join with the table');
      case 'LambdaFunction': {
        const params = e.arguments.map((a) => a.nameParts[0]);
        this.lambdaScopes.push(params);
        try {
          return { kind: 'lambda', params, body: this.build(e.function), pos };
        } finally {
          this.lambdaScopes.pop();
        }
      }
      case 'UnresolvedNamedLambdaVariable': {
        const v = this.lambdaVariable(e.nameParts, pos);
        if (v) return v;
        throw new SqlValidationError(
          `${e.nameParts.join('.')} is a variable of a lambda function, used outside it (an aggregate such as sum() inside a lambda cannot read the lambda's variables)`,
          pos,
          'lambda variable',
        );
      }
      case 'UnresolvedWindowExpression':
        throw this.nonTimeWindow(e);
      case 'GroupingAnalytics':
        throw new SqlValidationError('CUBE, ROLLUP and GROUPING SETS are only allowed in GROUP BY', pos, 'GROUP BY');
      case 'UnresolvedStar':
        // Spark's ResolveReferences expands a star as a select item, and in a function's arguments or IN's list in the select list or WHERE; anywhere else it stays and fails.
        throw new SqlValidationError("Invalid usage of '*': a star is only allowed as a select item, or as a function's argument or in IN's list in the select list or WHERE", pos, '*', 'INVALID_USAGE_OF_STAR_OR_REGEX');
      case 'Alias':
      case 'MultiAlias':
        throw new SqlValidationError('An alias (AS name) is only allowed on a select item', pos, 'AS');
      case 'SortOrder':
        throw new SqlValidationError('ASC/DESC is only allowed in ORDER BY', pos, 'ORDER BY');
      case 'NamedArgumentExpression':
        throw new SqlValidationError(`A named argument (${e.key} => …) is only allowed in a function call that takes it`, pos, '=>', 'NAMED_PARAMETERS_NOT_SUPPORTED');
    }
  }

  /** NOT over IN, BETWEEN, LIKE and = keeps the negated form (`a NOT IN (…)`, `a <> b`). */
  private not(child: Expression, pos: SqlPosition | undefined): Expr {
    const inner = this.build(child);
    if ((inner.kind === 'in' || inner.kind === 'between' || inner.kind === 'like') && !inner.negated && child.kind !== 'Not') return { ...inner, negated: true, pos };
    if (inner.kind === 'binary' && inner.op === '=' && child.kind === 'BinaryOperator') return { ...inner, op: '<>', pos };
    return { kind: 'unary', op: 'NOT', arg: inner, pos };
  }

  private charBefore(offset: number): string {
    let i = offset - 1;
    while (i >= 0 && /\s/.test(this.sql[i])) i--;
    return this.sql[i] ?? '';
  }

  /** `x` or `x.field…` where `x` is a parameter of an enclosing lambda (case-insensitive, innermost first). */
  private lambdaVariable(parts: readonly string[], pos: SqlPosition | undefined): Expr | undefined {
    const [first, ...fields] = parts;
    for (let i = this.lambdaScopes.length - 1; i >= 0; i--) {
      const name = this.lambdaScopes[i].find((p) => p.toLowerCase() === first.toLowerCase());
      if (name === undefined) continue;
      let e: Expr = { kind: 'lambdaVariable', name, pos };
      for (const field of fields) e = { kind: 'field', arg: e, field, pos };
      return e;
    }
    return undefined;
  }

  /**
   * Whether a name is this scope's (a lambda's variable, a column, a column of a qualifier, an
   * earlier item's alias): else a correlated subquery reads it in the query around it. Every
   * name is where the columns are not known.
   */
  ownsName(parts: readonly string[]): boolean {
    const first = parts[0].toLowerCase();
    if (this.scope.columns === undefined || this.lambdaScopes.some((s) => s.some((p) => p.toLowerCase() === first))) return true;
    if (parts.length > 1 && (this.scope.qualifiers.has(first) || this.scope.sides?.has(first))) return true;
    return this.scope.columns.has(first) || this.unqualified.has(first) || this.scope.merged?.has(first) === true || this.lateralAlias(parts) !== undefined;
  }

  /** Whether a qualified name's qualifier is a table name an alias hides (Scope.hidden): an outer query's name first. */
  hidesName(parts: readonly string[]): boolean {
    return parts.length > 1 && this.scope.hidden?.has(parts[0].toLowerCase()) === true && !this.lambdaScopes.some((s) => s.some((p) => p.toLowerCase() === parts[0].toLowerCase()));
  }

  /**
   * The columns a star `q.*` of this scope stands for, as written (a join side's shared column by
   * its own name), in the order of `schema` (this scope's input); undefined where no table, alias
   * or join side is named `q`.
   */
  qualifiedColumns(q: string, schema: Schema): string[] | undefined {
    const lower = q.toLowerCase();
    const side = this.scope.sides?.get(lower);
    if (side) {
      const columns = new Set(side.values());
      return schema.filter((f) => columns.has(f.name)).map((f) => this.written.get(f.name) ?? writtenColumnName(f.name));
    }
    return this.scope.qualifiers.has(lower) ? schema.map((f) => writtenColumnName(f.name)) : undefined;
  }

  /** A name as this scope reads it: its column (or a field of it), or an outer reference where the scope has no such name. */
  attribute(parts: readonly string[], pos: SqlPosition | undefined): Expr {
    const outer = this.outer && (!this.ownsName(parts) || this.hidesName(parts)) ? this.outer(parts, pos) : undefined;
    if (outer) return outer;
    const variable = this.lambdaVariable(parts, pos);
    if (variable) return variable;
    const lateral = this.lateralAlias(parts);
    if (lateral) {
      this.lateralReads++;
      let e = lateral;
      for (const field of parts.slice(1)) e = { kind: 'field', arg: e, field, pos };
      return e;
    }
    let rest = parts;
    const side = parts.length > 1 ? this.scope.sides?.get(parts[0].toLowerCase()) : undefined;
    if (side) {
      const name = parts[1].toLowerCase();
      const own = side.get(name);
      const repeats = [...side.values()].filter((c) => c !== own && c !== writtenColumnName(c) && writtenColumnName(c).toLowerCase() === name);
      if (repeats.length) throw ambiguousReference(parts[1], [own ?? parts[1], ...repeats].map(writtenColumnName), pos);
      // Two sides of the qualifier's name that both have the column (`t.a` of `t JOIN t`): Spark names each `t`.`a`.
      const sameNamed = [...side].filter(([k, c]) => k !== name && sideColumnName(k, c) === name).map(([, c]) => c);
      if (sameNamed.length) throw ambiguousReference(parts[1], [own!, ...sameNamed].map((c) => this.qualified.get(c) ?? writtenColumnName(c)), pos);
      rest = [own ?? parts[1], ...parts.slice(2)];
    } else {
      if (parts.length > 1 && this.scope.qualifiers.has(parts[0].toLowerCase())) rest = parts.slice(1);
      const columns = this.unqualified.get(rest[0].toLowerCase());
      if (columns && columns.size > 1) throw ambiguousReference(rest[0], [...columns].map((c) => this.qualified.get(c) ?? writtenColumnName(c)), pos);
      if (columns) rest = [[...columns][0], ...rest.slice(1)];
    }
    const [name, ...fields] = rest;
    // Spark resolves a name as a column first and as current_user() and the like only when no
    // column has it; a qualified name (`e.user`) is always a column.
    if (parts.length === 1 && NILADIC.has(name.toLowerCase()) && !this.scope.columns?.has(name.toLowerCase()) && !this.unqualified.has(name.toLowerCase())) {
      const fn = name.toLowerCase();
      return { kind: 'call', name: fn === 'user' || fn === 'session_user' ? 'current_user' : fn, args: [], pos };
    }
    // Spark's hidden file metadata of a files source, unless a column has its name (Spark's columns
    // win too); on another source it is a name like any other, which no column has.
    const metadata = name.toLowerCase() === METADATA_COLUMN && this.scope.metadataColumn === true && this.scope.columns !== undefined && !this.scope.columns.has(METADATA_COLUMN);
    let e: Expr = metadata ? { kind: 'call', name: METADATA_COLUMN, args: [], pos } : { kind: 'column', name, pos };
    for (const field of fields) e = { kind: 'field', arg: e, field, pos };
    return e;
  }

  /** A function's argument: a star where a select item is built is the columns it stands for. */
  argument(a: Expression): Expr[] {
    return a.kind === 'UnresolvedStar' && this.expandStar ? this.expandStar(a) : [this.build(a)];
  }

  /** struct() with aliased arguments as the named_struct it stands for, the other fields named as struct() names them. */
  private aliasedStruct(args: readonly Expression[], pos: SqlPosition | undefined): Expr {
    const fields = args.flatMap((a): { alias?: string; value: Expr }[] => (a.kind === 'Alias' ? [{ alias: a.name, value: this.build(a.child) }] : this.argument(a).map((value) => ({ value }))));
    const pairs = fields.flatMap(({ alias, value }, i): Expr[] => [{ kind: 'literal', value: alias ?? structFieldName(value, i), type: 'string', pos }, value]);
    return { kind: 'call', name: 'named_struct', args: pairs, pos };
  }

  /** An earlier select item's expression, when `parts` starts with its alias and no input column or qualifier has that name. */
  private lateralAlias(parts: readonly string[]): Expr | undefined {
    if (this.lateralAliases.size === 0 || this.scope.columns === undefined) return undefined;
    const first = parts[0].toLowerCase();
    const column = this.scope.columns.has(first) || this.unqualified.has(first) || this.scope.merged?.has(first) === true;
    const shadowed = (column && !this.selectOutputFirst) || this.scope.qualifiers.has(first) || this.scope.sides?.has(first);
    return shadowed ? undefined : this.lateralAliases.get(first);
  }

  private literal(e: Extract<Expression, { kind: 'Literal' }>): Expr {
    const pos = lineColumn(e.pos);
    const t = e.dataType;
    switch (t.kind) {
      case 'null':
        return { kind: 'literal', value: null, type: 'null', pos };
      case 'boolean':
        return { kind: 'literal', value: e.value, type: 'boolean', pos };
      case 'byte': case 'short': case 'integer': case 'long': {
        const v = e.value as bigint;
        // Beyond the 64-bit range an integer literal is a DECIMAL(p,0), as Spark types it.
        if (!fitsLong(v)) return { kind: 'literal', value: v, type: 'decimal', decimal: { precision: (v < 0n ? -v : v).toString().length, scale: 0 }, pos };
        if (t.kind === 'long') return { kind: 'literal', value: toLong(v), type: 'long', bigint: true, pos };
        return { kind: 'literal', value: Number(v), type: 'long', integral: INTEGRAL_BITS[t.kind], pos };
      }
      case 'float':
        return { kind: 'literal', value: e.value, type: 'double', float32: true, pos };
      case 'double':
        return { kind: 'literal', value: e.value, type: 'double', pos };
      case 'decimal': {
        const d = e.value as DecimalValue;
        return { kind: 'literal', value: d.unscaled, type: 'decimal', decimal: { precision: t.precision, scale: t.scale }, pos };
      }
      case 'string': case 'char': case 'varchar':
        return { kind: 'literal', value: e.value, type: 'string', pos };
      case 'binary':
        return { kind: 'literal', value: Buffer.from(e.value as Uint8Array), type: 'binary', pos };
      case 'date':
        if (typeof e.value === 'string') return currentDateOffset(e.value as SpecialDatetimeValue, pos);
        return { kind: 'literal', value: e.value, type: 'date', pos };
      case 'timestamp': case 'timestamp_ntz': {
        const ntz = t.kind === 'timestamp_ntz';
        const special = specialDatetimeValue(String(e.value));
        if (special !== undefined && special !== 'epoch') return specialTimestamp(special, ntz, pos);
        const ms = parseTimestampLiteral(String(e.value), ntz);
        // A time without a date: that time of the batch's date, as the cast reads it at run time.
        if (ms === null && !ntz && parseTimestampLiteral(String(e.value), false, false, 0) !== null) {
          return { kind: 'cast', arg: { kind: 'literal', value: String(e.value), type: 'string', pos }, to: 'timestamp', pos };
        }
        if (ms === null) throw new SqlValidationError(`Invalid ${ntz ? 'TIMESTAMP_NTZ' : 'TIMESTAMP'} literal '${String(e.value)}'; use 'YYYY-MM-DD HH:MM:SS'${ntz ? '' : ' (UTC)'}`, pos, `${ntz ? 'TIMESTAMP_NTZ' : 'TIMESTAMP'} literal`, 'INVALID_TYPED_LITERAL');
        return { kind: 'literal', value: ms, type: 'timestamp', ...(ntz ? { ntz: true as const } : {}), pos };
      }
      case 'day_time_interval':
        return { kind: 'literal', value: toLong(e.value as bigint), type: 'day_time_interval', interval: { start: t.startField, end: t.endField }, pos };
      case 'year_month_interval':
        return { kind: 'literal', value: e.value, type: 'year_month_interval', interval: { start: t.startField, end: t.endField }, pos };
      case 'array': case 'map': case 'struct': case 'calendar_interval': case 'variant':
      default:
        throw notSupportedYet(`The ${dataTypeSql(t)} literal`, pos);
    }
  }

  /**
   * Spark's NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING for `f(…) OVER (…)` and `f(…) OVER w` of a
   * WINDOW clause's w (its definition shown); an `OVER w` no WINDOW clause defines is Spark's
   * analysis error before it, MISSING_WINDOW_SPECIFICATION.
   */
  nonTimeWindow(e: Extract<Expression, { kind: 'UnresolvedWindowExpression' }>, alias?: string): SqlValidationError {
    if (e.windowName !== undefined) {
      return new SqlValidationError(
        `Window specification ${e.windowName} is not defined in the WINDOW clause for ${e.windowName}. For more information about WINDOW clauses, please refer to 'https://spark.apache.org/docs/latest/sql-ref-syntax-qry-select-window.html'.`,
        lineColumn(e.pos), 'window function', 'MISSING_WINDOW_SPECIFICATION');
    }
    const name = (e.child.kind === 'UnresolvedFunction' ? e.child.nameParts.join('.') : 'window').toUpperCase();
    const text = this.sql.slice(e.pos.start, e.pos.end);
    if (this.batch) {
      return notSupportedYet(`The window function ${text} here`, lineColumn(e.pos),
        'a static side runs window functions in the select list of a SELECT without GROUP BY: compute it in a subquery, then filter, group or aggregate over its column');
    }
    const spec = e.definition ?? windowSpecText(text);
    return new SqlValidationError(
      `Window function is not supported in ${name}() (as column \`${alias ?? text}\`) on streaming DataFrames/Datasets. ` +
        `Structured Streaming only supports time-window aggregation using the WINDOW function. (window specification: ${spec || '(unknown)'}). ` +
        "In Weir, group by window(<event time>, '<duration>') instead, or deduplicate with the job's dedup option",
      lineColumn(e.pos),
      'window function',
      'NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING',
    );
  }
}

/**
 * The `(…)` after OVER in the text of `f(…) [WITHIN GROUP (…)] [FILTER (…)] OVER (…)`: after the
 * first OVER keyword outside brackets (quoted text skipped).
 */
function windowSpecText(text: string): string {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"' || c === '`') {
      const close = text.indexOf(c, i + 1);
      i = close < 0 ? text.length : close;
    } else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && /[\s)]/.test(text[i - 1] ?? '') && /^OVER\b/i.test(text.slice(i, i + 5))) return text.slice(i + 4).trim();
  }
  return '';
}

/**
 * Spark's special DATE values (convertSpecialDate), which its parser makes a literal of the
 * session's current date: Weir's current date is the batch's (current_date(), offsets/N's
 * batchTimestampMs), which validation does not know and a re-run of the batch reads again.
 */
function currentDateOffset(value: SpecialDatetimeValue, pos: SqlPosition | undefined): Expr {
  const today: Expr = { kind: 'call', name: 'current_date', args: [], pos };
  const days = value === 'tomorrow' ? 1 : value === 'yesterday' ? -1 : 0;
  return days === 0 ? today : { kind: 'call', name: 'date_add', args: [today, { kind: 'literal', value: days, type: 'long', integral: 32, pos }], pos };
}

/**
 * Spark's special TIMESTAMP values (convertSpecialTimestamp[NTZ]) but epoch: `now` the batch's
 * timestamp (current_timestamp()), `today`, `tomorrow` and `yesterday` the start of that day
 * (the session's zone, UTC, so a TIMESTAMP_NTZ's the same).
 */
function specialTimestamp(value: Exclude<SpecialDatetimeValue, 'epoch'>, ntz: boolean, pos: SqlPosition | undefined): Expr {
  const ts: Expr = value === 'now'
    ? { kind: 'call', name: 'current_timestamp', args: [], pos }
    : { kind: 'cast', arg: currentDateOffset(value, pos), to: 'timestamp', pos };
  return ntz ? { kind: 'cast', arg: ts, to: 'timestamp', ntz: true, pos } : ts;
}

/**
 * Spark's SpecialDatetimeValues (3.2+): a cast of a constant string that is a special value
 * (`CAST('today' AS DATE)`, `timestamp('tomorrow')`) to a DATE, TIMESTAMP or TIMESTAMP_NTZ is
 * that value, as its typed literal is; any other cast, undefined.
 */
export function specialDatetimeCast(e: Extract<Expr, { kind: 'cast' }>): Expr | undefined {
  if ((e.to !== 'date' && e.to !== 'timestamp') || e.target || e.arg.kind !== 'literal' || e.arg.type !== 'string') return undefined;
  const special = specialDatetimeValue(String(e.arg.value));
  if (special === undefined) return undefined;
  if (special === 'epoch') return { kind: 'literal', value: 0, type: e.to, ...(e.ntz ? { ntz: true as const } : {}), pos: e.pos };
  return e.to === 'date' ? currentDateOffset(special, e.pos) : specialTimestamp(special, e.ntz === true, e.pos);
}

/**
 * Parses a timestamp as Spark's stringToTimestamp reads one (UTC when it names no zone), or null:
 * `[+-]yyyy[-[m]m[-[d]d[( |T)[[h]h:[m]m[:[s]s[.ffffff]]][zone]]]]`, a signed year of four to six
 * digits; the zone Z, an offset (+07:30, -1:0, +0730, +07:30:15), or an ID (UTC, GMT+07:30, Europe/Moscow,
 * PST), after a space or not. A fraction keeps microseconds (Spark truncates a seventh to ninth
 * digit). For a TIMESTAMP_NTZ (`ntz`) the wall-clock time as written, as Spark's
 * stringToTimestampWithoutTimeZone: a zone ignored (a cast, a literal), or null with
 * `refuseZone` (its JSON and CSV readers).
 */
export function parseTimestampLiteral(s: string, ntz = false, refuseZone = false, nowMs?: number): number | null {
  const fast = parseIsoTimestamp(s, ntz, refuseZone);
  if (fast !== undefined) return fast;
  const m = /^([+-]?\d{4,6})(?:-(\d{1,2})(?:-(\d{1,2})(?:[ T](?:(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?\s*([A-Za-z+-][A-Za-z0-9_/+:-]*)?)?)?)?)?$/.exec(s.trim());
  if (!m) return ntz || nowMs === undefined ? null : parseTimeOfToday(s, nowMs);
  const [, y, mo = '1', d = '1', h = '0', mi = '0', sec = '0', frac = '', written] = m;
  if (Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59) return null;
  // Reject impossible dates such as 2024-02-31 (Date.UTC would roll them over).
  if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > daysInMonth(Number(y), Number(mo) - 1)) return null;
  if (ntz && refuseZone && written) return null;
  const zone = ntz ? undefined : written;
  const us = Number((frac + '000000').slice(0, 6));
  const t = utc(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec), Math.floor(us / 1000));
  if (Number.isNaN(t)) return null;
  return inZone(t, us, zone);
}

/**
 * A time without a date (`10:11:12`, `T10:11`, `10:11:12.5 UTC`), which Spark's stringToTimestamp
 * reads as that time of the current date in the string's zone, or else the session's (UTC): the
 * current date here is the batch's (`nowMs`, offsets/N's batchTimestampMs, as current_date()
 * reads it), so a re-run batch reads the same timestamp. Spark's TIMESTAMP_NTZ reads none.
 */
function parseTimeOfToday(s: string, nowMs: number): number | null {
  const m = /^T?(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?\s*([A-Za-z+-][A-Za-z0-9_/+:-]*)?$/.exec(s.trim());
  if (!m) return null;
  const [, h, mi, sec = '0', frac = '', written] = m;
  if (Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59) return null;
  let offset = 0;
  if (written !== undefined) {
    const z = zoneOf(written);
    if (z === null) return null;
    offset = offsetAt(z, nowMs);
  }
  const us = Number((frac + '000000').slice(0, 6));
  const t = dateFromTimestamp(nowMs + offset) * DAY_MS + Number(h) * 3_600_000 + Number(mi) * 60_000 + Number(sec) * 1000 + Math.floor(us / 1000);
  return inZone(t, us, written);
}

/** The instant of the wall-clock time `t` (ms, as if UTC) and its microseconds `us` in the written zone (none: UTC). */
function inZone(t: number, us: number, zone: string | undefined): number | null {
  if (zone === undefined) return timestampOf(t, us % 1000);
  const z = zoneOf(zone);
  if (z === null) return null;
  const instant = fromWallClock(z, t);
  // Java's ZoneOffset takes no offset past ±18:00.
  return Math.abs(t - instant) > 18 * 3_600_000 ? null : timestampOf(instant, us % 1000);
}

const ZERO = 48;
/** The number written by the `n` ASCII digits at `i`, or -1. */
function digitsAt(s: string, i: number, n: number): number {
  let v = 0;
  for (let k = i; k < i + n; k++) {
    const c = s.charCodeAt(k) - ZERO;
    if (!(c >= 0 && c <= 9)) return -1;
    v = v * 10 + c;
  }
  return v;
}

/**
 * parseTimestampLiteral's answer for the form sources send (`2024-01-02T03:04:05[.ffffff][Z|±hh:mm]`,
 * every field in its range) read by position, without the regular expression and the Dates: a
 * source parses one per row. Undefined for any other text, which the general path reads.
 */
function parseIsoTimestamp(s: string, ntz: boolean, refuseZone: boolean): number | null | undefined {
  const n = s.length;
  if (n < 19 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return undefined;
  const sep = s.charCodeAt(10);
  if (sep !== 84 && sep !== 32) return undefined;
  const y = digitsAt(s, 0, 4), mo = digitsAt(s, 5, 2), d = digitsAt(s, 8, 2), h = digitsAt(s, 11, 2), mi = digitsAt(s, 14, 2), sec = digitsAt(s, 17, 2);
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59) return undefined;
  if (d > daysInMonth(y, mo - 1)) return undefined;
  let i = 19;
  let us = 0;
  if (i < n && s.charCodeAt(i) === 46) {
    const start = ++i;
    while (i < n && i - start < 9) {
      const c = s.charCodeAt(i) - ZERO;
      if (!(c >= 0 && c <= 9)) break;
      if (i - start < 6) us = us * 10 + c;
      i++;
    }
    if (i === start) return undefined;
    for (let k = Math.min(i - start, 6); k < 6; k++) us *= 10;
  }
  let offsetMin = 0;
  if (i < n) {
    const c = s.charCodeAt(i);
    if (c === 90 && i + 1 === n) {
      if (ntz && refuseZone) return null;
    } else if ((c === 43 || c === 45) && (i + 6 === n && s.charCodeAt(i + 3) === 58)) {
      if (ntz && refuseZone) return null;
      const oh = digitsAt(s, i + 1, 2), om = digitsAt(s, i + 4, 2);
      // Past java.time's ±18:00 (or minutes past 59) the general path answers: NULL.
      if (oh < 0 || om < 0 || om > 59 || oh * 60 + om > 18 * 60) return undefined;
      if (!ntz) offsetMin = (c === 43 ? 1 : -1) * (oh * 60 + om);
    } else {
      return undefined;
    }
  }
  const ms = daysFromCivil(y, mo, d) * 86_400_000 + h * 3_600_000 + mi * 60_000 + sec * 1000 + Math.floor(us / 1000) - offsetMin * 60_000;
  return timestampOf(ms, us % 1000);
}

