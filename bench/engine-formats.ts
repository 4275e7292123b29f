// Benchmark of the local service's engine (issue 3): time and peak RSS to translate a 30 MB docx
// (about 20 MB of paragraph XML with formatted runs, the rest an incompressible image) and a 1 MB txt,
// both generated in a temp dir. The spec expects "one to two minutes for larger" documents.
//
//   npx tsx bench/engine-formats.ts            (or import { run } from a bench runner)
//   LOCSYNC_BENCH_ENGINE_DOCX_MB=5 npx tsx bench/engine-formats.ts    a smaller docx
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import yazl from 'yazl';
import { createEngine } from '../src/local-service/engine/index.js';
import { benchSize } from './lib/options.js';
import { peakRssDuring, toMb } from './lib/rss.js';
import { timed } from './lib/timing.js';
import type { BenchResult } from './types.js';

const MB = 1024 * 1024;
/** Size of the generated docx in MB (--quick: 5). */
const DOCX_MB = benchSize(30, 5, 'LOCSYNC_BENCH_ENGINE_DOCX_MB');
const TXT_MB = 1;
/** The spec's expected duration for large documents: up to two minutes. */
const TIME_BOUND_S = 120;

const WORDS =
  'the quarterly report shows that every folder was translated on time and nobody paid twice for a document'.split(
    ' ',
  );

/** A deterministic English sentence number `i` (unique, so no cache hit makes it cheap). */
function sentence(i: number): string {
  const words = Array.from({ length: 12 }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length] as string);
  return `${words.join(' ')} (item ${i}, due at 3:30 PM).`;
}

async function makeTxt(path: string, bytes: number): Promise<void> {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = sentence(i);
    lines.push(line);
    size += line.length + 1;
  }
  await writeFile(path, lines.join('\n') + '\n');
}

const W_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';

/** A docx of about `bytes` bytes: paragraphs with a bold and a plain run, and one incompressible image. */
async function makeDocx(path: string, bytes: number): Promise<{ paragraphs: number }> {
  const xmlBytes = Math.round(bytes * 0.66); // uncompressed paragraph XML
  const parts: string[] = [
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="${W_NS}"><w:body>`,
  ];
  let size = 0;
  let paragraphs = 0;
  while (size < xmlBytes) {
    const p = `<w:p><w:pPr><w:spacing w:after="120"/></w:pPr><w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">Section ${paragraphs}: </w:t></w:r><w:r><w:t>${sentence(paragraphs)}</w:t></w:r></w:p>`;
    parts.push(p);
    size += p.length;
    paragraphs++;
  }
  parts.push('<w:sectPr/></w:body></w:document>');
  const document = Buffer.from(parts.join(''));
  const imageBytes = Math.max(0, bytes - deflateRawSync(document).length - 2048);
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from(CONTENT_TYPES), '[Content_Types].xml');
  zip.addBuffer(Buffer.from(RELS), '_rels/.rels');
  zip.addBuffer(document, 'word/document.xml');
  zip.addBuffer(randomBytes(imageBytes), 'word/media/image1.png', { compress: false });
  zip.end();
  await new Promise<void>((resolve, reject) => {
    const out = createWriteStream(path);
    out.on('close', resolve);
    out.on('error', reject);
    zip.outputStream.pipe(out);
  });
  return { paragraphs };
}

async function measure(name: string, input: string, ext: string, dir: string): Promise<BenchResult[]> {
  const engine = createEngine();
  const output = join(dir, `out.${ext}`);
  const before = process.memoryUsage.rss();
  const cpuBefore = process.cpuUsage();
  const { value, peak } = await peakRssDuring(() =>
    timed(() =>
      engine.translateDocument(
        { path: input, ext, filename: `in.${ext}` },
        { path: output, ext },
        { targetLang: 'de' },
      ),
    ),
  );
  const cpu = process.cpuUsage(cpuBefore);
  const round = (n: number): number => Math.round(n * 10) / 10;
  const seconds = round(value.ms / 1000);
  const cpuSeconds = round((cpu.user + cpu.system) / 1e6);
  const inMb = toMb((await stat(input)).size);
  console.error(
    `${name}: ${inMb} MB in ${seconds} s (CPU ${cpuSeconds} s), ${value.value.characters} characters, peak RSS ${toMb(peak)} MB (before ${toMb(before)} MB)`,
  );
  return [
    {
      name: `${name} (${inMb} MB) translate time`,
      value: seconds,
      unit: 's',
      bound: `< ${TIME_BOUND_S} s`,
      ratio: Math.round((seconds / TIME_BOUND_S) * 100) / 100,
    },
    // wall time suffers on a busy machine; CPU time is the engine's own cost
    { name: `${name} (${inMb} MB) CPU time`, value: cpuSeconds, unit: 's' },
    { name: `${name} (${inMb} MB) peak RSS`, value: toMb(peak), unit: 'MB' },
  ];
}

export async function run(): Promise<BenchResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'locsync-bench-engine-'));
  try {
    const txt = join(dir, 'in.txt');
    await makeTxt(txt, TXT_MB * MB);
    const docx = join(dir, 'in.docx');
    const { paragraphs } = await makeDocx(docx, DOCX_MB * MB);
    console.error(`generated ${paragraphs} docx paragraphs`);
    return [
      ...(await measure('engine txt', txt, 'txt', dir)),
      ...(await measure('engine docx', docx, 'docx', dir)),
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const results = await run();
  for (const r of results)
    console.log(`${r.name}: ${r.value} ${r.unit}${r.bound ? `  [bound: ${r.bound}; ratio ${r.ratio}]` : ''}`);
}
