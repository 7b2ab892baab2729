#!/usr/bin/env node
// Entry of `npx kancil`: registers tsx so the TypeScript sources run as they are (no build step),
// then hands the arguments to src/cli/main.ts.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli/main.ts');
process.exitCode = await runCli(process.argv.slice(2));
