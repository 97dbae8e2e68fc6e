/**
 * Spark's URL functions (group url_funcs): parse_url (a part of a URL as java.net.URI parses
 * it; NULL for text that is not a URI, ANSI mode being off) and try_parse_url (Spark 4.0: the
 * same, NULL for such text in ANSI mode too), url_encode and url_decode
 * (java.net.URLEncoder and URLDecoder in UTF-8: application/x-www-form-urlencoded) and
 * try_url_decode (NULL where url_decode fails).
 */
import { RecordExpressionError } from '../errors';
import { str } from './function-args';
import type { FunctionDef } from './function-types';
import { recordRegex } from './regex';

/** The parts of a URI, raw (still %-escaped) as java.net.URI's getRaw… give them; null where it has none. */
interface Uri {
  scheme: string | null;
  authority: string | null;
  userInfo: string | null;
  host: string | null;
  path: string | null;
  query: string | null;
  fragment: string | null;
}

/** Characters java.net.URI allows nowhere (a `%` must begin an escape of two hex digits). */
// eslint-disable-next-line no-control-regex -- java.net.URI refuses control characters
const ILLEGAL = /[\x00-\x20"<>\\^`{|}\x7f]|%(?![0-9a-fA-F]{2})/;
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?';
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
/** A host name (its last label starts with a letter) or an IPv6 literal, as URI's parseServer accepts. */
const HOSTNAME = new RegExp(`^(?:${LABEL}\\.)*[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?\\.?$`);
const IPV6 = /^\[[0-9A-Fa-f:.]+\]$/;

/** `s` as java.net.URI parses it (RFC 2396, with its deviations); null where URI throws. */
function parseUri(s: string): Uri | null {
  const none: Uri = { scheme: null, authority: null, userInfo: null, host: null, path: null, query: null, fragment: null };
  const hash = s.indexOf('#');
  const fragment = hash < 0 ? null : s.slice(hash + 1);
  let rest = hash < 0 ? s : s.slice(0, hash);
  if (ILLEGAL.test(rest) || (fragment !== null && (ILLEGAL.test(fragment) || fragment.includes('#')))) return null;
  let scheme: string | null = null;
  const colon = /^[^/?:]*:/.exec(rest);
  if (colon) {
    scheme = colon[0].slice(0, -1);
    if (!/^[A-Za-z][A-Za-z0-9+.-]*$/.test(scheme)) return null;
    rest = rest.slice(colon[0].length);
    if (rest === '') return null;
    // An opaque URI (mailto:x@y): no authority, path or query.
    if (!rest.startsWith('/')) return { ...none, scheme, fragment };
  }
  let authority: string | null = null;
  let userInfo: string | null = null;
  let host: string | null = null;
  if (rest.startsWith('//')) {
    const end = rest.slice(2).search(/[/?]/);
    const raw = end < 0 ? rest.slice(2) : rest.slice(2, end + 2);
    rest = end < 0 ? '' : rest.slice(end + 2);
    if (raw === '' && rest === '') return null;
    if (raw !== '') {
      authority = raw;
      // A server authority ([user@]host[:port]); any other is registry-based, with no host.
      const server = /^(?:([^@]*)@)?([^@:]*|\[[^\]]*\])(?::\d*)?$/.exec(raw);
      if (server && (HOSTNAME.test(server[2]) || IPV4.test(server[2]) || IPV6.test(server[2]))) {
        userInfo = server[1] ?? null;
        host = server[2];
      }
    }
  }
  const q = rest.indexOf('?');
  const path = q < 0 ? rest : rest.slice(0, q);
  if (/[[\]]/.test(path)) return null;
  return { scheme, authority, userInfo, host, path, query: q < 0 ? null : rest.slice(q + 1), fragment };
}

/** The part parse_url extracts, by its name (case-sensitive, as Spark's). */
const PARTS: Record<string, (u: Uri) => string | null> = {
  HOST: (u) => u.host,
  PATH: (u) => u.path,
  QUERY: (u) => u.query,
  REF: (u) => u.fragment,
  PROTOCOL: (u) => u.scheme,
  FILE: (u) => (u.query !== null ? `${u.path}?${u.query}` : u.path),
  AUTHORITY: (u) => u.authority,
  USERINFO: (u) => u.userInfo,
};

/** Characters URLEncoder keeps as they are (a space becomes `+`). */
const KEPT = /[A-Za-z0-9.\-*_]/;
const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** java.net.URLEncoder.encode(s, UTF-8); a lone surrogate is `?`, as Java's encoder writes it. */
function urlEncode(s: string): string {
  let out = '';
  for (const ch of s.replace(LONE_SURROGATES, '?')) {
    if (KEPT.test(ch)) out += ch;
    else if (ch === ' ') out += '+';
    else for (const b of Buffer.from(ch, 'utf8')) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * java.net.URLDecoder.decode(s, UTF-8): `+` is a space, each run of `%XY` escapes is UTF-8
 * bytes (a malformed sequence is U+FFFD); null for an escape that is not two hex digits (Java's
 * Integer.parseInt takes a leading `+` too) or is cut short.
 */
function urlDecode(s: string): string | null {
  let out = '';
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '+') {
      out += ' ';
      i++;
    } else if (c === '%') {
      const bytes: number[] = [];
      while (i + 2 < s.length && s[i] === '%') {
        const hex = s.slice(i + 1, i + 3);
        if (!/^\+?[0-9a-fA-F]+$/.test(hex)) return null;
        bytes.push(parseInt(hex, 16));
        i += 3;
      }
      if (i < s.length && s[i] === '%') return null;
      out += new TextDecoder('utf-8', { ignoreBOM: true }).decode(new Uint8Array(bytes));
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

// url_encode and url_decode cast a number to its text (Spark's ImplicitCastInputTypes); parse_url
// does not (ExpectsInputTypes).
const decodeFn = (tolerant: boolean): FunctionDef => ({
  min: 1, max: 1, type: (a) => str(a) ?? 'string', stringInputs: true,
  impl: ([s]) => {
    const out = urlDecode(s as string);
    if (out === null && !tolerant) {
      throw new RecordExpressionError(
        `[CANNOT_DECODE_URL] The provided URL cannot be decoded: ${s as string}. Please ensure that the URL is properly formatted and try again. (Use try_url_decode to get NULL for such a value instead.)`,
        { function: 'url_decode' },
      );
    }
    return out;
  },
});

// try_parse_url is Spark's ParseUrl with failOnError off, which is how Weir's parse_url always
// runs (ANSI mode being off): the two differ only in the name a bad key's regex error gives.
const parseUrlFn = (name: string): FunctionDef => ({
  min: 2, max: 3, type: (a) => str(a) ?? 'string',
  impl: ([url, part, key]) => {
    const uri = parseUri(url as string);
    const extract = Object.hasOwn(PARTS, part as string) ? PARTS[part as string] : undefined;
    if (uri === null || extract === undefined) return null;
    if (key === undefined) return extract(uri);
    // With a key: that key's value in the query, the key read as a regular expression, as Spark's.
    if (part !== 'QUERY' || uri.query === null) return null;
    return recordRegex(`${name}()`, `(&|^)${key as string}=([^&]*)`).exec(uri.query)?.[2] ?? null;
  },
});

export const URL_FUNCTIONS: Record<string, FunctionDef> = {
  parse_url: parseUrlFn('parse_url'),
  try_parse_url: parseUrlFn('try_parse_url'),
  url_encode: { min: 1, max: 1, type: (a) => str(a) ?? 'string', stringInputs: true, impl: ([s]) => urlEncode(s as string) },
  url_decode: decodeFn(false),
  try_url_decode: decodeFn(true),
};
