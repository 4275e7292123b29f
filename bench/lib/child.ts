// One benchmark in its own process, so that its memory and CPU figures are its own:
//   node --import tsx bench/lib/child.ts <bench module> <result file>
// Imports the module, awaits its run(), writes the BenchResult[] as JSON to <result file>.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchResult } from '../types.js';

const [modulePath, resultFile] = process.argv.slice(2);
if (!modulePath || !resultFile) {
  console.error('usage: node --import tsx bench/lib/child.ts <bench module> <result file>');
  process.exit(2);
}
const mod = (await import(pathToFileURL(resolve(modulePath)).href)) as { run?: () => Promise<BenchResult[]> };
if (typeof mod.run !== 'function') {
  console.error(`${modulePath} does not export run()`);
  process.exit(2);
}
const results = await mod.run();
writeFileSync(resultFile, JSON.stringify(results));
// A benchmark cleans up after itself; a handle it forgot must not keep the runner waiting.
process.exit(0);
