// Benchmark (issue 51): outputs per second of a first sync of many small text files into one
// language, against a stand-in service that answers at once (the benchmarks' own seeding,
// ./lib/seed-client.ts): what is left is the pipeline's own cost per document (reading, planning,
// the state's rows, the output checks, writing and fsync). Target: >= 200 outputs a second.
//
//   npx tsx bench/first-sync.ts   (LOCSYNC_BENCH_FIRST_FILES overrides the files; --quick: 3,000)
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { silentLogger } from '../src/log/logger.js';
import { loadManifest } from '../src/manifest/load.js';
import { openState } from '../src/state/store.js';
import { runSync } from '../src/sync/engine.js';
import { benchSize } from './lib/options.js';
import { translatingClient } from './lib/seed-client.js';
import { timed } from './lib/timing.js';
import { makeTree, withTempDir, writeDocsManifest } from './lib/tree.js';
import type { BenchResult } from './types.js';

const FILES = benchSize(30_000, 3_000, 'LOCSYNC_BENCH_FIRST_FILES');
const TARGET = 200;

export async function run(): Promise<BenchResult[]> {
  return withTempDir('first-sync', async (dir) => {
    process.stderr.write(`first-sync: generating ${FILES} files\n`);
    await makeTree(path.join(dir, 'src'), FILES);
    const manifestPath = writeDocsManifest(dir, { key_env: 'LOCSYNC_BENCH_FIRST_KEY' });
    const loaded = await loadManifest(manifestPath);
    const state = openState(loaded.statePath);
    try {
      process.stderr.write('first-sync: translating every file (a service that answers at once)\n');
      const { value, ms } = await timed(() =>
        runSync({
          loaded,
          connection: { client: translatingClient() },
          state,
          logger: silentLogger(),
          // As the seeding of the other benchmarks: no poll waits, the service's limits out of the way.
          options: { poll: { initialMs: 0, minMs: 0 }, concurrency: 64, maxUndownloaded: 1000 },
        }),
      );
      if (value.translated !== FILES) throw new Error(`translated ${value.translated} of ${FILES}`);
      const perSecond = FILES / (ms / 1000);
      return [
        {
          name: `first-sync: outputs per second, first sync of ${FILES} small files into one language`,
          value: Math.round(perSecond),
          unit: 'outputs/s',
          bound: `>= ${TARGET}`,
          meets: perSecond >= TARGET,
          note: `${Math.round(ms / 1000)} s in all`,
        },
      ];
    } finally {
      state.close();
    }
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await run()) console.log(`${r.name}: ${r.value} ${r.unit}${r.note ? `  (${r.note})` : ''}`);
}
