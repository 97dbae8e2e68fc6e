// The README's sample output of a first `npm start` shows the command npm really runs: the
// start script of package.json (a copy that drifted showed it without --conditions=react-server).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

it('the README quotes npm start as package.json defines it', () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; scripts: Record<string, string> };
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const shown = new RegExp(`^> ${pkg.name}@${pkg.version.replace(/\./g, '\\.')} start\\n> (.+)$`, 'm').exec(readme);
  expect(shown, 'the README shows a first start\'s output').not.toBeNull();
  expect(shown![1]).toBe(pkg.scripts.start);
});
