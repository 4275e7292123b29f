import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

// A plan reads each string file it prices: a 50 MB JSON file of 500,000 values once took 1.17 GB
// (JSON.parse's copy of it as objects, every value kept as an entry, every segment kept for the
// price). Reading it for the plan is bounded: measured in a child process of its own, as the peak
// RSS (getrusage) above what the process held before it opened the file. Memory, not time: the
// bound does not move with the machine's load.
//
// The child's old space is capped: without a cap V8 grows the heap while it has room and collects
// late, so the same walk peaked anywhere from 124 to 335 MB from run to run. Under the cap a walk
// that keeps the file's values dies of heap exhaustion, and one that streams them peaks near it.
const HEAP_MB = 128;

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = import.meta.resolve('tsx');

let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A JSON string file of about `bytes` bytes: one key per line, a sentence each. */
function writeJson(file: string, bytes: number): number {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `  "section${i % 1000}_key${i}": "Open the settings page number ${i} and save your changes now, please."`;
    lines.push(line);
    size += line.length + 2;
  }
  fs.writeFileSync(file, `{\n${lines.join(',\n')}\n}\n`);
  return lines.length;
}

/** In a child: the plan's walk of the file's segments (the quote's), its count and peak RSS growth. */
const CHILD = `
const { eachSegmentBatch } = await import(${JSON.stringify(path.join(ROOT, 'src/sync/segments/document-segments.ts'))});
const before = process.resourceUsage().maxRSS;
let n = 0;
let characters = 0;
await eachSegmentBatch(process.argv[1], 'json', { sourceLang: 'en', targetLang: 'de', settings: 's' }, async (batch) => {
  for (const s of batch) { n++; characters += s.characters; }
});
process.stdout.write(JSON.stringify({ n, characters, grownMb: (process.resourceUsage().maxRSS - before) / 1024 }));
`;

function walk(file: string): Promise<{ n: number; characters: number; grownMb: number }> {
  return new Promise((resolve, reject) => {
    const args = [
      `--max-old-space-size=${HEAP_MB}`,
      '--import',
      TSX,
      '--input-type=module',
      '-e',
      CHILD,
      file,
    ];
    const c = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    c.on('error', reject);
    c.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`exit ${code}`))));
  });
}

describe('a 50 MB JSON string file read for the plan', () => {
  it('is walked in bounded memory: under 250 MB above the process, every value counted', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'large-json-'));
    const file = path.join(dir, 'en.json');
    const values = writeJson(file, 50_000_000);
    const r = await walk(file);
    expect(r.n).toBe(values);
    expect(r.characters).toBeGreaterThan(values * 50);
    // The file itself is 50 MB, and its text as much again while it is decoded; the walk made
    // 700 MB more before (JSON.parse's objects, the entries and segments kept).
    expect(r.grownMb).toBeLessThan(250);
  }, 300_000);
});
