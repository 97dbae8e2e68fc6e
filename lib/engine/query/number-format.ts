/**
 * Spark's number format strings for to_number, try_to_number and to_char (its ToNumberParser):
 * `0`/`9` digits, `.`/`D` the decimal point, `,`/`G` a grouping separator, `$`, `S` (a sign,
 * `+` or `-`), `MI` (a `-` or a space) and `PR` (angle brackets around a negative), in the order
 * `[PR] [MI|S] [$] [0|9|G|,]* [.|D] [0|9]* [$] [PR|MI|S]`.
 *
 * A run of digits starting with 0 before the point must match exactly that many digits and pads
 * with zeros; any other run matches at most its length and pads with spaces. Digit runs are
 * compared from the decimal point outwards, so a format's leading optional digits may be absent.
 */

type Token =
  | { kind: 'digits'; n: number; exact: boolean }
  | { kind: 'sep' | 'point' | 'dollar' | 'plusMinus' | 'minus' | 'open' | 'close' }
  | { kind: 'invalid'; c: string };

/** A run of digits and separators as one token: `runs` are the digit runs' sizes from the right. */
type Group = { kind: 'group'; items: Token[]; runs: { n: number; exact: boolean }[] };
type FormatToken = Group | Exclude<Token, { kind: 'digits' } | { kind: 'sep' }>;

export interface NumberFormat {
  text: string;
  tokens: FormatToken[];
  precision: number;
  scale: number;
}

function tokenize(f: string): FormatToken[] {
  const raw: Token[] = [];
  let point = false;
  for (let i = 0; i < f.length; ) {
    const c = f[i];
    if (c === '0' || c === '9') {
      let j = i + 1;
      while (j < f.length && (f[j] === '0' || f[j] === '9')) j++;
      raw.push({ kind: 'digits', n: j - i, exact: c === '0' && !point });
      i = j;
      continue;
    }
    const two = f.slice(i, i + 2);
    if (two === 'MI' || two === 'PR') {
      if (two === 'MI') raw.push({ kind: 'minus' });
      else { raw.unshift({ kind: 'open' }); raw.push({ kind: 'close' }); }
      i += 2;
      continue;
    }
    if (c === '.' || c === 'D') { raw.push({ kind: 'point' }); point = true; }
    else if (c === ',' || c === 'G') raw.push({ kind: 'sep' });
    else if (c === '$') raw.push({ kind: 'dollar' });
    else if (c === 'S') raw.push({ kind: 'plusMinus' });
    else raw.push({ kind: 'invalid', c });
    i++;
  }
  const out: FormatToken[] = [];
  let group: Group | undefined;
  for (const t of raw) {
    if (t.kind === 'digits' || t.kind === 'sep') {
      group ??= { kind: 'group', items: [], runs: [] };
      group.items.push(t);
      if (t.kind === 'digits') group.runs.unshift({ n: t.n, exact: t.exact });
    } else {
      if (group) out.push(group);
      group = undefined;
      out.push(t);
    }
  }
  if (group) out.push(group);
  return out;
}

const ORDER: FormatToken['kind'][][] = [['open'], ['minus', 'plusMinus'], ['dollar'], ['group'], ['point'], ['group'], ['dollar'], ['minus', 'plusMinus', 'close']];

/** The format (upper-cased, as Spark reads it), or Spark's message about what is wrong with it, ending in its error class. */
export function numberFormat(text: string): NumberFormat | string {
  const f = text.toUpperCase();
  const tokens = tokenize(f);
  const at = (k: FormatToken['kind']) => tokens.findIndex((t) => t.kind === k);
  const pointAt = at('point');
  if (f === '') return 'The format string cannot be empty (INVALID_FORMAT.EMPTY)';
  if (at('group') < 0) return 'The format string requires at least one number digit (INVALID_FORMAT.WRONG_NUM_DIGIT)';
  if (at('dollar') >= 0 && at('group') < at('dollar')) return `Currency characters must appear before digits in the number format: '${text}' (INVALID_FORMAT.CUR_MUST_BEFORE_DIGIT)`;
  const groups = tokens.map((t, i) => ({ t, i })).filter((x): x is { t: Group; i: number } => x.t.kind === 'group');
  for (const { t, i } of groups) {
    const before = pointAt < 0 || i < pointAt;
    const badSep = t.items.some((x, j) => x.kind === 'sep' && (j === 0 || j === t.items.length - 1 || t.items[j - 1].kind === 'sep' || t.items[j + 1].kind === 'sep'));
    if (before && badSep) return `Thousands separators (, or G) must have digits in between them in the number format: '${text}' (INVALID_FORMAT.CONT_THOUSANDS_SEPS)`;
    if (!before && t.items.some((x) => x.kind === 'sep')) return `Thousands separators (, or G) may not appear after the decimal point in the number format: '${text}' (INVALID_FORMAT.THOUSANDS_SEPS_MUST_BEFORE_DEC)`;
  }
  for (const k of ['point', 'plusMinus', 'minus', 'dollar', 'close'] as const) {
    if (tokens.filter((t) => t.kind === k).length > 1) return `At most one ${k === 'point' ? 'decimal point' : k === 'dollar' ? 'dollar sign' : 'sign'} is allowed in the number format: '${text}' (INVALID_FORMAT.WRONG_NUM_TOKEN)`;
  }
  let i = 0;
  for (const allowed of ORDER) if (i < tokens.length && allowed.includes(tokens[i].kind)) i++;
  if (i < tokens.length) {
    const t = tokens[i];
    return `Unexpected ${t.kind === 'invalid' ? `character '${t.c}'` : t.kind} found in the format string '${text}'; the structure of the format string must match: [MI|S] [$] [0|9|G|,]* [.|D] [0|9]* [$] [PR|MI|S] (INVALID_FORMAT.UNEXPECTED_TOKEN)`;
  }
  const digits = (g: FormatToken) => (g.kind === 'group' ? g.runs.reduce((s, r) => s + r.n, 0) : 0);
  const precision = tokens.reduce((s, t) => s + digits(t), 0);
  if (precision > 38) return `the number format '${text}' has ${precision} digits, over the 38 of a DECIMAL (INVALID_FORMAT)`;
  const scale = pointAt < 0 ? 0 : tokens.slice(pointAt).reduce((s, t) => s + digits(t), 0);
  return { text, tokens, precision, scale };
}

/** Spark's parse: the input's unscaled value at the format's scale, or undefined when it does not match. */
export function parseNumber(input: string, nf: NumberFormat): bigint | undefined {
  let before = '';
  let after = '';
  let point = false;
  let neg = false;
  let opened = false;
  let closed = false;
  let i = 0;
  for (const t of nf.tokens) {
    const c = input[i];
    switch (t.kind) {
      case 'group': {
        // Digits, separators and white space; the digit runs' sizes from the right.
        const sizes: number[] = [];
        let run = 0;
        for (; i < input.length; i++) {
          const ch = input[i];
          if (/\s/.test(ch)) continue;
          if (ch >= '0' && ch <= '9') { run++; if (point) after += ch; else before += ch; }
          else if (ch === ',') { sizes.unshift(run); run = 0; }
          else break;
        }
        sizes.unshift(run);
        if (sizes.length > t.runs.length) return undefined;
        for (let k = 0; k < t.runs.length; k++) {
          const got = sizes[k] ?? 0;
          if (t.runs[k].exact ? got !== t.runs[k].n : got > t.runs[k].n) return undefined;
        }
        break;
      }
      case 'point': if (c === '.') { point = true; i++; } break;
      case 'dollar': if (c !== undefined) { if (c !== '$') return undefined; i++; } break;
      case 'plusMinus': if (c === '+' || c === '-') { if (c === '-') neg = !neg; i++; } break;
      case 'minus': if (c === '-') { neg = !neg; i++; } break;
      case 'open': if (c === '<') { if (opened) return undefined; opened = true; i++; } break;
      case 'close': if (c === '>') { if (!opened) return undefined; closed = true; neg = !neg; i++; } break;
      // Inside groups, or refused by numberFormat.
      case 'sep': case 'invalid': return undefined;
    }
  }
  if (i < input.length || opened !== closed || (before === '' && after === '')) return undefined;
  const v = BigInt((before || '0') + after.padEnd(nf.scale, '0'));
  return neg ? -v : v;
}

/** Spark's format (to_char): `int` and `frac` are the value's digits, `neg` its sign. */
export function formatNumber(int: string, frac: string, neg: boolean, nf: NumberFormat): string {
  let b = int.replace(/^0+/, '');
  let a = frac.replace(/0+$/, '');
  const pointAt = nf.tokens.findIndex((t) => t.kind === 'point');
  const count = (ts: FormatToken[]) => ts.reduce((s, t) => s + (t.kind === 'group' ? t.runs.reduce((x, r) => x + r.n, 0) : 0), 0);
  const nb = count(pointAt < 0 ? nf.tokens : nf.tokens.slice(0, pointAt));
  const na = nf.scale;
  // More digits than the format has: every digit place a '#'.
  if (b.length > nb || a.length > na) { b = '#'.repeat(nb); a = '#'.repeat(na); }
  b = b.padStart(nb, ' ');
  a = a.padEnd(na, '0');
  const out: string[] = [];
  const last = () => out[out.length - 1];
  // A space moves before a sign or '<' just written, so the sign sits next to the digits.
  const space = () => { out.push(' '); for (let k = out.length - 1; k >= 1 && '+-<'.includes(out[k - 1]) && out[k] === ' '; k--) [out[k - 1], out[k]] = [out[k], out[k - 1]]; };
  // A sign written after spaces moves before them, next to the digits.
  const mark = (c: string) => { out.push(c); for (let k = out.length - 1; k >= 1 && out[k - 1] === ' ' && out[k] === c; k--) [out[k - 1], out[k]] = [out[k], out[k - 1]]; };
  const loosePoint = () => { const k = out.indexOf('.'); if (k >= 0 && (k === out.length - 1 || out[k + 1] === ' ')) out[k] = ' '; };
  let ib = 0;
  let ia = 0;
  let point = false;
  for (const t of nf.tokens) {
    switch (t.kind) {
      case 'group':
        for (const x of t.items) {
          if (x.kind === 'sep') { if (out.length && /\d/.test(last())) out.push(','); else space(); continue; }
          if (x.kind !== 'digits') continue;
          for (let k = 0; k < x.n; k++) {
            if (point) { out.push(a[ia++]); continue; }
            const ch = b[ib++];
            if (ch === ' ') { if (x.exact) out.push('0'); else space(); } else out.push(ch);
          }
        }
        break;
      case 'point': if (out.length && last() === ' ') out[out.length - 1] = '0'; out.push('.'); point = true; break;
      case 'dollar': out.push('$'); break;
      case 'plusMinus': loosePoint(); mark(neg ? '-' : '+'); break;
      case 'minus': if (neg) { loosePoint(); mark('-'); } else out.push(' '); break;
      case 'open': if (neg) out.push('<'); break;
      case 'close': loosePoint(); if (neg) mark('>'); else out.push(' ', ' '); break;
      case 'sep': case 'invalid': break;
    }
  }
  loosePoint();
  const s = out.join('');
  return s === '' || s === '+' || s === '-' ? '0' : s;
}
