/**
 * Spark SQL's grammar, through dt-sql-parser's SparkSQL grammar (an ANTLR 4 port of Spark
 * 3.5's SqlBaseParser.g4, run by antlr4ng). This file is the one place that lexes and parses;
 * ast-builder.ts turns the parse tree into Weir's unresolved plan, and nothing outside this
 * folder sees the ANTLR tree.
 *
 * It replaced node-sql-parser's PostgreSQL grammar with lexical patches, which misread Spark
 * SQL: `"x"` was a column there and is a string in Spark, Spark's non-reserved keywords
 * (`partition`, `offset`, `key`, `window`, …) were syntax errors, and positions drifted.
 *
 * What this wrapper adds to the grammar:
 * - `x :: type` (Spark 4's cast shorthand; the 3.5 grammar has none): after lexing, each `::`
 *   and the data type after it are rewritten in the token stream to `[CAST(NULL AS type)]`,
 *   a postfix on the primary expression as Spark 4 binds it. The inserted tokens carry the
 *   `::` token's offsets; ast-builder.ts knows them from `brackets` and builds a Cast.
 * - Spark 4's `f(…) WITHIN GROUP (ORDER BY …)` after any call (3.5 takes it after
 *   percentile_cont(p) and percentile_disc(p) only, with one ordering) and `* EXCEPT (a, b.c)`
 *   (`(qualifiedName DOT)? ASTERISK exceptClause?`), rewritten to subscripts the same way
 *   (rewriteSpark4Clauses): the call's `WITHIN GROUP (ORDER BY …)` moves past its FILTER,
 *   IGNORE NULLS and OVER as `[within_group() OVER (ORDER BY …)]`, whose window reads the sort
 *   items as Spark's `sortItem`; the star's `EXCEPT (…)` becomes `[(…)]`. The `[` carries the
 *   WITHIN or EXCEPT token's offsets and text (a syntax error at it names that word), every
 *   original token keeps its own, so errors point at the text; ast-builder.ts knows the `[`
 *   from `brackets`.
 * - Spark 4's shift operators and doubled-quote escape, from the tokens
 *   (rewriteOperatorsAndStrings).
 * - Spark 4's variant path `v:a.b[0]`, rewritten to the subscript `v['$.a.b[0]']` whose `[`
 *   ast-builder.ts knows from `brackets` (rewriteVariantPaths).
 * - Spark 4's pipe syntax (`FROM t |> WHERE … |> SELECT …`): each query written with `|>` becomes
 *   `TABLE name`, its parts kept in ParsedText.pipes for ast-builder.ts to parse (rewritePipes).
 * - Spark's syntax error: the first one ends the parse as `[PARSE_SYNTAX_ERROR] Syntax error at
 *   or near 'tok'` with the line and column of that token (Spark's ParseErrorListener), instead
 *   of the grammar's completion-oriented messages and its console logging.
 * - Two-stage parsing: SLL prediction first (fast, exact for almost all input), the full LL
 *   prediction only when SLL fails, as Spark's AbstractSqlParser does.
 * - Changes to the grammar's ATN (adaptGrammar) and a parser subclass (SparkParser) that bring
 *   it closer to Spark's grammar and cut the cost of prediction; a query is parsed with the
 *   `query` rule (parseQuery), the statement recognized from its tokens.
 * - SELECT, FROM and TABLE as names where Spark takes them (parseTokens).
 * - A double-quoted text as a name is a syntax error, as with Spark's default
 *   spark.sql.ansi.doubleQuotedIdentifiers=false (SparkParser.quotedIdentifier).
 */
import {
  ATNDeserializer, AtomTransition, BailErrorStrategy, BaseErrorListener, CharStreams, CommonToken, CommonTokenStream, DecisionState, DefaultErrorStrategy, DFA,
  DFAState, EpsilonTransition, HashSet, Lexer, NotSetTransition, ParserATNSimulator, ParserRuleContext, PredicateTransition, PredictionContextCache, PredictionMode, RecognitionException, RuleStopState, RuleTransition, SetTransition,
  Token,
} from 'antlr4ng';
import type { ATN, ATNSimulator, ATNState, CharStream, Recognizer, TokenFactory, TokenSource, TokenStream } from 'antlr4ng';
import { SparkSqlLexer } from 'dt-sql-parser/dist/lib/spark/SparkSqlLexer';
import { ColumnNamePathContext, QuotedIdentifierContext, SparkSqlParser } from 'dt-sql-parser/dist/lib/spark/SparkSqlParser';
import type { QueryContext } from 'dt-sql-parser/dist/lib/spark/SparkSqlParser';
import { SqlValidationError } from '../sql-error';
import { unescapeSqlString } from './literals';
import type { Position } from './unresolved-plan';

export { SparkSqlParser };

/** The rules Weir parses with: a query, an expression, a data type, a DDL column list. */
const ENTRY_RULES = ['query', 'expression', 'dataType', 'colTypeList'];

/**
 * Changes to Weir's copy of the grammar's ATN, made once before any parse. None changes what a
 * query means; they remove dt-sql-parser's editor-only alternatives, repair one rule, and cut
 * the work of SLL prediction, whose cost is the size of the ATN closures it explores: a new
 * lookahead path used to cost milliseconds (a 100-line query 2–3 s in a fresh process, and
 * half a second again for each query of another shape).
 */
function adaptGrammar(atn: ATN): Set<number> {
  const rule = (name: string) => {
    const index = SparkSqlParser.ruleNames.indexOf(name);
    if (index < 0) throw new Error(`dt-sql-parser: the grammar has no rule ${name}; check the grammar of this version`);
    return index;
  };
  const statesOf = (name: string) => {
    const index = rule(name);
    return atn.states.filter((s): s is ATNState => s?.ruleIndex === index);
  };
  /** The first non-epsilon step of alternative `i` of `state` (its state and transition index). */
  const firstStep = (state: ATNState, i: number): [ATNState, number] => {
    let [s, k] = [state, i];
    while (s.transitions[k] instanceof EpsilonTransition && s.transitions[k].target.transitions.length === 1) [s, k] = [s.transitions[k].target, 0];
    return [s, k];
  };
  /**
   * Makes a step match nothing, which ends every path through it: prediction starts each
   * alternative at the target of the decision's transition, so the step after it is replaced.
   */
  const kill = ([state, i]: [ATNState, number]) => {
    state.transitions[i] = new AtomTransition(state.transitions[i].target, Token.INVALID_TYPE);
  };
  const counts = { minus: 0, completion: 0, literalColumn: 0 };
  for (const state of atn.states) {
    if (!state) continue;
    state.transitions.forEach((t, i) => {
      // dt-sql-parser reads every name through `errorCapturingIdentifier`, whose `(MINUS
      // identifier)+` swallows `- b` after a column: `a - b * c` parsed as `(a - b) * c`. Spark
      // uses that rule only where a name cannot be an expression (table names), to report `a-b`
      // as INVALID_IDENTIFIER. Without the MINUS the rule matches empty and `-` is arithmetic
      // (a hyphenated table name is then a plain syntax error at the `-`).
      if (state.ruleIndex === rule('errorCapturingIdentifierExtra') && t instanceof AtomTransition && t.labelValue === SparkSqlParser.MINUS) {
        kill([state, i]);
        counts.minus++;
        return;
      }
      if (!(state instanceof DecisionState)) return;
      const step = firstStep(state, i);
      const first = step[0].transitions[step[1]];
      if (first instanceof PredicateTransition) {
        // The `{shouldMatchEmpty()}?` alternatives (an empty column where the editor's caret
        // is) are false outside dt-sql-parser's completion; alive they make every name ambiguous.
        kill(step);
        counts.completion++;
      } else if (state.ruleIndex === rule('namedExpression') && first instanceof RuleTransition && first.target.ruleIndex === rule('selectLiteralColumnName')) {
        // A select item is an expression, as in Spark's grammar: the grammar's bare-column
        // alternative read `f(a, b)` as the column f with the aliases (a, b), and `NOT j` as
        // the column NOT with the alias j.
        kill(step);
        counts.literalColumn++;
      }
    });
  }
  if (counts.minus === 0 || counts.completion === 0 || counts.literalColumn !== 1) {
    throw new Error(`dt-sql-parser: the grammar is not the one these changes were written for (${JSON.stringify(counts)}); check the grammar of this version`);
  }

  // A keyword in both ansiNonReserved and nonReserved makes strictIdentifier's prediction prove
  // the two alternatives equal, over the closure of everything that may follow a name; each
  // keyword is now in one of them.
  const setStep = (name: string): [ATNState, number, SetTransition] => {
    for (const s of statesOf(name)) {
      const i = s.transitions.findIndex((t) => t instanceof SetTransition);
      if (i >= 0) return [s, i, s.transitions[i] as SetTransition];
    }
    throw new Error(`dt-sql-parser: ${name} is not a token set; check the grammar of this version`);
  };
  const [nonReservedState, k, nonReserved] = setStep('nonReserved');
  nonReservedState.transitions[k] = new SetTransition(nonReserved.target, nonReserved.label.subtract(setStep('ansiNonReserved')[2].label));
  // Spark's strictIdentifier with ANSI off takes nonReserved, not ansiNonReserved: the
  // strict-non-reserved keywords of ansiNonReserved (ANTI, SEMI, MINUS) are no table alias, so
  // `t SEMI JOIN u` is a semi join and `… FROM t MINUS SELECT …` a set operation. A name
  // elsewhere (identifier) still takes them, through strictNonReserved.
  const [ansiState, a, ansiNonReserved] = setStep('ansiNonReserved');
  ansiState.transitions[a] = new SetTransition(ansiNonReserved.target, ansiNonReserved.label.subtract(setStep('strictNonReserved')[2].label));

  // Spark's `columnReference: identifier` (see SparkParser.columnNamePath): the call of
  // multipartIdentifier in columnNamePath becomes a call of errorCapturingIdentifier, with its
  // follow link.
  const columnCall = statesOf('columnNamePath').find((s) => s.transitions[0] instanceof RuleTransition);
  const multipart = columnCall?.transitions[0];
  if (!(multipart instanceof RuleTransition) || multipart.target.ruleIndex !== rule('multipartIdentifier')) {
    throw new Error('dt-sql-parser: columnNamePath is not a multipartIdentifier; check the grammar of this version');
  }
  const identifierRule = rule('errorCapturingIdentifier');
  columnCall!.transitions[0] = new RuleTransition(atn.ruleToStartState[identifierRule]!, identifierRule, 0, multipart.followState);
  const multipartStop = atn.ruleToStopState[rule('multipartIdentifier')]!;
  const followLink = multipartStop.transitions.findIndex((t) => t.target === multipart.followState);
  if (followLink < 0) throw new Error('dt-sql-parser: multipartIdentifier has no follow link into columnNamePath; check the grammar of this version');
  multipartStop.transitions.splice(followLink, 1);
  atn.ruleToStopState[identifierRule]!.transitions.push(new EpsilonTransition(multipart.followState));

  // SLL prediction falls off the end of a rule into every place that calls it (ANTLR's global
  // FOLLOW). Weir parses queries, expressions and types, never the grammar's other statements:
  // the follow links into rules only those statements use are removed, and each entry rule is
  // followed by EOF as `program` follows its statements.
  const entries = ENTRY_RULES.map(rule);
  const reachable = new Set(entries);
  const callees = new Map<number, number[]>();
  for (const s of atn.states) {
    if (!s) continue;
    for (const t of s.transitions) if (t instanceof RuleTransition) callees.set(s.ruleIndex, [...(callees.get(s.ruleIndex) ?? []), t.target.ruleIndex]);
  }
  for (const todo = [...entries]; todo.length > 0;) {
    for (const r of callees.get(todo.pop()!) ?? []) {
      if (reachable.has(r)) continue;
      reachable.add(r);
      todo.push(r);
    }
  }
  const eof = statesOf('program').find((s) => s.transitions.some((t) => t instanceof AtomTransition && t.labelValue === Token.EOF));
  if (!eof) throw new Error('dt-sql-parser: program does not end in EOF; check the grammar of this version');
  for (const s of atn.states) {
    if (!(s instanceof RuleStopState)) continue;
    const kept = s.transitions.filter((t) => reachable.has(t.target.ruleIndex));
    if (entries.includes(s.ruleIndex)) kept.push(new EpsilonTransition(eof));
    s.transitions.splice(0, s.transitions.length, ...kept);
  }

  // The keywords that a query can only use as names (DATA, TYPE, NAME, SOURCE, START, …: their
  // other uses are in statements Weir never parses). The lexer's token becomes IDENTIFIER, so a
  // column named `type` shares the prediction paths of every other column name, instead of
  // paying for its own the first time it appears in each place.
  const nameRules = new Set(['nonReserved', 'ansiNonReserved', 'strictNonReserved'].map(rule));
  const names = new Set<number>();
  const roles = new Set<number>();
  for (const s of atn.states) {
    if (!s || !reachable.has(s.ruleIndex)) continue;
    for (const t of s.transitions) {
      const labels = t instanceof AtomTransition ? [t.labelValue] : t instanceof SetTransition || t instanceof NotSetTransition ? t.label.toArray() : [];
      for (const label of labels) (nameRules.has(s.ruleIndex) ? names : roles).add(label);
    }
  }
  return new Set([...names].filter((t) => !roles.has(t)));
}

/**
 * antlr4ng's HashSet counts its members by walking all of them, and the prediction reads the
 * count of a decision's DFA states (to number a new one) each time it adds one: learning a new
 * lookahead path cost time in proportion to the paths already learned, a quarter of the parse
 * time of a process's first few hundred queries. This set keeps its count.
 */
class CountedStates extends HashSet<DFAState> {
  private count = 0;
  override add(state: DFAState): DFAState {
    const present = this.get(state);
    if (present !== null) return present;
    this.count++;
    return super.add(state);
  }
  override get length(): number {
    return this.count;
  }
}

function withCountedStates(dfa: DFA): DFA {
  if (dfa.states.length !== 0) throw new Error('withCountedStates: the DFA has states already');
  Object.defineProperty(dfa, 'states', { value: new CountedStates(), writable: false });
  return dfa;
}

/**
 * Weir's copy of the grammar's ATN, adapted, with its own prediction cache: dt-sql-parser's own
 * parser (its completion, should anything in the process use it) keeps the grammar as published.
 */
const ADAPTED_ATN = new ATNDeserializer().deserialize(SparkSqlParser._serializedATN);
const NAME_ONLY_KEYWORDS = adaptGrammar(ADAPTED_ATN);
const ADAPTED_DFA = ADAPTED_ATN.decisionToState.map((s, i) => withCountedStates(new DFA(s, i)));

/**
 * The grammar's parser with Spark's column reference. dt-sql-parser reads a column as
 * `columnNamePath: multipartIdentifier`, which makes `a.b` both the name a.b and the field b of
 * the column a (`base=primaryExpression DOT fieldName`): SLL prediction then reads ahead past
 * the name to tell the two apart, and each name shape and the token after it cost a new
 * prediction path (a third of a new query's parse). As in Spark's grammar, a column is one
 * identifier and each `.field` a dereference; ExpressionAstBuilder joins names and fields into
 * the multi-part UnresolvedAttribute, as Spark's visitDereference does.
 */
const COLUMN_NAME_CALL_STATE = ADAPTED_ATN.states.find((s) => s?.ruleIndex === SparkSqlParser.RULE_columnNamePath && s.transitions[0] instanceof RuleTransition)!.stateNumber;

class SparkParser extends SparkSqlParser {
  constructor(input: TokenStream) {
    super(input);
    this.interpreter = new ParserATNSimulator(this, ADAPTED_ATN, ADAPTED_DFA, new PredictionContextCache());
  }

  override columnNamePath(): ColumnNamePathContext {
    const ctx = new ColumnNamePathContext(this.context, this.state);
    this.enterRule(ctx, ADAPTED_ATN.ruleToStartState[SparkSqlParser.RULE_columnNamePath]!.stateNumber, SparkSqlParser.RULE_columnNamePath);
    try {
      this.enterOuterAlt(ctx, 1);
      this.state = COLUMN_NAME_CALL_STATE;
      this.errorCapturingIdentifier();
    } catch (re) {
      if (!(re instanceof RecognitionException)) throw re;
      ctx.exception = re;
      this.errorHandler.reportError(this, re);
      this.errorHandler.recover(this, re);
    } finally {
      this.exitRule();
    }
    return ctx;
  }

  /**
   * Spark's `quotedIdentifier: BACKQUOTED_IDENTIFIER | {double_quoted_identifiers}?
   * DOUBLEQUOTED_STRING`: with spark.sql.ansi.doubleQuotedIdentifiers off (its default) a
   * double-quoted text is never a name (`FROM "t"`, `AS "x"`, `"f"()`), a syntax error at it.
   * dt-sql-parser's rule takes both.
   */
  override quotedIdentifier(): QuotedIdentifierContext {
    const t = this.getCurrentToken();
    if (t.type === SparkSqlLexer.DOUBLEQUOTED_STRING) throw new DoubleQuotedName(t);
    return super.quotedIdentifier();
  }
}

/** A double-quoted text where the grammar reads a name (SparkParser.quotedIdentifier). */
class DoubleQuotedName extends Error {
  constructor(readonly token: Token) {
    super('a double-quoted name');
  }
}
export * as Ctx from 'dt-sql-parser/dist/lib/spark/SparkSqlParser';

/** A token list as a TokenSource (antlr4ng has no ListTokenSource). */
class TokenListSource implements TokenSource {
  private i = 0;
  line = 1;
  _tokenStartColumn = 0;
  inputStream: CharStream | null = null;
  sourceName = 'sql';
  tokenFactory!: TokenFactory<Token>;
  constructor(private readonly tokens: readonly Token[]) {}
  nextToken(): Token {
    return this.tokens[Math.min(this.i++, this.tokens.length - 1)];
  }
}

class ThrowingListener extends BaseErrorListener {
  /** The token of the last error reported. */
  offending: Token | null = null;
  constructor(private readonly text: SourceText) {
    super();
  }
  override syntaxError<S extends Token, T extends ATNSimulator>(recognizer: Recognizer<T>, offending: S | null, line: number, column: number): void {
    this.offending = offending;
    if (offending) throw syntaxErrorAt(this.text, offending);
    // A lexer error: the character it stopped at (ANTLR counts code points).
    const offset = recognizer instanceof Lexer ? this.text.offset(recognizer._tokenStartCharIndex) : this.text.lineStart(line) + column;
    const near = offset >= this.text.sql.length ? 'end of input' : `'${String.fromCodePoint(this.text.sql.codePointAt(offset)!)}'`;
    throw new SqlValidationError(`[PARSE_SYNTAX_ERROR] Syntax error at or near ${near}.`, this.text.position(offset, offset + 1), 'syntax', 'PARSE_SYNTAX_ERROR');
  }
}

/** Spark's ParseErrorListener: the token an error is at, with its line and column. */
export function syntaxErrorAt(text: SourceText, t: Token, hint = ''): SqlValidationError {
  const near = t.type === Token.EOF ? 'end of input' : `'${t.text ?? ''}'`;
  return new SqlValidationError(`[PARSE_SYNTAX_ERROR] Syntax error at or near ${near}.${hint}`, text.tokenPosition(t), 'syntax', 'PARSE_SYNTAX_ERROR');
}

/** The user's text and the offset arithmetic: ANTLR counts code points, JavaScript UTF-16 units. */
export class SourceText {
  private readonly lineStarts: number[] = [0];
  /** UTF-16 offset of each code point index, when the text has characters above U+FFFF. */
  private readonly utf16Of?: number[];
  constructor(readonly sql: string) {
    for (let i = 0; i < sql.length; i++) if (sql.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
    if (/[\uD800-\uDFFF]/.test(sql)) {
      this.utf16Of = [];
      for (let i = 0; i < sql.length; i++) {
        this.utf16Of.push(i);
        const c = sql.charCodeAt(i);
        if (c >= 0xd800 && c <= 0xdbff) i++;
      }
      this.utf16Of.push(sql.length);
    }
  }
  /** A code point index (ANTLR's `start`/`stop`) as a UTF-16 offset. */
  offset(cp: number): number {
    return this.utf16Of ? (this.utf16Of[cp] ?? this.sql.length) : cp;
  }
  lineStart(line: number): number {
    return this.lineStarts[line - 1] ?? this.sql.length;
  }
  /** The span [start, end) with the 1-based line and column of its start. */
  position(start: number, end: number): Position {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= start) lo = mid;
      else hi = mid - 1;
    }
    return { start, end, line: lo + 1, column: start - this.lineStarts[lo] + 1 };
  }
  tokenPosition(t: Token): Position {
    if (t.type === Token.EOF) return this.position(this.sql.length, this.sql.length);
    return this.position(this.offset(t.start), this.offset(t.stop + 1));
  }
  /** The span of tokens first..last (a rule context's start and stop). */
  span(first: Token, last: Token | null): Position {
    const end = last && last.type !== Token.EOF && last.stop >= first.start ? this.offset(last.stop + 1) : this.offset(first.stop + 1);
    return this.position(this.offset(first.start), end);
  }
}

/**
 * What a `[` the rewrites insert stands for: a `::` cast, a call's WITHIN GROUP, a star's EXCEPT
 * (see the header).
 */
type RewrittenBracket = 'cast' | 'withinGroup' | 'starExcept' | 'variantPath';

/** A parsed text: its tokens (after the rewrites) and the `[` tokens they inserted. */
export interface ParsedText {
  readonly text: SourceText;
  readonly brackets: ReadonlyMap<Token, RewrittenBracket>;
  readonly tokens: readonly Token[];
  /** Each query written with pipe operators, by the name token of the `TABLE name` it was replaced with. */
  readonly pipes: ReadonlyMap<Token, PipeChain>;
}

/**
 * How ast-builder.ts makes a pipe operator's plan from the query of its `tokens`, read over the
 * `input` relation (the plan on the operator's left): SELECT and EXTEND a Project, checked for
 * aggregates; AGGREGATE an Aggregate; UNWRAP the plan under its `SELECT *` (a Filter, Join,
 * SubqueryAlias, Pivot …, as Spark puts it straight over the left side); QUERY the plan as it is.
 */
type PipeOperatorKind = 'SELECT' | 'EXTEND' | 'SET' | 'AGGREGATE' | 'UNWRAP' | 'QUERY';

/** One `|> …`: the query over `input` it stands for, its tokens ending in EOF. */
export interface PipeOperator {
  readonly kind: PipeOperatorKind;
  readonly pipe: Token;
  readonly input: Token;
  readonly tokens: readonly Token[];
  /** Whether `input` is read under a SubqueryAlias (Spark's withSubqueryAlias: WHERE and the result clauses). */
  readonly aliasedInput: boolean;
  /** AGGREGATE: how many of its select items are the GROUP BY items (the rest are the aggregates). */
  readonly groupingItems: number;
}

/** A query of Spark 4's pipe syntax: the query left of the first `|>` (tokens ending in EOF) and each operator. */
export interface PipeChain {
  readonly left: readonly Token[];
  readonly operators: readonly PipeOperator[];
}

const INTERVAL_UNITS = new Set(['YEAR', 'MONTH', 'DAY', 'HOUR', 'MINUTE', 'SECOND']);

/** Index (in `toks`, default-channel tokens) just past the data type that starts at `i`. */
function dataTypeEnd(toks: Token[], i: number): number {
  const text = (k: number) => (toks[k]?.text ?? '').toUpperCase();
  if (i >= toks.length || toks[i].type === Token.EOF) return i;
  if (toks[i].type === SparkSqlLexer.KW_INTERVAL) {
    let k = i + 1;
    if (INTERVAL_UNITS.has(text(k))) k++;
    if (toks[k]?.type === SparkSqlLexer.KW_TO && INTERVAL_UNITS.has(text(k + 1))) k += 2;
    return k;
  }
  let k = i + 1;
  const next = toks[k]?.type;
  if (next === SparkSqlLexer.NEQ) return k + 1; // STRUCT<>
  const [open, close] = next === SparkSqlLexer.LT ? [SparkSqlLexer.LT, SparkSqlLexer.GT] : next === SparkSqlLexer.LEFT_PAREN ? [SparkSqlLexer.LEFT_PAREN, SparkSqlLexer.RIGHT_PAREN] : [-1, -1];
  if (open < 0) return k;
  let depth = 0;
  for (; k < toks.length && toks[k].type !== Token.EOF; k++) {
    if (toks[k].type === open) depth++;
    else if (toks[k].type === close && --depth === 0) return k + 1;
  }
  return k;
}

function synthetic(at: Token, type: number, text: string): CommonToken {
  const t = new CommonToken(at instanceof CommonToken ? at.source : CommonToken.EMPTY_SOURCE, type, Token.DEFAULT_CHANNEL, at.start, at.stop);
  t.text = text;
  t.line = at.line;
  t.column = at.column;
  return t;
}

/** Rewrites each `::` type into `[CAST(NULL AS type)]` (see the header). */
function rewriteCasts(all: Token[], brackets: Map<Token, RewrittenBracket>): Token[] {
  const visible = all.filter((t) => t.channel === Token.DEFAULT_CHANNEL);
  const before = new Map<Token, Token[]>();
  const after = new Map<Token, Token[]>();
  const drop = new Set<Token>();
  for (let i = 0; i + 1 < visible.length; i++) {
    const a = visible[i];
    const b = visible[i + 1];
    if (a.type !== SparkSqlLexer.COLON || b.type !== SparkSqlLexer.COLON || b.start !== a.stop + 1) continue;
    const end = dataTypeEnd(visible, i + 2);
    if (end === i + 2) continue; // no type: left for the parser to refuse at `:`
    const open = synthetic(a, SparkSqlLexer.LEFT_BRACKET, '[');
    brackets.set(open, 'cast');
    drop.add(a).add(b);
    before.set(a, [open, synthetic(a, SparkSqlLexer.KW_CAST, 'CAST'), synthetic(a, SparkSqlLexer.LEFT_PAREN, '('), synthetic(a, SparkSqlLexer.KW_NULL, 'NULL'), synthetic(a, SparkSqlLexer.KW_AS, 'AS')]);
    const last = visible[end - 1];
    after.set(last, [...(after.get(last) ?? []), synthetic(a, SparkSqlLexer.RIGHT_PAREN, ')'), synthetic(a, SparkSqlLexer.RIGHT_BRACKET, ']')]);
    i++;
  }
  if (drop.size === 0) return all;
  const out: Token[] = [];
  for (const t of all) {
    out.push(...(before.get(t) ?? []));
    if (!drop.has(t)) out.push(t);
    out.push(...(after.get(t) ?? []));
  }
  out.forEach((t, i) => { (t as CommonToken).tokenIndex = i; });
  return out;
}

/** Whether `t` may be a name (Spark's `identifier`: with ANSI off every keyword is one). */
function isName(t: Token | undefined): boolean {
  if (!t) return false;
  return t.type === SparkSqlLexer.IDENTIFIER || t.type === SparkSqlLexer.BACKQUOTED_IDENTIFIER || (SparkSqlLexer.symbolicNames[t.type]?.startsWith('KW_') ?? false);
}

/**
 * Rewrites Spark 4's variant path `expr:a.b[0]` (its `primaryExpression COLON
 * semiStructuredExtractionPath`) into the subscript `expr['$.a.b[0]']`, a postfix on the primary
 * expression as Spark binds it, so that `v:a::int` casts the extracted value and `-v:a` negates
 * it. The path is what Spark's grammar reads after the colon: a first part (a name, `['key']`,
 * `[0]` or `[*]`) and then any of `.name`, `['key']`, `[0]`, `[*]`, `[name]`; its tokens' text
 * joined without the blanks between them, after `$.` (or `$` before a bracket), is the JSON path
 * Spark's AstBuilder gives variant_get. The inserted `[` carries the colon's offsets and text (a
 * colon after no expression, `SELECT :a`, stays a syntax error at it); the string token's text is
 * the path itself, read by ast-builder.ts, which knows the `[` from `brackets`.
 *
 * A colon is a path's only there: not one of `::` (rewriteCasts), not one inside a complex type's
 * arguments (`STRUCT<a: INT>`), and not one after a string literal, which Spark 4.1 reads as a
 * named parameter marker continuing the string (`'str':col`, refused unbound as
 * UNEXPECTED_USE_OF_PARAMETER_MARKER); Weir has no parameter markers, and leaves those colons to
 * the parser's syntax error.
 */
function rewriteVariantPaths(all: Token[], brackets: Map<Token, RewrittenBracket>): Token[] {
  const visible = all.filter((t) => t.channel === Token.DEFAULT_CHANNEL);
  const replaced = new Map<Token, Token[]>();
  const drop = new Set<Token>();
  const type = (k: number) => visible[k]?.type;
  const touching = (a: Token | undefined, b: Token | undefined) => a !== undefined && b !== undefined && b.start === a.stop + 1;
  const isString = (x: Token) => x.type === SparkSqlLexer.STRING_LITERAL || x.type === SparkSqlLexer.DOUBLEQUOTED_STRING;
  let typeDepth = 0;
  for (let i = 0; i < visible.length; i++) {
    const t = visible[i];
    if ((t.type === SparkSqlLexer.KW_ARRAY || t.type === SparkSqlLexer.KW_MAP || t.type === SparkSqlLexer.KW_STRUCT) && opensType(visible, i + 1)) typeDepth++;
    else if (t.type === SparkSqlLexer.GT && typeDepth > 0) typeDepth--;
    if (t.type !== SparkSqlLexer.COLON || typeDepth > 0 || i === 0) continue;
    if ((type(i + 1) === SparkSqlLexer.COLON && touching(t, visible[i + 1])) || (type(i - 1) === SparkSqlLexer.COLON && touching(visible[i - 1], t))) continue;
    if (isString(visible[i - 1])) continue;
    // `[` followed by what closes one bracketed part, or -1.
    const bracketed = (k: number, names: boolean): number => {
      if (type(k) !== SparkSqlLexer.LEFT_BRACKET || type(k + 2) !== SparkSqlLexer.RIGHT_BRACKET) return -1;
      const inside = visible[k + 1];
      const ok = isString(inside) || inside.type === SparkSqlLexer.INTEGER_VALUE || inside.type === SparkSqlLexer.ASTERISK || (names && isName(inside));
      return ok ? k + 3 : -1;
    };
    let end = isName(visible[i + 1]) ? i + 2 : bracketed(i + 1, false);
    if (end < 0) continue;
    for (;;) {
      if (type(end) === SparkSqlLexer.DOT && isName(visible[end + 1])) end += 2;
      else if (bracketed(end, true) > 0) end = bracketed(end, true);
      else break;
    }
    const parts = visible.slice(i + 1, end);
    const text = parts.map((p) => p.text).join('');
    const open = synthetic(t, SparkSqlLexer.LEFT_BRACKET, t.text!);
    brackets.set(open, 'variantPath');
    const path = synthetic(parts[0], SparkSqlLexer.STRING_LITERAL, `${text.startsWith('[') ? '$' : '$.'}${text}`);
    path.stop = parts[parts.length - 1].stop;
    const close = synthetic(parts[parts.length - 1], SparkSqlLexer.RIGHT_BRACKET, ']');
    replaced.set(t, [open, path, close]);
    for (const p of parts) drop.add(p);
    i = end - 1;
  }
  if (replaced.size === 0) return all;
  const out: Token[] = [];
  for (const t of all) {
    if (drop.has(t)) continue;
    out.push(...(replaced.get(t) ?? [t]));
  }
  out.forEach((t, i) => { (t as CommonToken).tokenIndex = i; });
  return out;
}

/** The quote a string token opens with, none for a raw string (`r'…'`, whose quotes are not escapes). */
function quoteOf(t: Token): string | undefined {
  if (t.type !== SparkSqlLexer.STRING_LITERAL && t.type !== SparkSqlLexer.DOUBLEQUOTED_STRING) return undefined;
  const q = t.text?.[0];
  return q === "'" || q === '"' ? q : undefined;
}

/**
 * Rewrites of the tokens before the parse, for what Spark 4's grammar reads and the 3.5 one
 * does not:
 * - A doubled quote inside a string is one quote (`'S''par''k'` is S'par'k, Spark 4.1's SQL
 *   standard escape): the grammar's lexer ends the string at the second quote, so strings of
 *   one quote kind that touch are joined into one token, whose doubled quotes
 *   unescapeSqlString reads. Strings apart (`'S' 'par'`) stay adjacent literals, concatenated.
 * - The shift operators `<<`, `>>`, `>>>`: the lexer reads them as `<` `<`, … Touching `<`s
 *   and `>`s become one `&` token with the operator's text, which parses at the level of `&`;
 *   ExpressionAstBuilder gives shifts Spark's own level, between `+ - ||` and `&`. A `>` that
 *   closes an `ARRAY<`, `MAP<` or `STRUCT<` is never a shift (Spark's isShiftRightOperator).
 */
/**
 * Whether the tokens from `k` open a type's arguments (`ARRAY<INT>`, `STRUCT<a: INT>`, `STRUCT<>`)
 * after ARRAY, MAP or STRUCT: a `<` then a name or a `>`; a column of that name compared with
 * `<` has a value after it (`map < 5`, `array < -1`, `struct < (x)`). A name is still read as a
 * type (`map < x`), which only a `>` closing it can tell apart.
 */
function opensType(all: Token[], k: number): boolean {
  const next = (j: number) => {
    while (all[j]?.channel === Token.HIDDEN_CHANNEL) j++;
    return j;
  };
  const lt = next(k);
  if (all[lt]?.type !== SparkSqlLexer.LT) return false;
  const arg = all[next(lt + 1)];
  if (arg === undefined) return false;
  const name = SparkSqlLexer.symbolicNames[arg.type];
  return arg.type === SparkSqlLexer.GT || arg.type === SparkSqlLexer.IDENTIFIER || arg.type === SparkSqlLexer.BACKQUOTED_IDENTIFIER || (name?.startsWith('KW_') ?? false);
}

function rewriteOperatorsAndStrings(all: Token[]): Token[] {
  const out: Token[] = [];
  let typeDepth = 0;
  const touching = (a: Token, b: Token | undefined) => b !== undefined && b.start === a.stop + 1;
  for (let i = 0; i < all.length; i++) {
    const t = all[i];
    const quote = quoteOf(t);
    if (quote) {
      let j = i;
      while (touching(all[j], all[j + 1]) && quoteOf(all[j + 1]) === quote) j++;
      if (j > i) {
        const joined = synthetic(t, t.type, all.slice(i, j + 1).map((x) => x.text).join(''));
        joined.stop = all[j].stop;
        out.push(joined);
        i = j;
        continue;
      }
    }
    const next = all[i + 1];
    const complexType = t.type === SparkSqlLexer.KW_ARRAY || t.type === SparkSqlLexer.KW_MAP || t.type === SparkSqlLexer.KW_STRUCT;
    const three = t.type === SparkSqlLexer.GT && next?.type === SparkSqlLexer.GT && touching(t, next) && all[i + 2]?.type === SparkSqlLexer.GT && touching(next, all[i + 2]);
    if (complexType && opensType(all, i + 1)) typeDepth++;
    // `>>` or `>>>` closes as many types only when as many are open: `map < x AND b >> 1`.
    else if (t.type === SparkSqlLexer.GT && typeDepth > 0 && !(next?.type === SparkSqlLexer.GT && touching(t, next) && typeDepth < (three ? 3 : 2))) typeDepth--;
    else if ((t.type === SparkSqlLexer.LT || t.type === SparkSqlLexer.GT) && next?.type === t.type && touching(t, next)) {
      const last = three ? all[i + 2] : next;
      const shift = synthetic(t, SparkSqlLexer.AMPERSAND, t.type === SparkSqlLexer.LT ? '<<' : three ? '>>>' : '>>');
      shift.stop = last.stop;
      out.push(shift);
      i += three ? 2 : 1;
      continue;
    }
    out.push(t);
  }
  if (out.length === all.length) return all;
  out.forEach((t, i) => { (t as CommonToken).tokenIndex = i; });
  return out;
}

/** The index in `all` of the token that closes the bracket `all[open]` opens, or -1. */
function closing(all: readonly Token[], open: number): number {
  const [o, c] = all[open].type === SparkSqlLexer.LEFT_PAREN ? [SparkSqlLexer.LEFT_PAREN, SparkSqlLexer.RIGHT_PAREN] : [SparkSqlLexer.LEFT_BRACKET, SparkSqlLexer.RIGHT_BRACKET];
  let depth = 0;
  for (let k = open; k < all.length; k++) {
    if (all[k].type === o) depth++;
    else if (all[k].type === c && --depth === 0) return k;
  }
  return -1;
}

/**
 * Tokens after which `IDENTIFIER(…)` is no identifier clause, a syntax error: a field after a dot
 * (`s.IDENTIFIER('a')`), a window's name (`OVER`, `WINDOW`), a CTE's name (`WITH`), and a USING
 * list's column. Spark's grammar has the clause only where a column, table or function is
 * named, and refuses it here.
 */
const NO_IDENTIFIER_CLAUSE_AFTER = new Set([SparkSqlLexer.DOT, SparkSqlLexer.KW_OVER, SparkSqlLexer.KW_WINDOW, SparkSqlLexer.KW_WITH]);

/**
 * Spark's identifier clause, `IDENTIFIER('name')` where a column, table or function is named
 * (`SELECT IDENTIFIER('c' || '1') FROM t`, `FROM IDENTIFIER('tab')`, `IDENTIFIER('abs')(x)`):
 * its argument, string literals joined by `||` (a constant Spark folds), is read as a name of
 * one or more parts (`'t.c1'`, `'`c 1`'`), which replaces the clause's tokens, each part as a
 * quoted name. Another argument is refused as Spark refuses one that is no constant string
 * (notAConstantString).
 */
function rewriteIdentifierClauses(all: Token[], text: SourceText): Token[] {
  let out = all;
  const visible = (from: number, step: number) => {
    let k = from + step;
    while (k >= 0 && k < out.length && out[k].channel !== Token.DEFAULT_CHANNEL) k += step;
    return k;
  };
  for (let i = 0; i < out.length; i++) {
    const t = out[i];
    const open = visible(i, 1);
    if (t.type !== SparkSqlLexer.KW_IDENTIFIER || out[open]?.type !== SparkSqlLexer.LEFT_PAREN) continue;
    const close = closing(out, open);
    if (close < 0) continue;
    const before = visible(i, -1);
    // A USING list's column (`USING (IDENTIFIER('c1'))`) is one of NO_IDENTIFIER_CLAUSE_AFTER's places.
    const using = out[before]?.type === SparkSqlLexer.LEFT_PAREN && out[visible(before, -1)]?.type === SparkSqlLexer.KW_USING;
    if (NO_IDENTIFIER_CLAUSE_AFTER.has(out[before]?.type) || using) throw syntaxErrorAt(text, out[visible(open, 1)]);
    // Followed by a dot (`IDENTIFIER('t').c1`, `IDENTIFIER('s').tab`): Spark reads the clause as
    // one whole name, which a field or a part cannot follow.
    if (out[visible(close, 1)]?.type === SparkSqlLexer.DOT) throw syntaxErrorAt(text, out[visible(close, 1)]);
    const inner = out.slice(open + 1, close).filter((x) => x.channel === Token.DEFAULT_CHANNEL);
    const strings = inner.every((x, k) => (k % 2 === 0 ? quoteOf(x) !== undefined : x.type === SparkSqlLexer.CONCAT_PIPE)) && inner.length % 2 === 1;
    if (!strings) throw notAConstantString(inner, text.tokenPosition(inner[0] ?? t));
    const name = inner.filter((_, k) => k % 2 === 0).map((x) => unescapeSqlString(x.text!)).join('');
    const parts = identifierParts(name, text.tokenPosition(t));
    // A function's name has three parts at most (catalog, database, name).
    if (parts.length > 3 && out[visible(close, 1)]?.type === SparkSqlLexer.LEFT_PAREN) {
      throw new SqlValidationError(`[IDENTIFIER_TOO_MANY_NAME_PARTS] ${name} is not a valid identifier as it has more than 2 name parts.`, text.tokenPosition(t), 'IDENTIFIER', 'IDENTIFIER_TOO_MANY_NAME_PARTS');
    }
    const quoted = parts.flatMap((p, k) => [...(k ? [synthetic(t, SparkSqlLexer.DOT, '.')] : []), synthetic(t, SparkSqlLexer.BACKQUOTED_IDENTIFIER, `\`${p.replace(/`/g, '``')}\``)]);
    for (const q of quoted) (q as CommonToken).stop = out[close].stop;
    out = [...out.slice(0, i), ...quoted, ...out.slice(close + 1)];
    i += quoted.length - 1;
  }
  if (out !== all) out.forEach((x, k) => { (x as CommonToken).tokenIndex = k; });
  return out;
}

/**
 * The error of an IDENTIFIER(…) argument that is not string literals joined by `||`: Spark's
 * NOT_A_CONSTANT_STRING, WRONG_TYPE for a number, NULL for a NULL (`CAST(NULL AS STRING)`),
 * NOT_CONSTANT otherwise (a column, a variable, a call Weir does not fold as a name).
 */
function notAConstantString(inner: Token[], pos: Position): SqlValidationError {
  const expr = inner.map((x) => x.text).join(' ');
  const starts = (...types: number[]) => types.every((type, k) => inner[k]?.type === type);
  if (inner.length === 1 && /^[0-9.]/.test(inner[0].text ?? '')) {
    return new SqlValidationError(`[NOT_A_CONSTANT_STRING.WRONG_TYPE] The expression ${expr} used for the routine or clause IDENTIFIER must be of type STRING, but it is a number.`, pos, 'IDENTIFIER', 'NOT_A_CONSTANT_STRING.WRONG_TYPE');
  }
  if (starts(SparkSqlLexer.KW_NULL) || starts(SparkSqlLexer.KW_CAST, SparkSqlLexer.LEFT_PAREN, SparkSqlLexer.KW_NULL)) {
    return new SqlValidationError(`[NOT_A_CONSTANT_STRING.NULL] The expression ${expr} used for the routine or clause IDENTIFIER must not be NULL.`, pos, 'IDENTIFIER', 'NOT_A_CONSTANT_STRING.NULL');
  }
  return new SqlValidationError(`[NOT_A_CONSTANT_STRING.NOT_CONSTANT] The expression ${expr} used for the routine or clause IDENTIFIER must be a constant STRING: Weir takes string literals, joined by ||.`, pos, 'IDENTIFIER', 'NOT_A_CONSTANT_STRING.NOT_CONSTANT');
}

/**
 * The parts of a name written as text (Spark's parseMultipartIdentifier): names or backquoted
 * names joined by dots. Empty text is Spark's PARSE_EMPTY_STATEMENT, anything else that is no
 * such name its PARSE_SYNTAX_ERROR.
 */
function identifierParts(name: string, pos: Position): string[] {
  if (!name.trim()) throw new SqlValidationError('[PARSE_EMPTY_STATEMENT] Syntax error, unexpected empty statement.', pos, 'IDENTIFIER', 'PARSE_EMPTY_STATEMENT');
  const part = /\s*(?:`((?:[^`]|``)*)`|([\p{L}\p{N}_]+))\s*(\.|$)/uy;
  const parts: string[] = [];
  for (let at = 0; at < name.length;) {
    part.lastIndex = at;
    const m = part.exec(name);
    if (!m) {
      // The first word after the name's last whole part.
      const rest = name.slice(at).trim().split(/\s+/).at(/^\s*(?:`(?:[^`]|``)*`|[\p{L}\p{N}_]+)\s/u.test(name.slice(at)) ? 1 : 0)!;
      throw new SqlValidationError(`[PARSE_SYNTAX_ERROR] Syntax error at or near '${rest}': extra input '${rest}' in the name ${name} of IDENTIFIER(…).`, pos, 'IDENTIFIER', 'PARSE_SYNTAX_ERROR');
    }
    parts.push(m[1] !== undefined ? m[1].replace(/``/g, '`') : m[2]);
    at = part.lastIndex;
    if (m[3] === '.' && at === name.length) throw new SqlValidationError(`[PARSE_SYNTAX_ERROR] Syntax error at or near end of input: the name ${name} of IDENTIFIER(…) ends with a dot.`, pos, 'IDENTIFIER', 'PARSE_SYNTAX_ERROR');
  }
  return parts;
}

/** Tokens a star may follow as a select item or an argument (`SELECT *`, `f(*`, `, *`, `t.*`). */
const BEFORE_STAR = new Set([SparkSqlLexer.KW_SELECT, SparkSqlLexer.COMMA, SparkSqlLexer.LEFT_PAREN, SparkSqlLexer.KW_DISTINCT, SparkSqlLexer.KW_ALL, SparkSqlLexer.DOT]);

/**
 * Rewrites Spark 4's `f(…) WITHIN GROUP (ORDER BY …)` and `* EXCEPT (…)` into subscripts the
 * 3.5 grammar parses (see the header). A text that does not have the clause's shape (`WITHIN`
 * not after a `)`, `EXCEPT` without a parenthesized name after a star) is left as it is, for the
 * parser to refuse where Spark does.
 */
function rewriteSpark4Clauses(all: Token[], brackets: Map<Token, RewrittenBracket>): Token[] {
  let out = all;
  // The visible token after index k, and its index.
  const next = (k: number) => {
    for (k++; k < out.length && out[k].channel !== Token.DEFAULT_CHANNEL; k++);
    return k;
  };
  const type = (k: number) => out[k]?.type;
  const previous = (k: number) => {
    for (k--; k >= 0 && out[k].channel !== Token.DEFAULT_CHANNEL; k--);
    return type(k);
  };
  /** Whether the visible tokens from index k are of `types`, in order. */
  const is = (k: number, ...types: number[]) => types.every((t) => {
    const ok = type(k) === t;
    k = next(k);
    return ok;
  });
  for (let i = 0; i < out.length; i++) {
    const t = out[i];
    if (t.type === SparkSqlLexer.KW_WITHIN && previous(i) === SparkSqlLexer.RIGHT_PAREN && is(next(i), SparkSqlLexer.KW_GROUP, SparkSqlLexer.LEFT_PAREN, SparkSqlLexer.KW_ORDER, SparkSqlLexer.KW_BY)) {
      const open = next(next(i));
      const close = closing(out, open);
      if (close < 0) continue;
      // The rest of the call: FILTER (WHERE …), IGNORE|RESPECT NULLS, OVER (…) or OVER w.
      let end = next(close);
      if (type(end) === SparkSqlLexer.KW_FILTER && type(next(end)) === SparkSqlLexer.LEFT_PAREN) {
        const f = closing(out, next(end));
        if (f > 0) end = next(f);
      }
      if ((type(end) === SparkSqlLexer.KW_IGNORE || type(end) === SparkSqlLexer.KW_RESPECT) && type(next(end)) === SparkSqlLexer.KW_NULLS) end = next(next(end));
      if (type(end) === SparkSqlLexer.KW_OVER) {
        const w = next(end);
        const c = type(w) === SparkSqlLexer.LEFT_PAREN ? closing(out, w) : w;
        if (c >= 0 && type(c) !== Token.EOF) end = next(c);
      }
      const tailEnd = end < out.length ? end : out.length - 1;
      // Back to just past the last visible token of the tail.
      let stop = tailEnd;
      while (stop > close + 1 && out[stop - 1].channel !== Token.DEFAULT_CHANNEL) stop--;
      const bracket = synthetic(t, SparkSqlLexer.LEFT_BRACKET, t.text!);
      brackets.set(bracket, 'withinGroup');
      out = [
        ...out.slice(0, i), ...out.slice(close + 1, stop),
        bracket, synthetic(t, SparkSqlLexer.IDENTIFIER, 'within_group'), synthetic(t, SparkSqlLexer.LEFT_PAREN, '('), synthetic(t, SparkSqlLexer.RIGHT_PAREN, ')'), synthetic(t, SparkSqlLexer.KW_OVER, 'OVER'),
        ...out.slice(open, close + 1), synthetic(out[close], SparkSqlLexer.RIGHT_BRACKET, ']'),
        ...out.slice(stop),
      ];
    } else if (t.type === SparkSqlLexer.ASTERISK && BEFORE_STAR.has(previous(i)!) && is(next(i), SparkSqlLexer.KW_EXCEPT, SparkSqlLexer.LEFT_PAREN)) {
      const except = next(i);
      const open = next(except);
      const name = out[next(open)];
      if (!name || !(name.type === SparkSqlLexer.IDENTIFIER || name.type === SparkSqlLexer.BACKQUOTED_IDENTIFIER || (SparkSqlLexer.symbolicNames[name.type]?.startsWith('KW_') && !QUERY_START.has(name.type)))) continue;
      const close = closing(out, open);
      if (close < 0) continue;
      const bracket = synthetic(out[except], SparkSqlLexer.LEFT_BRACKET, out[except].text!);
      brackets.set(bracket, 'starExcept');
      out = [...out.slice(0, except), bracket, ...out.slice(open, close + 1), synthetic(out[close], SparkSqlLexer.RIGHT_BRACKET, ']'), ...out.slice(close + 1)];
    }
  }
  if (out !== all) out.forEach((t, i) => { (t as CommonToken).tokenIndex = i; });
  return out;
}

function runParser<T>(tokens: readonly Token[], listener: ThrowingListener, entry: (p: SparkSqlParser) => T): T {
  const make = () => {
    const p = new SparkParser(new CommonTokenStream(new TokenListSource(tokens)));
    p.removeErrorListeners();
    return p;
  };
  // SLL with bail-out first; LL with Spark's error report only when that fails.
  const sll = make();
  sll.interpreter.predictionMode = PredictionMode.SLL;
  sll.errorHandler = new BailErrorStrategy();
  let parser = sll;
  let tree: T;
  const named = (e: unknown) => {
    if (e instanceof DoubleQuotedName) listener.syntaxError(parser, e.token, e.token.line, e.token.column);
    return e;
  };
  try {
    tree = entry(sll);
  } catch (e) {
    if (named(e) instanceof SqlValidationError) throw e;
    parser = make();
    parser.interpreter.predictionMode = PredictionMode.LL;
    parser.errorHandler = new DefaultErrorStrategy();
    parser.addErrorListener(listener);
    try {
      tree = entry(parser);
    } catch (e2) {
      throw named(e2);
    }
  }
  // Every entry reads the whole text: what is left is an error at its first token.
  const rest = parser.getCurrentToken();
  if (rest.type !== Token.EOF) listener.syntaxError(parser, rest, rest.line, rest.column);
  return tree;
}

/**
 * Spark with ANSI mode off (its default) takes every keyword as a name wherever a name may
 * stand; the grammar reserves these three. A syntax error at one of them is parsed again with
 * that token as a name (`SELECT t.from`, `GROUP BY table`); if that fails too, the first error
 * stands.
 */
const RESERVED_BY_THE_GRAMMAR_ONLY = new Set([SparkSqlLexer.KW_SELECT, SparkSqlLexer.KW_FROM, SparkSqlLexer.KW_TABLE]);

function parseTokens<T>(tokens: readonly Token[], listener: ThrowingListener, entry: (p: SparkSqlParser) => T): T {
  let first: SqlValidationError | undefined;
  for (let renamed = 0; ; renamed++) {
    try {
      return runParser(tokens, listener, entry);
    } catch (e) {
      if (!(e instanceof SqlValidationError)) throw e;
      first ??= e;
      const at = listener.offending;
      if (!(at instanceof CommonToken) || !RESERVED_BY_THE_GRAMMAR_ONLY.has(at.type) || renamed === 8) throw first;
      at.type = SparkSqlLexer.IDENTIFIER;
    }
  }
}

/** Lexes `sql`, with the rewrites; a lexer error is Spark's syntax error at its character. */
function lex(sql: string): { parsed: ParsedText; listener: ThrowingListener } {
  const text = new SourceText(sql);
  const listener = new ThrowingListener(text);
  const lexer = new SparkSqlLexer(CharStreams.fromString(sql));
  lexer.removeErrorListeners();
  lexer.addErrorListener(listener);
  const brackets = new Map<Token, RewrittenBracket>();
  const rewritten = rewriteCasts(rewriteVariantPaths(rewriteSpark4Clauses(rewriteIdentifierClauses(rewriteOperatorsAndStrings(lexer.getAllTokens().concat(lexer.nextToken())), text), brackets), brackets), brackets);
  for (const t of rewritten) if (NAME_ONLY_KEYWORDS.has(t.type)) (t as CommonToken).type = SparkSqlLexer.IDENTIFIER;
  const pipes = new Map<Token, PipeChain>();
  const tokens = rewritePipes(rewritten, text, brackets, pipes);
  return { parsed: { text, brackets, tokens, pipes }, listener };
}

/** Whether `all[i]` is the `|` of Spark 4's `|>` (the 3.5 lexer reads it as PIPE and GT). */
function isPipeOperator(all: readonly Token[], i: number): boolean {
  return all[i].type === SparkSqlLexer.PIPE && all[i + 1]?.type === SparkSqlLexer.GT && all[i + 1].start === all[i].stop + 1;
}

/** Keywords that start a pipe operator read as the query `TABLE input …`: a set operation or a result clause. */
const PIPE_QUERY_CLAUSES = new Set([
  SparkSqlLexer.KW_UNION, SparkSqlLexer.KW_EXCEPT, SparkSqlLexer.KW_MINUS, SparkSqlLexer.KW_INTERSECT,
  SparkSqlLexer.KW_ORDER, SparkSqlLexer.KW_SORT, SparkSqlLexer.KW_DISTRIBUTE, SparkSqlLexer.KW_CLUSTER, SparkSqlLexer.KW_LIMIT, SparkSqlLexer.KW_OFFSET,
]);

/** Keywords that start a pipe operator read as `SELECT * FROM input …`: a join, PIVOT, UNPIVOT, TABLESAMPLE, AS, WHERE. */
const PIPE_RELATION_CLAUSES = new Set([
  SparkSqlLexer.KW_JOIN, SparkSqlLexer.KW_INNER, SparkSqlLexer.KW_CROSS, SparkSqlLexer.KW_LEFT, SparkSqlLexer.KW_RIGHT, SparkSqlLexer.KW_FULL,
  SparkSqlLexer.KW_NATURAL, SparkSqlLexer.KW_SEMI, SparkSqlLexer.KW_ANTI, SparkSqlLexer.KW_PIVOT, SparkSqlLexer.KW_UNPIVOT, SparkSqlLexer.KW_TABLESAMPLE,
  SparkSqlLexer.KW_AS, SparkSqlLexer.KW_WHERE,
]);

/** The result clauses Spark's withQueryResultClauses lets a pipe operator have one of. */
const RESULT_CLAUSES: Record<number, string> = {
  [SparkSqlLexer.KW_ORDER]: 'ORDER BY', [SparkSqlLexer.KW_SORT]: 'SORT BY', [SparkSqlLexer.KW_DISTRIBUTE]: 'DISTRIBUTE BY', [SparkSqlLexer.KW_CLUSTER]: 'CLUSTER BY',
  [SparkSqlLexer.KW_WINDOW]: 'WINDOW', [SparkSqlLexer.KW_LIMIT]: 'LIMIT', [SparkSqlLexer.KW_OFFSET]: 'OFFSET',
};

/** The result clauses in the order the grammar's queryOrganization takes them. */
const RESULT_CLAUSE_ORDER = new Map([SparkSqlLexer.KW_ORDER, SparkSqlLexer.KW_CLUSTER, SparkSqlLexer.KW_DISTRIBUTE, SparkSqlLexer.KW_SORT, SparkSqlLexer.KW_WINDOW, SparkSqlLexer.KW_LIMIT, SparkSqlLexer.KW_OFFSET].map((t, i) => [t, i]));

/** Spark's grouping forms its AGGREGATE operator refuses (UNSUPPORTED_FEATURE.PIPE_OPERATOR_AGGREGATE_UNSUPPORTED_CASE). */
const PIPE_AGGREGATE_UNSUPPORTED: Record<number, string> = {
  [SparkSqlLexer.KW_ALL]: 'GROUP BY ALL', [SparkSqlLexer.KW_ROLLUP]: 'GROUP BY ROLLUP', [SparkSqlLexer.KW_CUBE]: 'GROUP BY CUBE', [SparkSqlLexer.KW_GROUPING]: 'GROUPING SETS',
};

/**
 * Spark 4's pipe syntax (`FROM t |> WHERE … |> SELECT …`, SqlBaseParser's operatorPipeRightSide),
 * which the 3.5 grammar has not: each query written with `|>` (one in parentheses, or the whole
 * text after its WITH clause) is replaced by `TABLE name`, a name token of its own that `pipes`
 * maps to the query's parts, innermost first. Each operator is the query over its left side it
 * stands for (`|> WHERE c` is `SELECT * FROM input WHERE c`; `|> ORDER BY x` is `TABLE input
 * ORDER BY x`), whose inserted tokens carry the `|>` token's offsets, the user's tokens their own;
 * ast-builder.ts parses each part and puts the plan on the left where `input` is read, so every
 * operator is its own plan over the one before it, as Spark's AstBuilder makes it.
 */
function rewritePipes(all: Token[], text: SourceText, brackets: Map<Token, RewrittenBracket>, pipes: Map<Token, PipeChain>): Token[] {
  if (!all.some((_, i) => isPipeOperator(all, i))) return all;
  const visible = (ts: readonly Token[]) => ts.filter((t) => t.channel === Token.DEFAULT_CHANNEL);
  const ended = (ts: Token[], at: Token): Token[] => [...ts, synthetic(at, Token.EOF, '<EOF>')];
  /** Indices of the visible tokens of `ts` outside parentheses. */
  const topLevel = (ts: readonly Token[]) => {
    const out: number[] = [];
    let depth = 0;
    ts.forEach((t, i) => {
      if (t.channel !== Token.DEFAULT_CHANNEL) return;
      if (t.type === SparkSqlLexer.LEFT_PAREN) depth++;
      else if (t.type === SparkSqlLexer.RIGHT_PAREN) depth--;
      else if (depth === 0) out.push(i);
    });
    return out;
  };
  const operator = (pipe: Token, body: Token[], end: Token): PipeOperator => {
    const input = synthetic(pipe, SparkSqlLexer.IDENTIFIER, '__pipe_input');
    const kw = (type: number, word: string) => synthetic(pipe, type, word);
    const first = visible(body)[0];
    if (!first) throw syntaxErrorAt(text, end);
    const rest = body.slice(body.indexOf(first) + 1);
    const top = topLevel(body).map((i) => body[i]);
    const fromInput = [kw(SparkSqlLexer.KW_FROM, 'FROM'), input];
    const selectStar = [kw(SparkSqlLexer.KW_SELECT, 'SELECT'), kw(SparkSqlLexer.ASTERISK, '*')];
    const make = (kind: PipeOperatorKind, tokens: Token[], aliasedInput = false, groupingItems = 0): PipeOperator => ({ kind, pipe, input, tokens: ended(tokens, end), aliasedInput, groupingItems });
    const span = text.span(pipe, visible(body).at(-1)!);
    // EXTEND and AGGREGATE are no keywords of the 3.5 grammar, and DROP one that lex() reads as a name.
    const word = first.type === SparkSqlLexer.IDENTIFIER || first.type === SparkSqlLexer.KW_DROP || first.type === SparkSqlLexer.KW_SET ? first.text!.toUpperCase() : '';
    switch (['EXTEND', 'AGGREGATE', 'DROP', 'SET'].includes(word) ? word : first.type) {
      case SparkSqlLexer.KW_SELECT: {
        // FROM input goes after the select list, before a WINDOW clause or what ends the query.
        const stop = top.find((t) => t !== first && (t.type === SparkSqlLexer.KW_WINDOW || PIPE_QUERY_CLAUSES.has(t.type)));
        const at = stop ? body.indexOf(stop) : body.length;
        return make('SELECT', [...body.slice(0, at), ...fromInput, ...body.slice(at)]);
      }
      case 'SET': {
        // `SET a = e, b = f` read as `SELECT *, e AS a, f AS b`; ast-builder.ts makes each a star that replaces its column.
        const assignments: Token[] = [];
        let depth = 0;
        let name: Token | undefined;
        for (const t of rest) {
          if (t.type === SparkSqlLexer.LEFT_PAREN) depth++;
          else if (t.type === SparkSqlLexer.RIGHT_PAREN) depth--;
          if (depth === 0 && t.type === SparkSqlLexer.EQ && name === undefined) {
            const written = visible(assignments).at(-1);
            if (!written || (written.type !== SparkSqlLexer.IDENTIFIER && written.type !== SparkSqlLexer.BACKQUOTED_IDENTIFIER && !SparkSqlLexer.symbolicNames[written.type]?.startsWith('KW_'))) throw syntaxErrorAt(text, t);
            name = written;
            assignments.splice(assignments.lastIndexOf(written), 1);
            continue;
          }
          if (depth === 0 && t.type === SparkSqlLexer.COMMA) {
            if (!name) throw syntaxErrorAt(text, t);
            assignments.push(kw(SparkSqlLexer.KW_AS, 'AS'), name);
            name = undefined;
          }
          assignments.push(t);
        }
        if (!name) throw syntaxErrorAt(text, end);
        assignments.push(kw(SparkSqlLexer.KW_AS, 'AS'), name);
        return make('SET', [...selectStar, kw(SparkSqlLexer.COMMA, ','), ...assignments, ...fromInput]);
      }
      case 'EXTEND':
        return make('EXTEND', [...selectStar, kw(SparkSqlLexer.COMMA, ','), ...rest, ...fromInput]);
      case 'DROP': {
        // Spark's UnresolvedStarExceptOrReplace: `SELECT * EXCEPT (names)`, as rewriteSpark4Clauses writes it.
        const bracket = synthetic(first, SparkSqlLexer.LEFT_BRACKET, first.text!);
        brackets.set(bracket, 'starExcept');
        return make('QUERY', [...selectStar, bracket, kw(SparkSqlLexer.LEFT_PAREN, '('), ...rest, synthetic(end, SparkSqlLexer.RIGHT_PAREN, ')'), synthetic(end, SparkSqlLexer.RIGHT_BRACKET, ']'), ...fromInput]);
      }
      case 'AGGREGATE': {
        const group = top.find((t, k) => t.type === SparkSqlLexer.KW_GROUP && top[k + 1]?.type === SparkSqlLexer.KW_BY && visible(body).at(-1) !== top[k + 1]);
        if (visible(rest).length === 0) {
          throw new SqlValidationError('[_LEGACY_ERROR_TEMP_0035] Operation not allowed: The AGGREGATE clause requires a list of aggregate expressions or a list of grouping expressions, or both.', span, 'AGGREGATE', '_LEGACY_ERROR_TEMP_0035');
        }
        // Without GROUP BY items, `GROUP BY` is read as Spark's grammar reads it: a column `group` named `by`.
        if (!group) return make('AGGREGATE', [kw(SparkSqlLexer.KW_SELECT, 'SELECT'), ...rest, ...fromInput]);
        const items = body.slice(body.indexOf(first) + 1, body.indexOf(group));
        const groupBody = body.slice(body.indexOf(top[top.indexOf(group) + 1]) + 1);
        const groupTop = topLevel(groupBody).map((i) => groupBody[i]);
        const firstKey = visible(groupBody)[0];
        const unsupported = groupTop.map((t) => PIPE_AGGREGATE_UNSUPPORTED[t.type]).find((c) => c !== undefined && (groupTop[0]?.type !== SparkSqlLexer.KW_ALL || c === 'GROUP BY ALL'));
        if (unsupported && (unsupported !== 'GROUP BY ALL' || groupTop.length === 1)) {
          throw new SqlValidationError(`[UNSUPPORTED_FEATURE.PIPE_OPERATOR_AGGREGATE_UNSUPPORTED_CASE] The feature is not supported: The SQL pipe operator syntax with aggregation (using |> AGGREGATE) does not support ${unsupported}.`, text.span(first, body[body.length - 1]), 'AGGREGATE', 'UNSUPPORTED_FEATURE.PIPE_OPERATOR_AGGREGATE_UNSUPPORTED_CASE');
        }
        if (!firstKey) throw syntaxErrorAt(text, end);
        // Each grouping item is an output column, first, under its alias: `GROUP BY a + 1 AS k` selects `a + 1 AS k` and groups by `a + 1`.
        const keys: Token[][] = [[]];
        let depth = 0;
        for (const t of groupBody) {
          if (t.type === SparkSqlLexer.LEFT_PAREN) depth++;
          else if (t.type === SparkSqlLexer.RIGHT_PAREN) depth--;
          if (depth === 0 && t.type === SparkSqlLexer.COMMA) keys.push([]);
          else keys[keys.length - 1].push(t);
        }
        const selected: Token[] = [];
        const grouped: Token[] = [];
        keys.forEach((key, k) => {
          const as = topLevel(key).map((i) => key[i]).find((t) => t.type === SparkSqlLexer.KW_AS);
          if (k > 0) {
            selected.push(synthetic(key[0], SparkSqlLexer.COMMA, ','));
            grouped.push(synthetic(key[0], SparkSqlLexer.COMMA, ','));
          }
          selected.push(...key);
          grouped.push(...(as ? key.slice(0, key.indexOf(as)) : key));
        });
        const hasItems = visible(items).length > 0;
        return make('AGGREGATE', [
          kw(SparkSqlLexer.KW_SELECT, 'SELECT'), ...selected, ...(hasItems ? [synthetic(visible(items)[0], SparkSqlLexer.COMMA, ','), ...items] : []), ...fromInput,
          group, top[top.indexOf(group) + 1], ...grouped,
        ], false, keys.length);
      }
      case SparkSqlLexer.KW_WHERE:
        if (top.some((t) => t.type === SparkSqlLexer.KW_WINDOW)) {
          throw new SqlValidationError('[NOT_ALLOWED_IN_PIPE_OPERATOR_WHERE.WINDOW_CLAUSE] Not allowed in the pipe WHERE clause: the WINDOW clause.', text.span(pipe, body[body.length - 1]), 'WHERE', 'NOT_ALLOWED_IN_PIPE_OPERATOR_WHERE.WINDOW_CLAUSE');
        }
        return make('UNWRAP', [...selectStar, ...fromInput, ...body], true);
      default:
        if (PIPE_QUERY_CLAUSES.has(first.type) || first.type === SparkSqlLexer.KW_WINDOW) {
          const clauses = [...new Set(top.map((t) => RESULT_CLAUSES[t.type]).filter((c) => c !== undefined))];
          const groups = new Set(clauses.map((c) => (c === 'LIMIT' || c === 'OFFSET' ? 'LIMIT' : c === 'WINDOW' ? 'WINDOW' : 'ORDER')));
          if (!PIPE_QUERY_CLAUSES.has(first.type) || RESULT_CLAUSES[first.type]) {
            if (groups.size > 1) {
              throw new SqlValidationError(`[MULTIPLE_QUERY_RESULT_CLAUSES_WITH_PIPE_OPERATORS] ${clauses[0]} and ${clauses[1]} cannot coexist in the same SQL pipe operator using '|>'. Please separate the multiple result clauses into separate pipe operators and then retry the query again.`, text.span(pipe, body[body.length - 1]), 'pipe operator', 'MULTIPLE_QUERY_RESULT_CLAUSES_WITH_PIPE_OPERATORS');
            }
          }
          return make('QUERY', [kw(SparkSqlLexer.KW_TABLE, 'TABLE'), input, ...body], !PIPE_QUERY_CLAUSES.has(first.type) || RESULT_CLAUSES[first.type] !== undefined);
        }
        if (first.type === SparkSqlLexer.KW_PIVOT || first.type === SparkSqlLexer.KW_UNPIVOT) {
          // Spark's `pivotClause unpivotClause? | unpivotClause pivotClause?`: the other clause after one is its own error, any more a syntax error.
          const clauses = top.filter((t) => t.type === SparkSqlLexer.KW_PIVOT || t.type === SparkSqlLexer.KW_UNPIVOT);
          if (clauses.length > 1 && clauses[1].type === first.type) throw syntaxErrorAt(text, clauses[1]);
          if (clauses.length > 2) throw syntaxErrorAt(text, clauses[2]);
          if (clauses.length === 2) {
            throw new SqlValidationError('[NOT_ALLOWED_IN_FROM.UNPIVOT_WITH_PIVOT] Not allowed in the FROM clause: UNPIVOT with PIVOT.', span, 'PIVOT', 'NOT_ALLOWED_IN_FROM.UNPIVOT_WITH_PIVOT');
          }
        }
        if (first.type !== SparkSqlLexer.KW_AS && first.type !== SparkSqlLexer.KW_PIVOT && first.type !== SparkSqlLexer.KW_UNPIVOT && first.type !== SparkSqlLexer.KW_TABLESAMPLE) {
          // One joinRelation: a second join is a syntax error at its first word.
          const joins = top.filter((t) => t.type === SparkSqlLexer.KW_JOIN);
          if (joins.length > 1) {
            const types = new Set([SparkSqlLexer.KW_INNER, SparkSqlLexer.KW_CROSS, SparkSqlLexer.KW_LEFT, SparkSqlLexer.KW_RIGHT, SparkSqlLexer.KW_FULL, SparkSqlLexer.KW_OUTER, SparkSqlLexer.KW_SEMI, SparkSqlLexer.KW_ANTI, SparkSqlLexer.KW_NATURAL]);
            let k = top.indexOf(joins[1]);
            while (k > 0 && types.has(top[k - 1].type)) k--;
            throw syntaxErrorAt(text, top[k]);
          }
        }
        if (PIPE_RELATION_CLAUSES.has(first.type)) return make('UNWRAP', [...selectStar, ...fromInput, ...body]);
        throw syntaxErrorAt(text, first);
    }
  };
  /** `ts` (one parenthesized part, or the whole text) with its pipe queries replaced, inner ones first. */
  const region = (ts: Token[]): Token[] => {
    const out: Token[] = [];
    for (let i = 0; i < ts.length; i++) {
      if (ts[i].type !== SparkSqlLexer.LEFT_PAREN) {
        out.push(ts[i]);
        continue;
      }
      const close = closing(ts, i);
      if (close < 0) return [...out, ...ts.slice(i)];
      out.push(ts[i], ...region(ts.slice(i + 1, close)), ts[close]);
      i = close;
    }
    const top = topLevel(out);
    const pipeAt = top.filter((i) => isPipeOperator(out, i));
    if (pipeAt.length === 0) return out;
    // The query starts after a WITH clause (its CTEs stay around the replaced query) and ends at a `;` or EOF.
    let start = out.findIndex((t) => t.channel === Token.DEFAULT_CHANNEL);
    if (out[start].type === SparkSqlLexer.KW_WITH) {
      // WITH [RECURSIVE] name [(columns)] [AS] (query) [, …]: the query starts after the last one.
      const nextVisible = (i: number) => {
        for (i++; i < out.length && out[i].channel !== Token.DEFAULT_CHANNEL; i++);
        return i;
      };
      let i = nextVisible(start);
      for (;;) {
        while (i < pipeAt[0] && out[i].type !== SparkSqlLexer.LEFT_PAREN) i = nextVisible(i);
        if (out[nextVisible(i)]?.type !== SparkSqlLexer.KW_AS && out[nextVisible(closing(out, i))]?.type === SparkSqlLexer.KW_AS) i = nextVisible(nextVisible(closing(out, i)));
        const after = nextVisible(closing(out, i));
        if (out[after]?.type !== SparkSqlLexer.COMMA) {
          start = after;
          break;
        }
        i = nextVisible(after);
      }
    }
    const stopAt = top.find((i) => i > pipeAt[0] && (out[i].type === SparkSqlLexer.SEMICOLON || out[i].type === Token.EOF));
    const end = stopAt ?? out.length;
    const endToken = out[end] ?? out[end - 1];
    let left = out.slice(start, pipeAt[0]);
    const leftTop = topLevel(left).map((i) => left[i]);
    if (leftTop[0]?.type === SparkSqlLexer.KW_FROM && !leftTop.some((t) => t.type === SparkSqlLexer.KW_SELECT)) {
      // Spark 4's FROM clause alone as a query: every column of its relations.
      left = [synthetic(leftTop[0], SparkSqlLexer.KW_SELECT, 'SELECT'), synthetic(leftTop[0], SparkSqlLexer.ASTERISK, '*'), ...left];
    }
    // A result clause out of the grammar's order after the last operator's own (`|> ORDER BY x ORDER BY y`,
    // `|> SORT BY x DISTRIBUTE BY x`) begins the result clauses of the whole query, as Spark's grammar reads it.
    let opEnd = end;
    const lastTop = top.filter((i) => i > pipeAt[pipeAt.length - 1] + 1 && i < end);
    if (lastTop.length > 0 && RESULT_CLAUSE_ORDER.has(out[lastTop[0]].type)) {
      let previous = -1;
      for (const i of lastTop) {
        const rank = RESULT_CLAUSE_ORDER.get(out[i].type);
        if (rank === undefined) continue;
        if (rank <= previous) {
          opEnd = i;
          break;
        }
        previous = rank;
      }
    }
    const operators = pipeAt.map((p, k) => operator(out[p], out.slice(p + 2, pipeAt[k + 1] ?? opEnd), out[pipeAt[k + 1] ?? opEnd] ?? endToken));
    const first = out[start];
    const last = visible(out.slice(start, opEnd)).at(-1)!;
    const name = synthetic(first, SparkSqlLexer.IDENTIFIER, '__pipe');
    (name as CommonToken).stop = last.stop;
    pipes.set(name, { left: ended(left, out[pipeAt[0]]), operators });
    return [...out.slice(0, start), synthetic(first, SparkSqlLexer.KW_TABLE, 'TABLE'), name, ...out.slice(opEnd)];
  };
  const out = region(all);
  out.forEach((t, i) => { (t as CommonToken).tokenIndex = i; });
  return out;
}

/**
 * Spark's UnclosedCommentProcessor: a text that parses but ends inside a bracketed comment
 * (`/*` without its closing mark: the lexer reads the comment to the end of the text) is refused,
 * QueryParsingErrors.unclosedBracketedCommentError.
 */
function checkClosedComments({ text, tokens }: ParsedText): void {
  const t = tokens.find((k) => k.type === SparkSqlLexer.BRACKETED_COMMENT && !k.text!.endsWith('*/'));
  if (t) throw new SqlValidationError('[_LEGACY_ERROR_TEMP_0055] Unclosed bracketed comment', text.tokenPosition(t), 'syntax', '_LEGACY_ERROR_TEMP_0055');
}

/** Lexes `sql` (with the rewrites) and parses it with `entry`, one of ENTRY_RULES. */
export function parseSpark<T>(sql: string, entry: (p: SparkSqlParser) => T): { tree: T; parsed: ParsedText } {
  const { parsed, listener } = lex(sql);
  const tree = parseTokens(parsed.tokens, listener, entry);
  checkClosedComments(parsed);
  return { tree, parsed };
}

/** Tokens that may start a query (the grammar's `query` rule). */
const QUERY_START = new Set([
  SparkSqlLexer.KW_SELECT, SparkSqlLexer.KW_WITH, SparkSqlLexer.LEFT_PAREN, SparkSqlLexer.KW_FROM, SparkSqlLexer.KW_TABLE,
  SparkSqlLexer.KW_VALUES, SparkSqlLexer.KW_MAP, SparkSqlLexer.KW_REDUCE,
]);

/**
 * Lexes and parses one query, with or without a `;` after it: the text Weir runs as a stream.
 * The statement is recognized from its tokens and only the query is parsed, with the `query`
 * rule: the grammar's `statement` decides between its 150 kinds of statements by reading ahead
 * to the end of a WITH clause, which made the first parse of a CTE query seconds long.
 */
export function parseQuery(sql: string): { tree: QueryContext; parsed: ParsedText } {
  const { parsed, listener } = lex(sql);
  const { text, tokens } = parsed;
  const statements: Token[][] = [[]];
  for (const t of tokens) {
    if (t.channel !== Token.DEFAULT_CHANNEL || t.type === Token.EOF) continue;
    if (t.type === SparkSqlLexer.SEMICOLON) statements.push([]);
    else statements[statements.length - 1].push(t);
  }
  const nonEmpty = statements.filter((s) => s.length > 0);
  if (nonEmpty.length === 0) {
    // Spark's AbstractParser: a text of only blanks and comments; a lone `;` is a syntax error at it.
    const semicolon = tokens.find((t) => t.type === SparkSqlLexer.SEMICOLON);
    if (!semicolon) throw new SqlValidationError('[PARSE_EMPTY_STATEMENT] Syntax error, unexpected empty statement.', text.position(0, 0), 'statements', 'PARSE_EMPTY_STATEMENT');
    throw syntaxErrorAt(text, semicolon);
  }
  if (nonEmpty.length > 1) {
    // Spark's singleStatement ends at the first statement: the next one is a syntax error at its first token.
    throw syntaxErrorAt(text, nonEmpty[1][0], ` A stream runs one query: found ${nonEmpty.length} statements; remove all but one.`);
  }
  const statement = nonEmpty[0];
  if (!QUERY_START.has(statement[0].type)) {
    throw new SqlValidationError(`Only SELECT queries can run as streams, found ${statement[0].text!.toUpperCase()}`, text.tokenPosition(statement[0]), 'statement');
  }
  // The query's tokens and EOF: a `;` is no follow of the `query` rule.
  const end = tokens.indexOf(statement[statement.length - 1]) + 1;
  const queryTokens = end < tokens.length - 1 ? [...tokens.slice(0, end), tokens[tokens.length - 1]] : tokens;
  const entry = (p: SparkSqlParser) => {
    // LL prediction follows the rule contexts of the parse: called from these, it knows that
    // the query ends the text, and a syntax error is found where `program` finds it.
    [p.context, p.state] = queryCallers();
    return p.query();
  };
  const tree = parseTokens(queryTokens, listener, entry);
  checkClosedComments(parsed);
  return { tree, parsed };
}

/** Parses `tokens` (ending in EOF), a part of `parsed`'s text, as a query: a part of a pipe query. */
export function parseQueryTokens(parsed: ParsedText, tokens: readonly Token[]): QueryContext {
  return parseTokens(tokens, new ThrowingListener(parsed.text), (p) => {
    [p.context, p.state] = queryCallers();
    return p.query();
  });
}

/** The states in program, singleStatement and statement that call the next rule down to `query`. */
const queryCallStates = ['program', 'singleStatement', 'statement', 'query'].map((r) => SparkSqlParser.ruleNames.indexOf(r)).flatMap((rule, i, chain) => {
  if (i === chain.length - 1) return [];
  const call = ADAPTED_ATN.states.find((s) => s?.ruleIndex === rule && s.transitions[0] instanceof RuleTransition && s.transitions[0].target.ruleIndex === chain[i + 1]);
  if (!call) throw new Error('dt-sql-parser: program does not reach query through statement; check the grammar of this version');
  return [call.stateNumber];
});

/** Fresh contexts program → singleStatement → statement (a parse adds its tree to the last one's children). */
function queryCallers(): [ParserRuleContext, number] {
  let context = new ParserRuleContext(null, -1);
  for (const state of queryCallStates.slice(0, -1)) context = new ParserRuleContext(context, state);
  return [context, queryCallStates[queryCallStates.length - 1]];
}
