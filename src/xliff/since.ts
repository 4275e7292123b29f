import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LoadedManifest } from '../manifest/types.js';
import type { RunState } from '../sync/engine.js';
import { readSegments } from '../sync/segments/document-segments.js';
import { ConfigError } from '../util/errors.js';
import type { RoundTripDocument, RoundTripUnit } from './units.js';

// `xliff export --since RUN|REF` (docs/xliff.md): only what changed since then. A run id (a number,
// as `locsync runs` lists them): the documents whose output a later run delivered. A git ref (a
// commit, a tag, a branch of the manifest's repository): the units whose source segment the
// document did not have at that ref (every unit of a document added since).

export type ChangedSince = (d: RoundTripDocument, u: RoundTripUnit) => boolean;

/** The tagged sources of a document as git has it at `ref`; undefined when it was not there. */
async function sourcesAt(
  loaded: LoadedManifest,
  ref: string,
  d: RoundTripDocument,
): Promise<Set<string> | undefined> {
  const abs = path.resolve(loaded.dir, d.source);
  const git = (args: string[]) =>
    execFileSync('git', args, {
      cwd: path.dirname(abs),
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 1 << 28,
    });
  let bytes: Buffer;
  try {
    const rel = git(['ls-files', '--full-name', '--', path.basename(abs)])
      .toString()
      .trim();
    if (!rel) return undefined;
    bytes = git(['show', `${ref}:${rel}`]);
  } catch {
    return undefined;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-since-'));
  try {
    const file = path.join(tmp, path.basename(abs));
    fs.writeFileSync(file, bytes);
    const ext = path.extname(abs).slice(1).toLowerCase();
    const read = await readSegments(file, ext, {
      sourceLang: d.sourceLang ?? undefined,
      targetLang: d.targetLang,
      settings: '',
      read: d.read,
    });
    return new Set(read.segments.map((s) => s.tagged));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Which units changed since a run or a git ref. */
export async function changedSince(
  loaded: LoadedManifest,
  state: RunState,
  since: string,
  docs: readonly RoundTripDocument[],
): Promise<ChangedSince> {
  if (/^\d+$/.test(since)) {
    const run = Number(since);
    const later = new Set<RoundTripDocument>();
    for (const d of docs) {
      const done = await state.jobs.latestDoneOf(d.output);
      const job = done ? await state.jobs.get(done.id) : undefined;
      if (job?.run_id != null && job.run_id > run) later.add(d);
    }
    return (d) => later.has(d);
  }
  try {
    execFileSync('git', ['rev-parse', '--verify', '--quiet', `${since}^{commit}`], {
      cwd: loaded.dir,
      stdio: 'pipe',
    });
  } catch {
    throw new ConfigError(
      `--since ${since}: neither a run id nor a commit of the git repository at ${loaded.dir}`,
    );
  }
  const before = new Map<RoundTripDocument, Set<string> | undefined>();
  for (const d of docs) before.set(d, await sourcesAt(loaded, since, d));
  return (d, u) => !before.get(d)?.has(u.source);
}
