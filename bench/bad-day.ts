// Benchmark (design.md target): a bad day of the service — seconds_remaining of 2^27 in half the
// status answers, 10% 5xx, 5% 429 with Retry-After, occasional dropped connections. `sync` delivers
// N documents at concurrency C; so does a pool of C workers calling the official client's
// (deepl-node) translateDocument against an identical local service. locsync's time must be at most
// 0.8x the official client's.
//
// Each side gets its own local service (same settings and faults) on 127.0.0.1, real HTTP. A document
// whose requests failed all their retries is tried again (sync: the next run resumes it; the pool:
// the worker calls translateDocument again), until every document is delivered.
//
//   npx tsx bench/bad-day.ts    (LOCSYNC_BENCH_BADDAY_DOCS overrides the document count)
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as deepl from 'deepl-node';
import { AUTH_SCHEME } from '../src/api/types.js';
import { silentLogger } from '../src/log/logger.js';
import { startService } from '../src/service/index.js';
import type { FaultSpec, RunningService } from '../src/service/types.js';
import { openState } from '../src/state/store.js';
import { runSync } from '../src/sync/engine.js';
import { benchSize } from './lib/options.js';
import { timed } from './lib/timing.js';
import { benchClient, docsProject } from './lib/docs-project.js';
import { makeTree, withTempDir } from './lib/tree.js';
import type { BenchResult } from './types.js';

const KEY = 'bench-bad-day-key-0123';
const C = 4;
/** Seconds the service takes per document. */
const TRANSLATE_SECONDS = 3;

const BAD_DAY: FaultSpec[] = [
  { match: { path: '/v2/document/' }, absurdSecondsRemaining: true, probability: 0.5 },
  { status: 503, count: 1e9, probability: 0.05 },
  { status: 500, count: 1e9, probability: 0.05 },
  { status: 429, retryAfter: 1, count: 1e9, probability: 0.05 },
  { drop: 1e9, probability: 0.02 },
];

function badDayService(): Promise<RunningService> {
  return startService({
    authKey: KEY,
    queueSeconds: 0,
    translateSeconds: TRANSLATE_SECONDS,
    workers: C,
    maxUndownloaded: 1000,
    faults: BAD_DAY,
  });
}

interface Side {
  ms: number;
  /** Uploads the service accepted (more than the documents: some were paid twice). */
  accepted: number;
  /** Runs (sync) or translateDocument calls beyond one per document (pool). */
  repeats: number;
}

function acceptedUploads(service: RunningService): number {
  return service.requests().filter((r) => r.method === 'POST' && r.path === '/v2/document' && r.status < 300)
    .length;
}

async function locsyncSide(docs: number): Promise<Side> {
  return withTempDir('bad-day-locsync', async (dir) => {
    const service = await badDayService();
    try {
      const loaded = await docsProject(dir, docs, service.url, C);
      let runs = 0;
      const { ms } = await timed(async () => {
        for (;;) {
          runs++;
          const state = openState(loaded.statePath);
          const client = benchClient(service.url, KEY, C);
          try {
            const summary = await runSync({ loaded, connection: { client }, state, logger: silentLogger() });
            if (summary.failed.length === 0) return;
          } finally {
            client.close();
            state.close();
          }
          if (runs > 20) throw new Error('sync did not deliver every document in 20 runs');
        }
      });
      const delivered = fs.readdirSync(path.join(dir, 'out', 'de'), { recursive: true }).length;
      if (delivered < docs) throw new Error(`sync delivered ${delivered} of ${docs}`);
      return { ms, accepted: acceptedUploads(service), repeats: runs - 1 };
    } finally {
      await service.close();
    }
  });
}

async function officialSide(docs: number): Promise<Side> {
  return withTempDir('bad-day-official', async (dir) => {
    const service = await badDayService();
    try {
      const rels = await makeTree(path.join(dir, 'src'), docs);
      const translator = new deepl.Translator(KEY, {
        serverUrl: service.url,
        // The local service speaks the spec's scheme word; everything else is the client's own.
        headers: { Authorization: `${AUTH_SCHEME} ${KEY}` },
        sendPlatformInfo: false,
      });
      const queue = [...rels];
      let calls = 0;
      const worker = async () => {
        for (let rel = queue.shift(); rel !== undefined; rel = queue.shift()) {
          const input = path.join(dir, 'src', rel);
          const output = path.join(dir, 'out', 'de', rel);
          fs.mkdirSync(path.dirname(output), { recursive: true });
          for (let attempt = 1; ; attempt++) {
            calls++;
            // deepl-node opens the output exclusively and may leave it behind when a download
            // breaks off: a retry as its users write it removes it first.
            fs.rmSync(output, { force: true });
            try {
              await translator.translateDocument(input, output, null, 'de');
              break;
            } catch (err) {
              if (attempt >= 20) throw err;
            }
          }
        }
      };
      const { ms } = await timed(() => Promise.all(Array.from({ length: C }, worker)));
      return { ms, accepted: acceptedUploads(service), repeats: calls - docs };
    } finally {
      await service.close();
    }
  });
}

export async function run(): Promise<BenchResult[]> {
  const docs = benchSize(24, 12, 'LOCSYNC_BENCH_BADDAY_DOCS');
  process.stderr.write(`bad-day: ${docs} documents, C = ${C}, ${TRANSLATE_SECONDS} s per document\n`);
  const official = await officialSide(docs);
  process.stderr.write(`bad-day: official client ${(official.ms / 1000).toFixed(1)} s\n`);
  const mine = await locsyncSide(docs);
  process.stderr.write(`bad-day: locsync ${(mine.ms / 1000).toFixed(1)} s\n`);
  const ratio = mine.ms / official.ms;
  return [
    {
      name: `bad-day: locsync sync, ${docs} documents, C = ${C} (${mine.repeats} extra run(s), ${mine.accepted} uploads accepted)`,
      value: Math.round(mine.ms / 100) / 10,
      unit: 's',
      bound: `<= 0.8x the official client (${(official.ms / 1000).toFixed(1)} s, ${official.repeats} repeated call(s), ${official.accepted} uploads accepted)`,
      ratio: Math.round((ratio / 0.8) * 100) / 100,
      meets: ratio <= 0.8,
      note: `time ratio ${ratio.toFixed(2)}x; ${(docs / (mine.ms / 1000)).toFixed(2)} vs ${(docs / (official.ms / 1000)).toFixed(2)} docs/s`,
    },
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await run()) console.log(`${r.name}: ${r.value} ${r.unit}  [bound: ${r.bound}; ${r.note}]`);
}
