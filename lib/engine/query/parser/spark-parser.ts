/**
 * Spark SQL's grammar, through dt-sql-parser's SparkSQL grammar (an ANTLR 4 port of Spark
 * 3.5's SqlBaseParser.g4, run by antlr4ng). This file is the one place that lexes and parses;
 * ast-builder.ts turns the parse tree into Weir's unresolved plan, and nothing outside this
 * folder sees the ANTLR tree.
 *
 * The planner does not use it yet (sql-parser.ts still reads queries with node-sql-parser's
 * PostgreSQL grammar and lexical patches). It exists because that grammar misreads Spark SQL:
 * `"x"` is a column there and a string in Spark, Spark's non-reserved keywords (`partition`,
 * `offset`, `key`, `window`, …) are syntax errors there, and positions drift after each patch.
 *
 * What this wrapper adds to the grammar:
 * - `x :: type` (Spark 4's cast shorthand; the 3.5 grammar has none): after lexing, each `::`
 *   and the data type after it are rewritten in the token stream to `[CAST(NULL AS type)]`,
 *   a postfix on the primary expression as Spark 4 binds it. The inserted tokens carry the
 *   `::` token's offsets; ast-builder.ts knows them from `castTokens` and builds a Cast.
 * - Spark's syntax error: the first one ends the parse as `[PARSE_SYNTAX_ERROR] Syntax error at
 *   or near 'tok'` with the line and column of that token (Spark's ParseErrorListener), instead
 *   of the grammar's completion-oriented messages and its console logging.
 * - Two-stage parsing: SLL prediction first (fast, exact for almost all input), the full LL
 *   prediction only when SLL fails, as Spark's AbstractSqlParser does.
 */
import { AtomTransition, BailErrorStrategy, BaseErrorListener, CharStreams, CommonToken, CommonTokenStream, DefaultErrorStrategy, IntervalSet, Lexer, PredictionMode, Token } from 'antlr4ng';
import type { ATNSimulator, CharStream, Recognizer, TokenFactory, TokenSource } from 'antlr4ng';
import { SparkSqlLexer } from 'dt-sql-parser/dist/lib/spark/SparkSqlLexer';
import { SparkSqlParser } from 'dt-sql-parser/dist/lib/spark/SparkSqlParser';
import { SqlValidationError } from '../sql-error';
import type { Position } from './unresolved-plan';

export { SparkSqlParser };

/**
 * dt-sql-parser reads every name through `errorCapturingIdentifier`, whose `(MINUS identifier)+`
 * swallows `- b` after a column: `a - b * c` parsed as `(a - b) * c`. Spark uses that rule only
 * where a name cannot be an expression (table names), to report `a-b` as INVALID_IDENTIFIER.
 * The rule's MINUS transition is made to match no token, in the shared ATN, once, before any
 * parse: the rule then always matches empty and `-` is left to the arithmetic. (A hyphenated
 * table name becomes a plain syntax error at the `-`.)
 */
function disableErrorCapturingMinus(): void {
  const atn = SparkSqlParser._ATN;
  let patched = 0;
  for (const state of atn.states) {
    if (state?.ruleIndex !== SparkSqlParser.RULE_errorCapturingIdentifierExtra) continue;
    for (const t of state.transitions) {
      if (t instanceof AtomTransition && t.labelValue === SparkSqlParser.MINUS) {
        t.labelValue = -2;
        Object.defineProperty(t, 'label', { value: IntervalSet.of(-2, -2) });
        patched++;
      }
    }
  }
  if (patched === 0) throw new Error('dt-sql-parser: errorCapturingIdentifierExtra has no MINUS transition; check the grammar of this version');
}
disableErrorCapturingMinus();
export * as Ctx from 'dt-sql-parser/dist/lib/spark/SparkSqlParser';

/** A token list as a TokenSource (antlr4ng has no ListTokenSource). */
class TokenListSource implements TokenSource {
  private i = 0;
  line = 1;
  _tokenStartColumn = 0;
  inputStream: CharStream | null;
  sourceName = 'sql';
  tokenFactory!: TokenFactory<Token>;
  constructor(private readonly tokens: readonly Token[], input: CharStream) {
    this.inputStream = input;
  }
  nextToken(): Token {
    return this.tokens[Math.min(this.i++, this.tokens.length - 1)];
  }
}

class ThrowingListener extends BaseErrorListener {
  constructor(private readonly text: SourceText) {
    super();
  }
  override syntaxError<S extends Token, T extends ATNSimulator>(recognizer: Recognizer<T>, offending: S | null, line: number, column: number): void {
    let near: string;
    let pos: Position;
    if (offending) {
      near = offending.type === Token.EOF ? 'end of input' : `'${offending.text ?? ''}'`;
      pos = this.text.tokenPosition(offending);
    } else {
      // A lexer error: the character it stopped at (ANTLR counts code points).
      const offset = recognizer instanceof Lexer ? this.text.offset(recognizer._tokenStartCharIndex) : this.text.lineStart(line) + column;
      near = offset >= this.text.sql.length ? 'end of input' : `'${String.fromCodePoint(this.text.sql.codePointAt(offset)!)}'`;
      pos = this.text.position(offset, offset + 1);
    }
    throw new SqlValidationError(`[PARSE_SYNTAX_ERROR] Syntax error at or near ${near}.`, pos, 'syntax', 'PARSE_SYNTAX_ERROR');
  }
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

/** A parsed text: its tokens (after the `::` rewrite) and which `[` tokens stand for a `::`. */
export interface ParsedText {
  readonly text: SourceText;
  readonly castTokens: ReadonlySet<Token>;
  readonly tokens: readonly Token[];
  /** Parses the tokens first..last again with another entry rule (ast-builder.ts's select items). */
  reparse<T>(first: Token, last: Token, entry: (p: SparkSqlParser) => T): T;
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
function rewriteCasts(all: Token[], castTokens: Set<Token>): Token[] {
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
    castTokens.add(open);
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

function runParser<T>(tokens: readonly Token[], input: CharStream, listener: ThrowingListener, entry: (p: SparkSqlParser) => T): T {
  const make = () => {
    const p = new SparkSqlParser(new CommonTokenStream(new TokenListSource(tokens, input)));
    p.removeErrorListeners();
    return p;
  };
  // SLL with bail-out first; LL with Spark's error report only when that fails.
  const sll = make();
  sll.interpreter.predictionMode = PredictionMode.SLL;
  sll.errorHandler = new BailErrorStrategy();
  let parser = sll;
  let tree: T;
  try {
    tree = entry(sll);
  } catch (e) {
    if (e instanceof SqlValidationError) throw e;
    parser = make();
    parser.interpreter.predictionMode = PredictionMode.LL;
    parser.errorHandler = new DefaultErrorStrategy();
    parser.addErrorListener(listener);
    tree = entry(parser);
  }
  // Every entry reads the whole text: what is left is an error at its first token.
  const rest = parser.getCurrentToken();
  if (rest.type !== Token.EOF) listener.syntaxError(parser, rest, rest.line, rest.column);
  return tree;
}

/** Lexes `sql` (with the `::` rewrite) and parses it with `entry`, a rule of SparkSqlParser. */
export function parseSpark<T>(sql: string, entry: (p: SparkSqlParser) => T): { tree: T; parsed: ParsedText } {
  const text = new SourceText(sql);
  const listener = new ThrowingListener(text);
  const input = CharStreams.fromString(sql);
  const lexer = new SparkSqlLexer(input);
  lexer.removeErrorListeners();
  lexer.addErrorListener(listener);
  const castTokens = new Set<Token>();
  const tokens = rewriteCasts(lexer.getAllTokens().concat(lexer.nextToken()), castTokens);
  const parsed: ParsedText = {
    text,
    castTokens,
    tokens,
    reparse: (first, last, rule) => {
      // Copies: the token stream renumbers the tokens it reads, and the first tree keeps these.
      const slice = tokens.slice(tokens.indexOf(first), tokens.indexOf(last) + 1).map((t) => {
        const copy = (t as CommonToken).clone();
        if (castTokens.has(t)) castTokens.add(copy);
        return copy;
      });
      return runParser([...slice, (tokens[tokens.length - 1] as CommonToken).clone()], input, listener, rule);
    },
  };
  return { tree: runParser(tokens, input, listener, entry), parsed };
}
