// Benchmark of the translation memory brought in (issue 46, docs/memory.md): `memory import` of a
// TMX of 1,000,000 units (en → de, one in ten with bold text as bpt/ept) into a SQLite state, its
// time and the process's peak RSS (target: < 300 MB, whatever the file's size: it is streamed),
// then the segment lookup with that memory, per segment, as a segment-path job asks it (a document
// of 200 segments, half of them in the memory).
//
//   npx tsx bench/memory-import.ts                                  (or npm run bench -- --only memory-import)
//   LOCSYNC_BENCH_TMX_UNITS=100000 npx tsx bench/memory-import.ts   fewer units
import fs from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { escapeXml } from '../src/documents/formats/xml.js';
import { loadManifest } from '../src/manifest/load.js';
import { importTmx } from '../src/memory/import.js';
import { openState } from '../src/state/store.js';
import { anySettingsKey, segmentKey } from '../src/sync/segments/memory-key.js';
import { recallSegments } from '../src/sync/segments/recall.js';
import { benchSize } from './lib/options.js';
import { sampleRss } from './lib/rss.js';
import { timed } from './lib/timing.js';
import type { BenchResult } from './types.js';

const UNITS = benchSize(1_000_000, 20_000, 'LOCSYNC_BENCH_TMX_UNITS');
const MB = 1024 * 1024;
const RSS_BOUND_MB = 300;

const sentence = (i: number) =>
  `Sentence number ${i} of the reference manual, about the pump and its filter.`;

/** Unit i as Trados would write it (every tenth with a bold word). */
function unit(i: number): string {
  const bold = i % 10 === 0;
  const src = bold
    ? `Press <bpt i="1">&lt;b&gt;</bpt>Start<ept i="1">&lt;/b&gt;</ept> ${escapeXml(sentence(i))}`
    : escapeXml(sentence(i));
  const tgt = bold
    ? `Drücken Sie <bpt i="1">&lt;b&gt;</bpt>Start<ept i="1">&lt;/b&gt;</ept> Satz ${i} des Handbuchs.`
    : `Satz Nummer ${i} des Referenzhandbuchs, über die Pumpe und ihren Filter.`;
  return `<tu creationdate="20200101T000000Z" changedate="20210101T000000Z"><tuv xml:lang="en-US"><seg>${src}</seg></tuv><tuv xml:lang="de-DE"><seg>${tgt}</seg></tuv></tu>\n`;
}

async function writeTmx(file: string): Promise<number> {
  const out = fs.createWriteStream(file);
  const write = async (s: string) => {
    if (!out.write(s)) await once(out, 'drain');
  };
  await write(
    '<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4"><header srclang="en-US" creationtool="bench" creationtoolversion="1" segtype="sentence" o-tmf="x" adminlang="en" datatype="plaintext"/>\n<body>\n',
  );
  let chunk = '';
  for (let i = 0; i < UNITS; i++) {
    chunk += unit(i);
    if (chunk.length > 256 * 1024) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(chunk + '</body></tmx>\n');
  out.end();
  await once(out, 'finish');
  return fs.statSync(file).size;
}

export async function run(): Promise<BenchResult[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'locsync-bench-tmx-'));
  try {
    const tmx = path.join(dir, 'memory.tmx');
    const bytes = await writeTmx(tmx);
    await writeFile(
      path.join(dir, 'pipeline.yaml'),
      'version: 1\nservice:\n  url: http://127.0.0.1:9\nmappings:\n  - name: docs\n    source: src\n    source_lang: en\n    method: segments\n    output: out/{lang}/{path}\n    targets:\n      - lang: de\n',
    );
    fs.mkdirSync(path.join(dir, 'src'));
    const loaded = await loadManifest(path.join(dir, 'pipeline.yaml'));
    const state = openState(loaded.statePath);
    try {
      global.gc?.();
      const before = process.memoryUsage.rss();
      const rss = sampleRss();
      const imported = await timed(() => importTmx(loaded, state.memory, { file: tmx, origin: 'imported' }));
      const peak = rss.stop();
      process.stderr.write(
        `imported ${imported.value.units} units (${(bytes / MB).toFixed(0)} MB of TMX) in ${(imported.ms / 1000).toFixed(1)} s: ${imported.value.stored} stored; RSS ${(before / MB).toFixed(0)} MB before, peak ${(peak / MB).toFixed(0)} MB\n`,
      );

      // A document of 200 segments, half in the memory, looked up as a job does (own and any key).
      const segments = Array.from({ length: 200 }, (_, k) => {
        const i = k % 2 === 0 ? Math.floor((k * UNITS) / 200) + 1 : UNITS + k;
        const tagged = escapeXml(sentence(i));
        return {
          key: segmentKey(tagged, 'EN', 'DE', 'settings'),
          anyKey: anySettingsKey(tagged, 'en', 'de'),
        };
      });
      await recallSegments(state.segments, segments);
      const rounds = 50;
      let found = 0;
      const lookup = await timed(async () => {
        for (let r = 0; r < rounds; r++) found = (await recallSegments(state.segments, segments)).size;
      });
      const perSegmentUs = (lookup.ms * 1000) / (rounds * segments.length);
      process.stderr.write(
        `lookup: ${found} of ${segments.length} segments found, ${perSegmentUs.toFixed(1)} µs each\n`,
      );
      return [
        {
          name: `memory import, ${UNITS.toLocaleString('en-US')} TMX units (${(bytes / MB).toFixed(0)} MB)`,
          value: Math.round(imported.ms / 100) / 10,
          unit: 's',
        },
        {
          name: `memory import, ${UNITS.toLocaleString('en-US')} TMX units: peak RSS`,
          value: Math.round(peak / MB),
          unit: 'MB',
          bound: `< ${RSS_BOUND_MB} MB`,
          ratio: peak / MB / RSS_BOUND_MB,
        },
        {
          name: `segment lookup with ${UNITS.toLocaleString('en-US')} units in the memory, per segment`,
          value: Math.round(perSegmentUs * 10) / 10,
          unit: 'µs',
        },
      ];
    } finally {
      state.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run()) console.log(`${r.name}: ${r.value} ${r.unit}`);
}
