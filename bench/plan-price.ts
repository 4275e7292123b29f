// Benchmark (issue target): `plan` over 100,000 unchanged files plus 1,000 new ones, every new
// upload priced (its characters counted), within 2x the time of a no-op sync over the same tree.
//
// The tree and its seeded state come from bench/sync-noop.ts (its --seed and --child modes: the
// same in-process stand-in of the service, the same timed no-op). Then 1,000 new files are added and
// the plan is made and priced in a fresh child process (manifest load, state open, scan, price),
// median of 3, against the no-op's median of 3 measured before the new files were added.
//
//   npx tsx bench/plan-price.ts          (LOCSYNC_BENCH_PLAN_FILES overrides the size; --quick: 10,000)
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { priceFiles } from '../src/cli/plan-text.js';
import { silentLogger } from '../src/log/logger.js';
import { loadManifest } from '../src/manifest/load.js';
import { openState } from '../src/state/store.js';
import { makePlan } from '../src/sync/engine.js';
import { groupPlan } from '../src/sync/plan/view.js';
import { benchSize } from './lib/options.js';
import { median, timed } from './lib/timing.js';
import { makeTree, withTempDir, writeDocsManifest } from './lib/tree.js';
import type { BenchResult } from './types.js';

const FILES = benchSize(100_000, 10_000, 'LOCSYNC_BENCH_PLAN_FILES');
const NEW_FILES = Math.max(10, Math.round(FILES / 100));
const SELF = fileURLToPath(import.meta.url);
const NOOP = path.join(path.dirname(SELF), 'sync-noop.ts');

/** Runs a bench script in a fresh process; answers the last line it printed, parsed when `json`. */
function runScript<T>(script: string, args: string[], json = true): Promise<T> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    c.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    c.on('error', reject);
    c.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${path.basename(script)} ${args[0]} exited ${code}`));
      const last = out.trim().split('\n').at(-1) ?? '';
      resolve((json ? JSON.parse(last) : last) as T);
    });
  });
}

/** The timed plan in a fresh process: prints {ms, uploads, billed}. */
async function child(manifestPath: string): Promise<void> {
  const { value, ms } = await timed(async () => {
    const loaded = await loadManifest(manifestPath);
    const state = openState(loaded.statePath);
    try {
      const { plan } = await makePlan({ loaded, state, logger: silentLogger() });
      const { price } = await priceFiles(loaded, groupPlan(plan));
      return { uploads: price.total.documents, billed: price.total.billed, unchanged: plan.unchanged };
    } finally {
      state.close();
    }
  });
  process.stdout.write(JSON.stringify({ ms, ...value }) + '\n');
}

export async function run(): Promise<BenchResult[]> {
  return withTempDir('plan-price', async (dir) => {
    process.stderr.write(`plan-price: generating ${FILES} files\n`);
    await makeTree(path.join(dir, 'src'), FILES);
    const manifestPath = writeDocsManifest(dir, { url: 'http://127.0.0.1:9' });
    process.stderr.write('plan-price: seeding the state (first sync)\n');
    await runScript(NOOP, ['--seed', manifestPath], false);
    // The first no-op after work records the fast-path marks; the timed ones are the steady no-op.
    await runScript(NOOP, ['--child', manifestPath]);
    const noops: number[] = [];
    for (let i = 0; i < 3; i++)
      noops.push((await runScript<{ ms: number }>(NOOP, ['--child', manifestPath])).ms);

    await makeTree(path.join(dir, 'src', 'new'), NEW_FILES, {
      content: (i) => `A new document, number ${i}, to be priced before it is paid for.\n`,
    });
    const plans: Array<{ ms: number; uploads: number; billed: number; unchanged: number }> = [];
    for (let i = 0; i < 3; i++) plans.push(await runScript(SELF, ['--child', manifestPath]));
    const p = plans[0]!;
    if (p.uploads !== NEW_FILES || p.unchanged !== FILES)
      throw new Error(`not the expected plan: ${JSON.stringify(p)}`);
    const planMs = median(plans.map((x) => x.ms));
    const noopMs = median(noops);
    return [
      {
        name: `plan-price: plan over ${FILES} unchanged + ${NEW_FILES} new files, every upload priced`,
        value: Math.round(planMs),
        unit: 'ms',
        bound: `<= 2x the no-op sync (${Math.round(noopMs)} ms)`,
        ratio: Math.round((planMs / (2 * noopMs)) * 100) / 100,
      },
      { name: `plan-price: no-op sync over the same ${FILES} files`, value: Math.round(noopMs), unit: 'ms' },
      {
        name: `plan-price: characters priced for the ${NEW_FILES} new files`,
        value: p.billed,
        unit: 'chars',
      },
    ];
  });
}

if (process.argv[2] === '--child' && process.argv[3]) {
  await child(process.argv[3]);
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await run())
    console.log(`${r.name}: ${r.value} ${r.unit}${r.bound ? `  [bound: ${r.bound}; ratio ${r.ratio}]` : ''}`);
}
