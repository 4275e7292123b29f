// Benchmark (design.md target): documents per second of `sync` against the local service when every
// job takes a fixed latency L and C documents are in flight: at least 95% of the bound C/L. Also the
// status polls per document: at most 4 on average for jobs of 2-10 s.
//
// The local service runs in this process on 127.0.0.1 (real HTTP) with queueSeconds 0,
// translateSeconds L and C workers; the sync runs with the default poll timing.
//
//   npx tsx bench/sync-throughput.ts    (LOCSYNC_BENCH_THROUGHPUT_DOCS overrides the document count)
import { pathToFileURL } from 'node:url';
import { silentLogger } from '../src/log/logger.js';
import { startService } from '../src/local-service/index.js';
import { openState } from '../src/state/store.js';
import { runSync } from '../src/sync/engine.js';
import { benchSize, isQuick } from './lib/options.js';
import { timed } from './lib/timing.js';
import { benchClient, docsProject } from './lib/docs-project.js';
import { withTempDir } from './lib/tree.js';
import type { BenchResult } from './types.js';

const KEY = 'bench-throughput-key-0123';
const C = 8;

interface Measure {
  docsPerSecond: number;
  bound: number;
  pollsPerDoc: number;
  docs: number;
}

async function measure(latencySeconds: number, docs: number): Promise<Measure> {
  return withTempDir(`sync-throughput-${latencySeconds}`, async (dir) => {
    const service = await startService({
      authKey: KEY,
      queueSeconds: 0,
      translateSeconds: latencySeconds,
      workers: C,
      maxUndownloaded: 1000,
    });
    try {
      const loaded = await docsProject(dir, docs, service.url, C);
      const state = openState(loaded.statePath);
      const client = benchClient(service.url, KEY, C);
      const { value: summary, ms } = await timed(() =>
        runSync({ loaded, connection: { client }, state, logger: silentLogger() }),
      );
      state.close();
      if (summary.translated !== docs) throw new Error(`translated ${summary.translated} of ${docs}`);
      const polls = service
        .requests()
        .filter((r) => r.method === 'POST' && /^\/v2\/document\/[^/]+$/.test(r.path)).length;
      return {
        docsPerSecond: docs / (ms / 1000),
        bound: C / latencySeconds,
        pollsPerDoc: polls / docs,
        docs,
      };
    } finally {
      await service.close();
    }
  });
}

export async function run(): Promise<BenchResult[]> {
  const docs = benchSize(C * 6, C * 2, 'LOCSYNC_BENCH_THROUGHPUT_DOCS');
  const latencies = isQuick() ? [2] : [2, 5];
  const results: BenchResult[] = [];
  for (const L of latencies) {
    process.stderr.write(`sync-throughput: ${docs} documents, L = ${L} s, C = ${C}\n`);
    const m = await measure(L, docs);
    const ratio = m.docsPerSecond / m.bound;
    results.push({
      name: `sync-throughput: documents/s, L = ${L} s, C = ${C} (${m.docs} documents)`,
      value: Math.round(m.docsPerSecond * 100) / 100,
      unit: 'docs/s',
      bound: `>= 95% of C/L = ${m.bound.toFixed(2)}`,
      ratio: Math.round(ratio * 100) / 100,
      meets: ratio >= 0.95,
    });
    results.push({
      name: `sync-throughput: status polls per document, L = ${L} s`,
      value: Math.round(m.pollsPerDoc * 100) / 100,
      unit: 'polls',
      bound: '<= 4',
      ratio: Math.round((m.pollsPerDoc / 4) * 100) / 100,
    });
  }
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await run())
    console.log(`${r.name}: ${r.value} ${r.unit}${r.bound ? `  [bound: ${r.bound}; ratio ${r.ratio}]` : ''}`);
}
