// Benchmark (design.md targets): `locsync watch` on 100,000 files in 1,000 folders (--quick: 10,000).
// Native events: watches held (<= folders + a few), idle CPU (< 0.5% of a core) and RSS (< 250 MB),
// the start (watchers up + initial no-op scan, <= 2x a no-op `locsync sync` of the same tree) and the
// delay from a file's last write to its upload (<= stability + 1.5 s, stability 2 s). Poll mode
// (watch.poll, interval 30 s): idle CPU (< 5% of a core, over several rounds) and RSS (< 250 MB).
//
// The tree is seeded first (an in-process stand-in translates every file with the local engine's pseudo-translation), so that
// the watcher's initial scan is a no-op, as on a drive it has watched before. Then `locsync sync`
// and `locsync watch` run as child processes against the local service started here.
//
//   npx tsx bench/watch-idle.ts     (LOCSYNC_BENCH_WATCH_FILES overrides the size,
//                                    LOCSYNC_BENCH_WATCH_IDLE_S the native idle window, default 20 s,
//                                    LOCSYNC_BENCH_WATCH_POLL_IDLE_S the poll one, default 95 s,
//                                    LOCSYNC_BENCH_WATCH_CPU_PROF=<dir> writes a CPU profile of each
//                                    watch process there: its figures are then not the ones to quote)
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startService } from '../src/local-service/index.js';
import { benchSize } from './lib/options.js';
import { rssOf } from './lib/rss.js';
import { seedState } from './lib/seed-client.js';
import { cpuMsOf } from './lib/timing.js';
import { makeTree, withTempDir, writeDocsManifest } from './lib/tree.js';
import type { BenchResult } from './types.js';

const FILES = benchSize(100_000, 10_000, 'LOCSYNC_BENCH_WATCH_FILES');
const IDLE_S = benchSize(20, 10, 'LOCSYNC_BENCH_WATCH_IDLE_S');
const POLL_IDLE_S = benchSize(95, 35, 'LOCSYNC_BENCH_WATCH_POLL_IDLE_S');
const POLL_INTERVAL_S = 30;
const STABILITY_S = 2;
const DELAY_SAMPLES = 5;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const KEY = 'bench-watch-key';
const MB = 1024 * 1024;

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

/** Folders below (and including) `dir`. */
function countFolders(dir: string): number {
  let n = 1;
  for (const e of fs.readdirSync(dir, { withFileTypes: true }))
    if (e.isDirectory()) n += countFolders(path.join(dir, e.name));
  return n;
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
    const folders = countFolders(path.join(dir, 'src'));
    const service = await startService({ authKey: KEY, queueSeconds: 0, translateSeconds: 0.05 });
    const children = new Set<ChildProcess>();
    const env = { ...process.env, LOCSYNC_BENCH_WATCH_KEY: KEY, LOCSYNC_POLL_INITIAL_MS: '100' };
    const profDir = process.env.LOCSYNC_BENCH_WATCH_CPU_PROF;
    const cli = (args: string[]) => {
      const prof = profDir && args[0] === 'watch' ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [];
      const c = spawn(
        process.execPath,
        [...prof, '--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), ...args],
        {
          env,
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      children.add(c);
      c.once('close', () => children.delete(c));
      let log = '';
      c.stderr!.setEncoding('utf8').on('data', (d: string) => (log = (log + d).slice(-20_000)));
      return { c, log: () => log };
    };
    const writeManifest = (watch: Record<string, unknown>) =>
      writeDocsManifest(
        dir,
        { url: service.url, key_env: 'LOCSYNC_BENCH_WATCH_KEY' },
        { watch: { stability: STABILITY_S, ...watch } },
      );
    /** Starts `locsync watch`; resolves once it is watching, with the start time. */
    const startWatch = async (manifestPath: string) => {
      const started = performance.now();
      const w = cli(['watch', '-c', manifestPath]);
      await waitFor(
        'the watcher to start',
        () => w.log().includes('watching for changes') || w.c.exitCode !== null,
        600_000,
      );
      if (w.c.exitCode !== null) throw new Error(`watch exited ${w.c.exitCode}: ${w.log().slice(-2000)}`);
      return { ...w, startMs: performance.now() - started };
    };
    const stop = async (c: ChildProcess) => {
      c.kill('SIGTERM');
      if (c.exitCode === null) await new Promise((resolve) => c.once('close', resolve));
    };
    /** CPU share of one core and RSS of `pid` over `seconds`, after a few seconds to settle. */
    const idle = async (pid: number, seconds: number) => {
      await sleep(3000);
      const cpu0 = cpuMsOf(pid)!;
      const t0 = performance.now();
      await sleep(seconds * 1000);
      const pct = ((cpuMsOf(pid)! - cpu0) / (performance.now() - t0)) * 100;
      return { pct, rss: rssOf(pid) ?? 0 };
    };
    try {
      const manifestPath = writeManifest({});
      process.stderr.write('watch-idle: seeding the state (first sync)\n');
      await seedState(manifestPath, FILES);

      process.stderr.write('watch-idle: a no-op locsync sync of the same tree (reference for the start)\n');
      const t = performance.now();
      const sync = cli(['sync', '-c', manifestPath]);
      const code = await new Promise<number | null>((resolve) => sync.c.once('close', resolve));
      if (code !== 0) throw new Error(`sync exited ${code}: ${sync.log().slice(-2000)}`);
      const syncMs = performance.now() - t;

      process.stderr.write('watch-idle: starting locsync watch (native events)\n');
      const native = await startWatch(manifestPath);
      const pid = native.c.pid!;
      const errors = native
        .log()
        .split('\n')
        .filter((l) => /max_user_watches|ENOSPC/.test(l));
      const nativeIdle = await idle(pid, IDLE_S);
      const watches = inotifyWatches(pid);

      // Delay from a file's last write to its upload.
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
      await stop(native.c);

      process.stderr.write(`watch-idle: starting locsync watch (poll, every ${POLL_INTERVAL_S} s)\n`);
      const polled = await startWatch(writeManifest({ poll: true, interval: POLL_INTERVAL_S }));
      const pollIdle = await idle(polled.c.pid!, POLL_IDLE_S);
      await stop(polled.c);

      const delayBound = STABILITY_S * 1000 + 1500;
      const median = delays[Math.floor(delays.length / 2)]!;
      /** A figure held to an upper bound `limit` (ratio <= 1 meets it). */
      const atMost = (
        name: string,
        value: number,
        unit: string,
        bound: string,
        limit: number,
      ): BenchResult => ({
        name,
        value,
        unit,
        bound,
        ratio: Number((value / limit).toFixed(3)),
      });
      const mb = (bytes: number) => Math.round(bytes / MB);
      const pct = (p: number) => Number(p.toFixed(3));
      const maxDelay = delays[delays.length - 1]!;
      const results: BenchResult[] = [
        atMost(
          `watch idle CPU, ${FILES} files, native events (${IDLE_S} s)`,
          pct(nativeIdle.pct),
          '% of one core',
          '< 0.5%',
          0.5,
        ),
        atMost(
          `watch RSS when idle, ${FILES} files, native events`,
          mb(nativeIdle.rss),
          'MB',
          '< 250 MB',
          250,
        ),
        {
          ...atMost(
            `inotify watches held, ${folders} folders`,
            watches ?? -1,
            'watches',
            `<= folders + a few (${folders} + 10)`,
            folders + 10,
          ),
          ...(errors.length ? { note: `watcher reported: ${errors[0]!.slice(0, 200)}` } : {}),
        },
        atMost(
          `watch start (watchers up, no-op scan), ${FILES} files`,
          Math.round(native.startMs),
          'ms',
          `<= 2x no-op sync (${Math.round(syncMs)} ms)`,
          2 * syncMs,
        ),
        atMost(
          `delay from last write to upload (median of ${DELAY_SAMPLES}, stability ${STABILITY_S} s)`,
          median,
          'ms',
          `<= stability + 1.5 s (${delayBound} ms)`,
          delayBound,
        ),
        atMost('delay from last write to upload (max)', maxDelay, 'ms', `<= ${delayBound} ms`, delayBound),
        atMost(
          `watch idle CPU, ${FILES} files, poll every ${POLL_INTERVAL_S} s (${POLL_IDLE_S} s)`,
          pct(pollIdle.pct),
          '% of one core',
          '< 5%',
          5,
        ),
        atMost(`watch RSS when idle, ${FILES} files, poll mode`, mb(pollIdle.rss), 'MB', '< 250 MB', 250),
      ];
      return results;
    } finally {
      for (const c of children) c.kill('SIGKILL');
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
