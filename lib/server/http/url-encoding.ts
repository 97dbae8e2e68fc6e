/**
 * A URL whose percent-encoding does not decode to UTF-8 (`%FF`, a lone surrogate `%ED%A0%80`, a
 * cut sequence `%E2%82`) names nothing: it is refused with 400 BAD_REQUEST, before
 * authentication, like a NUL byte (api-handler.ts). Two places need it:
 * - the path, in proxy.ts: Next's router decodes a dynamic segment (`/api/jobs/[id]`) itself and,
 *   on a URIError, answers its own plain-text 500 before any route handler runs;
 * - the query string, in api-handler.ts: URLSearchParams silently turns a bad sequence into
 *   U+FFFD, so `?q=%FF` would search for "\uFFFD" and answer 200.
 */
import { BadRequestError } from '../errors';

/** A form-encoded name or value: `+` is a space, the rest percent-decoded; throws URIError if not UTF-8. */
const decodeFormPart = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));

const shown = (s: string) => (s.length > 60 ? `${s.slice(0, 60)}…` : s);

function decodes(s: string, decode: (s: string) => string): boolean {
  try {
    decode(s);
    return true;
  } catch {
    return false;
  }
}

/** The 400 for the first path segment of `url` that is not UTF-8 once percent-decoded, if any. */
export function badPathEncoding(url: URL): BadRequestError | undefined {
  const segment = url.pathname.split('/').find((s) => !decodes(s, decodeURIComponent));
  if (segment === undefined) return undefined;
  return new BadRequestError(
    `The URL path segment "${shown(segment)}" is not valid UTF-8 once percent-decoded, so it cannot name anything; percent-encode the path's UTF-8 bytes (encodeURIComponent does).`,
    { field: 'path', segment: shown(segment) },
  );
}

/** The 400 for the first query parameter of `url` whose name or value is not UTF-8 once percent-decoded, if any. */
export function badQueryEncoding(url: URL): BadRequestError | undefined {
  if (!url.search.includes('%')) return undefined;
  for (const pair of url.search.slice(1).split('&')) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    if (!decodes(name, decodeFormPart)) {
      return new BadRequestError(`A query parameter name ("${shown(name)}") is not valid UTF-8 once percent-decoded; percent-encode its UTF-8 bytes (URLSearchParams does).`, { field: 'query', name: shown(name) });
    }
    if (!decodes(value, decodeFormPart)) {
      const field = decodeFormPart(name);
      return new BadRequestError(`The query parameter ${shown(field)} ("${shown(value)}") is not valid UTF-8 once percent-decoded; percent-encode its UTF-8 bytes (URLSearchParams does).`, { field: shown(field) });
    }
  }
  return undefined;
}
