import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { loadManifest } from '../../src/manifest/load.js';
import type { Mapping } from '../../src/manifest/sections/mapping.js';
import type { LoadedManifest } from '../../src/manifest/types.js';
import { storedDigestOf } from '../../src/sync/plan/digests.js';
import { extOf, uploadRequest } from '../../src/sync/plan/fingerprint.js';
import { TargetSettings } from '../../src/sync/plan/settings.js';
import { openState } from '../../src/state/store.js';
import type { DeliveredOutput, StoredDigest } from '../../src/state/types.js';
import { contentDigest } from '../../src/documents/digest/index.js';
import { makeTree, writeDocsManifest } from './tree.js';

// A state as a first sync of a large tree would leave it, made without uploading anything (issue
// 51): the source tree and every output written, and the state seeded in bulk through the state
// interface (JobLedger.deliveredInBulk: each file's record and a done job of its output with what it
// wrote; ContentDigests.put: each content's digest), in batches. A no-op sync then accepts the
// state as it is; its first run checks every output against its job and records the fast-path
// marks, as after a real first sync. Seeding 1,000,000 files this way takes minutes where a million
// uploads through the stand-in would take hours.

/** Outputs recorded per call of deliveredInBulk (and files written per batch). */
const BATCH = 10_000;
/** Outputs written at once. */
const WRITING = 256;

/** The translation written at each output (the no-op never reads it; `status` only hashes it). */
const translated = (content: string): string => `[seeded de] ${content}`;

/** Default content of file i, as makeTree writes it. */
const contentOf = (i: number): string => `Document number ${i}. Hello world.\n`;

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/**
 * Writes `files` source files under `dir/src`, the manifest (`service` section as given; mapping
 * `docs` to `out/{lang}/{path}`, target de) and every output, and seeds the state. Returns the
 * manifest's path.
 */
export async function bulkSeed(
  dir: string,
  files: number,
  service: Record<string, unknown>,
): Promise<string> {
  const rels = await makeTree(path.join(dir, 'src'), files, { content: contentOf });
  const manifestPath = writeDocsManifest(dir, service);
  const loaded = await loadManifest(manifestPath);
  const state = openState(loaded.statePath);
  try {
    const mapping = loaded.manifest.mappings[0] as Mapping;
    const settings = await TargetSettings.load(loaded, state, { styleIds: {}, pendingChanges: [] });
    for (let at = 0; at < rels.length; at += BATCH) {
      const batch: DeliveredOutput[] = [];
      // Written a few hundred at a time (open files), recorded BATCH at a time.
      for (let i = at; i < Math.min(at + BATCH, rels.length); i += WRITING)
        batch.push(
          ...(await Promise.all(
            rels
              .slice(i, Math.min(i + WRITING, at + BATCH))
              .map((rel, j) => delivered(loaded, mapping, settings, rel, i + j)),
          )),
        );
      await state.jobs.deliveredInBulk(batch);
      await state.digests.put(await digestsOf(loaded, mapping, batch));
    }
  } finally {
    state.close();
  }
  return manifestPath;
}

/**
 * The content digests a first sync records of the contents it uploads (src/sync/plan/digests.ts):
 * without them the first no-op would read and digest every file, which after a real first sync it
 * does not.
 */
async function digestsOf(
  loaded: LoadedManifest,
  m: Mapping,
  batch: DeliveredOutput[],
): Promise<StoredDigest[]> {
  const rows: StoredDigest[] = [];
  for (let i = 0; i < batch.length; i += WRITING)
    rows.push(
      ...(await Promise.all(
        batch.slice(i, i + WRITING).map(async ({ source }) => {
          const d = await contentDigest(
            path.join(loaded.dir, m.source, source.rel_path),
            extOf(source.rel_path),
          );
          return storedDigestOf(source.sha256, d);
        }),
      )),
    );
  return rows;
}

/** The output of source file number `i` (at `rel`) written, and what the state records of both. */
async function delivered(
  loaded: LoadedManifest,
  m: Mapping,
  settings: TargetSettings,
  rel: string,
  i: number,
): Promise<DeliveredOutput> {
  const ext = extOf(rel);
  const entry = settings.of(m, 0, ext);
  const outputRel = settings.outputOf(m, 0, rel, ext);
  const outputAbs = path.join(loaded.dir, outputRel);
  const content = contentOf(i);
  const output = translated(content);
  await fsp.mkdir(path.dirname(outputAbs), { recursive: true });
  await fsp.writeFile(outputAbs, output);
  const [src, out] = await Promise.all([
    fsp.lstat(path.join(loaded.dir, m.source, rel)),
    fsp.lstat(outputAbs),
  ]);
  const sha = sha256(content);
  return {
    source: {
      mapping: m.name,
      rel_path: rel,
      size: src.size,
      mtime_ms: src.mtimeMs,
      ino: src.ino,
      ctime_ms: src.ctimeMs,
      sha256: sha,
    },
    job: {
      mapping: m.name,
      rel_path: rel,
      sha256: sha,
      target_lang: m.targets[0]?.lang as string,
      fingerprint: entry.fp,
      base_fingerprint: entry.base,
      output_path: outputRel,
      run_id: null,
      source_characters: content.length,
      request: JSON.stringify(uploadRequest(entry.settings, ext, path.basename(rel))),
    },
    written: { sha256: sha256(output), size: out.size, mtimeMs: out.mtimeMs },
  };
}

/** Whether `dir` has room for a seed of `files` (source and output: a block each, and the state). */
export function roomFor(dir: string, files: number): { ok: boolean; needMb: number; freeMb: number } {
  const st = fs.statfsSync(dir);
  const freeMb = (st.bavail * st.bsize) / (1024 * 1024);
  // Two files of one 4 KiB block each, the state's rows (about 1 KiB a file) and a margin.
  const needMb = Math.ceil((files * (2 * 4096 + 1024)) / (1024 * 1024) + 1024);
  return { ok: freeMb > needMb, needMb, freeMb: Math.round(freeMb) };
}
