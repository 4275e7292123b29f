import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DocumentClient } from '../../src/sync/run/job-driver.js';
import { createFixture, defaultManifest, type Fixture } from './fixture.js';

// The first scan after a run with much work checks every file against its jobs a part of the files
// at a time (src/sync/plan/inventory.ts), reading records a page at a time: across parts and pages
// it finds every output up to date, notices a deleted source and a new file, records the marks,
// and the snapshot once nothing is left to do.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** The translating run's stand-in for the service (1,100 documents): done at once, a copy of the source. */
function copyingClient(): DocumentClient {
  const docs = new Map<string, string>();
  return {
    uploadDocument: async (file) => {
      const id = `doc${docs.size + 1}`;
      docs.set(id, file);
      return { document_id: id, document_key: `key-${id}` };
    },
    getDocumentStatus: async (id) => ({ document_id: id, status: 'done', billed_characters: 1 }),
    downloadDocument: async (id, _key, dest) => {
      await fsp.copyFile(docs.get(id) as string, dest);
      return { bytes: 1 };
    },
  };
}

/** More files than a part of the scan (1,024), in a few folders. */
const FILES = 1100;
const rel = (i: number) => `d${i % 5}/f${String(i).padStart(4, '0')}.txt`;

describe('the first scan after a run with much work', () => {
  it('checks files across parts: nothing uploaded, a deleted source and a new file noticed, then the no-op paths', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < FILES; i++) files[rel(i)] = `Sentence ${i}.\n`;
    fx = await createFixture({ files });
    const m = defaultManifest(fx.service.url);
    const mapping = (m.mappings as Array<Record<string, unknown>>)[0] as Record<string, unknown>;
    fx.write(
      'pipeline.yaml',
      JSON.stringify({
        ...m,
        mappings: [{ ...mapping, targets: [{ lang: 'de' }], on_source_delete: 'delete' }],
      }),
    );
    expect((await fx.sync({ client: copyingClient() })).translated).toBe(FILES);

    // A source in the last part deleted, a new one added.
    fs.rmSync(path.join(fx.src, rel(FILES - 3)));
    fx.write('src/d0/new.txt', 'New.\n');
    let mark = fx.mark();
    const first = await fx.sync();
    expect(first).toMatchObject({ translated: 1, unchanged: FILES - 1, hashed: 1, removedSources: 1 });
    expect(fx.exists(`out/de/${rel(FILES - 3)}`)).toBe(false);
    expect(fx.uploads(mark).map((u) => u.filename)).toEqual(['new.txt']);

    // Every file was marked: the next scan reads no content, and takes the snapshot.
    mark = fx.mark();
    const second = await fx.sync();
    expect(second).toMatchObject({ translated: 0, unchanged: FILES, hashed: 0 });
    const opened = await fx.open();
    try {
      expect(await opened.state.files.snapshot('docs')).toBeDefined();
    } finally {
      await opened.close();
    }
    const third = await fx.sync();
    expect(third).toMatchObject({ translated: 0, unchanged: FILES, hashed: 0 });
    expect(fx.documentRequests(mark)).toEqual([]);
  });
});
