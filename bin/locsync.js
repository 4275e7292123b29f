#!/usr/bin/env node
// Entry point of the `locsync` command. The TypeScript sources are compiled to dist/ and bundled
// into dist/bundle/ by `npm ci` (the `prepare` script); run `npm run build` after changing them.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/bundle/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  console.error(
    'locsync: dist/ is missing. Run `npm ci` (or `npm run build`) in ' +
      fileURLToPath(new URL('..', import.meta.url)),
  );
  process.exit(2);
}
const { run } = await import(main.href);
process.exitCode = await run(process.argv.slice(2));
