// Benchmark (issue 51): `locsync watch` (the built command, bin/locsync.js) kept running for 20
// minutes on 10,000 files (--quick: 2 minutes on 1,000) against the local service, while files are
// added, changed, renamed and removed at about one a second (a bounded loop: one change a second
// for the duration, then it waits for the watcher to deliver the last ones).
//
// Measured: every change delivered exactly once (each added or changed file uploaded once and its
// output on disk the translation of its last content; a renamed file's output moved without an
// upload; a removed file's output removed, on_source_delete: delete; no other upload), and, sampled
// over the run, the watch process's RSS, its open file handles (/proc/<pid>/fd) and its event loop
// lag (its own, from the lag probe LOCSYNC_WATCH_LAG_LOG, src/watch/event-loop-lag.ts). The first
// five minutes are compared with the last five (--quick: the first and last fifth): the last at
// most 10% above the first (a fall, e.g. the start's work over, passes; the ratio shows it).
//
// The tree is seeded first (an in-process stand-in translates every file, bench/lib/seed-client.ts)
// so that the watcher's start is a no-op, as on a drive it has watched before.
//
//   npx tsx bench/watch-soak.ts    (or npm run bench -- --only watch-soak;
//                                   LOCSYNC_BENCH_SOAK_MINUTES and LOCSYNC_BENCH_SOAK_FILES override
//                                   the duration and the size)
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { createEngine } from '../src/local-service/engine/index.js';
import { startService } from '../src/local-service/index.js';
import { BIN, ensureBuilt } from './lib/built-cli.js';
import { benchSize } from './lib/options.js';
import { rssOf } from './lib/rss.js';
import { seedState } from './lib/seed-client.js';
import { makeTree, withTempDir, writeDocsManifest } from './lib/tree.js';
import type { BenchResult } from './types.js';

const FILES = benchSize(10_000, 1_000, 'LOCSYNC_BENCH_SOAK_FILES');
const MINUTES = benchSize(20, 2, 'LOCSYNC_BENCH_SOAK_MINUTES');
/** The compared windows: five minutes, or a fifth of a shorter run. */
const WINDOW_S = Math.min(300, (MINUTES * 60) / 5);
/** How often RSS, handles and lag are sampled (and the lag probe logs). */
const SAMPLE_S = Math.max(1, Math.min(10, Math.floor(WINDOW_S / 6)));
const STABILITY_S = 1;
/** How long the watcher may take to deliver the last changes after the loop. */
const DRAIN_MS = 180_000;
const FLAT = 0.1;
const KEY = 'bench-soak-key';
const MB = 1024 * 1024;

type Op = 'add' | 'change' | 'rename' | 'remove';
const OPS: readonly Op[] = ['add', 'change', 'rename', 'remove'];

interface Sample {
  at: number;
  rss: number;
  fds: number;
}

interface Lag {
  at: number;
  p99: number;
  max: number;
}

/** Open file handles of `pid` (/proc/<pid>/fd), undefined when it has exited. */
function openHandles(pid: number): number | undefined {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return undefined;
  }
}

/** The changes made to the tree, and what each should have led to. */
class Changes {
  /** Source file (relative) → its content, for the files the loop touched and that still exist. */
  readonly live = new Map<string, string>();
  /** Files the loop made go away (removed, or renamed from): their outputs must be gone. */
  readonly gone = new Set<string>();
  /** File names that must have been uploaded exactly once (added or changed). */
  readonly uploaded = new Set<string>();
  readonly counts: Record<Op, number> = { add: 0, change: 0, rename: 0, remove: 0 };
  private next = 0;

  constructor(
    private readonly src: string,
    /** Seeded files, taken one by one: each change, rename and removal touches a file of its own. */
    private readonly untouched: string[],
  ) {}

  apply(i: number): void {
    const op = OPS[i % OPS.length]!;
    const seeded = this.untouched[this.next % this.untouched.length]!;
    const abs = (rel: string) => path.join(this.src, rel);
    if (op === 'add') {
      const rel = path.posix.join(path.posix.dirname(seeded), `new-${i}.txt`);
      const text = `A document added during the soak, number ${i}. It has words of its own.\n`;
      fs.writeFileSync(abs(rel), text);
      this.live.set(rel, text);
      this.uploaded.add(path.posix.basename(rel));
    } else {
      this.next++;
      if (op === 'change') {
        const text = `Document ${seeded} changed during the soak, change ${i}. New words here.\n`;
        fs.writeFileSync(abs(seeded), text);
        this.live.set(seeded, text);
        this.uploaded.add(path.posix.basename(seeded));
      } else if (op === 'rename') {
        const rel = path.posix.join(path.posix.dirname(seeded), `renamed-${i}.txt`);
        const text = fs.readFileSync(abs(seeded), 'utf8');
        fs.renameSync(abs(seeded), abs(rel));
        this.live.set(rel, text);
        this.gone.add(seeded);
      } else {
        fs.unlinkSync(abs(seeded));
        this.gone.add(seeded);
      }
    }
    this.counts[op]++;
  }
}

/** What is wrong with the delivery of `changes` (empty when every change arrived exactly once). */
async function deliveryProblems(
  dir: string,
  changes: Changes,
  uploads: Map<string, number>,
  expected: (rel: string, text: string) => Promise<Buffer>,
): Promise<string[]> {
  const problems: string[] = [];
  for (const [name, n] of uploads)
    if (n !== (changes.uploaded.has(name) ? 1 : 0)) problems.push(`${name} uploaded ${n} times`);
  for (const name of changes.uploaded) if (!uploads.has(name)) problems.push(`${name} not uploaded`);
  for (const [rel, text] of changes.live) {
    const out = path.join(dir, 'out', 'de', rel);
    if (!fs.existsSync(out)) problems.push(`no output for ${rel}`);
    else if (!fs.readFileSync(out).equals(await expected(rel, text)))
      problems.push(`the output of ${rel} is not the translation of its last content`);
  }
  for (const rel of changes.gone)
    if (fs.existsSync(path.join(dir, 'out', 'de', rel))) problems.push(`the output of ${rel} is still there`);
  return problems;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

/**
 * A figure of the last window held to at most FLAT above the first one's: what grows over a long
 * watch (a leak) fails it; one that falls (the start's own work over) does not.
 */
function flat(name: string, unit: string, first: number[], last: number[], digits: number): BenchResult {
  const a = mean(first);
  const b = mean(last);
  const r = b / a;
  const fmt = (v: number) => Number(v.toFixed(digits));
  return {
    name,
    value: fmt(b),
    unit,
    bound: `<= first window + ${FLAT * 100}% (${fmt(a)} ${unit})`,
    ratio: Number((r / (1 + FLAT)).toFixed(3)),
    meets: Number.isFinite(r) && r <= 1 + FLAT,
    note: `last/first ${Number.isFinite(r) ? r.toFixed(3) : 'n/a'} (${first.length} and ${last.length} samples)`,
  };
}

export async function run(): Promise<BenchResult[]> {
  ensureBuilt('watch-soak');
  return withTempDir('watch-soak', async (dir) => {
    const src = path.join(dir, 'src');
    process.stderr.write(`watch-soak: generating ${FILES} files\n`);
    const rels = await makeTree(src, FILES);
    const service = await startService({ authKey: KEY, queueSeconds: 0, translateSeconds: 0.05 });
    let watch: ChildProcess | undefined;
    try {
      const manifestPath = writeDocsManifest(
        dir,
        { url: service.url, key_env: 'LOCSYNC_BENCH_SOAK_KEY' },
        { watch: { stability: STABILITY_S }, on_source_delete: 'delete' },
      );
      process.stderr.write('watch-soak: seeding the state (first sync)\n');
      await seedState(manifestPath, FILES);

      process.stderr.write(`watch-soak: starting locsync watch, ${MINUTES} min of changes\n`);
      const w = spawn(
        process.execPath,
        [BIN, 'watch', '-c', manifestPath, '--log-format', 'json', '--no-progress'],
        {
          env: {
            ...process.env,
            LOCSYNC_BENCH_SOAK_KEY: KEY,
            LOCSYNC_POLL_INITIAL_MS: '100',
            LOCSYNC_WATCH_LAG_LOG: String(SAMPLE_S),
          },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      watch = w;
      let tail = '';
      let watching = false;
      const lags: Lag[] = [];
      let t0 = 0;
      let partial = '';
      w.stderr!.setEncoding('utf8').on('data', (d: string) => {
        tail = (tail + d).slice(-4000);
        const lines = (partial + d).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          if (line.includes('watching for changes')) watching = true;
          if (!line.includes('"event loop lag"')) continue;
          const m = JSON.parse(line) as { lag_p99_ms: number; lag_max_ms: number };
          if (t0) lags.push({ at: (performance.now() - t0) / 1000, p99: m.lag_p99_ms, max: m.lag_max_ms });
        }
      });
      const end = Date.now() + 600_000;
      while (!watching) {
        if (w.exitCode !== null || Date.now() > end)
          throw new Error(`the watch did not start (exit ${w.exitCode}): ${tail.slice(-1500)}`);
        await sleep(20);
      }
      const pid = w.pid!;

      const samples: Sample[] = [];
      t0 = performance.now();
      const sampler = setInterval(() => {
        const rss = rssOf(pid);
        const fds = openHandles(pid);
        if (rss !== undefined && fds !== undefined)
          samples.push({ at: (performance.now() - t0) / 1000, rss, fds });
      }, SAMPLE_S * 1000);

      // One change a second, each at its own second (a slow write does not bunch the next ones).
      const changes = new Changes(src, rels);
      const total = MINUTES * 60;
      for (let i = 0; i < total; i++) {
        const due = t0 + i * 1000 - performance.now();
        if (due > 0) await sleep(due);
        if (w.exitCode !== null) throw new Error(`the watch exited ${w.exitCode}: ${tail.slice(-1500)}`);
        changes.apply(i);
        if (i % 60 === 59) process.stderr.write(`watch-soak: ${i + 1} of ${total} changes made\n`);
      }
      const runS = (performance.now() - t0) / 1000;
      clearInterval(sampler);

      // Wait for the last changes to be delivered (the deletions wait two stability windows).
      const engine = createEngine();
      const translations = new Map<string, Buffer>();
      const expected = async (rel: string, text: string) => {
        const cached = translations.get(rel);
        if (cached) return cached;
        const from = path.join(dir, 'expected-src.txt');
        const to = path.join(dir, 'expected-out.txt');
        fs.writeFileSync(from, text);
        await engine.translateDocument(
          { path: from, ext: 'txt', filename: path.posix.basename(rel) },
          { path: to, ext: 'txt' },
          { targetLang: 'de' },
        );
        const out = fs.readFileSync(to);
        translations.set(rel, out);
        return out;
      };
      const uploads = () => {
        const m = new Map<string, number>();
        for (const r of service.requests())
          if (r.upload && r.status < 300) m.set(r.upload.filename, (m.get(r.upload.filename) ?? 0) + 1);
        return m;
      };
      const drainEnd = Date.now() + DRAIN_MS;
      let problems = await deliveryProblems(dir, changes, uploads(), expected);
      while (problems.length && Date.now() < drainEnd) {
        await sleep(2000);
        problems = await deliveryProblems(dir, changes, uploads(), expected);
      }
      // A few seconds more: an upload twice would show now.
      await sleep(STABILITY_S * 3000);
      problems = await deliveryProblems(dir, changes, uploads(), expected);
      const texts = service.requests().filter((r) => r.text && r.status < 300).length;
      const uploadCount = [...uploads().values()].reduce((a, b) => a + b, 0);

      w.kill('SIGTERM');
      if (w.exitCode === null) await new Promise((resolve) => w.once('close', resolve));

      const inFirst = <T extends { at: number }>(xs: T[]) => xs.filter((x) => x.at <= WINDOW_S);
      const inLast = <T extends { at: number }>(xs: T[]) => xs.filter((x) => x.at > runS - WINDOW_S);
      const windows = MINUTES * 60 >= 600 ? 'first vs last 5 min' : 'first vs last fifth';
      const made = Object.values(changes.counts).reduce((a, b) => a + b, 0);
      const c = changes.counts;
      return [
        {
          name: `watch-soak: changes delivered exactly once (${FILES} files, ${MINUTES} min)`,
          value: problems.length,
          unit: 'wrong',
          bound: '0',
          meets: problems.length === 0,
          note:
            `${made} changes: ${c.add} added, ${c.change} changed, ${c.rename} renamed, ${c.remove} removed` +
            (problems.length ? `; first: ${problems[0]}` : ''),
        },
        {
          name: 'watch-soak: uploads (documents) and text requests',
          value: uploadCount,
          unit: 'uploads',
          bound: `= added + changed (${c.add + c.change}), no text request`,
          meets: uploadCount === c.add + c.change && texts === 0,
          note: `${texts} text requests`,
        },
        flat(
          `watch-soak: RSS, ${windows}`,
          'MB',
          inFirst(samples).map((s) => s.rss / MB),
          inLast(samples).map((s) => s.rss / MB),
          1,
        ),
        flat(
          `watch-soak: open file handles, ${windows}`,
          'fds',
          inFirst(samples).map((s) => s.fds),
          inLast(samples).map((s) => s.fds),
          1,
        ),
        flat(
          `watch-soak: event loop lag p99 (per ${SAMPLE_S} s), ${windows}`,
          'ms',
          inFirst(lags).map((l) => l.p99),
          inLast(lags).map((l) => l.p99),
          2,
        ),
        flat(
          `watch-soak: event loop lag max (per ${SAMPLE_S} s), ${windows}`,
          'ms',
          inFirst(lags).map((l) => l.max),
          inLast(lags).map((l) => l.max),
          2,
        ),
      ];
    } finally {
      watch?.kill('SIGKILL');
      await service.close();
    }
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await run())
    console.log(
      `${r.name}: ${r.value} ${r.unit}${r.bound ? ` (target ${r.bound})` : ''}${r.note ? ` — ${r.note}` : ''}`,
    );
}
