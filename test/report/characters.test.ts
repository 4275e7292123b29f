import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countPlainText, LazyCounter, openCharacterCounter } from '../../src/report/characters.js';

// Plain text is counted without the document reader: the count must be the one the reader gives.
describe('counting the characters of a .txt document', () => {
  const dir = fs.mkdtemp(path.join(os.tmpdir(), 'locsync-chars-'));
  afterAll(async () => fs.rm(await dir, { recursive: true, force: true }));

  const samples: Record<string, Buffer> = {
    'plain.txt': Buffer.from('Hello world.\nA second line.\n'),
    'crlf-blank.txt': Buffer.from('First\r\n\r\n   \r\nSecond line\rThird\n\n'),
    'emoji.txt': Buffer.from('Grüße 👋🏽 aus Köln\n\t\n日本語のテキスト'),
    'bom16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Hi there\nbye', 'utf16le')]),
    'latin1.txt': Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x0a, 0x20, 0x0a, 0x4e, 0xe9]),
    'empty.txt': Buffer.alloc(0),
    'binary.txt': Buffer.from([0x00, 0x01, 0x02, 0x03, 0xff, 0x00]),
  };

  it('gives the document reader’s count for every kind of text file', async () => {
    const reader = await openCharacterCounter();
    try {
      for (const [name, bytes] of Object.entries(samples)) {
        const file = path.join(await dir, name);
        await fs.writeFile(file, bytes);
        expect(await countPlainText(file), name).toBe(await reader.count(file));
      }
    } finally {
      await reader.close();
    }
    expect(await countPlainText(path.join(await dir, 'plain.txt'))).toBe(26);
  });

  it('counts .txt through the lazy counter the plan prices with', async () => {
    const counter = new LazyCounter();
    const file = path.join(await dir, 'upper.TXT');
    await fs.writeFile(file, 'One\n\nTwo three\n');
    expect(await counter.count(file)).toBe(12);
    await counter.close();
  });
});
