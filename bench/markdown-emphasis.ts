// Benchmark of Markdown paragraphs with thousands of flat emphasis delimiters (docs/markdown.md):
// the time to parse one paragraph of n and of 2n `*a*` (and `_a_`, `**a**`, unmatched `a*`, `a_`),
// and how it grows when n doubles: 2 is linear, 4 quadratic (micromark's own emphasis resolver:
// 4,559 ms for 10,000 unmatched `a*` on the lead's machine, against 469 ms now).
//
//   npx tsx bench/markdown-emphasis.ts                                       (or npm run bench -- --only markdown-emphasis)
//   LOCSYNC_BENCH_MD_DELIMITERS=20000 npx tsx bench/markdown-emphasis.ts     another n
import { pathToFileURL } from 'node:url';
import { parseMarkdown } from '../src/documents/formats/markdown-parse.js';
import { benchSize } from './lib/options.js';
import type { BenchResult } from './types.js';

const N = benchSize(10_000, 2_000, 'LOCSYNC_BENCH_MD_DELIMITERS');
const RUNS: Record<string, string> = {
  star: '*a* ',
  underscore: '_a_ ',
  strong: '**a** ',
  'unmatched *': 'a* ',
  'unmatched _': 'a_ ',
};

/** Milliseconds to parse one paragraph of `n` runs (the best of 3: the figure is the algorithm's). */
function parseMs(run: string, n: number): number {
  const text = `Intro ${run.repeat(n)}end\n`;
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    parseMarkdown(text, 'the .md file', 64 * 1024 * 1024);
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

export async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  for (const [name, r] of Object.entries(RUNS)) {
    const once = parseMs(r, N);
    const twice = parseMs(r, 2 * N);
    results.push({
      name: `markdown: one paragraph of ${2 * N} ${name} emphasis runs`,
      value: Math.round(twice),
      unit: 'ms',
    });
    const growth = twice / Math.max(once, 1);
    results.push({
      name: `markdown: ${name} runs, time growth when they double`,
      value: Math.round(growth * 10) / 10,
      unit: 'x',
      bound: '< 3 (linear: 2, quadratic: 4)',
      ratio: growth / 3,
    });
  }
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const r of await run())
    console.log(`${r.name}: ${r.value} ${r.unit}${r.bound ? ` (${r.bound})` : ''}`);
}
