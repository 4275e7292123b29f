// The `locsync` command as bin/locsync.js runs it: dist/cli/main.js (tsc's output) bundled by esbuild
// into dist/bundle/, our modules and the dependencies they import in a few files instead of some 600.
// Node.js resolves, reads and compiles each ES module file on its own, and for a command that runs
// for a second (a no-op sync, `status` from a monitoring check) that was a third of the time before
// the manifest was even read (docs/benchmarks.md). What each command loads lazily (the HTTP client,
// the document layer, the local service, the web pages) stays lazy: every `import()` becomes a chunk
// of its own, loaded when it is needed, and modules shared by several chunks are loaded once.
//
// Left outside the bundle: packages that find files next to their own code at run time (better-sqlite3's
// native addon, pdf.js and its worker, pino-pretty loaded through require) and pg, whose optional
// native binding is resolved only if it is there.
//
//   node scripts/bundle.mjs        (npm run build runs it after tsc)
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const outdir = path.join(root, 'dist', 'bundle');

rmSync(outdir, { recursive: true, force: true });
await build({
  // The sync command under its own name too: bench/lib/node-floor.ts loads it to measure what
  // loading the command costs (main.js's import of it is that same file).
  entryPoints: {
    main: path.join(root, 'dist', 'cli', 'main.js'),
    sync: path.join(root, 'dist', 'cli', 'sync.js'),
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external: ['better-sqlite3', 'pg', 'pino-pretty', 'pdfjs-dist'],
  // Dependencies written as CommonJS call require(); in an ES module it is made from the chunk's URL
  // (so that the packages left outside are found in node_modules as from dist/).
  banner: {
    js: "import { createRequire as __locsyncCreateRequire } from 'node:module'; const require = __locsyncCreateRequire(import.meta.url);",
  },
  // Names in stack traces and error messages stay the sources' (no minifying). The source maps beside
  // (used under NODE_OPTIONS=--enable-source-maps) give each line's place in src/*.ts without copying
  // the sources into them: with the sources, the maps were two thirds of the package (36 of 40 MB
  // unpacked).
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
});
