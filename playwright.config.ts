/**
 * End-to-end tests: the real app, worker and embedded PostgreSQL, started exactly as `npm start`
 * starts them (fresh data dir, own ports), driven in Debian's Chromium.
 */
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defineConfig } from '@playwright/test';

const PORT = Number(process.env.E2E_PORT ?? 3100);
export const E2E_ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  workers: 1,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
  webServer: {
    command: 'rm -rf .data/e2e && node --conditions=react-server --import tsx scripts/start.ts',
    url: `http://127.0.0.1:${PORT}/api/health`,
    timeout: 300_000,
    reuseExistingServer: false,
    stdout: 'pipe',
    gracefulShutdown: { signal: 'SIGINT', timeout: 30_000 },
    env: {
      DATABASE_URL: '',
      REDIS_URL: '',
      PORT: String(PORT),
      WEIR_DATA_DIR: '.data/e2e',
      // The specs' files: under the data dir's own files root, or in a temp dir they make (the
      // data dir is wiped when the server starts, so files made before it cannot live there).
      WEIR_FILES_ROOTS: `${path.resolve('.data/e2e/files')},${tmpdir()}`,
      // E2E_PG_PORT: so that two checkouts can run the suite side by side.
      WEIR_EMBEDDED_PG_PORT: process.env.E2E_PG_PORT ?? '54339',
      WEIR_ADMIN_TOKEN: E2E_ADMIN_TOKEN,
      WEIR_ADMIN_PASSWORD: 'e2e-admin-password',
    },
  },
});
