/**
 * A path segment that is not UTF-8 once percent-decoded (`/api/jobs/%FF`, `/api/jobs/%ED%A0%80/runs`)
 * was Next's plain-text 500 under `next start`, with or without a token: Next's router decodes
 * dynamic segments itself and throws before any route handler runs, so the in-process test kit
 * (which hands handlers decoded params) never saw it. This file pins both halves of the fix with
 * Next's own code: its router still throws on such a segment (the reason proxy.ts exists), and
 * proxy.ts's matcher, compiled the way `next build` compiles it, catches every such path, where
 * the proxy answers the JSON 400. e2e/00-home.spec.ts sends the same requests to the real server.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as pageStaticInfo from 'next/dist/build/analysis/get-page-static-info';
import { getRouteMatcher } from 'next/dist/shared/lib/router/utils/route-matcher';
import { getRouteRegex } from 'next/dist/shared/lib/router/utils/route-regex';
import { config, proxy } from '@/proxy';
import { badPathEncoding, badQueryEncoding } from './url-encoding';

// How `next build` compiles a proxy's `config.matcher` (exported, but not in Next's types).
const { getMiddlewareMatchers } = pageStaticInfo as unknown as { getMiddlewareMatchers: (matcher: unknown, nextConfig: object) => { regexp: string }[] };

const BAD = ['%FF', '%ED%A0%80', '%E2%82', '%C0%AF', '%F4%90%80%80', 'a%FFb', '%'];

function routePatterns(dir: string, prefix = '/api'): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...routePatterns(path.join(dir, e.name), `${prefix}/${e.name}`));
    else if (e.name === 'route.ts') out.push(prefix);
  }
  return out;
}
const dynamicRoutes = routePatterns(path.resolve(import.meta.dirname, '../../../app/api')).filter((p) => p.includes('['));
/** The route's path with every dynamic segment replaced by `seg`. */
const fill = (pattern: string, seg: string) => pattern.replace(/\[(?:\.\.\.)?\w+\]/g, seg);

describe('an undecodable path segment', () => {
  it('still makes Next’s own router throw for every dynamic /api route (why proxy.ts must answer first)', () => {
    expect(dynamicRoutes.length).toBeGreaterThan(15);
    for (const pattern of dynamicRoutes) {
      const match = getRouteMatcher(getRouteRegex(pattern));
      expect(match(fill(pattern, 'x'))).toBeTruthy();
      expect(() => match(fill(pattern, '%FF')), pattern).toThrow(/decode/);
    }
  });

  it('is matched by proxy.ts’s matcher as Next compiles it; a path without % is not', () => {
    const matchers = getMiddlewareMatchers(config.matcher, {}).map((m) => new RegExp(m.regexp));
    const matched = (p: string) => matchers.some((re) => re.test(p));
    for (const pattern of dynamicRoutes) for (const seg of BAD) expect(matched(fill(pattern, seg)), fill(pattern, seg)).toBe(true);
    expect(matched('/jobs/%FF')).toBe(true);
    for (const p of ['/api/jobs', '/api/jobs/0c9a', '/api/jobs/abc/runs', '/', '/jobs/abc']) expect(matched(p), p).toBe(false);
  });

  it('gets the JSON 400 envelope from the proxy under /api, with or without a token', async () => {
    for (const pattern of dynamicRoutes) {
      for (const seg of BAD) {
        for (const headers of [{}, { authorization: 'Bearer anything' }] as Record<string, string>[]) {
          const res = proxy(new Request(`http://localhost:3000${fill(pattern, seg)}`, { headers }));
          expect(res?.status, fill(pattern, seg)).toBe(400);
          expect(res!.headers.get('content-type')).toContain('application/json');
          expect(res!.headers.get('x-content-type-options')).toBe('nosniff');
          const body = await res!.json();
          expect(body.error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('not valid UTF-8'), details: { field: 'path' } });
        }
      }
    }
  });

  it('gets a plain-text 400 on a page path; a path that decodes goes on to Next', async () => {
    const page = proxy(new Request('http://localhost:3000/jobs/%FF'));
    expect(page?.status).toBe(400);
    expect(await page!.text()).toContain('not valid UTF-8');
    for (const ok of ['/api/jobs/caf%C3%A9', '/api/jobs/%F0%9F%98%80/runs', '/api/jobs/a%2Fb', '/jobs/%20']) expect(proxy(new Request(`http://localhost:3000${ok}`)), ok).toBeUndefined();
  });
});

describe('badQueryEncoding', () => {
  it('names the parameter whose value or name is not UTF-8; valid encodings and `+` pass', () => {
    const at = (qs: string) => badQueryEncoding(new URL(`http://h/api/jobs${qs}`));
    expect(at('?q=%FF')?.details).toEqual({ field: 'q' });
    expect(at('?limit=5&q=%ED%A0%80')?.message).toContain('query parameter q');
    expect(at('?%FF=1')?.details).toMatchObject({ field: 'query' });
    expect(at('?q=a%E2%82')).toBeDefined();
    expect(at('?q=%')).toBeDefined();
    for (const ok of ['', '?q=caf%C3%A9', '?q=a+b&x', '?q=%F0%9F%98%80', '?a=&b=1', '?q=100%25']) expect(at(ok), ok).toBeUndefined();
  });

  it('and badPathEncoding leave every valid path alone', () => {
    for (const ok of ['/api/jobs', '/api/jobs/caf%C3%A9/runs', '/']) expect(badPathEncoding(new URL(`http://h${ok}`)), ok).toBeUndefined();
  });
});
