// The benchmarks' stand-in for the service when they seed a state: every upload is done at once
// and its translation is the local service's engine's pseudo-translation. A copy of the source
// would be refused by the output checks as untranslated, and the seeding would deliver nothing.
import fs from 'node:fs';
import path from 'node:path';
import { silentLogger } from '../../src/log/logger.js';
import { createEngine } from '../../src/local-service/engine/index.js';
import { loadManifest } from '../../src/manifest/load.js';
import { openState } from '../../src/state/store.js';
import { runSync } from '../../src/sync/engine.js';
import type { DocumentClient } from '../../src/sync/run/document-method.js';
import { sha256File } from '../../src/sync/plan/list-sources.js';

export function translatingClient(): DocumentClient {
  const engine = createEngine();
  const docs = new Map<string, { file: string; target: string; source: string | undefined }>();
  let n = 0;
  return {
    uploadDocument: async (file, req) => {
      const id = `doc${++n}`;
      docs.set(id, { file, target: req.target_lang.toLowerCase(), source: req.source_lang?.toLowerCase() });
      return { document_id: id, document_key: `key-${id}-secret` };
    },
    getDocumentStatus: async (id) => ({ document_id: id, status: 'done', billed_characters: 1 }),
    downloadDocument: async (id, _key, dest) => {
      const doc = docs.get(id)!;
      const ext = path.extname(doc.file).slice(1).toLowerCase();
      await engine.translateDocument(
        { path: doc.file, ext, filename: path.basename(doc.file) },
        { path: dest, ext },
        { targetLang: doc.target, ...(doc.source ? { sourceLang: doc.source } : {}) },
      );
      docs.delete(id);
      return { bytes: fs.statSync(dest).size, sha256: await sha256File(dest) };
    },
  };
}

/**
 * A sync of `manifestPath` in this process through translatingClient (every file translated at
 * once): seeds the state and outputs, so that a watch or sync started afterwards finds a no-op.
 */
export async function syncThroughStandIn(
  manifestPath: string,
): Promise<{ translated: number; unchanged: number; hashed: number }> {
  const loaded = await loadManifest(manifestPath);
  const state = openState(loaded.statePath);
  try {
    const s = await runSync({
      loaded,
      connection: { client: translatingClient() },
      state,
      logger: silentLogger(),
      options: { poll: { initialMs: 0, minMs: 0 }, concurrency: 64, maxUndownloaded: 1000 },
    });
    return { translated: s.translated, unchanged: s.unchanged, hashed: s.hashed };
  } finally {
    state.close();
  }
}

/** Seeds the state and outputs of `manifestPath` (syncThroughStandIn); throws unless `files` were translated. */
export async function seedState(manifestPath: string, files: number): Promise<void> {
  const s = await syncThroughStandIn(manifestPath);
  if (s.translated !== files) throw new Error(`seeding translated ${s.translated} of ${files}`);
}
