/**
 * Next's proxy (formerly middleware): runs before Next routes a request, and only for paths with
 * a `%` in them (the matcher), so ordinary requests never pay for it.
 *
 * Why it exists: to fill `[id]` in `/api/jobs/[id]`, Next's router decodes the segment with
 * decodeURIComponent; a segment that is not UTF-8 once decoded (`%FF`, `%ED%A0%80`) makes it
 * throw a DecodeError, which `next start` turns into a plain-text 500 before any route handler
 * (and so apiRoute's checks) runs. Here such a path gets the API's JSON 400 BAD_REQUEST instead,
 * before authentication, as every malformed URL does (a path that cannot be decoded names
 * nothing, so there is nothing to authorize); a page path gets a plain-text 400. A path that
 * decodes goes on to Next unchanged.
 */
import { errorResponse } from '@/lib/server/http/http-errors';
import { badPathEncoding } from '@/lib/server/http/url-encoding';

export function proxy(req: Request): Response | undefined {
  const url = new URL(req.url);
  const bad = badPathEncoding(url);
  if (!bad) return undefined;
  if (url.pathname === '/api' || url.pathname.startsWith('/api/')) {
    const res = errorResponse(bad);
    res.headers.set('X-Content-Type-Options', 'nosniff');
    return res;
  }
  return new Response(`400 Bad Request: ${bad.message}\n`, { status: 400, headers: { 'content-type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' } });
}

export const config = {
  // Compiled by Next (path-to-regexp) and matched against the raw, still-encoded path.
  matcher: ['/:path(.*%.*)'],
};
