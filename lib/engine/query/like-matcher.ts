/**
 * SQL LIKE without backtracking. A RegExp built from a LIKE pattern (`%a%a%a%a%b` → `^.*a.*a.*a.*a.*b$`)
 * backtracks exponentially on a value that almost matches; one 60-character row held the
 * event loop for seconds. Here the pattern is split on `%` into segments (literal text with `_`
 * standing for one character), and the value is scanned once left to right:
 *
 * - the first segment must match at the start, the last one at the end;
 * - each segment in between is matched at its leftmost occurrence after the previous one.
 *
 * Taking the leftmost occurrence is always right for LIKE: what follows a segment can only
 * gain room when the segment ends earlier, and `%` absorbs any gap. A segment of plain text is
 * found with `indexOf` (linear); one with `_` in it checks each occurrence of its first text
 * run, which costs up to value length × segment length (`%a_a_a_a…b%` over `aaaa…`). That
 * work is counted, and one evaluation over LIKE_STEP_BUDGET steps fails the record (a bad
 * record, with a message saying to simplify the pattern) instead of holding the event loop.
 *
 * Semantics (Spark's): `%` matches any run of characters, `_` exactly one character (a code
 * point: a surrogate pair counts as one), the escape character (default `\`) makes the next
 * character literal. As Spark's StringUtils.escapeLikeRegex, the escape character may precede
 * only `_`, `%` or itself (INVALID_FORMAT.ESC_IN_THE_MIDDLE) and may not end the pattern
 * (INVALID_FORMAT.ESC_AT_THE_END). ILIKE lower-cases the value and the pattern's text, as
 * Spark's ILIKE does (`lower(a) LIKE lower(b)`).
 */

import { RecordExpressionError } from '../errors';

/** A literal run of text, or a number of `_` wildcards. */
type Piece = string | number;
type Segment = Piece[];

/** Candidate checks × segment length allowed in one evaluation (about 0.1 s of work at most). */
const LIKE_STEP_BUDGET = 1 << 22;

export interface LikeMatcher {
  (value: string): boolean;
}

export interface LikeOptions {
  /** The escape character (one character); default `\`. */
  escape?: string;
  caseInsensitive?: boolean;
}

/** A pattern Spark refuses: INVALID_FORMAT.<sub>, an AnalysisException in Spark. */
function likePatternError(sub: 'ESC_AT_THE_END' | 'ESC_IN_THE_MIDDLE', pattern: string, why: string): RecordExpressionError {
  const errorClass = `INVALID_FORMAT.${sub}`;
  return new RecordExpressionError(`[${errorClass}] The LIKE pattern '${pattern}' is invalid: ${why}`, { errorClass });
}

/** Splits a LIKE pattern into `%`-separated segments of literal text and `_` counts. */
function parse(pattern: string, escape: string, lower: boolean): Segment[] {
  const segments: Segment[] = [[]];
  let seg = segments[0];
  let text = '';
  const flush = () => {
    if (text) seg.push(lower ? text.toLowerCase() : text);
    text = '';
  };
  const cps = Array.from(pattern);
  for (let i = 0; i < cps.length; i++) {
    const ch = cps[i];
    if (ch === escape) {
      const next = cps[++i];
      if (next === undefined) throw likePatternError('ESC_AT_THE_END', pattern, 'it may not end with the escape character');
      if (next !== '_' && next !== '%' && next !== escape) throw likePatternError('ESC_IN_THE_MIDDLE', pattern, `the escape character may not precede '${next}' (only _, % or itself)`);
      text += next;
    } else if (ch === '%') {
      flush();
      seg = [];
      segments.push(seg);
    } else if (ch === '_') {
      flush();
      const last = seg[seg.length - 1];
      if (typeof last === 'number') seg[seg.length - 1] = last + 1;
      else seg.push(1);
    } else {
      text += ch;
    }
  }
  flush();
  return segments;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** Index after `k` code points from `i`, or -1 if the value ends first. */
function forward(s: string, i: number, k: number): number {
  for (; k > 0; k--) {
    if (i >= s.length) return -1;
    i += isHigh(s.charCodeAt(i)) && i + 1 < s.length && isLow(s.charCodeAt(i + 1)) ? 2 : 1;
  }
  return i;
}

/** Index `k` code points before `i`, or -1 if the value starts first. */
function backward(s: string, i: number, k: number): number {
  for (; k > 0; k--) {
    if (i <= 0) return -1;
    i -= isLow(s.charCodeAt(i - 1)) && i >= 2 && isHigh(s.charCodeAt(i - 2)) ? 2 : 1;
  }
  return i;
}

/** Where `seg` ends when matched at `at`, or -1. */
function matchAt(s: string, at: number, seg: Segment): number {
  let i = at;
  for (const p of seg) {
    if (typeof p === 'number') {
      i = forward(s, i, p);
      if (i < 0) return -1;
    } else {
      if (!s.startsWith(p, i)) return -1;
      i += p.length;
    }
  }
  return i;
}

/** Whether `seg` matches ending exactly at the end of `s`, starting at or after `from`. */
function matchAtEnd(s: string, from: number, seg: Segment): boolean {
  let i = s.length;
  for (let j = seg.length - 1; j >= 0; j--) {
    const p = seg[j];
    if (typeof p === 'number') {
      i = backward(s, i, p);
      if (i < 0) return false;
    } else {
      i -= p.length;
      if (i < 0 || !s.startsWith(p, i)) return false;
    }
  }
  return i >= from;
}

/** True when `i` does not split a surrogate pair. */
const boundary = (s: string, i: number) => !(i > 0 && i < s.length && isLow(s.charCodeAt(i)) && isHigh(s.charCodeAt(i - 1)));

const segmentCost = (seg: Segment) => seg.reduce<number>((n, p) => n + (typeof p === 'number' ? p : p.length), 0);

/** End of the leftmost match of `seg` starting at or after `from`, or -1; `steps` counts the work. */
function findFrom(s: string, from: number, seg: Segment, steps: { n: number; pattern: string }): number {
  const lead = typeof seg[0] === 'number' ? seg[0] : 0;
  const lit = seg.find((p): p is string => typeof p === 'string');
  if (lit === undefined) return forward(s, from, lead); // only wildcards: as early as possible
  const cost = seg.length === 1 ? 0 : segmentCost(seg); // plain text: indexOf's own scan is linear
  // Candidates: occurrences of the first literal run, `lead` code points after a start.
  let q = forward(s, from, lead);
  while (q >= 0) {
    steps.n += cost;
    if (steps.n > LIKE_STEP_BUDGET) {
      throw new RecordExpressionError(
        `LIKE: matching the pattern '${steps.pattern.length > 100 ? steps.pattern.slice(0, 100) + '…' : steps.pattern}' against a value of ${s.length.toLocaleString('en-US')} characters takes more than ${LIKE_STEP_BUDGET.toLocaleString('en-US')} steps. ` +
          'Shorten the parts of the pattern that mix text and _ between two %, or bound the value (e.g. with substring).',
        { function: 'LIKE', limit: LIKE_STEP_BUDGET },
      );
    }
    q = s.indexOf(lit, q);
    if (q < 0) return -1;
    const start = backward(s, q, lead);
    if (start >= from && boundary(s, start)) {
      const end = matchAt(s, start, seg);
      if (end >= 0) return end;
    }
    q++;
  }
  return -1;
}

export function compileLike(pattern: string, opts: LikeOptions = {}): LikeMatcher {
  const lower = opts.caseInsensitive === true;
  const segments = parse(pattern, opts.escape ?? '\\', lower);
  const prepare = lower ? (v: string) => v.toLowerCase() : (v: string) => v;
  if (segments.length === 1) {
    const only = segments[0];
    return (v) => {
      const s = prepare(v);
      return matchAt(s, 0, only) === s.length;
    };
  }
  const first = segments[0];
  const last = segments[segments.length - 1];
  const middle = segments.slice(1, -1).filter((seg) => seg.length > 0);
  return (v) => {
    const s = prepare(v);
    let pos = matchAt(s, 0, first);
    if (pos < 0) return false;
    const steps = { n: 0, pattern };
    for (const seg of middle) {
      pos = findFrom(s, pos, seg, steps);
      if (pos < 0) return false;
    }
    return matchAtEnd(s, pos, last);
  };
}
