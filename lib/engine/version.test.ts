import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { WEIR_VERSION } from './version';

it("is package.json's version", () => {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { version: string };
  expect(WEIR_VERSION).toBe(pkg.version);
});
