import type { Mapping } from '../../manifest/sections/mapping.js';
import type { PlanBuilder } from './builder.js';
import type { PlanContext } from './context.js';
import { relPathsIn, type FoundFile, type ListedTree } from './list-sources.js';
import { listingDigests, type ListingFolders } from './listing-digest.js';
import { OutputListing, outputsRecord, outputsStamp, type OutputsRecord } from './output-listing.js';
import type { Observations } from './types.js';
import { planFileTargets } from './units.js';

// The no-op fast paths of a mapping's listing: a listing that is its snapshot's (every file as it
// was when every output was found up to date) needs no file record, and while the output folders'
// stamps, or else their names, are as then, no output is looked at either. Otherwise each file's
// outputs are looked at as the snapshot vouched for nothing. A snapshot whose folders changed with
// every output there is taken again, so that one stray file does not slow every later no-op.

type Snapshot = Awaited<ReturnType<PlanContext['state']['files']['snapshot']>>;
type Signature = (m: Mapping, ext: string) => number;

/** What the no-op fast paths found: the listing's digests, the mapping's snapshot, whether it holds. */
export interface FastPaths {
  /** The listing's digest and its folders' (none when some of it could not be read). */
  listing: (ListingFolders & { digest: string }) | undefined;
  snap: Snapshot;
  /** --retranslate all looks at every output: no fast path vouches for one. */
  everyOutput: boolean;
  /** The output folders list the same names as when the snapshot was taken. */
  outputsHeld: boolean;
  /**
   * The names held but the snapshot's stamp did not (it had none, or a folder's times changed with
   * its names as they were, a temporary file come and gone): the record to keep instead, so that
   * the next no-op takes a stat per folder again.
   */
  restamped?: OutputsRecord;
}

/** The no-op fast paths: the listing is the one recorded when every output was found up to date. */
export async function fastPaths(ctx: PlanContext, m: Mapping, listed: ListedTree): Promise<FastPaths> {
  const signature: Signature = (mm, ext) => ctx.settings.signature(mm, ext);
  const listing = listed.problems.length === 0 ? listingDigests(m, listed.folders, signature) : undefined;
  const snap = listing !== undefined ? await ctx.state.files.snapshot(m.name) : undefined;
  // Imported wording waits for some output of the mapping: its files are looked at one by one.
  const everyOutput = ctx.retranslate.has('all') || wordingWaitsIn(ctx, m.name);
  // Nothing is in flight that could change an output, and no other mapping can claim one.
  const mayHold = snap !== undefined && !everyOutput && ctx.idle() && !ctx.folders.sharesOutputRoots(m);
  if (!mayHold) return { listing, snap, everyOutput, outputsHeld: false };
  const base = ctx.loaded.dir;
  if (snap.outputsStamp !== undefined && outputsStamp(base, snap.outputDirs) === snap.outputsStamp)
    return { listing, snap, everyOutput, outputsHeld: true };
  const now = outputsRecord(base, snap.outputDirs);
  const outputsHeld = now.outputsDigest === snap.outputsDigest;
  const restamped = outputsHeld && now.outputsStamp !== undefined ? now : undefined;
  return { listing, snap, everyOutput, outputsHeld, ...(restamped ? { restamped } : {}) };
}

/** Whether a person's wording imported since (xliff import) waits for an output of the mapping. */
export function wordingWaitsIn(ctx: PlanContext, mapping: string): boolean {
  for (const w of ctx.importedWording.values()) if (w.mapping === mapping) return true;
  return false;
}

/** The listing is the snapshot's: nothing to look at per file unless an output folder changed. */
export async function planSameListing(
  ctx: PlanContext,
  b: PlanBuilder,
  m: Mapping,
  listed: ListedTree,
  fast: FastPaths,
): Promise<void> {
  // The outputs are claimed (collisions) only if later work needs it.
  if (fast.outputsHeld) {
    const n = listed.count;
    if (fast.restamped && fast.snap && fast.listing)
      b.plan.observations.snapshots.push(
        snapshotOf(m, n, fast.listing, fast.snap.outputDirs, fast.restamped),
      );
    b.plan.files += n;
    b.plan.unchanged += n * m.targets.length;
    ctx.claims.defer(m, () => relPathsIn(listed.folders));
    ctx.events.emit('scan:done', { mapping: m.name, files: n, hashed: 0, bytesHashed: 0 });
    return;
  }
  const files = listed.files;
  const listing = new OutputListing(ctx.loaded.dir);
  ctx.listing = listing;
  let fresh = 0;
  for (let i = 0; i < files.length; i++) {
    if (i > 0 && i % 5000 === 0) ctx.events.emit('scan:progress', { mapping: m.name, files: i, hashed: 0 });
    b.plan.files++;
    if (await planFileTargets(ctx, b, m, { file: files[i] as FoundFile, sha256: undefined, verified: true }))
      fresh++;
  }
  ctx.listing = undefined;
  ctx.events.emit('scan:done', { mapping: m.name, files: files.length, hashed: 0, bytesHashed: 0 });
  // An output folder changed with every output still there (a file of someone else's in it): the
  // snapshot is taken again, or every later no-op would look at every output.
  if (fresh === files.length && fast.listing) {
    const outputDirs = [...listing.dirs.keys()].sort();
    const record = outputsRecord(ctx.loaded.dir, outputDirs, listing.dirs);
    b.plan.observations.snapshots.push(snapshotOf(m, files.length, fast.listing, outputDirs, record));
  }
}

/** The snapshot a plan records of a listing whose every output was found up to date. */
export function snapshotOf(
  m: Mapping,
  files: number,
  listing: ListingFolders & { digest: string },
  outputDirs: string[],
  outputs: OutputsRecord,
): Observations['snapshots'][number] {
  return {
    mapping: m.name,
    files,
    digest: listing.digest,
    outputDirs,
    ...outputs,
    folders: pairsOf(listing),
  };
}

/** A listing's folder digests as the snapshot keeps them. */
function pairsOf(f: ListingFolders): Array<[string, string]> {
  return f.names.map((name, k) => [name, f.digests[k] as string]);
}
