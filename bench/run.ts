// `npm run bench`: runs every benchmark (bench/*.ts exporting run()), each in its own child process so
// that one's memory does not pollute another's figures, and prints one table with the machine it ran
// on. Benchmark progress goes to stderr; the table goes to stdout.
//
//   npm run bench                      every benchmark, full sizes (several minutes)
//   npm run bench -- --quick           smaller sizes, for a fast check
//   npm run bench -- --only sync-noop  one benchmark (repeat --only, or a comma list, for more)
//   npm run bench -- --json out.json   also write the figures and the machine as JSON
//   npm run bench -- --list            the benchmarks found
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatMachine, machineFacts } from './lib/machine.js';
import { QUICK_ENV } from './lib/options.js';
import { formatTable, formatTally, type Row } from './lib/table.js';
import type { BenchResult } from './types.js';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const CHILD = path.join(BENCH_DIR, 'lib', 'child.ts');
/** Order of the table (the design's targets first); benchmarks not listed follow alphabetically. */
const ORDER = [
  'sync-noop',
  'sync-throughput',
  'bad-day',
  'client-memory',
  'service-status',
  'watch-idle',
  'engine-formats',
  'qa-check',
  'segments',
];
const NOT_BENCHMARKS = new Set(['run', 'types']);
/** Benchmarks that run longer than the default timeout by design: theirs, in minutes (full, quick). */
const LONG_RUNNING: Record<string, { full: number; quick: number }> = {
  // 20 minutes of changes after seeding 10,000 files (LOCSYNC_BENCH_SOAK_MINUTES longer: --timeout-min).
  'watch-soak': { full: 45, quick: 15 },
};

/** bench/<name>.ts files that export run(). */
function discoverBenchmarks(dir = BENCH_DIR): string[] {
  const names = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => f.slice(0, -3))
    .filter((n) => !NOT_BENCHMARKS.has(n))
    .filter((n) =>
      /export\s+(async\s+function\s+run\b|function\s+run\b|const\s+run\b)/.test(
        fs.readFileSync(path.join(dir, `${n}.ts`), 'utf8'),
      ),
    );
  const rank = (n: string) => (ORDER.includes(n) ? ORDER.indexOf(n) : ORDER.length);
  return names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

interface ChildOutcome {
  results?: BenchResult[];
  error?: string;
}

/** Runs one benchmark in a child process (its own process group, killed on timeout). */
function runChild(name: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<ChildOutcome> {
  const resultFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-bench-run-')), 'result.json');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, path.join(BENCH_DIR, `${name}.ts`), resultFile],
    {
      cwd: path.dirname(BENCH_DIR),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  running.add(child.pid!);
  let tail = '';
  const forwarder = () => {
    let partial = '';
    return (chunk: string) => {
      tail = (tail + chunk).slice(-2000);
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) process.stderr.write(`[${name}] ${line}\n`);
    };
  };
  child.stdout.setEncoding('utf8').on('data', forwarder());
  child.stderr.setEncoding('utf8').on('data', forwarder());
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid!);
  }, timeoutMs);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child.pid!);
      killGroup(child.pid!); // whatever the benchmark started and left behind
      let outcome: ChildOutcome;
      if (timedOut) outcome = { error: `timed out after ${Math.round(timeoutMs / 1000)} s` };
      else if (code === 0 && fs.existsSync(resultFile))
        outcome = { results: JSON.parse(fs.readFileSync(resultFile, 'utf8')) as BenchResult[] };
      else {
        const last = tail.trim().split('\n').filter(Boolean).at(-1) ?? '';
        outcome = { error: `exited ${signal ?? code}${last ? `: ${last.slice(0, 160)}` : ''}` };
      }
      fs.rmSync(path.dirname(resultFile), { recursive: true, force: true });
      resolve(outcome);
    });
  });
}

const running = new Set<number>();
function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string', multiple: true },
      json: { type: 'string' },
      list: { type: 'boolean', default: false },
      'timeout-min': { type: 'string' },
    },
  });
  const all = discoverBenchmarks();
  if (values.list) {
    console.log(all.join('\n'));
    return 0;
  }
  const wanted = (values.only ?? []).flatMap((s) => s.split(',')).map((s) => s.trim().replace(/\.ts$/, ''));
  const unknown = wanted.filter((w) => !all.includes(w));
  if (unknown.length) {
    console.error(`--only: no benchmark named ${unknown.join(', ')} (found: ${all.join(', ')})`);
    return 2;
  }
  const selected = wanted.length ? all.filter((n) => wanted.includes(n)) : all;
  const quick = values.quick ?? false;
  const timeoutMs = (name: string) =>
    Number(values['timeout-min'] ?? LONG_RUNNING[name]?.[quick ? 'quick' : 'full'] ?? (quick ? 10 : 30)) *
    60_000;
  const machine = machineFacts();
  const env = { ...process.env, ...(quick ? { [QUICK_ENV]: '1' } : {}) };

  const onSignal = () => {
    for (const pid of running) killGroup(pid);
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const rows: Row[] = [];
  const started = performance.now();
  for (const name of selected) {
    process.stderr.write(`── ${name}${quick ? ' (quick)' : ''}\n`);
    const t0 = performance.now();
    const outcome = await runChild(name, env, timeoutMs(name));
    process.stderr.write(`── ${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    if (outcome.error) rows.push({ bench: name, error: outcome.error });
    else for (const result of outcome.results ?? []) rows.push({ bench: name, result });
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(0);

  console.log(`\nlocsync benchmarks${quick ? ' (--quick: smaller sizes)' : ''}, ${seconds} s`);
  console.log(formatMachine(machine));
  console.log('');
  console.log(formatTable(rows));
  console.log('');
  console.log(formatTally(rows));
  if (values.json) fs.writeFileSync(values.json, JSON.stringify({ machine, quick, rows }, null, 2) + '\n');
  return rows.some((r) => r.error) ? 1 : 0;
}

process.exitCode = await main();
