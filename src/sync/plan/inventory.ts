import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Mapping } from '../../manifest/schema.js';
import type { PlanBuilder } from './builder.js';
import type { PlanContext } from './context.js';
import { matchesRecord } from './file-stamp.js';
import { extOf } from './fingerprint.js';
import {
  isSupportedExtension,
  linkOutsideProblem,
  listSourceFiles,
  sha256File,
  type FoundFile,
  type ScanProblem,
} from './list-sources.js';
import {
  OutputListing,
  folderDigests,
  listingDigest,
  outputsDigest,
  type ListingFolders,
} from './output-listing.js';
import { POINT_LOOKUPS_BEFORE_INDEX } from './output-index.js';
import { preflight, PREFLIGHT_HEAD_BYTES } from './preflight.js';
import { planFileTargets } from './units.js';
import { digestContents, type DigestCandidate } from './digests.js';
import { mapLimit } from '../../util/map-limit.js';
import { sourceMissingMessage } from '../../manifest/source-missing.js';

// Taking stock of a mapping's sources: list, skip what cannot be translated, hash what is new or
// changed (size, mtime, inode and ctime as recorded: file-stamp.ts; else sha256 decides), and take
// the no-op fast paths (a listing equal to the mapping's snapshot, a file's verified mark) before any
// per-output look. What was observed
// (hashes, marks, snapshots) goes into the plan for `sync` to record.

const unsupportedMessage = (ext: string) =>
  ext ? `.${ext} files are not translated by the service` : 'no file extension';

/**
 * The source folder is not there, or is empty where the state knows files (what an unmounted share
 * looks like): the run fails with its own reason, not "nothing to do", unless the mapping allows it
 * (allow_missing: a removable share). Either way nothing is deleted on it.
 */
function sourceMissing(b: PlanBuilder, m: Mapping, src: string, how: 'missing' | 'empty'): void {
  if (m.allow_missing) return;
  b.skipped({
    mapping: m.name,
    file: '.',
    reason: 'source-missing',
    message: sourceMissingMessage(m.source, how),
  });
}

/** Plan one mapping: every file found, in path order; sources gone are kept for planRemovals. */
export async function planMapping(ctx: PlanContext, b: PlanBuilder, m: Mapping): Promise<void> {
  const src = ctx.folders.sourceOf(m);
  ctx.events.emit('scan:start', { mapping: m.name });
  // Output folders inside the source folder are not sources.
  const listed = await listSourceFiles(
    src,
    m.include,
    [...m.exclude, ...ctx.folders.outputsInsideSource(m)],
    {
      followLinksOutside: m.links_outside_source === 'follow',
    },
  );
  for (const u of listed.unsupported)
    b.unsupported({ mapping: m.name, file: u.relPath, reason: 'unsupported', message: u.message });
  for (const p of listed.problems)
    if (p.relPath === '.' && !fs.existsSync(src)) sourceMissing(b, m, src, 'missing');
    else b.skipped({ mapping: m.name, file: p.relPath, reason: p.reason, message: p.message });

  // The no-op fast paths: the listing is the one recorded when every output was found up to date.
  const signature = (mm: Mapping, ext: string) => ctx.settings.signature(mm, ext);
  const digest = listed.problems.length === 0 ? listingDigest(m, listed.files, signature) : undefined;
  const snap = digest !== undefined ? await ctx.state.files.snapshot(m.name) : undefined;
  // --retranslate all looks at every output: no fast path vouches for one.
  const everyOutput = ctx.retranslate.has('all');
  // The output folders list the same names as when the snapshot was taken: every output then is
  // there. Nothing is in flight that could change one, and no other mapping can claim one.
  const outputsHeld =
    snap !== undefined &&
    !everyOutput &&
    ctx.idle() &&
    !ctx.folders.sharesOutputRoots(m) &&
    outputsDigest(ctx.loaded.dir, snap.outputDirs) === snap.outputsDigest;
  if (snap !== undefined && digest === snap.digest && !everyOutput) {
    // Nothing to look at per file. The outputs are claimed (collisions) only if later work needs it.
    if (outputsHeld) {
      const n = listed.files.length;
      b.plan.files += n;
      b.plan.unchanged += n * m.targets.length;
      ctx.claims.defer(m, listed.files);
      ctx.events.emit('scan:done', { mapping: m.name, files: n, hashed: 0, bytesHashed: 0 });
      return;
    }
    ctx.listing = new OutputListing(ctx.loaded.dir);
    for (let i = 0; i < listed.files.length; i++) {
      if (i > 0 && i % 5000 === 0) ctx.events.emit('scan:progress', { mapping: m.name, files: i, hashed: 0 });
      b.plan.files++;
      await planFileTargets(ctx, b, m, {
        file: listed.files[i] as FoundFile,
        sha256: undefined,
        verified: true,
      });
    }
    ctx.listing = undefined;
    ctx.events.emit('scan:done', { mapping: m.name, files: listed.files.length, hashed: 0, bytesHashed: 0 });
    return; // same listing: no source is gone
  }

  // Files were added, edited or removed in some folders only: a folder whose own listing is the
  // snapshot's is vouched for as a whole (its files as they were then, their outputs then still
  // there), and only the other folders' file records are read.
  const files = listed.files;
  const byFolder =
    outputsHeld && snap.folders ? compareFolders(m, files, snap.folders, signature) : undefined;
  // Records of the changed folders only while they are few (a query each on SQLite).
  const known =
    byFolder && byFolder.changed.length <= Math.max(64, byFolder.names.length - byFolder.changed.length)
      ? await ctx.state.files.listedIn(m.name, byFolder.changed)
      : await ctx.state.files.listed(m.name);
  let hashed = 0;
  let bytesHashed = 0;
  let count = 0;
  // A file with its recorded size, mtime, inode and ctime and a verified mark for the current
  // settings needs nothing else (its content is read from the state only if an output needs work);
  // one without the mark needs its recorded content; any other file is hashed.
  const hashes = new Array<string | undefined>(files.length);
  /** 1: the file's verified mark matches; 2: and the snapshot vouches for it (below). */
  const verified = new Uint8Array(files.length);
  const toHash: number[] = [];
  const recorded: number[] = [];
  // Files the mapping's snapshot still vouches for although the listing changed (files were added or
  // edited beside them): recorded as they were then, and the outputs then still there. A snapshot
  // is dropped by any change of a file record and any job done, so such a file's outputs are up to
  // date: nothing is looked at for them, as on the no-op path.
  const vouched: FoundFile[] = [];
  /** Files vouched for by their folder whose record was not read. */
  let unread = 0;
  for (let i = 0; i < files.length; i++) {
    const f = files[i] as FoundFile;
    if (byFolder?.same[byFolder.of[i] as number] === 1) {
      verified[i] = 2;
      vouched.push(f);
      if (!known.has(f.relPath)) unread++;
      continue;
    }
    const prev = known.get(f.relPath);
    if (!prev || !matchesRecord(f, prev[1], prev[2], prev[4], prev[5])) toHash.push(i);
    else if (!everyOutput && prev[3] === ctx.settings.signature(m, extOf(f.relPath))) {
      verified[i] = 1;
      if (outputsHeld) {
        verified[i] = 2;
        vouched.push(f);
      }
    } else recorded.push(i);
  }
  // Claimed (lazily) before any other file of the mapping claims an output: they were there first.
  if (vouched.length) ctx.claims.defer(m, vouched);
  // The done index's size, estimated (when to load it whole rather than look outputs up one by one).
  ctx.index.expectOutputs((known.size + unread) * m.targets.length);
  // By index when few, in one read when many (the first scan after a run with much work).
  const shas =
    recorded.length > POINT_LOOKUPS_BEFORE_INDEX ? await ctx.state.files.contents(m.name) : undefined;
  for (const i of recorded) {
    const rel = (files[i] as FoundFile).relPath;
    hashes[i] = shas ? shas.get(rel) : (await ctx.state.files.get(m.name, rel))?.sha256;
  }
  // Hash a few files at once; planning below stays in path order.
  await mapLimit(toHash, 8, async (i) => {
    const f = files[i] as FoundFile;
    try {
      const sha = await hashOf(f);
      hashed++;
      bytesHashed += f.size;
      b.plan.observations.hashed.push({
        mapping: m.name,
        file: f.relPath,
        size: f.size,
        mtimeMs: f.mtimeMs,
        ino: f.ino,
        ctimeMs: f.ctimeMs,
        sha256: sha,
      });
      hashes[i] = sha;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      b.skipped({
        mapping: m.name,
        file: f.relPath,
        reason: 'unreadable',
        message: `cannot be read: ${code}`,
      });
    } finally {
      if (++count % 500 === 0) ctx.events.emit('scan:progress', { mapping: m.name, files: count, hashed });
    }
  });
  // Content digests of what was read, and of recorded contents without one (see digests.ts).
  const candidates: DigestCandidate[] = [];
  for (const i of [...toHash, ...recorded]) {
    const sha = hashes[i];
    const f = files[i] as FoundFile;
    if (sha !== undefined)
      candidates.push({
        relPath: f.relPath,
        absPath: f.absPath,
        size: f.size,
        mtimeMs: f.mtimeMs,
        sha256: sha,
      });
  }
  await digestContents(ctx, b, m, candidates);
  ctx.listing = new OutputListing(ctx.loaded.dir);
  const toVerify: Array<{ relPath: string; sig: number }> = [];
  let fresh = 0;
  for (let i = 0; i < files.length; i++) {
    const f = files[i] as FoundFile;
    known.delete(f.relPath); // what is left in `known` afterwards is gone
    if (i > 0 && i % 5000 === 0) ctx.events.emit('scan:progress', { mapping: m.name, files: i, hashed });
    if (verified[i] === 2) {
      b.plan.files++;
      b.plan.unchanged += m.targets.length;
      fresh++;
      continue;
    }
    const isVerified = verified[i] === 1;
    const sha = hashes[i];
    if (sha === undefined && !isVerified) continue; // could not be read (reported)
    b.plan.files++;
    if (!isVerified && skippedBeforeUpload(b, m, f)) continue;
    if (await planFileTargets(ctx, b, m, { file: f, sha256: sha, verified: isVerified })) {
      fresh++;
      if (!isVerified)
        toVerify.push({ relPath: f.relPath, sig: ctx.settings.signature(m, extOf(f.relPath)) });
    }
  }
  const outputListings = ctx.listing.dirs;
  ctx.listing = undefined;
  if (toVerify.length) b.plan.observations.verified.push({ mapping: m.name, files: toVerify });
  b.plan.hashed += hashed;
  ctx.events.emit('scan:done', { mapping: m.name, files: listed.files.length, hashed, bytesHashed });
  // Sources gone since the last run (their outputs are handled after the work: a rename reuses the
  // old output first). A source folder that cannot be read, or that is suddenly empty (a share not
  // mounted), removes nothing: outputs are not deleted on a guess.
  const gone = [...known.keys()];
  const blind = listed.problems.filter((p) => p.reason === 'unreadable').map((p) => p.relPath);
  if (blind.includes('.') || (listed.files.length === 0 && gone.length > 0)) {
    if (!blind.includes('.')) sourceMissing(b, m, src, 'empty');
    if (gone.length)
      ctx.logger.warn(
        { mapping: m.name, source: src, files_known: known.size },
        'the source folder is unreadable or empty: deleted sources are not processed this run',
      );
  } else {
    for (const relPath of gone) {
      if (blind.some((p) => relPath === p || relPath.startsWith(p + '/'))) continue;
      b.gone.push({ mapping: m, relPath });
    }
  }
  // Every file's every output up to date and nothing gone: the next scan of this listing is a no-op.
  if (digest !== undefined && fresh === files.length && gone.length === 0) {
    // The folders of the vouched files' outputs were not read this time: the old snapshot's still count.
    const dirs = new Set([...outputListings.keys(), ...(vouched.length && snap ? snap.outputDirs : [])]);
    const outputDirs = [...dirs].sort();
    b.plan.observations.snapshots.push({
      mapping: m.name,
      files: files.length,
      digest,
      outputDirs,
      outputsDigest: outputsDigest(ctx.loaded.dir, outputDirs, outputListings),
      folders: pairsOf(byFolder ?? folderDigests(m, files, signature)),
    });
  }
}

/**
 * A listing's folders against the snapshot's: which of them have the digest they had then (`same`,
 * 1 by folder index), and the others, listed now or then but not both alike (`changed`).
 */
function compareFolders(
  m: Mapping,
  files: FoundFile[],
  then: ReadonlyMap<string, string>,
  signature: (m: Mapping, ext: string) => number,
): ListingFolders & { same: Uint8Array; changed: string[] } {
  const now = folderDigests(m, files, signature);
  const same = new Uint8Array(now.names.length);
  const changed: string[] = [];
  now.names.forEach((folder, k) => {
    if (then.get(folder) === now.digests[k]) same[k] = 1;
    else changed.push(folder);
  });
  const listed = new Set(now.names);
  for (const folder of then.keys()) if (!listed.has(folder)) changed.push(folder);
  return { ...now, same, changed };
}

/** A listing's folder digests as the snapshot keeps them. */
function pairsOf(f: ListingFolders): Array<[string, string]> {
  return f.names.map((name, k) => [name, f.digests[k] as string]);
}

/**
 * Plan one source file by path (watch events, a re-plan): stat, hash unless size, mtime, inode and
 * ctime match its record, and plan every target or only the one rendering to `onlyOutput`. 'gone'
 * when it does not exist.
 */
export async function planPath(
  ctx: PlanContext,
  b: PlanBuilder,
  m: Mapping,
  relPath: string,
  onlyOutput?: string,
): Promise<'gone' | undefined> {
  const abs = path.join(ctx.folders.sourceOf(m), relPath);
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    return 'gone';
  }
  if (!st.isFile()) return undefined;
  const outside = realPathOutside(ctx.folders.sourceOf(m), abs, relPath, m);
  if (outside) {
    b.skipped({ mapping: m.name, file: relPath, reason: outside.reason, message: outside.message });
    return undefined;
  }
  const ext = extOf(relPath);
  if (!isSupportedExtension(ext)) {
    b.unsupported({
      mapping: m.name,
      file: relPath,
      reason: 'unsupported',
      message: unsupportedMessage(ext),
    });
    return undefined;
  }
  const known = await ctx.state.files.get(m.name, relPath);
  const prev =
    known && matchesRecord(st, known.size, known.mtime_ms, known.ino, known.ctime_ms) ? known : undefined;
  const isVerified =
    prev !== undefined && !ctx.retranslate.has('all') && prev.verified === ctx.settings.signature(m, ext);
  let sha: string;
  if (prev) sha = prev.sha256;
  else {
    try {
      sha = await sha256File(abs);
    } catch (err) {
      b.skipped({
        mapping: m.name,
        file: relPath,
        reason: 'unreadable',
        message: `cannot be read: ${(err as Error).message}`,
      });
      return undefined;
    }
    b.plan.hashed++;
    b.plan.observations.hashed.push({
      mapping: m.name,
      file: relPath,
      size: st.size,
      mtimeMs: st.mtimeMs,
      ino: st.ino,
      ctimeMs: st.ctimeMs,
      sha256: sha,
    });
  }
  b.plan.files++;
  const f = { relPath, absPath: abs, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
  if (!isVerified) await digestContents(ctx, b, m, [{ ...f, sha256: sha }]);
  if (!isVerified && skippedBeforeUpload(b, m, f)) return undefined;
  if (
    (await planFileTargets(ctx, b, m, { file: f, sha256: sha, verified: isVerified }, onlyOutput)) &&
    !isVerified
  )
    b.plan.observations.verified.push({
      mapping: m.name,
      files: [{ relPath, sig: ctx.settings.signature(m, ext) }],
    });
  return undefined;
}

/**
 * Pre-flight of a file that may be uploaded (not verified up to date): an empty file, or one whose
 * first bytes contradict its extension, is skipped with the reason and never uploaded (each upload
 * may be billed, and the service would fail it once per target and run). True when skipped.
 */
function skippedBeforeUpload(
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

/** A file event's path that resolves (links followed) outside its source folder, as a scan problem. */
function realPathOutside(root: string, abs: string, relPath: string, m: Mapping): ScanProblem | undefined {
  try {
    return linkOutsideProblem(relPath, fs.realpathSync(abs), fs.realpathSync(root), {
      followLinksOutside: m.links_outside_source === 'follow',
    });
  } catch {
    return undefined; // gone meanwhile: the hash below reports it
  }
}
