// Benchmark (design.md target): `locsync watch` on 100,000 files (--quick: 10,000) idles under 1% of
// one core with native events. Prints its idle CPU and RSS, the inotify watches it holds, how long
// the start took (watchers up + initial no-op scan), and the delay from a file's last write to its
// upload with the default stability window (2 s).
//
// The tree is seeded first (an in-process stand-in translates every file by copying it), so that
// the watcher's initial scan is a no-op, as on a drive it has watched before. Then `locsync watch`
// runs as a child process against the local service started here.
//
//   npx tsx bench/watch-idle.ts     (LOCSYNC_BENCH_WATCH_FILES overrides the size,
//                                    LOCSYNC_BENCH_WATCH_IDLE_S the idle window, default 20 s)
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stringify } from 'yaml';
import { silentLogger } from '../src/log/logger.js';
import { loadManifest } from '../src/manifest/load.js';
import { startService } from '../src/service/index.js';
import { openState } from '../src/state/store.js';
import { runSync } from '../src/sync/engine.js';
import type { DocumentClient } from '../src/sync/session.js';
import { benchSize } from './lib/options.js';
import { rssOf } from './lib/rss.js';
import { cpuMsOf } from './lib/timing.js';
import { makeTree, withTempDir } from './lib/tree.js';
import type { BenchResult } from './types.js';

const FILES = benchSize(100_000, 10_000, 'LOCSYNC_BENCH_WATCH_FILES');
const IDLE_S = benchSize(20, 10, 'LOCSYNC_BENCH_WATCH_IDLE_S');
const DELAY_SAMPLES = 5;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const KEY = 'bench-watch-key';
const MB = 1024 * 1024;

/** Seeds state.db and outputs: each "translation" is the source file itself, done at once. */
async function seed(manifestPath: string): Promise<void> {
  const sources = new Map<string, string>();
  const client: DocumentClient = {
    uploadDocument: async (file) => {
      const id = String(sources.size + 1);
      sources.set(id, file);
      return { document_id: id, document_key: `seed-${id}` };
    },
    getDocumentStatus: async (id) => ({ document_id: id, status: 'done', billed_characters: 0 }),
    downloadDocument: async (id, _key, dest) => {
      await fsp.copyFile(sources.get(id)!, dest);
      return { bytes: 0 };
    },
  };
  const loaded = await loadManifest(manifestPath);
  const state = openState(loaded.statePath);
  try {
    const s = await runSync({
      loaded,
      connection: { client },
      state,
      logger: silentLogger(),
      options: { poll: { initialMs: 0, minMs: 0 }, concurrency: 64, maxUndownloaded: 1000 },
    });
    if (s.translated !== FILES) throw new Error(`seeding translated ${s.translated} of ${FILES}`);
  } finally {
    state.close();
  }
}

/** inotify watches held by `pid` (Linux: the "inotify wd:" lines of its inotify descriptors). */
function inotifyWatches(pid: number): number | undefined {
  try {
    let n = 0;
    for (const fd of fs.readdirSync(`/proc/${pid}/fdinfo`)) {
      const info = fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8');
      n += info.split('\n').filter((l) => l.startsWith('inotify wd:')).length;
    }
    return n;
  } catch {
    return undefined;
  }
}

function maxUserWatches(): number | undefined {
  try {
    return Number(fs.readFileSync('/proc/sys/fs/inotify/max_user_watches', 'utf8').trim());
  } catch {
    return undefined;
  }
}

async function waitFor(what: string, cond: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

export async function run(): Promise<BenchResult[]> {
  return withTempDir('watch-idle', async (dir) => {
    process.stderr.write(`watch-idle: generating ${FILES} files\n`);
    await makeTree(path.join(dir, 'src'), FILES);
    const service = await startService({ authKey: KEY, queueSeconds: 0, translateSeconds: 0.05 });
    let child: ChildProcess | undefined;
    try {
      const manifestPath = path.join(dir, 'pipeline.yaml');
      fs.writeFileSync(
        manifestPath,
        stringify({
          version: 1,
          service: { url: service.url, key_env: 'LOCSYNC_BENCH_WATCH_KEY' },
          mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
        }),
      );
      process.stderr.write('watch-idle: seeding the state (first sync)\n');
      await seed(manifestPath);

      process.stderr.write('watch-idle: starting locsync watch\n');
      const started = performance.now();
      const c = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'watch', '-c', manifestPath],
        {
          env: { ...process.env, LOCSYNC_BENCH_WATCH_KEY: KEY, LOCSYNC_POLL_INITIAL_MS: '100' },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      child = c;
      let log = '';
      c.stderr!.setEncoding('utf8').on('data', (d: string) => (log += d));
      await waitFor(
        'the watcher to start',
        () => log.includes('watching for changes') || c.exitCode !== null,
        600_000,
      );
      if (c.exitCode !== null) throw new Error(`watch exited ${c.exitCode}: ${log.slice(-2000)}`);
      const startMs = performance.now() - started;
      const pid = c.pid!;
      const errors = log.split('\n').filter((l) => /max_user_watches|ENOSPC/.test(l));

      await sleep(3000); // let the start settle (garbage collection, timers)
      const cpu0 = cpuMsOf(pid)!;
      const t0 = performance.now();
      await sleep(IDLE_S * 1000);
      const idlePct = ((cpuMsOf(pid)! - cpu0) / (performance.now() - t0)) * 100;
      const rss = rssOf(pid) ?? 0;
      const watches = inotifyWatches(pid);

      // Delay from a file's last write to its upload (default stability: 2 s).
      const delays: number[] = [];
      for (let i = 0; i < DELAY_SAMPLES; i++) {
        const name = `late-${i}.txt`;
        const file = path.join(dir, 'src', 'd0', 'd0', name);
        fs.writeFileSync(file, `A document that arrives while watching, number ${i}.\n`);
        const wrote = Date.now();
        let upload: { time: string } | undefined;
        await waitFor(
          `the upload of ${name}`,
          () => !!(upload = service.requests().find((r) => r.upload?.filename === name && r.status < 300)),
          60_000,
        );
        delays.push(Date.parse(upload!.time) - wrote);
        await sleep(500);
      }
      delays.sort((a, b) => a - b);

      c.kill('SIGTERM');
      await new Promise((resolve) => c.once('close', resolve));
      child = undefined;

      const limit = maxUserWatches();
      const results: BenchResult[] = [
        {
          name: `watch idle CPU, ${FILES} files, native events (${IDLE_S} s)`,
          value: Number(idlePct.toFixed(3)),
          unit: '% of one core',
          bound: '< 1%',
          ratio: Number((idlePct / 1).toFixed(3)),
        },
        { name: `watch RSS when idle, ${FILES} files`, value: Math.round(rss / MB), unit: 'MB' },
        {
          name: `watch start (watchers up, no-op scan), ${FILES} files`,
          value: Math.round(startMs),
          unit: 'ms',
        },
        {
          name: 'inotify watches held',
          value: watches ?? -1,
          unit: 'watches',
          ...(limit !== undefined ? { bound: `fs.inotify.max_user_watches = ${limit}` } : {}),
          ...(limit && watches !== undefined ? { ratio: Number((watches / limit).toFixed(3)) } : {}),
          ...(errors.length ? { note: `watcher reported: ${errors[0]!.slice(0, 200)}` } : {}),
        },
        {
          name: 'delay from last write to upload (median, stability 2 s)',
          value: delays[Math.floor(delays.length / 2)]!,
          unit: 'ms',
        },
        { name: 'delay from last write to upload (max)', value: delays[delays.length - 1]!, unit: 'ms' },
      ];
      return results;
    } finally {
      child?.kill('SIGKILL');
      await service.close();
    }
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await run())
    console.log(
      `${r.name}: ${r.value} ${r.unit}${r.bound ? ` (target ${r.bound}${r.ratio !== undefined ? `, ratio ${r.ratio}` : ''})` : ''}${r.note ? ` — ${r.note}` : ''}`,
    );
}
