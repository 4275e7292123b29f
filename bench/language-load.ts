// Benchmark (issue 51): what the language check's first load costs the run's own thread. eld's
// database loads on the first detection; loaded on the run's thread (as before issue 51) it stops
// every upload, answer and timer of the run for as long. Now it loads in a worker thread
// (src/qa/language-detector.ts). Each way is measured in a fresh process: the longest stall of the
// calling thread's event loop during the first detection, that thread's CPU time, and the process's
// RSS after it. Target: the stall below 50 ms.
//
//   npx tsx bench/language-load.ts            (or npm run bench -- --only language-load)
import { spawnSync } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchResult } from './types.js';

const SELF = fileURLToPath(import.meta.url);
const STALL_TARGET_MS = 50;
const TEXT =
  'This is an English sentence that is long enough for the detector to be sure about which language it is written in. '.repeat(
    4,
  );

interface Probe {
  stallMs: number;
  threadCpuMs: number;
  rssMb: number;
  detected: string | undefined;
}

/** In this process: the first detection, the way `mode` loads the model. */
async function probe(mode: 'thread' | 'worker'): Promise<Probe> {
  // The check's own module is loaded first (the run has it loaded when its first output comes).
  const { languageMismatch } = await import('../src/qa/language.js');
  const loop = monitorEventLoopDelay({ resolution: 5 });
  // A timer the loop must keep serving, as a run's uploads and answers are.
  const tick = setInterval(() => {}, 5);
  loop.enable();
  const cpu = process.cpuUsage();
  let detected: string | undefined;
  if (mode === 'thread') {
    const { eld } = (await import('eld/extrasmall')) as { eld: { detect(t: string): { language: string } } };
    detected = eld.detect(TEXT).language;
  } else {
    detected = (await languageMismatch(TEXT, 'de', 'en'))?.detected;
  }
  const used = process.cpuUsage(cpu);
  await new Promise((r) => setTimeout(r, 20));
  loop.disable();
  clearInterval(tick);
  return {
    // process.cpuUsage counts every thread; the worker's own is measured apart in its mode.
    stallMs: Math.round(loop.max / 1e6),
    threadCpuMs: Math.round((used.user + used.system) / 1000),
    rssMb: Math.round(process.memoryUsage().rss / 2 ** 20),
    detected,
  };
}

function probeChild(mode: 'thread' | 'worker'): Probe {
  const r = spawnSync(process.execPath, ['--import', 'tsx', SELF, '--probe', mode], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`language-load probe (${mode}) failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Probe;
}

export async function run(): Promise<BenchResult[]> {
  const before = probeChild('thread');
  const after = probeChild('worker');
  if (after.detected !== 'en') throw new Error(`the worker's detection read ${after.detected}, not en`);
  return [
    {
      name: 'language-load: longest stall of the run thread, first detection, model on that thread (before)',
      value: before.stallMs,
      unit: 'ms',
      note: `CPU ${before.threadCpuMs} ms, RSS ${before.rssMb} MB`,
    },
    {
      name: 'language-load: longest stall of the run thread, first detection, model in a worker',
      value: after.stallMs,
      unit: 'ms',
      bound: `< ${STALL_TARGET_MS} ms`,
      ratio: after.stallMs / STALL_TARGET_MS,
      note: `CPU of all threads ${after.threadCpuMs} ms, RSS ${after.rssMb} MB`,
    },
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--probe');
  if (at > 0) console.log(JSON.stringify(await probe(process.argv[at + 1] as 'thread' | 'worker')));
  else for (const r of await run()) console.log(`${r.name}: ${r.value} ${r.unit}  (${r.note})`);
}
