// Benchmark of the output checks (issue 32, docs/qa.md): time to check 1,000 delivered documents
// (hard and soft checks, as the gate runs them before each output is put in place and as
// `locsync check` runs them), per document. The documents are the samples of every format
// (txt, docx, pptx, xlsx, pdf→docx, doc→docx, srt, htm/html, xliff, png, jpg), translated once by
// the local service's engine into German and copied to 1,000 source/output pairs, so every check
// reads real files from disk.
//
//   npx tsx bench/qa-check.ts                                  (or npm run bench -- --only qa-check)
//   LOCSYNC_BENCH_QA_DOCUMENTS=200 npx tsx bench/qa-check.ts   fewer documents
import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkOutput } from '../src/qa/check-output.js';
import { DEFAULT_QA_SETTINGS } from '../src/qa/checks.js';
import { createEngine } from '../src/local-service/engine/index.js';
import { benchSize } from './lib/options.js';
import { timed } from './lib/timing.js';
import type { BenchResult } from './types.js';

const DOCUMENTS = benchSize(1000, 100, 'LOCSYNC_BENCH_QA_DOCUMENTS');
const SAMPLES = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../samples');

async function sampleFiles(dir = SAMPLES): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && /\.(txt|docx|pptx|xlsx|pdf|doc|srt|html?|xliff|xlf|png|jpg)$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

const extOf = (f: string) => path.extname(f).slice(1).toLowerCase();

export async function run(): Promise<BenchResult[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'locsync-bench-qa-'));
  try {
    const engine = createEngine({ phrasebookPath: path.join(SAMPLES, 'phrasebook.yaml') });
    // One translation per sample, then copies: pair i is sample i mod n, each in files of its own.
    const samples = await sampleFiles();
    const pairs: Array<{ source: string; output: string }> = [];
    for (const [k, file] of samples.entries()) {
      const ext = extOf(file);
      const outExt = ext === 'doc' || ext === 'pdf' ? 'docx' : ext;
      const output = path.join(dir, `sample-${k}.de.${outExt}`);
      await engine.translateDocument(
        { path: file, ext, filename: path.basename(file) },
        { path: output, ext: outExt },
        { targetLang: 'de', sourceLang: 'en' },
      );
      pairs.push({ source: file, output });
    }
    const docs: Array<{ source: string; output: string }> = [];
    for (let i = 0; i < DOCUMENTS; i++) {
      const p = pairs[i % pairs.length]!;
      const sub = path.join(dir, 'docs', String(Math.floor(i / 100)));
      await mkdir(sub, { recursive: true });
      const source = path.join(sub, `${i}${path.extname(p.source)}`);
      const output = path.join(sub, `${i}.de${path.extname(p.output)}`);
      await copyFile(p.source, source);
      await copyFile(p.output, output);
      docs.push({ source, output });
    }
    // The language detector loads on first use: paid once per process, before the clock starts.
    await check(docs.find((d) => extOf(d.source) === 'txt') ?? docs[0]!);
    const outcomes = new Map<string, number>();
    const all = await timed(async () => {
      for (const d of docs) {
        const r = await check(d);
        outcomes.set(r, (outcomes.get(r) ?? 0) + 1);
      }
    });
    const perDoc = all.ms / docs.length;
    process.stderr.write(
      `checked ${docs.length} documents of ${pairs.length} samples: ${[...outcomes].map(([o, n]) => `${n} ${o}`).join(', ')}\n`,
    );
    return [
      {
        name: `output checks, ${docs.length} delivered documents (all formats), per document`,
        value: Math.round(perDoc * 100) / 100,
        unit: 'ms',
        note: `total ${(all.ms / 1000).toFixed(1)} s (language detector loaded before)`,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function check(d: { source: string; output: string }): Promise<string> {
  const r = await checkOutput({
    source: { path: d.source, format: extOf(d.source) },
    output: { path: d.output, format: extOf(d.output) },
    targetLang: 'de',
    sourceLang: 'en',
    settings: DEFAULT_QA_SETTINGS,
  });
  return r.outcome;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const r of await run()) console.log(`${r.name}: ${r.value} ${r.unit} (${r.note ?? ''})`);
}
