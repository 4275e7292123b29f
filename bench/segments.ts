// Benchmark (design.md target): one edited paragraph in a 200-page docx, translated by each method
// against the embedded local service. The document path uploads the whole document again (billed
// whole, at least 50,000 characters); the segment path (method: segments) sends the one paragraph the
// segment memory lacks. Figures: the characters each bills for the edit and the time of each sync;
// the target is a segment-path bill under 1% of the document path's.
//
//   npx tsx bench/segments.ts       (LOCSYNC_BENCH_SEGMENTS_PAGES overrides the pages; --quick: 20)
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Document, Packer, Paragraph, TextRun } from 'docx';
import { ServiceClient } from '../src/api/client.js';
import { silentLogger } from '../src/log/logger.js';
import { loadManifest } from '../src/manifest/load.js';
import { startService } from '../src/local-service/index.js';
import { openState } from '../src/state/store.js';
import { runSync } from '../src/sync/engine.js';
import type { SyncSummary } from '../src/sync/summary.js';
import { benchSize } from './lib/options.js';
import { timed } from './lib/timing.js';
import { withTempDir } from './lib/tree.js';
import type { BenchResult } from './types.js';

const PAGES = benchSize(200, 20, 'LOCSYNC_BENCH_SEGMENTS_PAGES');
/** About a page of a manual: 8 paragraphs of some 350 characters. */
const PER_PAGE = 8;
const KEY = 'bench-segments-key';

/** Paragraph i of the manual (unique text, a bold term in every fourth). */
function paragraph(i: number, edited = false): Paragraph {
  const words = `Step ${i}${edited ? ' (revised)' : ''}: before you open the housing, switch the unit off at the mains, wait until the fan has stopped and the status light has gone out, then remove the four screws on the back panel with the supplied tool and keep them in a safe place. Check seal ${i} for cracks and replace it when in doubt.`;
  if (i % 4 !== 0) return new Paragraph(words);
  return new Paragraph({ children: [new TextRun(words), new TextRun({ text: ' Warning.', bold: true })] });
}

function manual(editAt?: number): Promise<Buffer> {
  const children: Paragraph[] = [];
  for (let i = 0; i < PAGES * PER_PAGE; i++) {
    children.push(paragraph(i, i === editAt));
    if (i % PER_PAGE === PER_PAGE - 1) children.push(new Paragraph({ pageBreakBefore: true }));
  }
  return Packer.toBuffer(new Document({ sections: [{ children }] }));
}

async function sync(
  manifestPath: string,
  url: string,
  only: string[],
): Promise<{ value: SyncSummary; ms: number }> {
  const loaded = await loadManifest(manifestPath);
  const state = openState(loaded.statePath);
  const client = new ServiceClient({
    baseUrl: url,
    apiKey: KEY,
    rateLimit: { requestsPerSecond: 1000, concurrency: 8 },
  });
  try {
    return await timed(() =>
      runSync({
        loaded,
        connection: { client },
        state,
        logger: silentLogger(),
        options: { only, poll: { initialMs: 20, minMs: 10, maxMs: 100 } },
      }),
    );
  } finally {
    client.close();
    state.close();
  }
}

export async function run(): Promise<BenchResult[]> {
  return withTempDir('segments', async (dir) => {
    const service = await startService({ queueSeconds: 0, translateSeconds: 0, authKey: KEY });
    try {
      process.env.LOCSYNC_BENCH_SEGMENTS_KEY = KEY;
      fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
      const file = path.join(dir, 'src', 'manual.docx');
      fs.writeFileSync(file, await manual());
      const manifestPath = path.join(dir, 'pipeline.yaml');
      // Two mappings of the same source: one per method.
      const mapping = (name: string, method: string) =>
        `  - { name: ${name}, source: src, source_lang: en, method: ${method}, output: 'out/${name}/{lang}/{path}', targets: [{ lang: de }] }\n`;
      fs.writeFileSync(
        manifestPath,
        `version: 1\nservice: { url: '${service.url}', key_env: LOCSYNC_BENCH_SEGMENTS_KEY, concurrency: 8, requests_per_second: 1000 }\nmappings:\n` +
          mapping('document', 'document') +
          mapping('segments', 'segments'),
      );
      process.stderr.write(`segments: translating a ${PAGES}-page docx by both methods\n`);
      const first = {
        document: await sync(manifestPath, service.url, ['document']),
        segments: await sync(manifestPath, service.url, ['segments']),
      };
      // One paragraph edited in the middle of the document.
      fs.writeFileSync(file, await manual(Math.floor((PAGES * PER_PAGE) / 2)));
      process.stderr.write('segments: one paragraph edited; translating it again by both methods\n');
      const doc = await sync(manifestPath, service.url, ['document']);
      const seg = await sync(manifestPath, service.url, ['segments']);
      for (const r of [doc, seg, first.document, first.segments])
        if (r.value.failed.length > 0) throw new Error(`a sync failed: ${r.value.failed[0]!.error}`);
      const share = seg.value.billedCharacters / doc.value.billedCharacters;
      return [
        {
          name: `segments: one edited paragraph of a ${PAGES}-page docx, characters billed by the segment path`,
          value: seg.value.billedCharacters,
          unit: 'characters',
          bound: '< 1% of the document path',
          ratio: Math.round((share / 0.01) * 1000) / 1000,
          note: `${(share * 100).toFixed(3)}% of the document path's ${doc.value.billedCharacters}`,
        },
        {
          name: `segments: the same edit, characters billed by the document path`,
          value: doc.value.billedCharacters,
          unit: 'characters',
        },
        { name: 'segments: sync of the edit by the segment path', value: Math.round(seg.ms), unit: 'ms' },
        { name: 'segments: sync of the edit by the document path', value: Math.round(doc.ms), unit: 'ms' },
        {
          name: 'segments: first translation by the segment path (for scale)',
          value: Math.round(first.segments.ms),
          unit: 'ms',
          note: `${first.segments.value.billedCharacters} characters; document path ${Math.round(first.document.ms)} ms, ${first.document.value.billedCharacters} characters`,
        },
      ];
    } finally {
      await service.close();
    }
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await run()) console.log(`${r.name}: ${r.value} ${r.unit}${r.note ? `  (${r.note})` : ''}`);
}
