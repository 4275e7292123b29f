// Regenerates samples/ (run: npx tsx scripts/make-samples.ts). The English text below is covered by
// samples/phrasebook.yaml for de and fr (and partly ja); a few lines are deliberately not, so that the
// demo shows pseudo-localisation, and "3:30 PM" plus straight quotes show the style rules.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import iconv from 'iconv-lite';
import jpeg from 'jpeg-js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'samples');

/** Lines shared by the samples. */
export const TEXT = {
  title: 'locsync sample document',
  welcome: 'Welcome to locsync.',
  folder: 'This folder is translated automatically.',
  open: 'Open the file to see the translation.',
  save: 'Click "Save" to keep your changes.',
  time: 'The nightly sync starts at 3:30 PM.',
  contact: 'Questions? Write to support@example.com or visit https://example.com/help.',
  placeholder: 'You have {count} new messages.',
  numbers: "The report has 1,234.5 pages and it's ready.",
  thanks: 'Thank you!',
};

async function write(path: string, content: string | Buffer | Uint8Array): Promise<void> {
  const file = join(root, path);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, content);
  console.log(`${path} (${content.length} bytes)`);
}

function txt(): string {
  return [
    TEXT.welcome,
    '',
    TEXT.folder,
    TEXT.open,
    TEXT.save,
    TEXT.time,
    TEXT.contact,
    TEXT.placeholder,
    TEXT.numbers,
    '',
    TEXT.thanks,
    '',
  ].join('\n');
}

function html(): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${TEXT.title}</title>
  <meta name="description" content="${TEXT.folder}">
  <style>body { font-family: sans-serif; } .note::before { content: "Note: "; }</style>
  <script>console.log("This script is not translated.");</script>
</head>
<body>
  <h1>Welcome to locsync</h1>
  <img src="../images/logo.png" alt="The locsync logo" width="16" height="16">
  <p>${TEXT.folder}</p>
  <p>${TEXT.open} ${TEXT.time}</p>
  <p>Click &quot;Save&quot; to keep your changes.</p>
  <p>Read the <a href="https://example.com/help" title="Help pages">help pages</a> first.</p>
  <form><input type="search" placeholder="Search documents"> <input type="submit" value="Search"></form>
  <pre>locsync sync -c pipeline.example.yaml</pre>
  <p>Run <code>locsync plan</code> to see what would change.</p>
  <p translate="no">This paragraph is marked translate="no".</p>
  <p>${TEXT.thanks}</p>
</body>
</html>
`;
}

/** A Windows-1252 page that declares its charset: the encoding must survive translation. */
function htmLatin1(): Buffer {
  const page = `<html>
<head>
<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">
<title>Café opening hours</title>
</head>
<body>
<h1>Café opening hours</h1>
<p>The café opens at 8:00 AM and closes at 6:30 PM.</p>
<p>${TEXT.thanks}</p>
</body>
</html>
`;
  return iconv.encode(page, 'windows-1252');
}

function srt(): string {
  return [
    '1',
    '00:00:01,000 --> 00:00:03,500',
    'Hello, and welcome.',
    '',
    '2',
    '00:00:04,000 --> 00:00:07,250',
    TEXT.folder,
    TEXT.open,
    '',
    '3',
    '00:00:08,000 --> 00:00:11,000',
    TEXT.time,
    '',
    '4',
    '00:00:11,500 --> 00:00:13,000',
    "Let's get started.",
    '',
  ].join('\r\n');
}

/** UTF-16LE with a BOM, as Windows Notepad writes "Unicode" text. */
function txtUtf16(): Buffer {
  const text = [TEXT.welcome, TEXT.save, TEXT.time, ''].join('\r\n');
  return Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(text, 'utf-16le')]);
}

/** RGBA pixels of a small logo: a blue square with a white "L". */
function logoPixels(size: number): Buffer {
  const px = Buffer.alloc(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const white =
        (x >= size / 4 && x < size / 4 + size / 8 && y >= size / 4 && y < (size * 3) / 4) ||
        (y >= (size * 5) / 8 && y < (size * 3) / 4 && x >= size / 4 && x < (size * 3) / 4);
      px.set(white ? [255, 255, 255, 255] : [30, 90, 200, 255], (y * size + x) * 4);
    }
  }
  return px;
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/** A minimal PNG (8-bit RGBA, no filter). */
function png(size: number): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const px = logoPixels(size);
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) px.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function jpg(size: number): Buffer {
  return jpeg.encode({ data: logoPixels(size), width: size, height: size }, 80).data;
}

async function main(): Promise<void> {
  await write('readme.txt', txt());
  await write('windows-notes.txt', txtUtf16());
  await write('web/index.html', html());
  await write('web/cafe.htm', htmLatin1());
  await write('video/welcome.srt', srt());
  await write('images/logo.png', png(32));
  await write('images/photo.jpg', jpg(32));
}

await main();
