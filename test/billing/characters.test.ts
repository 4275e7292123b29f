import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countDocumentCharacters, LazyCounter, openCharacterCounter } from '../../src/billing/characters.js';
import { createEngine } from '../../src/local-service/engine/index.js';

const SAMPLES = path.resolve(import.meta.dirname, '../../samples');

/** What the local service bills for a document before its minimum: it translates it (the old way of counting). */
async function billedByService(file: string, scratch: string): Promise<number | undefined> {
  const ext = path.extname(file).slice(1).toLowerCase();
  const outExt = ext === 'doc' ? 'docx' : ext;
  try {
    const result = await createEngine().translateDocument(
      { path: file, ext, filename: path.basename(file) },
      { path: path.join(scratch, `out.${outExt}`), ext: outExt },
      { targetLang: 'de', sourceLang: 'en' },
    );
    return result.characters;
  } catch {
    return undefined;
  }
}

// Pricing counts with the document layer's reader; the local service bills what its translator was
// given. Both must agree on every format, and give the figures pricing showed before the reader
// moved out of the service (counted then by translating each sample into a scratch folder).
describe('counting the characters of a document', () => {
  const dir = fs.mkdtemp(path.join(os.tmpdir(), 'locsync-chars-'));
  afterAll(async () => fs.rm(await dir, { recursive: true, force: true }));

  const texts: Record<string, Buffer> = {
    'plain.txt': Buffer.from('Hello world.\nA second line.\n'),
    'crlf-blank.txt': Buffer.from('First\r\n\r\n   \r\nSecond line\rThird\n\n'),
    'emoji.txt': Buffer.from('Grüße 👋🏽 aus Köln\n\t\n日本語のテキスト'),
    'bom16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Hi there\nbye', 'utf16le')]),
    'latin1.txt': Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x0a, 0x20, 0x0a, 0x4e, 0xe9]),
    'empty.txt': Buffer.alloc(0),
    'binary.txt': Buffer.from([0x00, 0x01, 0x02, 0x03, 0xff, 0x00]),
  };

  it('gives the service’s count for every kind of text file', async () => {
    const reader = await openCharacterCounter();
    try {
      for (const [name, bytes] of Object.entries(texts)) {
        const file = path.join(await dir, name);
        await fs.writeFile(file, bytes);
        expect(await reader.count(file), name).toBe(await billedByService(file, await dir));
      }
    } finally {
      await reader.close();
    }
    expect(await countDocumentCharacters(path.join(await dir, 'plain.txt'))).toBe(26);
  });

  it('counts .txt through the lazy counter the plan prices with', async () => {
    const counter = new LazyCounter();
    const file = path.join(await dir, 'upper.TXT');
    await fs.writeFile(file, 'One\n\nTwo three\n');
    expect(await counter.count(file)).toBe(12);
    await counter.close();
  });

  // Figures of `openCharacterCounter` before the document layer (engine translation into scratch files).
  // (samples/README.md and phrasebook.yaml are left out: Markdown and string files are read on the
  // segment path only, whose text the document service never sees; test/documents/markdown.test.ts
  // and test/strings count them.)
  const BEFORE: Record<string, number | undefined> = {
    'images/logo.png': 0,
    'images/photo.jpg': 0,
    'localization/app.xliff': 70,
    'localization/strings.xlf': 184,
    'office/legacy-report.doc': 437,
    'office/report.docx': 431,
    'office/report.pdf': 251,
    'office/slides.pptx': 222,
    'office/status.xlsx': 99,
    'readme.txt': 323,
    'video/welcome.srt': 149,
    'web/cafe.htm': 94,
    'web/index.html': 342,
    'windows-notes.txt': 88,
  };

  it('gives every sample format the figure it had before, and the service’s count', async () => {
    for (const [name, before] of Object.entries(BEFORE)) {
      const file = path.join(SAMPLES, name);
      const counted = await countDocumentCharacters(file);
      expect(counted, name).toBe(before);
      expect(counted, name).toBe(await billedByService(file, await dir));
    }
  });

  it('counts translated documents (other scripts, longer runs) as the service bills them', async () => {
    // The service's own outputs are documents of every writable format with other text in them.
    for (const name of Object.keys(BEFORE).filter((n) =>
      /\.(xliff|xlf|docx|pptx|xlsx|txt|srt|html?)$/.test(n),
    )) {
      const ext = path.extname(name).slice(1);
      const out = path.join(await dir, `translated.${ext}`);
      await createEngine().translateDocument(
        { path: path.join(SAMPLES, name), ext, filename: name },
        { path: out, ext },
        { targetLang: 'ja', sourceLang: 'en' },
      );
      expect(await countDocumentCharacters(out), name).toBe(await billedByService(out, await dir));
    }
  });
});
