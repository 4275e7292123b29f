// Benchmark (design.md target): planning 1,000 re-saved Office files, a figure per file. Each file
// (docx, pptx, xlsx from samples/office, each with text of its own) is translated once (by the
// in-process stand-in of bench/sync-noop.ts), then saved again as Office does without an
// edit: a new zip container (other entry order, times, compression) and new docProps. The plan must
// find every one "re-saved, unchanged" (no upload): its time is the hash plus the content digest of
// each file. For scale: the same plan with change_detection: bytes (the hash alone; every file would
// be uploaded).
//
//   npx tsx bench/resave.ts          (LOCSYNC_BENCH_RESAVE_FILES overrides the count; --quick: 200)
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import yazl from 'yazl';
import { readZip } from '../test/formats/zip-helpers.js';
import { silentLogger } from '../src/log/logger.js';
import { loadManifest } from '../src/manifest/load.js';
import { openState } from '../src/state/store.js';
import { makePlan, runSync } from '../src/sync/engine.js';
import { benchSize } from './lib/options.js';
import { timed } from './lib/timing.js';
import { withTempDir, writeDocsManifest } from './lib/tree.js';
import { translatingClient } from './lib/seed-client.js';
import type { BenchResult } from './types.js';

const FILES = benchSize(1_000, 200, 'LOCSYNC_BENCH_RESAVE_FILES');
const SAMPLES = path.resolve(import.meta.dirname, '../samples/office');
/** Each sample, and the part and word made unique per file. */
const KINDS: Array<[file: string, part: string, word: string]> = [
  ['report.docx', 'word/header1.xml', 'Confidential'],
  ['slides.pptx', 'ppt/slides/slide1.xml', 'Quarterly'],
  ['status.xlsx', 'xl/sharedStrings.xml', 'In progress'],
];

async function zipOf(parts: Map<string, Buffer>, order: string[], mtime: Date): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  order.forEach((name, i) => {
    if (!name.endsWith('/')) zip.addBuffer(parts.get(name)!, name, { mtime, compress: i % 3 !== 0 });
  });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function makeFiles(src: string): Promise<Array<{ file: string; parts: Map<string, Buffer> }>> {
  const samples = await Promise.all(KINDS.map(async ([f]) => readZip(path.join(SAMPLES, f))));
  const out: Array<{ file: string; parts: Map<string, Buffer> }> = [];
  for (let i = 0; i < FILES; i++) {
    const [name, part, word] = KINDS[i % KINDS.length]!;
    const parts = new Map(samples[i % KINDS.length]!);
    parts.set(part, Buffer.from(parts.get(part)!.toString('utf8').replace(word, `${word} ${i}`)));
    const file = path.join(src, `d${Math.floor(i / 100)}`, `${i}-${name}`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, await zipOf(parts, [...parts.keys()], new Date(2026, 0, 1)));
    out.push({ file, parts });
  }
  return out;
}

/** What an Office save without an edit does: a new container and new document properties. */
async function resave(f: { file: string; parts: Map<string, Buffer> }): Promise<void> {
  const parts = new Map(f.parts);
  const core = parts.get('docProps/core.xml');
  if (core)
    parts.set(
      'docProps/core.xml',
      Buffer.from(core.toString('utf8').replace(/<cp:revision>[^<]*</, '<cp:revision>7<')),
    );
  parts.set('docProps/custom.xml', Buffer.from('<?xml version="1.0"?><Properties/>'));
  fs.writeFileSync(f.file, await zipOf(parts, [...parts.keys()].reverse(), new Date(2026, 5, 1)));
}

async function plan(manifestPath: string, edit?: (m: { change_detection: string }) => void) {
  const loaded = await loadManifest(manifestPath);
  for (const m of loaded.manifest.mappings) edit?.(m);
  const state = openState(loaded.statePath);
  try {
    return await timed(async () => (await makePlan({ loaded, state, logger: silentLogger() })).plan);
  } finally {
    state.close();
  }
}

export async function run(): Promise<BenchResult[]> {
  return withTempDir('resave', async (dir) => {
    process.stderr.write(`resave: generating ${FILES} Office files\n`);
    const files = await makeFiles(path.join(dir, 'src'));
    const manifestPath = writeDocsManifest(dir, { url: 'http://127.0.0.1:9' });
    for (let i = 0; i < 2; i++) {
      const loaded = await loadManifest(manifestPath);
      const state = openState(loaded.statePath);
      try {
        await runSync({
          loaded,
          connection: { client: translatingClient() },
          state,
          logger: silentLogger(),
          options: { poll: { initialMs: 0, minMs: 0 }, concurrency: 64, maxUndownloaded: 1000 },
        });
      } finally {
        state.close();
      }
    }
    process.stderr.write('resave: saving every file again\n');
    for (const f of files) await resave(f);
    const later = new Date(Date.now() + 10_000);
    for (const f of files) fs.utimesSync(f.file, later, later);
    const bytes = await plan(manifestPath, (m) => (m.change_detection = 'bytes'));
    const content = await plan(manifestPath);
    const resaved = content.value.actions.filter((a) => a.kind === 'resaved').length;
    const uploads = content.value.actions.filter((a) => a.kind === 'translate').length;
    if (resaved !== FILES || uploads !== 0)
      throw new Error(
        `expected ${FILES} re-saved and no upload, got ${resaved} re-saved, ${uploads} uploads`,
      );
    const perFile = (ms: number) => Math.round((ms / FILES) * 100) / 100;
    return [
      {
        name: `resave: plan over ${FILES} re-saved Office files (hash + content digest), per file`,
        value: perFile(content.ms),
        unit: 'ms',
        note: `${Math.round(content.ms)} ms in all; ${resaved} re-saved, 0 uploads`,
      },
      {
        name: `resave: the same plan with change_detection: bytes (hash only; ${FILES} uploads), per file`,
        value: perFile(bytes.ms),
        unit: 'ms',
      },
    ];
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await run()) console.log(`${r.name}: ${r.value} ${r.unit}${r.note ? `  (${r.note})` : ''}`);
}
