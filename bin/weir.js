#!/usr/bin/env node
// The `weir` launcher: registers tsx so the TypeScript CLI runs straight from a clean checkout
// (no build step), then hands over to weir.ts. Used by `npx weir …` and `npm run weir -- …`.
//
// Weir runs on the Node that `npm ci` installs into node_modules (the `node` package), because
// the machine's own Node may be older and past its end of life. `node bin/weir.js …` started by
// such an older Node re-runs itself under the project's Node, with the same arguments, standard
// streams and exit status.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const REQUIRED_MAJOR = 24;

if (Number(process.versions.node.split('.')[0]) < REQUIRED_MAJOR) {
  const projectNode = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
  if (!existsSync(projectNode)) {
    process.stderr.write(
      `error: weir needs Node ${REQUIRED_MAJOR}; this is Node ${process.version}, and ${projectNode} is missing. ` +
        'Run `npm ci` in the checkout (it installs Node 24 there), then run weir again.\n',
    );
    process.exit(1);
  }
  const child = spawn(projectNode, [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  // Signals are passed on (the child stops gracefully, and takes a repeat, as when Ctrl-C
  // reaches both processes of the terminal's group, as one); this process exits as the child did.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./weir.ts');
}
