// Benchmark (issue 44): `locsync plan` of one 50 MB JSON string file (method: segments; --quick:
// 10 MB) in under 300 MB RSS, as a user runs it (bin/locsync.js over dist/, rebuilt first when a
// source is newer; no heap flag), its RSS sampled from outside. Reported beside it: the same
// command's peak over a one-key file (what the process holds before any file is read).
// test/strings/large-file-memory.test.ts holds the walk of the file's segments alone to its bound.
//
//   npx tsx bench/plan-large-json.ts     (LOCSYNC_BENCH_PLAN_JSON_MB overrides the size)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, ensureBuilt } from './lib/built-cli.js';
import { benchSize } from './lib/options.js';
import { sampleRss, toMb } from './lib/rss.js';
import { withTempDir } from './lib/tree.js';
import type { BenchResult } from './types.js';

const SIZE_MB = benchSize(50, 10, 'LOCSYNC_BENCH_PLAN_JSON_MB');
const BOUND_MB = 300;
const KEY_ENV = 'LOCSYNC_BENCH_PLAN_KEY';

/** A JSON string file of about `mb` MB: one key per line, a sentence each. */
function writeJson(file: string, mb: number): void {
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, '{\n');
  for (let i = 0, size = 0; size < mb * 1024 * 1024; i++) {
    const line = `${i ? ',\n' : ''}  "section${i % 1000}_key${i}": "Open the settings page number ${i} and save your changes now, please."`;
    fs.writeSync(fd, line);
    size += line.length;
  }
  fs.writeSync(fd, '\n}\n');
  fs.closeSync(fd);
}

/** A project of one string file; the service is never asked (the plan prices from the file). */
function project(dir: string, mb: number): string {
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  if (mb > 0) writeJson(path.join(dir, 'src', 'en.json'), mb);
  else fs.writeFileSync(path.join(dir, 'src', 'en.json'), '{ "a": "Hello there." }\n');
  const manifest = path.join(dir, 'pipeline.yaml');
  fs.writeFileSync(
    manifest,
    [
      'version: 1',
      'service:',
      '  url: http://127.0.0.1:9',
      `  key_env: ${KEY_ENV}`,
      'mappings:',
      '  - name: strings',
      '    source: src',
      '    source_lang: en',
      '    method: segments',
      '    output: out/{lang}/{path}',
      '    targets: [{ lang: de }]',
      '',
    ].join('\n'),
  );
  return manifest;
}

/** `locsync plan` in a fresh process: its peak RSS in bytes. */
function planPeak(manifest: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [BIN, 'plan', '-c', manifest], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, [KEY_ENV]: 'bench-plan-key-0001' },
    });
    const rss = sampleRss(c.pid!, 10);
    let out = '';
    c.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    c.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    c.on('error', reject);
    c.on('close', (code) => {
      const peak = rss.stop();
      if (code !== 0) return reject(new Error(`locsync plan exited ${code}: ${out.slice(0, 500)}`));
      if (!/1 to translate/.test(out)) return reject(new Error(`locsync plan: ${out.slice(0, 500)}`));
      resolve(peak);
    });
  });
}

export async function run(): Promise<BenchResult[]> {
  ensureBuilt('plan-large-json');
  const floor = await withTempDir('locsync-bench-plan-', (dir) => planPeak(project(dir, 0)));
  const peak = await withTempDir('locsync-bench-plan-', (dir) => planPeak(project(dir, SIZE_MB)));
  return [
    {
      name: `plan.json_${SIZE_MB}MB.peak_rss`,
      value: toMb(peak),
      unit: 'MB',
      bound: `< ${BOUND_MB} MB`,
      ratio: Math.round((toMb(peak) / BOUND_MB) * 100) / 100,
    },
    { name: 'plan.json_one_key.peak_rss', value: toMb(floor), unit: 'MB' },
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await run()) console.log(JSON.stringify(r));
}
