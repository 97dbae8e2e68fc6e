#!/usr/bin/env node
// The `weir` launcher: registers tsx so the TypeScript CLI runs straight from a clean checkout
// (no build step), then hands over to weir.ts. Used by `npx weir …` and `npm run weir -- …`.
import { register } from 'tsx/esm/api';

register();
await import('./weir.ts');
