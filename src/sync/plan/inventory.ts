import fs from 'node:fs';
import { usesSegments, type Mapping } from '../../manifest/sections/mapping.js';
import { sourceMissingMessage } from '../../manifest/source-missing.js';
import type { ListedFile } from '../../state/types.js';
import type { PlanBuilder } from './builder.js';
import type { PlanContext } from './context.js';
import { digestContents } from './digests.js';
import { matchesRecord } from './file-stamp.js';
import { extOf } from './fingerprint.js';
import { listSourceFiles, relPathsIn, type FoundFile, type ListedFolder } from './list-sources.js';
import type { ListingFolders } from './listing-digest.js';
import { OutputListing, outputsRecord } from './output-listing.js';
import { fastPaths, planSameListing, snapshotOf, type FastPaths } from './same-listing.js';
import {
  NEEDS_HASH,
  NEEDS_NOTHING,
  NEEDS_RECORDED,
  digestCandidates,
  outputsToLookUp,
  readContents,
  skippedBeforeUpload,
  type ContentsRead,
} from './source-reading.js';
import { planFileTargets } from './units.js';
import { folderOfPath } from './walk-folders.js';

// Taking stock of a mapping's sources: list, skip what cannot be translated, hash what is new or
// changed (size, mtime, inode and ctime as recorded: file-stamp.ts; else sha256 decides), and take
// the no-op fast paths (a listing equal to the mapping's snapshot, a file's verified mark) before any
// per-output look. What was observed (hashes, marks, snapshots) goes into the plan for `sync` to
// record. Reading the files is ./source-reading.ts's; one file by path is ./plan-path.ts's.

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

type Listed = Awaited<ReturnType<typeof listSourceFiles>>;

/** The files of the changed folders sorted by what their records say (index i: the i-th file). */
interface ByRecord {
  byFolder: FolderComparison | undefined;
  /** 1: the file's verified mark matches; 2: and the snapshot vouches for it. */
  verified: Uint8Array;
  /** NEEDS_HASH, NEEDS_RECORDED or NEEDS_NOTHING (verified), by file. */
  need: Uint8Array;
  vouched: FoundFile[];
  /** Recorded files that are not listed: gone since the last run. */
  gone: string[];
  /** Records read. */
  read: number;
  /** Files vouched for by their folder whose record was not read. */
  unread: number;
  /** The folders the snapshot vouches for whole (their files are not in the files sorted). */
  vouchedFolders: VouchedFolders;
}

/** Listed folders whose own listing is the snapshot's: nothing is looked at per file in them. */
interface VouchedFolders {
  folders: ListedFolder[];
  files: number;
}

/** Plan one mapping: every file found, in path order; sources gone are kept for planRemovals. */
export async function planMapping(ctx: PlanContext, b: PlanBuilder, m: Mapping): Promise<void> {
  const src = ctx.folders.sourceOf(m);
  ctx.events.emit('scan:start', { mapping: m.name });
  const listed = await listMapping(ctx, b, m, src);
  const fast = await fastPaths(ctx, m, listed);
  if (fast.snap !== undefined && fast.listing?.digest === fast.snap.digest && !fast.everyOutput)
    return planSameListing(ctx, b, m, listed, fast); // same listing: no source is gone
  const byFolder = folderComparison(fast);
  const { files, vouched } = splitByFolder(listed, byFolder);
  const records = await sortByRecord(ctx, m, files, fast, byFolder, vouched);
  const planned = await planListedFiles(ctx, b, m, files, records);
  const { hashed, bytesHashed } = planned;
  b.plan.hashed += hashed;
  ctx.events.emit('scan:done', { mapping: m.name, files: listed.count, hashed, bytesHashed });
  const gone = noteGone(ctx, b, m, src, listed, records);
  // Every file's every output up to date and nothing gone: the next scan of this listing is a no-op.
  if (fast.listing && planned.fresh === listed.count && gone === 0)
    noteSnapshot(ctx, b, m, listed.count, fast.listing, fast, records, planned.outputListings);
}

/** The listing's folders against the snapshot's, where the output folders are as it saw them. */
function folderComparison(fast: FastPaths): FolderComparison | undefined {
  const { snap, outputsHeld, listing } = fast;
  return outputsHeld && snap?.folders && listing ? compareFolders(listing, snap.folders) : undefined;
}

/**
 * The files to sort by their records: those of the folders that changed since the snapshot. A
 * folder the snapshot vouches for is counted whole; an edit in a tree of 100,000 files makes no
 * object for the other 99,999 (the listing's folders are in the comparison's order).
 */
function splitByFolder(
  listed: Listed,
  byFolder: FolderComparison | undefined,
): { files: FoundFile[]; vouched: VouchedFolders } {
  const vouched: VouchedFolders = { folders: [], files: 0 };
  if (!byFolder) return { files: listed.files, vouched };
  const changed: ListedFolder[] = [];
  listed.folders.forEach((f, k) => {
    if (byFolder.same[k] !== 1) return void changed.push(f);
    vouched.folders.push(f);
    vouched.files += f.names.length;
  });
  return { files: vouched.files === 0 ? listed.files : listed.filesIn(changed), vouched };
}

/** Lists the mapping's sources; reports the unsupported and unreadable ones (and a missing folder). */
async function listMapping(ctx: PlanContext, b: PlanBuilder, m: Mapping, src: string): Promise<Listed> {
  // Output folders inside the source folder are not sources.
  const listed = await listSourceFiles(
    src,
    m.include,
    [...m.exclude, ...ctx.folders.outputsInsideSource(m)],
    {
      followLinksOutside: m.links_outside_source === 'follow',
      segmentFormats: usesSegments(m),
    },
  );
  for (const u of listed.unsupported)
    b.unsupported({ mapping: m.name, file: u.relPath, reason: 'unsupported', message: u.message });
  for (const p of listed.problems)
    if (p.relPath === '.' && !fs.existsSync(src)) sourceMissing(b, m, src, 'missing');
    else b.skipped({ mapping: m.name, file: p.relPath, reason: p.reason, message: p.message });
  return listed;
}

/**
 * Files were added, edited or removed: sorts the files by their records. A folder whose own listing
 * is the snapshot's is vouched for as a whole (its files as they were then, their outputs then still
 * there), and only the other folders' file records are read. A file with its recorded size, mtime,
 * inode and ctime and a verified mark for the current settings needs nothing else (its content is
 * read from the state only if an output needs work); one without the mark needs its recorded
 * content; any other file is hashed.
 */
async function sortByRecord(
  ctx: PlanContext,
  m: Mapping,
  files: FoundFile[],
  fast: FastPaths,
  byFolder: FolderComparison | undefined,
  vouchedFolders: VouchedFolders,
): Promise<ByRecord> {
  const { outputsHeld, everyOutput } = fast;
  const r: ByRecord = {
    byFolder,
    verified: new Uint8Array(files.length),
    need: new Uint8Array(files.length),
    // Files the mapping's snapshot still vouches for although the listing changed (files were added
    // or edited beside them): recorded as they were then, and the outputs then still there. A
    // snapshot is dropped by any change of a file record and any job done, so such a file's outputs
    // are up to date: nothing is looked at for them, as on the no-op path.
    vouched: [],
    gone: [],
    read: 0,
    unread: 0,
    vouchedFolders,
  };
  r.need.fill(NEEDS_HASH); // unless its record says otherwise
  const sortOne = (i: number, prev: ListedFile) => {
    const f = files[i] as FoundFile;
    if (r.verified[i] === 2 || !matchesRecord(f, prev[1], prev[2], prev[4], prev[5])) return;
    if (!everyOutput && prev[3] === ctx.settings.signature(m, extOf(f.relPath))) {
      r.need[i] = NEEDS_NOTHING;
      r.verified[i] = outputsHeld ? 2 : 1;
    } else r.need[i] = NEEDS_RECORDED;
  };
  if (byFolder && byFolder.changed.length <= Math.max(64, byFolder.names.length - byFolder.changed.length)) {
    // Records of the changed folders only while they are few (a query each on SQLite).
    const known = await ctx.state.files.listedIn(m.name, byFolder.changed);
    r.read = known.size;
    r.unread = vouchedFolders.files;
    for (let i = 0; i < files.length; i++) {
      const rel = (files[i] as FoundFile).relPath;
      const prev = known.get(rel);
      if (prev === undefined) continue;
      known.delete(rel);
      sortOne(i, prev);
    }
    r.gone = [...known.keys()];
  } else {
    // Every record, a page at a time: the first scan after a run with much work reads 100,000s,
    // and holds no map of them beside the listing.
    const vouched = new Set(vouchedFolders.folders.map((f) => f.rel));
    for await (const page of ctx.state.files.listedPages(m.name)) {
      r.read += page.length;
      for (const prev of page) {
        const i = indexOfPath(files, prev[0]);
        if (i !== -1) sortOne(i, prev);
        else if (!vouched.has(folderOfPath(prev[0]))) r.gone.push(prev[0]);
      }
    }
  }
  for (let i = 0; i < files.length; i++) if (r.verified[i] === 2) r.vouched.push(files[i] as FoundFile);
  // Claimed (lazily) before any other file of the mapping claims an output: they were there first.
  if (r.vouched.length || vouchedFolders.files)
    ctx.claims.defer(m, () => [...relPathsIn(vouchedFolders.folders), ...r.vouched.map((f) => f.relPath)]);
  // The done index's size, estimated (when to load it whole rather than look outputs up one by one).
  ctx.index.expectOutputs((r.read + r.unread) * m.targets.length);
  return r;
}

/** The index of the file listed at `relPath` (files are sorted by path), -1 when none is. */
function indexOfPath(files: readonly FoundFile[], relPath: string): number {
  let lo = 0;
  let hi = files.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const p = (files[mid] as FoundFile).relPath;
    if (p === relPath) return mid;
    if (p < relPath) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * Files planned a part at a time, in path order: what a part needs (recorded contents, hashes,
 * digests, the done jobs of its outputs) is read for that part alone, so a scan that checks
 * 100,000s of files against their jobs holds a part's worth of them, not all.
 */
const PART_FILES = 1024;

/**
 * Plans every listed file's targets in path order. Answers how many files have every output up to
 * date, the output folders read, and what was hashed.
 */
async function planListedFiles(
  ctx: PlanContext,
  b: PlanBuilder,
  m: Mapping,
  files: FoundFile[],
  r: ByRecord,
): Promise<{ fresh: number; outputListings: OutputListing['dirs'] } & ContentsRead> {
  ctx.listing = new OutputListing(ctx.loaded.dir);
  // Files found up to date, by settings signature (a mapping has a handful): their marks.
  const toVerify = new Map<number, string[]>();
  const read: ContentsRead = { hashed: 0, bytesHashed: 0, done: 0 };
  const whole = r.vouchedFolders.files;
  b.plan.files += whole;
  b.plan.unchanged += whole * m.targets.length;
  let fresh = whole;
  for (let from = 0; from < files.length; from += PART_FILES) {
    const part = { from, to: Math.min(files.length, from + PART_FILES) };
    const hashes = await readContents(ctx, b, m, files, r, part, read);
    await digestContents(ctx, b, m, digestCandidates(files, hashes));
    await ctx.index.prefetch(outputsToLookUp(ctx, m, files, r, part));
    for (let i = part.from; i < part.to; i++) {
      const f = files[i] as FoundFile;
      if (i > 0 && i % 5000 === 0)
        ctx.events.emit('scan:progress', { mapping: m.name, files: i, hashed: read.hashed });
      if (r.verified[i] === 2) {
        b.plan.files++;
        b.plan.unchanged += m.targets.length;
        fresh++;
        continue;
      }
      const isVerified = r.verified[i] === 1;
      const sha = hashes.get(i);
      if (sha === undefined && !isVerified) continue; // could not be read (reported)
      b.plan.files++;
      if (!isVerified && skippedBeforeUpload(b, m, f)) continue;
      if (await planFileTargets(ctx, b, m, { file: f, sha256: sha, verified: isVerified })) {
        fresh++;
        if (!isVerified) {
          const sig = ctx.settings.signature(m, extOf(f.relPath));
          const same = toVerify.get(sig);
          if (same) same.push(f.relPath);
          else toVerify.set(sig, [f.relPath]);
        }
      }
    }
  }
  await ctx.index.prefetch([]); // nothing read ahead outlives the scan
  const outputListings = ctx.listing.dirs;
  ctx.listing = undefined;
  for (const [sig, files] of toVerify) b.plan.observations.verified.push({ mapping: m.name, sig, files });
  return { fresh, outputListings, ...read };
}

/**
 * Sources gone since the last run (their outputs are handled after the work: a rename reuses the
 * old output first). A source folder that cannot be read, or that is suddenly empty (a share not
 * mounted), removes nothing: outputs are not deleted on a guess. Answers how many are gone.
 */
function noteGone(
  ctx: PlanContext,
  b: PlanBuilder,
  m: Mapping,
  src: string,
  listed: Listed,
  r: ByRecord,
): number {
  const { gone } = r;
  const blind = listed.problems.filter((p) => p.reason === 'unreadable').map((p) => p.relPath);
  if (blind.includes('.') || (listed.count === 0 && gone.length > 0)) {
    if (!blind.includes('.')) sourceMissing(b, m, src, 'empty');
    if (gone.length)
      ctx.logger.warn(
        { mapping: m.name, source: src, files_known: r.read },
        'the source folder is unreadable or empty: deleted sources are not processed this run',
      );
  } else {
    for (const relPath of gone) {
      if (blind.some((p) => relPath === p || relPath.startsWith(p + '/'))) continue;
      b.gone.push({ mapping: m, relPath });
    }
  }
  return gone.length;
}

/** Records the listing as a snapshot: the next scan of it is a no-op. */
function noteSnapshot(
  ctx: PlanContext,
  b: PlanBuilder,
  m: Mapping,
  files: number,
  listing: ListingFolders & { digest: string },
  fast: FastPaths,
  r: ByRecord,
  outputListings: OutputListing['dirs'],
): void {
  // The folders of the vouched files' outputs were not read this time: the old snapshot's still count.
  const dirs = new Set([
    ...outputListings.keys(),
    ...((r.vouched.length || r.vouchedFolders.files) && fast.snap ? fast.snap.outputDirs : []),
  ]);
  const outputDirs = [...dirs].sort();
  b.plan.observations.snapshots.push(
    snapshotOf(m, files, listing, outputDirs, outputsRecord(ctx.loaded.dir, outputDirs, outputListings)),
  );
}

type FolderComparison = ListingFolders & { same: Uint8Array; changed: string[] };

/**
 * A listing's folders against the snapshot's: which of them have the digest they had then (`same`,
 * 1 by folder index), and the others, listed now or then but not both alike (`changed`).
 */
function compareFolders(now: ListingFolders, then: ReadonlyMap<string, string>): FolderComparison {
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
