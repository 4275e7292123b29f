import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';

// Temp folders and generated file trees for benchmarks. Every benchmark builds its own data and
// removes it, also when it fails.

/** Runs `work` with a fresh temp folder that is removed afterwards, whatever happens. */
export async function withTempDir<T>(prefix: string, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), `locsync-bench-${prefix}-`));
  try {
    return await work(dir);
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

export interface TreeOptions {
  /** Files per folder (folders are nested two levels: d<i>/d<j>/f<k>.txt). Default 100. */
  perFolder?: number;
  /** Content of file number i; default a short unique sentence. */
  content?: (i: number) => string | Buffer;
  /** File name of file number i inside its folder; default `f<i>.txt`. */
  name?: (i: number) => string;
}

/**
 * Writes `count` files under `root` (created if needed), `perFolder` per folder, nested so that no
 * folder holds more than `perFolder` entries. Returns the relative paths ('/' separators).
 */
export async function makeTree(root: string, count: number, opts: TreeOptions = {}): Promise<string[]> {
  const per = opts.perFolder ?? 100;
  const content = opts.content ?? ((i: number) => `Document number ${i}. Hello world.\n`);
  const name = opts.name ?? ((i: number) => `f${i}.txt`);
  const rels: string[] = [];
  const made = new Set<string>();
  for (let i = 0; i < count; i++) {
    const folder = Math.floor(i / per);
    const rel = `d${Math.floor(folder / per)}/d${folder % per}/${name(i)}`;
    const dir = path.dirname(path.join(root, rel));
    if (!made.has(dir)) {
      fs.mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    rels.push(rel);
  }
  // Write in parallel batches: 100,000 small files in a few seconds.
  const BATCH = 256;
  for (let i = 0; i < rels.length; i += BATCH) {
    await Promise.all(
      rels.slice(i, i + BATCH).map((rel, j) => fsp.writeFile(path.join(root, rel), content(i + j))),
    );
  }
  return rels;
}

/**
 * Writes `dir/pipeline.yaml`: one mapping `docs` from `dir/src` to `out/{lang}/{path}`, target de,
 * with the given service section and any other top-level sections in `more` (watch, ...). Returns
 * its path.
 */
export function writeDocsManifest(
  dir: string,
  service: Record<string, unknown>,
  more: Record<string, unknown> = {},
): string {
  const manifestPath = path.join(dir, 'pipeline.yaml');
  fs.writeFileSync(
    manifestPath,
    stringify({
      version: 1,
      service,
      ...more,
      mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
    }),
  );
  return manifestPath;
}
