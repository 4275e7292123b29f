import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Mapping } from '../../manifest/sections/mapping.js';
import { mapLimit } from '../../util/map-limit.js';
import type { PlanBuilder } from './builder.js';
import type { PlanContext } from './context.js';
import type { DigestCandidate } from './digests.js';
import { extOf } from './fingerprint.js';
import { sha256File, type FoundFile } from './list-sources.js';
import { preflight, PREFLIGHT_HEAD_BYTES } from './preflight.js';

// Reading the sources a scan lists: the contents of those not vouched for (hashed, or their
// recorded hash read), and the first bytes of those that may be uploaded (pre-flight).

/** What a listed file needs before its targets are planned (by file index). */
export const NEEDS_NOTHING = 0;
/** New, or not as recorded: its content is hashed. */
export const NEEDS_HASH = 1;
/** As recorded but not marked verified: its recorded content is read. */
export const NEEDS_RECORDED = 2;

/** Counts of the contents read while planning a mapping. */
export interface ContentsRead {
  hashed: number;
  bytesHashed: number;
  /** Files hashed or failed (progress). */
  done: number;
}

/**
 * The contents of files[from, to) that need them: recorded ones read in one call, the others hashed
 * (a few at once). Answers them by file index.
 */
export async function readContents(
  ctx: PlanContext,
  b: PlanBuilder,
  m: Mapping,
  files: FoundFile[],
  r: { need: Uint8Array },
  part: { from: number; to: number },
  read: ContentsRead,
): Promise<Map<number, string>> {
  const hashes = new Map<number, string>();
  const toHash: number[] = [];
  const recorded: number[] = [];
  for (let i = part.from; i < part.to; i++)
    if (r.need[i] === NEEDS_HASH) toHash.push(i);
    else if (r.need[i] === NEEDS_RECORDED) recorded.push(i);
  if (recorded.length) {
    const rels = recorded.map((i) => (files[i] as FoundFile).relPath);
    const shas = await ctx.state.files.contentsOf(m.name, rels);
    recorded.forEach((i, k) => {
      const sha = shas.get(rels[k] as string);
      if (sha !== undefined) hashes.set(i, sha);
    });
  }
  // Planning stays in path order (planListedFiles).
  await mapLimit(toHash, 8, async (i) => {
    const f = files[i] as FoundFile;
    try {
      const sha = await hashOf(f);
      read.hashed++;
      read.bytesHashed += f.size;
      b.plan.observations.hashed.push({
        mapping: m.name,
        file: f.relPath,
        size: f.size,
        mtimeMs: f.mtimeMs,
        ino: f.ino,
        ctimeMs: f.ctimeMs,
        sha256: sha,
      });
      hashes.set(i, sha);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      b.skipped({
        mapping: m.name,
        file: f.relPath,
        reason: 'unreadable',
        message: `cannot be read: ${code}`,
      });
    } finally {
      if (++read.done % 500 === 0)
        ctx.events.emit('scan:progress', { mapping: m.name, files: read.done, hashed: read.hashed });
    }
  });
  return hashes;
}

/** Content digests of what was read, and of recorded contents without one (see digests.ts). */
export function digestCandidates(files: FoundFile[], hashes: Map<number, string>): DigestCandidate[] {
  const candidates: DigestCandidate[] = [];
  for (const [i, sha] of hashes) {
    const f = files[i] as FoundFile;
    candidates.push({
      relPath: f.relPath,
      absPath: f.absPath,
      size: f.size,
      mtimeMs: f.mtimeMs,
      sha256: sha,
    });
  }
  return candidates;
}

/** The outputs of files[from, to) that are looked up in the done index (those of files not verified). */
export function outputsToLookUp(
  ctx: PlanContext,
  m: Mapping,
  files: FoundFile[],
  r: { need: Uint8Array },
  part: { from: number; to: number },
): string[] {
  const outputs: string[] = [];
  for (let i = part.from; i < part.to; i++) {
    if (r.need[i] === NEEDS_NOTHING) continue;
    const rel = (files[i] as FoundFile).relPath;
    const ext = extOf(rel);
    for (let ti = 0; ti < m.targets.length; ti++) {
      try {
        outputs.push(ctx.settings.outputOf(m, ti, rel, ext));
      } catch {
        /* renders nowhere valid: planning says so */
      }
    }
  }
  return outputs;
}

/**
 * Pre-flight of a file that may be uploaded (not verified up to date): an empty file, or one whose
 * first bytes contradict its extension, is skipped with the reason and never uploaded (each upload
 * may be billed, and the service would fail it once per target and run). True when skipped.
 */
export function skippedBeforeUpload(
  b: PlanBuilder,
  m: Mapping,
  f: { relPath: string; absPath: string; size: number },
): boolean {
  let head: Buffer;
  try {
    const fd = fs.openSync(f.absPath, 'r');
    try {
      head = Buffer.alloc(Math.min(f.size, PREFLIGHT_HEAD_BYTES));
      head = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false; // unreadable now: the upload reports it
  }
  const verdict = preflight(extOf(f.relPath), f.size, head);
  if (verdict.ok) return false;
  b.skipped({ mapping: m.name, file: f.relPath, reason: 'broken-content', message: verdict.reason });
  return true;
}

/** Files up to this size are hashed from one read (a stream costs more than the file: 1 MiB buffers). */
const READ_WHOLE_BYTES = 256 * 1024;

/** sha256 of a listed file: from one read when small (most sources), streamed otherwise. */
async function hashOf(f: FoundFile): Promise<string> {
  if (f.size > READ_WHOLE_BYTES) return sha256File(f.absPath);
  const fh = await fsp.open(f.absPath, 'r');
  try {
    // One byte more than listed: a file that grew meanwhile is streamed, so memory stays bounded.
    const buf = Buffer.allocUnsafe(f.size + 1);
    let n = 0;
    for (let got = 1; got > 0 && n < buf.length; n += got)
      got = (await fh.read(buf, n, buf.length - n, n)).bytesRead;
    if (n > f.size) return await sha256File(f.absPath);
    return createHash('sha256').update(buf.subarray(0, n)).digest('hex');
  } finally {
    await fh.close();
  }
}
