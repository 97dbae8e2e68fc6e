/**
 * The headers next.config.js puts on every page and API answer: a Content-Security-Policy that
 * forbids framing, plugins and other origins (and 'unsafe-eval' outside `next dev`),
 * X-Frame-Options DENY, nosniff and a Referrer-Policy. The e2e home spec checks that the built
 * pages still run under it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

async function headersFor(nodeEnv: string): Promise<Record<string, string>> {
  vi.resetModules();
  vi.stubEnv('NODE_ENV', nodeEnv);
  // A plain .js module: typed here by what the test reads.
  const configPath = '../../../next.config.js';
  const config = ((await import(/* @vite-ignore */ configPath)) as { default: unknown }).default as { headers(): Promise<{ source: string; headers: { key: string; value: string }[] }[]> };
  const rules = await config.headers();
  expect(rules).toHaveLength(1);
  expect(rules[0].source).toBe('/:path*');
  return Object.fromEntries(rules[0].headers.map((h) => [h.key, h.value]));
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('security headers', () => {
  it('in production: CSP without unsafe-eval, no framing, nosniff, same-origin referrer', async () => {
    const h = await headersFor('production');
    const csp = Object.fromEntries(h['Content-Security-Policy'].split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
    expect(csp['default-src']).toBe("'self'");
    expect(csp['script-src']).toBe("'self' 'unsafe-inline'");
    expect(h['Content-Security-Policy']).not.toContain('unsafe-eval');
    expect(csp['frame-ancestors']).toBe("'none'");
    expect(csp['object-src']).toBe("'none'");
    expect(csp['connect-src']).toBe("'self'");
    expect(csp['form-action']).toBe("'self'");
    expect(h['X-Frame-Options']).toBe('DENY');
    expect(h['X-Content-Type-Options']).toBe('nosniff');
    expect(h['Referrer-Policy']).toBe('same-origin');
  });

  it("only next dev gets 'unsafe-eval' (React's dev tooling needs it)", async () => {
    expect((await headersFor('development'))['Content-Security-Policy']).toContain("'unsafe-eval'");
  });
});
