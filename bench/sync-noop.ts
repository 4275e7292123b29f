// Benchmark (design.md target): a no-op `locsync sync` over 100,000 unchanged files (--quick:
// 10,000) within 1.15x of the floor measured in the same run (Node.js start + loading the bundled
// sync command + a bare lstat walk of the tree) and at most 1.3x `rsync -a --dry-run` over the same
// tree (./lib/noop-bounds.ts), in under 200 MB RSS, and a sync after one file changed at most 1.2x
// the no-op.
//
// The tree is generated in a temp folder; a first sync seeds the state in this process (every file
// translated by an in-process stand-in of the service, the local engine's pseudo-translation, so no
// 100,000 uploads are needed). Then the real command, `node bin/locsync.js sync` (dist/, rebuilt first when a source
// is newer), is timed from its start to its exit, as rsync is (process start-up, module loading,
// manifest, state, listing, run record, summary: all of it), its RSS sampled from outside:
//  - the first no-op after that run: every file checked against its jobs, verified marks and the
//    mapping snapshot recorded (reported, not held to the bound);
//  - the steady no-op, median of 3: the listing matches the snapshot, only outputs are checked;
//  - a run after one file changed, translated by a local service on 127.0.0.1 (held to 1.2x the no-op);
//  - `locsync status` over the same state (reported: it looks at every output for edits by people).
// rsync compares the same source tree with an identical mirror of it. `--seed` and `--child` (the
// no-op timed inside one process) serve bench/plan-price.ts.
//
//   npx tsx bench/sync-noop.ts          (LOCSYNC_BENCH_NOOP_FILES overrides the size)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startService } from '../src/local-service/index.js';
import { BIN, ensureBuilt } from './lib/built-cli.js';
import { bareWalkMs, loadSyncCommandMs, nodeStartMs } from './lib/node-floor.js';
import { noopBounds, ratioOf } from './lib/noop-bounds.js';
import { benchSize } from './lib/options.js';
import { sampleRss } from './lib/rss.js';
import { median, medianMs, timed } from './lib/timing.js';
import { commandExists } from './lib/tools.js';
import { syncThroughStandIn } from './lib/seed-client.js';
import { makeTree, withTempDir, writeDocsManifest } from './lib/tree.js';
import type { BenchResult } from './types.js';

const FILES = benchSize(100_000, 10_000, 'LOCSYNC_BENCH_NOOP_FILES');
const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const MB = 1024 * 1024;
const KEY_ENV = 'LOCSYNC_BENCH_NOOP_KEY';
const KEY = 'bench-noop-key-0001';
/** Targets (design.md): RSS under 200 MB, one change at most 1.2x (the no-op's: ./lib/noop-bounds.ts). */
const RSS_MB = 200;
const ONE_CHANGE_RATIO = 1.2;

interface CliRun {
  ms: number;
  peakRss: number;
  unchanged: number;
  hashed: number;
  translated: number;
}

/** `locsync sync --json` in a fresh process: its wall time from spawn to exit, its peak RSS. */
function runCli(manifestPath: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const c = spawn(process.execPath, [BIN, 'sync', '-c', manifestPath, '--json', '--no-progress'], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        [KEY_ENV]: KEY,
        LOCSYNC_POLL_INITIAL_MS: '20',
        LOCSYNC_POLL_MIN_MS: '10',
        LOCSYNC_POLL_MAX_MS: '50',
      },
    });
    const rss = sampleRss(c.pid!, 10);
    let out = '';
    c.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    c.on('error', reject);
    c.on('close', (code) => {
      const ms = performance.now() - started;
      const peakRss = rss.stop();
      if (code !== 0) return reject(new Error(`locsync sync exited ${code}: ${out.slice(0, 500)}`));
      const s = JSON.parse(out) as { unchanged: number; hashed: number; translated: number };
      resolve({ ms, peakRss, unchanged: s.unchanged, hashed: s.hashed, translated: s.translated });
    });
  });
}

/** `locsync status` in a fresh process, its wall time from spawn to exit. */
function timedStatus(manifestPath: string): number {
  const started = performance.now();
  const r = spawnSync(process.execPath, [BIN, 'status', '-c', manifestPath], {
    encoding: 'utf8',
    env: { ...process.env, [KEY_ENV]: KEY },
  });
  if (r.status !== 0) throw new Error(`locsync status exited ${r.status}: ${r.stderr.slice(0, 500)}`);
  return performance.now() - started;
}

export async function run(): Promise<BenchResult[]> {
  return withTempDir('sync-noop', async (dir) => {
    process.stderr.write(`sync-noop: generating ${FILES} files\n`);
    ensureBuilt('sync-noop');
    await makeTree(path.join(dir, 'src'), FILES);
    // The one changed file is translated by a local service (the no-ops never call it).
    const service = await startService({ authKey: KEY, queueSeconds: 0, translateSeconds: 0 });
    try {
      return await measure(dir, service.url);
    } finally {
      await service.close();
    }
  });
}

async function measure(dir: string, url: string): Promise<BenchResult[]> {
  {
    const manifestPath = writeDocsManifest(dir, { url, key_env: KEY_ENV });
    process.stderr.write('sync-noop: seeding the state (first sync)\n');
    const seed = await syncThroughStandIn(manifestPath);
    if (seed.translated !== FILES) throw new Error(`seeding translated ${seed.translated} of ${FILES}`);

    const noop = (r: CliRun) => {
      if (r.unchanged !== FILES || r.hashed !== 0 || r.translated !== 0)
        throw new Error(`not a no-op: ${JSON.stringify(r)}`);
      return r;
    };
    const verifying = noop(await runCli(manifestPath));
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(noop(await runCli(manifestPath)));
    const ms = median(runs.map((r) => r.ms));
    const peak = Math.max(...runs.map((r) => r.peakRss));
    const statusMs = median([0, 1, 2].map(() => timedStatus(manifestPath)));
    // One file edited (new content, new size): translated; every other file by its verified mark.
    fs.appendFileSync(path.join(dir, 'src', 'd0', 'd0', 'f0.txt'), 'Edited.\n');
    const oneChanged = await runCli(manifestPath);
    if (oneChanged.translated !== 1 || oneChanged.unchanged !== FILES - 1 || oneChanged.hashed !== 1)
      throw new Error(`one changed file: ${JSON.stringify(oneChanged)}`);

    const results: BenchResult[] = [];
    const rsyncOk = commandExists('rsync');
    let rsyncMs: number | undefined;
    if (rsyncOk) {
      spawnSync('rsync', ['-a', `${dir}/src/`, `${dir}/mirror/`]);
      rsyncMs = await medianMs(
        async () => {
          const r = spawnSync('rsync', ['-a', '--dry-run', `${dir}/src/`, `${dir}/mirror/`]);
          if (r.status !== 0) throw new Error(`rsync failed: ${r.stderr}`);
        },
        3,
        1,
      );
    }
    // The floor under the no-op on this machine, measured in the same run (docs/benchmarks.md), and
    // also shown in its parts beside rsync.
    const floor = {
      start: nodeStartMs(),
      load: loadSyncCommandMs(ROOT),
      walk: bareWalkMs(path.join(dir, 'src')),
    };
    results.push(...noopBounds(FILES, ms, floor, rsyncMs));
    if (rsyncMs !== undefined)
      results.push({
        name: `sync-noop: rsync -a --dry-run over the same ${FILES} files`,
        value: Math.round(rsyncMs),
        unit: 'ms',
      });
    results.push(
      {
        name: 'sync-noop: floor: Node.js start and loading the sync command, nothing else',
        value: Math.round(floor.load),
        unit: 'ms',
        note: rsyncMs !== undefined ? `${ratioOf(floor.load, rsyncMs)}x rsync` : 'reported',
      },
      {
        name: `sync-noop: floor: a bare Node.js walk of the ${FILES} files (readdir, lstat; nothing else)`,
        value: Math.round(floor.walk),
        unit: 'ms',
        note: rsyncMs !== undefined ? `${ratioOf(floor.walk, rsyncMs)}x rsync` : 'reported',
      },
    );
    results.push({
      name: `sync-noop: \`locsync status\` over the same ${FILES} files (every output looked at for edits)`,
      value: Math.round(statusMs),
      unit: 'ms',
      note: 'reported',
    });
    results.push({
      name: `sync-noop: first no-op after a run with work (records the fast-path marks)`,
      value: Math.round(verifying.ms),
      unit: 'ms',
      note: 'reported, not held to the bound',
    });
    results.push({
      name: `sync-noop: sync after 1 of ${FILES} files changed (1 translated by a local service)`,
      value: Math.round(oneChanged.ms),
      unit: 'ms',
      bound: `<= ${ONE_CHANGE_RATIO}x the no-op (${Math.round(ms)} ms)`,
      ratio: ratioOf(oneChanged.ms, ONE_CHANGE_RATIO * ms),
    });
    for (const [name, bytes] of [
      ['peak RSS of the no-op sync', peak],
      ['peak RSS of the first no-op after a run with work', verifying.peakRss],
    ] as const)
      results.push({
        name: `sync-noop: ${name}`,
        value: Math.round(bytes / MB),
        unit: 'MB',
        bound: `< ${RSS_MB} MB`,
        ratio: ratioOf(bytes / MB, RSS_MB),
      });
    return results;
  }
}

/**
 * The no-op timed in this process (manifest load, state open, scan, run record; no process start):
 * prints {ms, peakRss, startRss, unchanged, hashed}. bench/plan-price.ts compares its plan with it.
 */
async function child(manifestPath: string): Promise<void> {
  const startRss = process.memoryUsage.rss();
  const rss = sampleRss(process.pid, 20);
  const { value, ms } = await timed(() => syncThroughStandIn(manifestPath));
  const peak = rss.stop();
  process.stdout.write(JSON.stringify({ ms, peakRss: peak, startRss, ...value }) + '\n');
}

if (process.argv[2] === '--seed' && process.argv[3]) {
  console.log(await syncThroughStandIn(process.argv[3]));
} else if (process.argv[2] === '--child' && process.argv[3]) {
  await child(process.argv[3]);
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await run())
    console.log(
      `${r.name}: ${r.value} ${r.unit}${r.bound ? `  [bound: ${r.bound}; ratio ${r.ratio}]` : ''}${r.note ? `  (${r.note})` : ''}`,
    );
}
