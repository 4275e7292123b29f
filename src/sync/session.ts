import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import PQueue from 'p-queue';
import {
  AuthError,
  InvalidRequestError,
  NotFoundError,
  QuotaExceededError,
  UploadMaybeAcceptedError,
} from '../api/errors.js';
import type { ServiceClient } from '../api/client.js';
import type { DocumentStatus, UploadDocumentRequest } from '../api/types.js';
import type { Logger } from '../log/logger.js';
import { registerSecret } from '../log/secrets.js';
import { reconcileStyles } from '../styles/reconcile.js';
import type { LoadedManifest } from '../manifest/types.js';
import type { Mapping, Target } from '../manifest/schema.js';
import { outputRoot, renderOutputPath } from '../manifest/paths.js';
import type { DoneIndexRow, JobRecord, StateStore } from '../state/store.js';
import { type FailureKind, type JobRef, type SyncEvents, createSyncEvents } from './events.js';
import {
  baseFingerprint,
  extOf,
  fullFingerprint,
  settingsFor,
  uploadRequest,
  type Settings,
  type StyleRef,
} from './fingerprint.js';
import { copyFileAtomic, deleteOutput, exists, mtimeOf, removePartialFiles } from './outputs.js';
import { isSupportedExtension, listSourceFiles, sha256File, type FoundFile } from './scan.js';
import { emptySummary, summaryCounts, type SkippedItem, type SyncSummary } from './summary.js';
import { nextPollDelay, pollTiming, type PollTiming } from './timing.js';

// A sync session: the engine behind `locsync sync` (one pass) and `locsync watch` (long-lived).
// Record before acting, act, record the result: a job row exists before its upload, id+key are
// committed the moment the upload answers, an output is renamed into place before its job is done.

/** The part of the service client the engine uses for documents. */
export type DocumentClient = Pick<ServiceClient, 'uploadDocument' | 'getDocumentStatus' | 'downloadDocument'>;

export interface SyncConnection {
  client: ServiceClient | DocumentClient;
}

/** What the style reconciler answers (src/styles/reconcile.ts StylePlan, the parts sync needs). */
export interface StylePlanLike {
  styleIds: Record<string, string>;
  changedKeys: string[];
}
export type ReconcileFn = (args: {
  loaded: LoadedManifest;
  client: ServiceClient;
  state: StateStore;
  apply: boolean;
  only?: string[];
  logger?: Logger;
}) => Promise<StylePlanLike>;

export interface SyncOptions {
  dryRun?: boolean;
  /** Mapping names to work on (default: all). */
  only?: string[];
  /** Re-translate outputs made with an older version of their style list (billed). */
  retranslate?: 'stale';
  signal?: AbortSignal;
  /** Poll timing overrides (tests); LOCSYNC_POLL_* env vars apply too. */
  poll?: Partial<PollTiming>;
  /** Override the manifest's service.concurrency. */
  concurrency?: number;
  /** Override the manifest's service.max_undownloaded. */
  maxUndownloaded?: number;
  /** Command recorded in the runs table (default 'sync'). */
  command?: string;
  /** When `signal` aborts: how long jobs in flight may still finish, ms (default 30 s). */
  stopDeadlineMs?: number;
}

export interface PlanItem {
  mapping: string;
  file: string;
  target: string;
  output: string;
}

/** What a sync would do (planSync, `locsync plan`, `sync --dry-run`). */
export interface SyncPlan {
  toTranslate: Array<PlanItem & { why: 'new' | 'changed' | 'retry' | 'stale' | 'output-missing' }>;
  toReuse: Array<PlanItem & { from: string }>;
  toResume: PlanItem[];
  stale: PlanItem[];
  unchanged: number;
  unsupported: SkippedItem[];
  skipped: SkippedItem[];
  gaveUp: PlanItem[];
  toDelete: string[];
}

export interface SyncSessionArgs {
  loaded: LoadedManifest;
  /** Not needed for a dry run. */
  connection?: SyncConnection;
  state: StateStore;
  logger: Logger;
  events?: SyncEvents;
  options?: SyncOptions;
  /** The style reconciler (default: reconcileStyles of src/styles/reconcile.ts). */
  reconcile?: ReconcileFn;
}

/** One (source file, target) unit of work. */
interface Unit {
  key: string;
  mapping: Mapping;
  target: Target;
  relPath: string;
  absPath: string;
  sha256: string;
  fp: string;
  base: string;
  output: string;
  outputAbs: string;
  request: UploadDocumentRequest;
}

type Decision =
  | { kind: 'unchanged' }
  | { kind: 'stale' }
  | { kind: 'reuse'; from: string; fromJobId: number }
  | { kind: 'resume'; job: JobRecord }
  | { kind: 'gave-up'; job: JobRecord }
  | { kind: 'translate'; job?: JobRecord; why: SyncPlan['toTranslate'][number]['why'] };

const contentKey = (sha: string, fp: string) => `${sha}|${fp}`;

/** What the planner keeps of the latest done job of an output path. */
type DoneEntry = Pick<
  DoneIndexRow,
  'id' | 'sha256' | 'fingerprint' | 'base_fingerprint' | 'mapping' | 'rel_path'
>;

/**
 * Outputs looked up one by one (by index) before the whole done index is loaded: a run where few files
 * changed never reads every done job; one where many did reads them once.
 */
const POINT_LOOKUPS_BEFORE_INDEX = 2000;

export class SyncSession {
  readonly events: SyncEvents;
  readonly runId: number;
  private readonly loaded: LoadedManifest;
  private readonly state: StateStore;
  private readonly logger: Logger;
  private readonly opts: SyncOptions;
  private readonly client: DocumentClient | undefined;
  private readonly fullClient: ServiceClient | undefined;
  private readonly reconcileFn: ReconcileFn | undefined;
  private readonly timing: PollTiming;
  private readonly queue: PQueue;
  private readonly copyQueue = new PQueue({ concurrency: 4 });
  private readonly maxUndownloaded: number;
  private readonly started = Date.now();
  private readonly sum: SyncSummary;
  private readonly planned: SyncPlan = {
    toTranslate: [],
    toReuse: [],
    toResume: [],
    stale: [],
    unchanged: 0,
    unsupported: [],
    skipped: [],
    gaveUp: [],
    toDelete: [],
  };

  private styleIds: Record<string, string> = {};
  private changedStyleKeys = new Set<string>();
  /**
   * Latest done job per output path (what each output on disk holds), loaded on first heavy need
   * (see doneOf); until then outputs are looked up in the state by index.
   */
  private latestDone: Map<string, DoneEntry> | undefined;
  private pointLookups = 0;
  /** content key → outputs whose latest done job has that content (reuse donors). */
  private readonly byContent = new Map<string, string | string[]>();
  private byContentBuilt = false;
  /** During a scan: folder → names in it (one readdir per output folder instead of a stat per output). */
  private dirListing: Map<string, Set<string> | null> | undefined;
  /** Latest open (not done) job per output path. */
  private readonly openByOutput = new Map<string, JobRecord>();
  /** Output path → unit key that renders to it (collisions). */
  private readonly outputOwner = new Map<string, string>();
  /** Mappings whose outputs a no-op scan did not claim yet (see claimSkippedOutputs). */
  private readonly unclaimed = new Map<string, { m: Mapping; files: FoundFile[] }>();
  /** Per mapping: whether one of its output roots overlaps another mapping's. */
  private readonly sharedRoots = new Map<Mapping, boolean>();
  /** Work scheduled per output path (later work on the same output waits). */
  private readonly activeOutputs = new Map<string, Promise<void>>();
  /** First translation of each content key in this session (duplicates wait, then copy). */
  private readonly contentInFlight = new Map<string, Promise<void>>();
  private readonly resumedJobIds = new Set<number>();
  /** Jobs being driven (uploaded, polled, downloaded) in this session: never driven a second time. */
  private readonly drivingJobIds = new Set<number>();
  /** Per mapping, per target index: extension → settings and fingerprints. */
  private readonly settingsCache = new Map<
    Mapping,
    Array<Map<string, { settings: Settings; fp: string; base: string }>>
  >();
  /** Per mapping: source extension → signature of its targets' settings (see signatureOf). */
  private readonly signatures = new Map<Mapping, Map<string, number>>();
  /** Per mapping, per target index: whether its output root and a source folder overlap. */
  private readonly rootOverlap = new Map<Mapping, boolean[]>();
  /** Dry run: content key → output of the first planned translation. */
  private readonly plannedContent = new Map<string, string>();
  private readonly pendingRemovals: Array<{ mapping: Mapping; relPath: string }> = [];
  private readonly tasks = new Set<Promise<void>>();
  private undownloaded = 0;
  private slotWaiters: Array<() => void> = [];
  private uploadsStopped: { reason: string; kind: FailureKind } | undefined;
  private fatal: Error | undefined;
  private stopping = false;
  private readonly pollAbort = new AbortController();
  private finished = false;

  constructor(args: SyncSessionArgs) {
    this.loaded = args.loaded;
    this.state = args.state;
    this.logger = args.logger;
    this.events = args.events ?? createSyncEvents();
    this.opts = args.options ?? {};
    this.client = args.connection?.client;
    this.fullClient = args.connection?.client as ServiceClient | undefined;
    this.reconcileFn = args.reconcile;
    this.timing = pollTiming(this.opts.poll);
    // Every job waiting for its next poll listens on this signal.
    setMaxListeners(0, this.pollAbort.signal);
    const svc = this.loaded.manifest.service;
    this.queue = new PQueue({ concurrency: Math.max(1, this.opts.concurrency ?? svc.concurrency) });
    this.maxUndownloaded = Math.max(1, this.opts.maxUndownloaded ?? svc.max_undownloaded);
    if (!this.opts.dryRun && !this.client) throw new Error('a sync session that uploads needs a connection');
    this.runId = this.opts.dryRun ? 0 : this.state.startRun(this.opts.command ?? 'sync');
    this.sum = emptySummary(this.runId, !!this.opts.dryRun);
    for (const job of this.state.openJobs()) this.openByOutput.set(job.output_path, job);
    this.opts.signal?.addEventListener(
      'abort',
      () => void this.stop({ deadlineMs: this.opts.stopDeadlineMs ?? 30_000 }),
      {
        once: true,
      },
    );
    if (!this.opts.dryRun) this.events.emit('run:start', { runId: this.runId, dryRun: false });
  }

  // ---------------------------------------------------------------- styles

  /** Reconcile the manifest's style lists with the service (applied unless dry run). */
  async reconcileStyles(): Promise<StylePlanLike | undefined> {
    const lists = Object.keys(this.loaded.styleLists);
    if (lists.length === 0) return undefined;
    if (!this.fullClient) return undefined;
    const fn = this.reconcileFn ?? reconcileStyles;
    const plan = await fn({
      loaded: this.loaded,
      client: this.fullClient,
      state: this.state,
      apply: !this.opts.dryRun,
      logger: this.logger,
    });
    this.useStylePlan(plan);
    return plan;
  }

  /** Use the style ids and changed lists of a reconciler answer (planSync passes its own). */
  useStylePlan(plan: StylePlanLike): void {
    this.styleIds = { ...plan.styleIds };
    this.changedStyleKeys = new Set(plan.changedKeys);
    this.settingsCache.clear();
    this.signatures.clear();
  }

  private styleRef(key: string | undefined): StyleRef | undefined {
    if (!key) return undefined;
    const applied = this.state.getStyle(key);
    // In a dry run a changed list is not applied yet: its outputs are stale-to-be.
    const hash =
      this.opts.dryRun && this.changedStyleKeys.has(key)
        ? `pending-change:${applied?.hash ?? ''}`
        : (applied?.hash ?? 'unapplied');
    return { key, styleId: this.styleIds[key] ?? applied?.style_id, hash };
  }

  // ---------------------------------------------------------------- scanning

  private mappings(names?: string[]): Mapping[] {
    const all = this.loaded.manifest.mappings;
    const wanted = names ?? this.opts.only;
    if (!wanted || wanted.length === 0) return all;
    return all.filter((m) => wanted.includes(m.name));
  }

  private sourceAbs(m: Mapping): string {
    return path.resolve(this.loaded.dir, m.source);
  }

  private patternOf(m: Mapping, t: Target): string {
    return t.output ?? m.output;
  }

  /** Scan every (or the named) mapping: find, hash, classify, and queue the work. */
  async scanAll(mappingNames?: string[]): Promise<void> {
    for (const m of this.mappings(mappingNames)) await this.scanMapping(m);
  }

  private async scanMapping(m: Mapping): Promise<void> {
    const src = this.sourceAbs(m);
    this.events.emit('scan:start', { mapping: m.name });
    // Output folders inside the source folder are not sources.
    const ignore = [...m.exclude];
    for (const t of m.targets) {
      const root = path.resolve(this.loaded.dir, outputRoot(this.patternOf(m, t)));
      const rel = path.relative(src, root);
      if (rel && !rel.startsWith('..') && !path.isAbsolute(rel))
        ignore.push(`${rel.split(path.sep).join('/')}/**`);
    }
    const listed = await listSourceFiles(src, m.include, ignore);
    for (const u of listed.unsupported) {
      const item = { mapping: m.name, file: u.relPath, reason: u.reason, message: u.message };
      this.sum.unsupported.push(item);
      this.planned.unsupported.push(item);
      this.events.emit('file:skipped', {
        mapping: m.name,
        file: u.relPath,
        reason: 'unsupported',
        message: u.message,
      });
    }
    for (const p of listed.problems) this.skip(m.name, p.relPath, p.reason, p.message);

    // The no-op fast paths: the listing is the one recorded when every output was found up to date.
    const digest = listed.problems.length === 0 ? this.listingDigest(m, listed.files) : undefined;
    const snap = digest !== undefined ? this.state.mappingSnapshot(m.name) : undefined;
    if (snap !== undefined && digest === snap.digest) {
      // The output folders list the same names as then: every output is there. Nothing is in flight
      // that could change one, and no other mapping can claim one: nothing to look at per file. The
      // outputs are claimed (collisions) only if later work needs it (see claimSkippedOutputs).
      if (
        this.activeOutputs.size === 0 &&
        !this.sharesOutputRoots(m) &&
        this.outputsDigest(snap.outputDirs) === snap.outputsDigest
      ) {
        const n = listed.files.length;
        this.sum.files += n;
        this.sum.unchanged += n * m.targets.length;
        this.planned.unchanged += n * m.targets.length;
        this.unclaimed.set(m.name, { m, files: listed.files });
        this.events.emit('scan:done', { mapping: m.name, files: n, hashed: 0, bytesHashed: 0 });
        return;
      }
      this.dirListing = new Map();
      for (let i = 0; i < listed.files.length; i++) {
        if (i > 0 && i % 5000 === 0)
          this.events.emit('scan:progress', { mapping: m.name, files: i, hashed: 0 });
        this.sum.files++;
        this.considerFile(m, listed.files[i] as FoundFile, undefined, true);
      }
      this.dirListing = undefined;
      this.events.emit('scan:done', {
        mapping: m.name,
        files: listed.files.length,
        hashed: 0,
        bytesHashed: 0,
      });
      return; // same listing: no source is gone
    }

    const known = this.state.filesOf(m.name);
    let hashed = 0;
    let bytesHashed = 0;
    let count = 0;
    // A file with its recorded size and mtime and a verified mark for the current settings needs
    // nothing else (its content is read from the state only if an output needs work); one without
    // the mark needs its recorded content; any other file is hashed.
    const files = listed.files;
    const hashes = new Array<string | undefined>(files.length);
    const verified = new Uint8Array(files.length);
    const toHash: number[] = [];
    const recorded: number[] = [];
    for (let i = 0; i < files.length; i++) {
      const f = files[i] as FoundFile;
      const prev = known.get(f.relPath);
      if (!prev || prev[1] !== f.size || prev[2] !== f.mtimeMs) toHash.push(i);
      else if (prev[3] === this.signatureOf(m, extOf(f.relPath))) verified[i] = 1;
      else recorded.push(i);
    }
    // By index when few, in one read when many (the first scan after a run with much work).
    const shas = recorded.length > POINT_LOOKUPS_BEFORE_INDEX ? this.state.shasOf(m.name) : undefined;
    for (const i of recorded) {
      const rel = (files[i] as FoundFile).relPath;
      hashes[i] = shas ? shas.get(rel) : this.state.getFile(m.name, rel)?.sha256;
    }
    // Hash a few files at once; classification below stays in path order.
    await mapLimit(toHash, 8, async (i) => {
      const f = files[i] as FoundFile;
      try {
        const sha = await sha256File(f.absPath);
        hashed++;
        bytesHashed += f.size;
        if (!this.opts.dryRun)
          this.state.putFile({
            mapping: m.name,
            rel_path: f.relPath,
            size: f.size,
            mtime_ms: f.mtimeMs,
            sha256: sha,
          });
        hashes[i] = sha;
      } catch (err) {
        this.skip(
          m.name,
          f.relPath,
          'unreadable',
          `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        );
      } finally {
        if (++count % 500 === 0) this.events.emit('scan:progress', { mapping: m.name, files: count, hashed });
      }
    });
    this.dirListing = new Map();
    const toVerify: Array<{ relPath: string; sig: number }> = [];
    let fresh = 0;
    for (let i = 0; i < files.length; i++) {
      const f = files[i] as FoundFile;
      known.delete(f.relPath); // what is left in `known` afterwards is gone
      if (i > 0 && i % 5000 === 0) this.events.emit('scan:progress', { mapping: m.name, files: i, hashed });
      const isVerified = verified[i] === 1;
      const sha = hashes[i];
      if (sha === undefined && !isVerified) continue; // could not be read (reported)
      this.sum.files++;
      if (this.considerFile(m, f, sha, isVerified)) {
        fresh++;
        if (!isVerified) toVerify.push({ relPath: f.relPath, sig: this.signatureOf(m, extOf(f.relPath)) });
      }
    }
    const outputListings = this.dirListing;
    this.dirListing = undefined;
    if (!this.opts.dryRun) this.state.verifyFiles(m.name, toVerify);
    this.sum.hashed += hashed;
    this.events.emit('scan:done', { mapping: m.name, files: listed.files.length, hashed, bytesHashed });
    // Sources gone since the last run (handled after the work: a rename reuses the old output first).
    // A source folder that cannot be read, or that is suddenly empty (a share not mounted), removes
    // nothing: its outputs are not deleted on a guess.
    const gone = [...known.keys()];
    const blind = listed.problems.filter((p) => p.reason === 'unreadable').map((p) => p.relPath);
    if (blind.includes('.') || (listed.files.length === 0 && gone.length > 0)) {
      if (gone.length)
        this.logger.warn(
          { mapping: m.name, source: src, files_known: known.size },
          'the source folder is unreadable or empty: deleted sources are not processed this run',
        );
    } else {
      for (const relPath of gone) {
        if (blind.some((b) => relPath === b || relPath.startsWith(b + '/'))) continue;
        this.pendingRemovals.push({ mapping: m, relPath });
      }
    }
    // Every file's every output up to date and nothing gone: the next scan of this listing is a no-op.
    if (!this.opts.dryRun && digest !== undefined && fresh === files.length && gone.length === 0) {
      const outputDirs = [...outputListings.keys()].sort();
      const outputsDigest = this.outputsDigest(outputDirs, outputListings);
      this.state.setMappingSnapshot(m.name, { digest, outputDirs, outputsDigest }, files.length);
    }
  }

  /**
   * Digest of the names in some output folders: from the listings taken during a scan, or read now.
   * A folder that does not exist counts as such.
   */
  private outputsDigest(dirs: string[], listings?: Map<string, Set<string> | null>): string {
    const h = createHash('sha256');
    for (const dir of dirs) {
      const names: Iterable<string> | null = listings?.get(dir) ?? this.readOutputDir(dir);
      h.update(`${dir}\0${names === null ? '\u0001missing' : [...names].sort().join('\0')}\n`);
    }
    return h.digest('hex');
  }

  /**
   * Whether an output root of this mapping overlaps one of another mapping (outputs of both could
   * collide), once per mapping.
   */
  private sharesOutputRoots(m: Mapping): boolean {
    let shared = this.sharedRoots.get(m);
    if (shared === undefined) {
      const mine = this.outputRootsAbs(m);
      shared = this.loaded.manifest.mappings.some(
        (other) =>
          other !== m && this.outputRootsAbs(other).some((r) => mine.some((own) => foldersOverlap(own, r))),
      );
      this.sharedRoots.set(m, shared);
    }
    return shared;
  }

  /**
   * Claim the outputs of mappings whose scan skipped them (no-op fast path) before anything else
   * decides on an output: collisions and deletions go by who claims an output.
   */
  private claimSkippedOutputs(): void {
    if (this.unclaimed.size === 0) return;
    const skipped = [...this.unclaimed.values()];
    this.unclaimed.clear();
    for (const { m, files } of skipped) {
      for (const f of files) {
        const ext = extOf(f.relPath);
        for (let ti = 0; ti < m.targets.length; ti++) {
          let output: string;
          try {
            output = this.renderOutput(m, ti, f.relPath, ext);
          } catch {
            continue; // rendered when the snapshot was taken: cannot happen
          }
          if (!this.outputOwner.has(output)) this.outputOwner.set(output, `${m.name}\0${f.relPath}\0${ti}`);
        }
      }
    }
  }

  /** Digest of a listing: every file's path, size, mtime and settings signature (see mappingSnapshot). */
  private listingDigest(m: Mapping, files: FoundFile[]): string {
    const h = createHash('sha256');
    let chunk = '';
    for (const f of files) {
      chunk += `${f.relPath}\0${f.size}\0${f.mtimeMs}\0${this.signatureOf(m, extOf(f.relPath))}\n`;
      if (chunk.length > 1 << 16) {
        h.update(chunk);
        chunk = '';
      }
    }
    return h.update(chunk).digest('hex');
  }

  /** A file appeared or changed (watch mode): hash it, classify it, queue its work. */
  async scanFile(mappingName: string, relPath: string): Promise<void> {
    if ((await this.considerPath(mappingName, relPath)) === 'gone')
      return this.fileRemoved(mappingName, relPath);
  }

  /**
   * Stat, hash (size+mtime fast path) and classify one source file, for every target or only the one
   * rendering to `onlyOutput`. 'gone' when the file does not exist.
   */
  private async considerPath(
    mappingName: string,
    relPath: string,
    onlyOutput?: string,
  ): Promise<'gone' | undefined> {
    const m = this.mappingNamed(mappingName);
    const abs = path.join(this.sourceAbs(m), relPath);
    let st: fs.Stats;
    try {
      st = fs.statSync(abs);
    } catch {
      return 'gone';
    }
    if (!st.isFile()) return;
    const ext = extOf(relPath);
    if (!isSupportedExtension(ext)) {
      const message = ext ? `.${ext} files are not translated by the service` : 'no file extension';
      this.sum.unsupported.push({ mapping: m.name, file: relPath, reason: 'unsupported', message });
      this.events.emit('file:skipped', { mapping: m.name, file: relPath, reason: 'unsupported', message });
      return undefined;
    }
    const known = this.state.getFile(m.name, relPath);
    const prev = known && known.size === st.size && known.mtime_ms === st.mtimeMs ? known : undefined;
    const isVerified = prev !== undefined && prev.verified === this.signatureOf(m, ext);
    let sha: string;
    if (prev) sha = prev.sha256;
    else {
      try {
        sha = await sha256File(abs);
      } catch (err) {
        this.skip(m.name, relPath, 'unreadable', `cannot be read: ${(err as Error).message}`);
        return undefined;
      }
      this.sum.hashed++;
      if (!this.opts.dryRun)
        this.state.putFile({
          mapping: m.name,
          rel_path: relPath,
          size: st.size,
          mtime_ms: st.mtimeMs,
          sha256: sha,
        });
    }
    this.sum.files++;
    const f = { relPath, absPath: abs, size: st.size, mtimeMs: st.mtimeMs };
    if (this.considerFile(m, f, sha, isVerified, onlyOutput) && !this.opts.dryRun && !isVerified)
      this.state.verifyFiles(m.name, [{ relPath, sig: this.signatureOf(m, ext) }]);
    return undefined;
  }

  /** A source file was deleted (watch mode): apply on_source_delete after the queued work. */
  async fileRemoved(mappingName: string, relPath: string): Promise<void> {
    const m = this.mappingNamed(mappingName);
    this.pendingRemovals.push({ mapping: m, relPath });
    await this.drain();
  }

  private mappingNamed(name: string): Mapping {
    const m = this.loaded.manifest.mappings.find((x) => x.name === name);
    if (!m) throw new Error(`no mapping named ${name}`);
    return m;
  }

  private skip(mapping: string, file: string, reason: SkippedItem['reason'], message: string): void {
    const item = { mapping, file, reason, message };
    this.sum.skipped.push(item);
    this.planned.skipped.push(item);
    this.logger.warn({ mapping, file, reason }, `skipped: ${message}`);
    this.events.emit('file:skipped', { mapping, file, reason: reason as 'unreadable', message });
  }

  /**
   * Classify one source file for every target (or only the one rendering to `onlyOutput`) and act.
   * `verified`: its record's verified mark matches the current settings, or its mapping's snapshot
   * matched; each output then only has to exist, and `sha` (else required) is read from the record
   * only if some output needs work. Answers whether every output was found up to date, made from
   * this file, so that the file can be marked verified.
   */
  private considerFile(
    m: Mapping,
    f: FoundFile,
    sha: string | undefined,
    verified: boolean,
    onlyOutput?: string,
  ): boolean {
    this.claimSkippedOutputs();
    const ext = extOf(f.relPath);
    let fresh = 0; // targets whose output was found up to date, made from this file
    // A plain loop (no closure per file): this runs 100,000s of times in a no-op scan.
    for (let ti = 0; ti < m.targets.length; ti++) {
      const t = m.targets[ti] as Target;
      const { settings, fp, base } = this.settingsOf(m, ti, ext);
      const key = `${m.name}\0${f.relPath}\0${ti}`;
      let output: string;
      try {
        output = this.renderOutput(m, ti, f.relPath, ext);
      } catch (err) {
        this.failUnit(m.name, f.relPath, t.lang, '', 'path-escape', (err as Error).message, false);
        continue;
      }
      if (onlyOutput !== undefined && output !== onlyOutput) continue;
      const inSource = this.mayLandInSource(m, ti) ? this.sourceRootOf(this.absOf(output)) : undefined;
      if (inSource) {
        this.failUnit(
          m.name,
          f.relPath,
          t.lang,
          output,
          'path-escape',
          `output ${output} would lie inside the source folder of mapping ${inSource.name}`,
          false,
        );
        continue;
      }
      const owner = this.outputOwner.get(output);
      if (owner !== undefined && owner !== key) {
        const [om, of] = owner.split('\0');
        this.failUnit(
          m.name,
          f.relPath,
          t.lang,
          output,
          'collision',
          `output ${output} is also the output of ${om}/${of}: not overwritten`,
          false,
        );
        continue;
      }
      this.outputOwner.set(output, key);
      // The common case of a no-op run, decided without building the unit: a verified file only needs
      // its outputs to exist; otherwise the output's latest done job must hold this content.
      if (!this.activeOutputs.has(output)) {
        const done = verified ? undefined : this.doneOf(output);
        if (
          (verified || (done && sha !== undefined && done.sha256 === sha && done.fingerprint === fp)) &&
          this.outputExists(output)
        ) {
          this.sum.unchanged++;
          this.planned.unchanged++;
          if (verified || (done?.mapping === m.name && done.rel_path === f.relPath)) fresh++;
          continue;
        }
      }
      sha ??= this.recordedSha(m, f.relPath);
      const unit: Unit = {
        key,
        mapping: m,
        target: t,
        relPath: f.relPath,
        absPath: f.absPath,
        sha256: sha,
        fp,
        base,
        output,
        outputAbs: this.absOf(output),
        request: uploadRequest(settings, ext, path.basename(f.relPath)),
      };
      this.handle(unit);
    }
    return onlyOutput === undefined && fresh === m.targets.length;
  }

  /**
   * What a file's verified mark must equal for the no-op fast path: every target's output pattern and
   * settings fingerprint for files of this extension (a changed style list or pattern voids the marks).
   */
  private signatureOf(m: Mapping, ext: string): number {
    let byExt = this.signatures.get(m);
    if (!byExt) this.signatures.set(m, (byExt = new Map()));
    let sig = byExt.get(ext);
    if (sig === undefined) {
      const parts = m.targets.map((t, ti) => [this.patternOf(m, t), this.settingsOf(m, ti, ext).fp]);
      // 48 bits of a sha256: an integer column, compared without a string per file.
      sig = parseInt(createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 12), 16);
      byExt.set(ext, sig);
    }
    return sig;
  }

  /** The recorded content of a file vouched for by its mapping's snapshot (so recorded). */
  private recordedSha(m: Mapping, relPath: string): string {
    const rec = this.state.getFile(m.name, relPath);
    if (!rec)
      throw new Error(
        `state ${this.state.path} has a snapshot of mapping ${m.name} but no record of ${relPath}: the state was edited by hand?`,
      );
    return rec.sha256;
  }

  /** The output path of a source file for one target (throws OutputPathError when it would escape). */
  private renderOutput(m: Mapping, ti: number, relPath: string, ext: string): string {
    const t = m.targets[ti] as Target;
    return renderOutputPath(this.patternOf(m, t), {
      lang: t.lang,
      relPath,
      mapping: m.name,
      outputExt: this.settingsOf(m, ti, ext).settings.outputExt,
    });
  }

  /** The names in an output folder (relative to the manifest folder); null when it cannot be read. */
  private readOutputDir(dir: string): string[] | null {
    try {
      return fs.readdirSync(path.join(this.loaded.dir, dir));
    } catch {
      return null;
    }
  }

  /** Absolute path of a rendered output (relative to the manifest folder). */
  private absOf(output: string): string {
    return path.join(this.loaded.dir, output);
  }

  /** The source folder (of any mapping) an absolute path lies in. */
  private sourceRootOf(abs: string): { name: string; abs: string; prefix: string } | undefined {
    for (const r of this.sourceRoots()) if (abs === r.abs || abs.startsWith(r.prefix)) return r;
    return undefined;
  }

  /**
   * Whether a rendered output exists; during a scan from a listing of its folder (one readdir per
   * output folder instead of a stat per output). Rendered outputs are normalised with '/' separators.
   */
  private outputExists(output: string): boolean {
    if (!this.dirListing) return exists(this.absOf(output));
    const slash = output.lastIndexOf('/');
    const dir = slash === -1 ? '' : output.slice(0, slash);
    let names = this.dirListing.get(dir);
    if (names === undefined) {
      const listed = this.readOutputDir(dir);
      names = listed && new Set(listed);
      this.dirListing.set(dir, names);
    }
    return names !== null && names.has(output.slice(slash + 1));
  }

  private sourceRootsCache: Array<{ name: string; abs: string; prefix: string }> | undefined;
  /** Absolute source folders of every mapping (outputs must not land in one). */
  private sourceRoots(): Array<{ name: string; abs: string; prefix: string }> {
    this.sourceRootsCache ??= this.loaded.manifest.mappings.map((mm) => {
      const abs = this.sourceAbs(mm);
      return { name: mm.name, abs, prefix: abs + path.sep };
    });
    return this.sourceRootsCache;
  }

  /** Settings and fingerprints of (mapping, target, source extension), computed once per scan. */
  private settingsOf(m: Mapping, ti: number, ext: string): { settings: Settings; fp: string; base: string } {
    let perTarget = this.settingsCache.get(m);
    if (!perTarget) {
      perTarget = m.targets.map(() => new Map());
      this.settingsCache.set(m, perTarget);
    }
    const byExt = perTarget[ti] as Map<string, { settings: Settings; fp: string; base: string }>;
    let v = byExt.get(ext);
    if (!v) {
      const t = m.targets[ti] as Target;
      const settings = settingsFor(m, t, ext, this.styleRef(t.style));
      v = { settings, fp: fullFingerprint(settings), base: baseFingerprint(settings) };
      byExt.set(ext, v);
    }
    return v;
  }

  /**
   * Whether outputs of (mapping, target) may land in a source folder: only when the pattern's output
   * root and some source folder overlap (every rendered output lies inside its root). Once per target.
   */
  private mayLandInSource(m: Mapping, ti: number): boolean {
    let flags = this.rootOverlap.get(m);
    if (!flags) {
      flags = m.targets.map((t) => {
        const root = path.join(this.loaded.dir, outputRoot(this.patternOf(m, t)));
        return this.sourceRoots().some((r) => foldersOverlap(root, r.abs));
      });
      this.rootOverlap.set(m, flags);
    }
    return flags[ti] ?? true;
  }

  private classify(u: Unit): Decision {
    const done = this.doneOf(u.output);
    const outExists = exists(u.outputAbs);
    if (done && done.sha256 === u.sha256 && done.fingerprint === u.fp && outExists)
      return { kind: 'unchanged' };
    const open = this.openByOutput.get(u.output);
    if (open && open.sha256 === u.sha256 && open.fingerprint === u.fp) {
      if (open.status === 'uploaded' && open.document_id) return { kind: 'resume', job: open };
      if (open.status === 'failed' && open.attempts >= this.loaded.manifest.max_attempts)
        return { kind: 'gave-up', job: open };
      return { kind: 'translate', job: open, why: 'retry' };
    }
    for (const donor of this.donors(u.sha256, u.fp)) {
      if (donor !== u.output && exists(path.resolve(this.loaded.dir, donor))) {
        return { kind: 'reuse', from: donor, fromJobId: this.doneOf(donor)?.id ?? 0 };
      }
    }
    if (
      done &&
      outExists &&
      done.sha256 === u.sha256 &&
      done.base_fingerprint === u.base &&
      done.fingerprint !== u.fp
    ) {
      if (this.opts.retranslate !== 'stale') return { kind: 'stale' };
      return { kind: 'translate', why: 'stale' };
    }
    if (done && done.sha256 === u.sha256 && done.fingerprint === u.fp)
      return { kind: 'translate', why: 'output-missing' };
    return { kind: 'translate', why: done ? 'changed' : 'new' };
  }

  private ref(u: Unit, jobId = 0, documentId?: string): JobRef {
    return {
      jobId,
      mapping: u.mapping.name,
      file: u.relPath,
      target: u.target.lang,
      output: u.output,
      ...(documentId ? { documentId } : {}),
    };
  }

  /** Classify a unit and act on the decision (queue its work, or only record it in a dry run). */
  private handle(u: Unit, afterActive = false): void {
    // Work on this output is under way (a resumed upload): decide once it is finished.
    if (!afterActive && !this.opts.dryRun && this.activeOutputs.has(u.output)) {
      void this.schedule(u.output, async () => this.handle(u, true));
      return;
    }
    const d = this.classify(u);
    const item: PlanItem = {
      mapping: u.mapping.name,
      file: u.relPath,
      target: u.target.lang,
      output: u.output,
    };
    const ck = contentKey(u.sha256, u.fp);
    switch (d.kind) {
      case 'unchanged':
        this.sum.unchanged++;
        this.planned.unchanged++;
        return;
      case 'stale':
        this.sum.stale++;
        this.planned.stale.push(item);
        this.events.emit('job:stale', this.ref(u));
        return;
      case 'gave-up': {
        const msg = `failed ${d.job.attempts} times (limit max_attempts ${this.loaded.manifest.max_attempts}): ${d.job.error ?? 'unknown error'}`;
        this.planned.gaveUp.push(item);
        this.failUnit(u.mapping.name, u.relPath, u.target.lang, u.output, 'gave-up', msg, false);
        return;
      }
      case 'reuse':
        this.planned.toReuse.push({ ...item, from: d.from });
        if (this.opts.dryRun) return;
        this.schedule(u.output, () => this.copyQueue.add(() => this.reuse(u, d.from, d.fromJobId)));
        return;
      case 'resume':
        this.planned.toResume.push(item);
        // Already driven by this session (its own upload, or resumed): the poller in flight finishes it.
        if (this.opts.dryRun || this.inFlight(d.job)) return;
        this.resume(d.job);
        return;
      case 'translate': {
        if (this.opts.dryRun) {
          // Duplicates within one run are translated once and copied.
          const first = this.plannedContent.get(ck);
          if (first !== undefined) this.planned.toReuse.push({ ...item, from: first });
          else {
            this.plannedContent.set(ck, u.output);
            this.planned.toTranslate.push({ ...item, why: d.why });
          }
          if (d.why === 'stale') this.sum.stale++;
          return;
        }
        // A recorded job this session is driving right now is never started a second time.
        if (d.job && this.inFlight(d.job)) return;
        const inflight = this.contentInFlight.get(ck);
        if (inflight) {
          // An identical document is being translated: wait for it, then decide again (copy).
          void this.schedule(u.output, async () => {
            await inflight;
            this.handle(u);
          });
          return;
        }
        if (d.why === 'stale') {
          this.sum.stale++;
          this.sum.retranslated++;
        }
        const p = this.schedule(u.output, () => this.translate(u, d.job));
        this.contentInFlight.set(ck, p);
        void p.finally(() => {
          if (this.contentInFlight.get(ck) === p) this.contentInFlight.delete(ck);
        });
        return;
      }
    }
  }

  /** Run `fn` after the work already scheduled for the same output; tracked for drain(). */
  private schedule(output: string, fn: () => Promise<unknown>): Promise<void> {
    const before = this.activeOutputs.get(output) ?? Promise.resolve();
    const p = before
      .then(fn)
      .then(() => undefined)
      .catch((err: unknown) => {
        this.logger.error({ output, err: (err as Error).message }, 'unexpected error');
        this.fatal ??= err as Error;
      });
    this.activeOutputs.set(output, p);
    this.tasks.add(p);
    void p.finally(() => {
      this.tasks.delete(p);
      if (this.activeOutputs.get(output) === p) this.activeOutputs.delete(output);
    });
    return p;
  }

  // ---------------------------------------------------------------- resume

  /** Resume every recorded upload (id+key): poll and download, never upload again. */
  enqueuePending(): void {
    if (this.opts.dryRun) {
      for (const j of this.state.openJobs())
        if (j.status === 'uploaded')
          this.planned.toResume.push({
            mapping: j.mapping,
            file: j.rel_path,
            target: j.target_lang,
            output: j.output_path,
          });
      return;
    }
    for (const job of this.state.openJobs()) {
      if (job.status === 'uploaded' && job.document_id && job.document_key) this.resume(job);
    }
  }

  /** Whether this session drives (or has resumed) the job: a second poller would upload it twice. */
  private inFlight(job: JobRecord): boolean {
    return this.drivingJobIds.has(job.id) || this.resumedJobIds.has(job.id);
  }

  private resume(job: JobRecord): void {
    if (this.inFlight(job)) return;
    this.resumedJobIds.add(job.id);
    this.undownloaded++;
    const u = this.unitOfJob(job);
    const ref = this.jobRef(job);
    this.events.emit('job:queued', { ...ref, resumed: true });
    const p = this.schedule(job.output_path, async () => {
      const ok = await this.runJob(job, u, { resumed: true, holdsSlot: true });
      if (ok) this.sum.resumed++;
    });
    const ck = contentKey(job.sha256, job.fingerprint);
    this.contentInFlight.set(ck, p);
    void p.finally(() => {
      if (this.contentInFlight.get(ck) === p) this.contentInFlight.delete(ck);
    });
  }

  /** Rebuild what a recorded job needs to be re-uploaded (lost download): source path and request. */
  private unitOfJob(job: JobRecord): {
    absPath: string | undefined;
    request: UploadDocumentRequest | undefined;
  } {
    const m = this.loaded.manifest.mappings.find((x) => x.name === job.mapping);
    return {
      absPath: m ? path.join(this.sourceAbs(m), job.rel_path) : undefined,
      request: job.request ? (JSON.parse(job.request) as UploadDocumentRequest) : undefined,
    };
  }

  private jobRef(job: JobRecord): JobRef {
    return {
      jobId: job.id,
      mapping: job.mapping,
      file: job.rel_path,
      target: job.target_lang,
      output: job.output_path,
      ...(job.document_id ? { documentId: job.document_id } : {}),
    };
  }

  // ---------------------------------------------------------------- work

  /** The job row of a unit (status pending), recorded before anything is done for it. */
  private createJobFor(u: Unit): JobRecord {
    return this.state.createJob({
      mapping: u.mapping.name,
      rel_path: u.relPath,
      sha256: u.sha256,
      target_lang: u.target.lang,
      fingerprint: u.fp,
      base_fingerprint: u.base,
      output_path: u.output,
      run_id: this.runId,
      request: JSON.stringify(u.request),
    });
  }

  private async reuse(u: Unit, from: string, fromJobId: number): Promise<void> {
    const log = this.logger.child({ mapping: u.mapping.name, file: u.relPath, target: u.target.lang });
    try {
      const bytes = await copyFileAtomic(path.resolve(this.loaded.dir, from), u.outputAbs);
      const job = this.state.transaction(() => {
        const j = this.createJobFor(u);
        const t = new Date().toISOString();
        this.state.updateJob(j.id, {
          status: 'done',
          reused_from: fromJobId,
          billed_characters: 0,
          finished_at: t,
        });
        return j;
      });
      this.indexDone(job);
      this.sum.reused++;
      log.info({ from, bytes }, 'identical document already translated: output copied, nothing uploaded');
      this.events.emit('job:reused', { ...this.ref(u, job.id), fromJobId, fromOutput: from });
    } catch (err) {
      this.failUnit(
        u.mapping.name,
        u.relPath,
        u.target.lang,
        u.output,
        'output',
        `copying ${from}: ${(err as Error).message}`,
        true,
      );
    }
  }

  private async translate(u: Unit, existing: JobRecord | undefined): Promise<void> {
    // Wait for a worker first: the job row is written just before its upload, not at scan time.
    const worker = await this.worker();
    try {
      if (!(await this.sourceHolds(u.mapping.name, u.relPath, u.sha256, u.absPath))) {
        // Replaced since it was planned: no job row for content that is no longer there.
        worker();
        await this.replan(u.mapping.name, u.relPath, u.output);
        return;
      }
      let job = existing;
      const unconfirmed = !!(
        existing &&
        existing.status === 'pending' &&
        existing.upload_started_at &&
        !existing.document_id
      );
      if (!job) {
        job = this.createJobFor(u);
      } else {
        this.state.updateJob(job.id, { request: JSON.stringify(u.request), run_id: this.runId });
      }
      if (unconfirmed) {
        this.state.updateJob(job.id, { unconfirmed_uploads: job.unconfirmed_uploads + 1 });
        this.sum.unconfirmedUploads.push({ mapping: u.mapping.name, file: u.relPath, target: u.target.lang });
        this.logger.warn(
          { mapping: u.mapping.name, file: u.relPath, target: u.target.lang },
          'an earlier run was stopped between uploading this document and recording the answer: it may have been uploaded (and billed) already; uploading again',
        );
      }
      this.events.emit('job:queued', { ...this.ref(u, job.id), resumed: false });
      const ok = await this.runJob(
        job,
        { absPath: u.absPath, request: u.request },
        { resumed: false, holdsSlot: false, unconfirmed },
        worker,
      );
      if (ok) this.sum.translated++;
    } finally {
      worker(); // a no-op when runJob gave it back already
    }
  }

  private async acquireSlot(): Promise<void> {
    while (this.undownloaded >= this.maxUndownloaded) {
      await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
    }
    this.undownloaded++;
  }

  private releaseSlot(): void {
    this.undownloaded = Math.max(0, this.undownloaded - 1);
    const w = this.slotWaiters.shift();
    w?.();
  }

  /**
   * Drive one job from its last record to done: upload when it has no document yet, poll, download.
   * Returns true when the output was written.
   */
  /**
   * A place in the worker pool (p-queue, `concurrency`): resolves with the function that gives it
   * back. A job holds one while it uploads and waits for its translation; its download runs outside
   * (bounded by max_undownloaded), so the next upload starts as soon as a translation is done.
   */
  private worker(): Promise<() => void> {
    return new Promise((resolveAcquire) => {
      void this.queue.add(() => new Promise<void>((release) => resolveAcquire(release)));
    });
  }

  private async runJob(
    job0: JobRecord,
    src: { absPath: string | undefined; request: UploadDocumentRequest | undefined },
    flags: { resumed: boolean; holdsSlot: boolean; unconfirmed?: boolean },
    worker?: () => void,
  ): Promise<boolean> {
    this.drivingJobIds.add(job0.id);
    try {
      const w: { release: (() => void) | undefined } = { release: worker ?? (await this.worker()) };
      try {
        return await this.runJobHolding(job0, src, flags, w);
      } finally {
        w.release?.();
      }
    } finally {
      this.drivingJobIds.delete(job0.id);
    }
  }

  private async runJobHolding(
    job0: JobRecord,
    src: { absPath: string | undefined; request: UploadDocumentRequest | undefined },
    flags: { resumed: boolean; holdsSlot: boolean; unconfirmed?: boolean },
    w: { release: (() => void) | undefined },
  ): Promise<boolean> {
    let job = job0;
    let holdsSlot = flags.holdsSlot;
    const maxAttempts = this.loaded.manifest.max_attempts;
    const outputAbs = path.resolve(this.loaded.dir, job.output_path);
    // A download an earlier run started may have left a partial file beside the output.
    if (job.download_started_ms !== null) await removePartialFiles(outputAbs);
    let reupload: 'lost-download' | 'unconfirmed-upload' | undefined = flags.unconfirmed
      ? 'unconfirmed-upload'
      : undefined;
    const fail = (
      kind: FailureKind,
      error: string,
      willRetry: boolean,
      keepDocument: boolean,
      countAttempt = true,
    ): false => {
      if (holdsSlot) this.releaseSlot();
      holdsSlot = false;
      this.state.updateJob(job.id, {
        // A failed document is finished on the service: its key is of no more use (the id stays for reports).
        ...(keepDocument ? {} : { status: 'failed' as const, document_key: null }),
        error,
        error_kind: kind,
        ...(countAttempt ? {} : { attempts: Math.max(0, job.attempts - 1) }),
      });
      const fresh = this.state.getJob(job.id);
      if (fresh) {
        job = fresh;
        if (!keepDocument) this.openByOutput.set(job.output_path, fresh);
      }
      this.failJob(job, kind, error, willRetry);
      return false;
    };

    for (;;) {
      const log = this.logger.child({
        mapping: job.mapping,
        file: job.rel_path,
        target: job.target_lang,
        document_id: job.document_id ?? undefined,
      });
      // ---- upload (only when no document is recorded)
      if (!job.document_key || !job.document_id || job.status === 'failed') {
        if (this.uploadsStopped)
          return fail(this.uploadsStopped.kind, this.uploadsStopped.reason, true, false, false);
        if (!src.absPath || !src.request)
          return fail('output', 'the source of this job is no longer in the manifest', false, false);
        if (reupload === 'lost-download') {
          // Only upload again what is still the same content.
          let sha: string | undefined;
          try {
            sha = await sha256File(src.absPath);
          } catch {
            sha = undefined;
          }
          if (sha !== job.sha256)
            return fail(
              'output',
              'the source changed or disappeared since this document was uploaded; its new content is handled as a new job',
              false,
              false,
            );
        }
        w.release ??= await this.worker();
        if (!holdsSlot) {
          await this.acquireSlot();
          holdsSlot = true;
          const stopped = this.stoppedNow();
          if (stopped) return fail(stopped.kind, stopped.reason, true, false, false);
        }
        // Right before the upload: the file must still hold the content this job records. New content
        // is never uploaded (billed) under the old content's record: the job ends unsent and the file
        // is planned again with its new content.
        if (!(await this.sourceHolds(job.mapping, job.rel_path, job.sha256, src.absPath))) {
          if (holdsSlot) this.releaseSlot();
          holdsSlot = false;
          this.supersede(job, log);
          w.release?.();
          w.release = undefined;
          await this.replan(job.mapping, job.rel_path, job.output_path);
          return false;
        }
        const attempt = job.attempts + 1;
        this.state.updateJob(job.id, {
          status: 'pending',
          attempts: attempt,
          document_id: null,
          document_key: null,
          upload_started_at: new Date().toISOString(),
          download_started_ms: null,
          error: null,
          error_kind: null,
          run_id: this.runId,
        });
        job = {
          ...job,
          status: 'pending',
          attempts: attempt,
          document_id: null,
          document_key: null,
          download_started_ms: null,
        };
        this.events.emit('job:uploading', {
          ...this.jobRef(job),
          attempt,
          ...(reupload ? { reupload } : {}),
        });
        log.info({ attempt, reupload }, 'uploading');
        let res;
        try {
          res = await this.client!.uploadDocument(src.absPath, src.request);
        } catch (err) {
          return this.uploadFailed(err, job, fail, attempt < maxAttempts);
        }
        // Record id+key the moment the upload answers (nothing awaited in between).
        registerSecret(res.document_key);
        this.state.updateJob(job.id, {
          status: 'uploaded',
          document_id: res.document_id,
          document_key: res.document_key,
        });
        job = { ...job, status: 'uploaded', document_id: res.document_id, document_key: res.document_key };
        this.sum.uploads++;
        this.openByOutput.set(job.output_path, job);
        this.events.emit('job:uploaded', { ...this.jobRef(job), documentId: res.document_id });
        this.logger.info(
          { mapping: job.mapping, file: job.rel_path, target: job.target_lang, document_id: res.document_id },
          'uploaded',
        );
        reupload = undefined;
        continue;
      }
      if (!holdsSlot) {
        this.undownloaded++;
        holdsSlot = true;
      }
      const documentId = job.document_id;
      const key = job.document_key;
      // ---- poll
      let status: DocumentStatus;
      try {
        status = await this.pollUntilFinished(job, documentId, key, log, flags.resumed);
      } catch (err) {
        if (err instanceof NotFoundError) {
          const recovered = this.recoverOrLose(job, outputAbs, log);
          if (recovered) return this.markDone(job, recovered.billed, recovered.bytes, log, holdsSlot);
          job = this.loseDocument(job, (err as Error).message, holdsSlot);
          reupload = 'lost-download';
          holdsSlot = false;
          continue;
        }
        if (err instanceof AuthError) this.stopForAuth(err);
        if (isAbort(err))
          return fail(
            'stopped',
            'the run was stopped while waiting for the translation; it resumes next run',
            true,
            true,
            true,
          );
        return fail(
          'transient',
          `status check failed: ${(err as Error).message}; resumes next run`,
          true,
          true,
          true,
        );
      }
      if (status.status === 'error') {
        const retry = job.attempts < maxAttempts;
        log.warn({ message: status.message }, 'the service could not translate the document');
        return fail('job-error', status.message, retry, false);
      }
      if (status.status !== 'done') continue;
      // ---- download (the worker is free for the next upload; max_undownloaded bounds downloads)
      w.release?.();
      w.release = undefined;
      const billed = status.billed_characters;
      const startedMs = Date.now();
      this.state.updateJob(job.id, { billed_characters: billed, download_started_ms: startedMs });
      job = { ...job, billed_characters: billed, download_started_ms: startedMs };
      this.events.emit('job:downloading', { ...this.jobRef(job), documentId });
      let bytes: number;
      try {
        fs.mkdirSync(path.dirname(outputAbs), { recursive: true });
        ({ bytes } = await this.client!.downloadDocument(documentId, key, outputAbs));
      } catch (err) {
        if (err instanceof NotFoundError) {
          job = this.loseDocument(job, (err as Error).message, holdsSlot);
          reupload = 'lost-download';
          holdsSlot = false;
          continue;
        }
        if (err instanceof AuthError) this.stopForAuth(err);
        return fail(
          'output',
          `download failed: ${(err as Error).message}; resumes next run`,
          true,
          true,
          true,
        );
      }
      return this.markDone(job, billed, bytes, log, holdsSlot);
    }
  }

  /** Whether a source file still holds `sha256`: size+mtime of its files row as fast path, else its hash. */
  private async sourceHolds(
    mapping: string,
    relPath: string,
    sha256: string,
    absPath: string,
  ): Promise<boolean> {
    let size: number;
    let mtimeMs: number;
    try {
      ({ size, mtimeMs } = fs.statSync(absPath));
    } catch {
      return false;
    }
    const known = this.state.getFile(mapping, relPath);
    if (known && known.sha256 === sha256 && known.size === size && known.mtime_ms === mtimeMs) return true;
    return (await sha256File(absPath).catch(() => undefined)) === sha256;
  }

  /**
   * Close a job whose source was replaced before its upload. A row that never led to an upload is
   * removed (nothing was done for it); one with earlier attempts keeps its history and is marked.
   */
  private supersede(job: JobRecord, log: Logger): void {
    const error =
      'the source changed after this job was planned: not uploaded; its new content is planned instead';
    const neverSent = job.attempts === 0 && !job.upload_started_at && !job.document_id;
    if (neverSent) this.state.db.prepare('DELETE FROM jobs WHERE id = ?').run(job.id);
    else
      this.state.updateJob(job.id, {
        status: 'failed',
        document_key: null,
        error,
        error_kind: 'superseded',
      });
    const open = this.openByOutput.get(job.output_path);
    if (open?.id === job.id) {
      const fresh = neverSent ? undefined : this.state.getJob(job.id);
      if (fresh) this.openByOutput.set(job.output_path, fresh);
      else this.openByOutput.delete(job.output_path);
    }
    log.info(error);
    // Listeners that track jobs in flight (progress, watch metrics) see it end; not a failure of the run.
    this.events.emit('job:failed', { ...this.jobRef(job), kind: 'transient', error, willRetry: true });
  }

  /** Plan a replaced file's unit again with the content it holds now (after the work on its output). */
  private async replan(mapping: string, relPath: string, output: string): Promise<void> {
    if (!this.loaded.manifest.mappings.some((m) => m.name === mapping)) return;
    // A file that is gone is left to its deletion (the watcher's event, the next scan).
    await this.considerPath(mapping, relPath, output);
  }

  /**
   * A recorded document answered 404. If the previous run was killed after the download was renamed
   * into place but before it was recorded, the output is there and newer than the download's start:
   * take it. Otherwise the document is lost.
   */
  private recoverOrLose(
    job: JobRecord,
    outputAbs: string,
    log: Logger,
  ): { billed: number; bytes: number } | undefined {
    if (job.download_started_ms === null || job.billed_characters === null) return undefined;
    const m = mtimeOf(outputAbs);
    if (m === undefined || m + 2 < job.download_started_ms) return undefined;
    log.info('the output was written by an earlier run that stopped before recording it: taken as done');
    return { billed: job.billed_characters, bytes: fs.statSync(outputAbs).size };
  }

  /** The document of a job is gone (404): record and report it; the caller uploads again. */
  private loseDocument(job: JobRecord, message: string, holdsSlot: boolean): JobRecord {
    if (holdsSlot) this.releaseSlot();
    const documentId = job.document_id ?? '';
    this.sum.lostDownloads.push({
      mapping: job.mapping,
      file: job.rel_path,
      target: job.target_lang,
      documentId,
    });
    this.logger.warn(
      { mapping: job.mapping, file: job.rel_path, target: job.target_lang, document_id: documentId },
      'the translated document is no longer on the service (a download was interrupted, or it expired): uploading it again (billed again)',
    );
    this.events.emit('job:lost', { ...this.jobRef(job), documentId, message });
    this.state.updateJob(job.id, {
      status: 'pending',
      document_id: null,
      document_key: null,
      download_started_ms: null,
      lost_downloads: job.lost_downloads + 1,
      error: `lost download of document ${documentId}`,
      error_kind: 'lost-download',
    });
    return {
      ...job,
      status: 'pending',
      document_id: null,
      document_key: null,
      download_started_ms: null,
      lost_downloads: job.lost_downloads + 1,
      // A lost download is not the document's fault: it does not use up an attempt.
      attempts: Math.max(0, job.attempts - 1),
    };
  }

  private markDone(job: JobRecord, billed: number, bytes: number, log: Logger, holdsSlot: boolean): boolean {
    const finished = new Date().toISOString();
    this.state.updateJob(job.id, {
      status: 'done',
      billed_characters: billed,
      finished_at: finished,
      error: null,
      error_kind: null,
    });
    if (holdsSlot) this.releaseSlot();
    this.indexDone(job);
    if (this.openByOutput.get(job.output_path)?.id === job.id) this.openByOutput.delete(job.output_path);
    this.sum.billedCharacters += billed;
    log.info({ billed_characters: billed, bytes, output: job.output_path }, 'translated');
    const ref = this.jobRef(job);
    this.events.emit('job:done', {
      ...ref,
      documentId: job.document_id ?? '',
      billedCharacters: billed,
      bytes,
    });
    this.events.emit('billed', {
      characters: billed,
      total: this.sum.billedCharacters,
      mapping: job.mapping,
      file: job.rel_path,
      target: job.target_lang,
    });
    return true;
  }

  private uploadFailed(
    err: unknown,
    job: JobRecord,
    fail: (
      kind: FailureKind,
      error: string,
      willRetry: boolean,
      keepDocument: boolean,
      countAttempt?: boolean,
    ) => false,
    retryable: boolean,
  ): false {
    const message = (err as Error).message;
    if (err instanceof UploadMaybeAcceptedError) {
      return fail(
        'maybe-accepted',
        `the upload failed after the document was sent: the service may have accepted (and billed) it; not retried in this run: ${message}`,
        retryable,
        false,
      );
    }
    if (err instanceof QuotaExceededError) {
      this.stopUploads(
        `the character quota of the account is used up (456): ${message}. No more uploads this run; documents already uploaded are still collected.`,
        'quota',
      );
      return fail('quota', message, true, false, false);
    }
    if (err instanceof AuthError) {
      this.stopForAuth(err);
      return fail('auth', message, true, false, false);
    }
    if (err instanceof InvalidRequestError) return fail('rejected', message, retryable, false);
    // 429/5xx/network after the client's retries: surely not accepted; next run tries again.
    void job;
    return fail('transient', message, true, false, false);
  }

  private async pollUntilFinished(
    job: JobRecord,
    id: string,
    key: string,
    log: Logger,
    resumed: boolean,
  ): Promise<DocumentStatus> {
    let delay = this.timing.initialMs;
    let hinted = false;
    // A resumed document may have been done for hours: ask at once.
    let wait = resumed ? 0 : delay;
    for (;;) {
      if (this.pollAbort.signal.aborted) throw Object.assign(new Error('stopped'), { name: 'AbortError' });
      await sleep(wait, undefined, { signal: this.pollAbort.signal });
      const st = await this.client!.getDocumentStatus(id, key);
      if (st.status === 'done' || st.status === 'error') return st;
      const sr = st.status === 'translating' ? st.seconds_remaining : undefined;
      this.events.emit('job:translating', {
        ...this.jobRef(job),
        documentId: id,
        status: st.status,
        ...(sr !== undefined ? { secondsRemaining: sr } : {}),
      });
      const next = nextPollDelay(this.timing, delay, sr, hinted);
      log.debug(
        { status: st.status, seconds_remaining: sr, next_poll_ms: Math.round(next.delayMs) },
        'waiting for the translation',
      );
      delay = next.delayMs;
      wait = delay;
      hinted = next.hinted;
    }
  }

  private stoppedNow(): { reason: string; kind: FailureKind } | undefined {
    return this.uploadsStopped;
  }

  private stopUploads(reason: string, kind: FailureKind): void {
    if (this.uploadsStopped) return;
    this.uploadsStopped = { reason, kind };
    this.sum.stoppedReason = reason;
    this.logger.error(reason);
    this.events.emit('uploads:stopped', { reason });
    for (const w of this.slotWaiters.splice(0)) w();
  }

  private stopForAuth(err: Error): void {
    this.stopUploads(
      `the service refused the API key (${err.message}): check the key in $${this.loaded.manifest.service.key_env}`,
      'auth',
    );
    this.fatal ??= err;
    this.pollAbort.abort();
  }

  private failJob(job: JobRecord, kind: FailureKind, error: string, willRetry: boolean): void {
    this.sum.failed.push({
      mapping: job.mapping,
      file: job.rel_path,
      target: job.target_lang,
      kind,
      error,
      ...(job.document_id ? { documentId: job.document_id } : {}),
      willRetry,
    });
    this.logger.error(
      {
        mapping: job.mapping,
        file: job.rel_path,
        target: job.target_lang,
        document_id: job.document_id ?? undefined,
        kind,
        will_retry: willRetry,
      },
      `failed: ${error}`,
    );
    this.events.emit('job:failed', { ...this.jobRef(job), kind, error, willRetry });
  }

  private failUnit(
    mapping: string,
    file: string,
    target: string,
    output: string,
    kind: FailureKind,
    error: string,
    willRetry: boolean,
  ): void {
    this.sum.failed.push({ mapping, file, target, kind, error, willRetry });
    if (kind === 'collision' || kind === 'path-escape') {
      this.planned.skipped.push({ mapping, file, reason: kind, message: error });
    }
    this.logger.error({ mapping, file, target, kind }, `failed: ${error}`);
    this.events.emit('job:failed', { jobId: 0, mapping, file, target, output, kind, error, willRetry });
  }

  /** The latest done job of an output: by index, or from the whole done index once loaded. */
  private doneOf(output: string): DoneEntry | undefined {
    if (this.latestDone === undefined && ++this.pointLookups > POINT_LOOKUPS_BEFORE_INDEX) {
      // The rows are fresh objects: kept as they are (no copy per done job).
      this.latestDone = new Map();
      for (const row of this.state.iterateDoneIndex()) this.latestDone.set(row.output_path, row);
    }
    return this.latestDone ? this.latestDone.get(output) : this.state.latestDoneOf(output);
  }

  /** A job became done (already recorded in the state): keep the loaded index up to date. */
  private indexDone(row: DoneIndexRow): void {
    if (this.latestDone === undefined) return; // the state answers point lookups
    const out = row.output_path;
    const prev = this.latestDone.get(out);
    if (prev && this.byContentBuilt) this.dropDonor(contentKey(prev.sha256, prev.fingerprint), out);
    this.latestDone.set(out, {
      id: row.id,
      sha256: row.sha256,
      fingerprint: row.fingerprint,
      base_fingerprint: row.base_fingerprint,
      mapping: row.mapping,
      rel_path: row.rel_path,
    });
    if (this.byContentBuilt) this.addDonor(contentKey(row.sha256, row.fingerprint), out);
  }

  /** Most contents have one output: a plain string then, an array only for copies. */
  private addDonor(k: string, out: string): void {
    const cur = this.byContent.get(k);
    if (cur === undefined) this.byContent.set(k, out);
    else if (typeof cur === 'string') {
      if (cur !== out) this.byContent.set(k, [cur, out]);
    } else if (!cur.includes(out)) cur.push(out);
  }

  private dropDonor(k: string, out: string): void {
    const cur = this.byContent.get(k);
    if (cur === out) this.byContent.delete(k);
    else if (Array.isArray(cur)) {
      const rest = cur.filter((o) => o !== out);
      if (rest.length === 0) this.byContent.delete(k);
      else this.byContent.set(k, rest.length === 1 ? (rest[0] as string) : rest);
    }
  }

  /** Outputs that hold a translation of this content with these settings (reuse donors). */
  private donors(sha256: string, fp: string): string[] {
    if (this.latestDone === undefined) {
      // By index: done jobs of the content whose output still holds them.
      const outs = new Set<string>();
      for (const j of this.state.doneWithContent(sha256, fp))
        if (!outs.has(j.output_path) && this.doneOf(j.output_path)?.id === j.id) outs.add(j.output_path);
      return [...outs];
    }
    if (!this.byContentBuilt) {
      // Built on first need: a run where nothing changed never needs it.
      this.byContentBuilt = true;
      for (const [out, d] of this.latestDone) this.addDonor(contentKey(d.sha256, d.fingerprint), out);
    }
    const cur = this.byContent.get(contentKey(sha256, fp));
    return cur === undefined ? [] : typeof cur === 'string' ? [cur] : cur;
  }

  // ---------------------------------------------------------------- removals, drain, stop

  private outputRootsAbs(m: Mapping): string[] {
    return m.targets.map((t) => path.resolve(this.loaded.dir, outputRoot(this.patternOf(m, t))));
  }

  private async processRemovals(): Promise<void> {
    const removals = this.pendingRemovals.splice(0);
    if (removals.length > 0) this.claimSkippedOutputs();
    for (const { mapping: m, relPath } of removals) {
      const policy = m.on_source_delete ?? this.loaded.manifest.on_source_delete;
      const deleted: string[] = [];
      if (policy === 'delete') {
        for (const job of this.state.doneJobsOfSource(m.name, relPath)) {
          // Only outputs that still hold this source's translation, and no live source claims.
          if (this.doneOf(job.output_path)?.id !== job.id) continue;
          const owner = this.outputOwner.get(job.output_path);
          if (owner !== undefined && !owner.startsWith(`${m.name}\0${relPath}\0`)) continue;
          const abs = path.resolve(this.loaded.dir, job.output_path);
          const root = this.outputRootsAbs(m).find((r) => abs.startsWith(r + path.sep));
          if (!root) continue;
          if (this.opts.dryRun) {
            if (exists(abs)) this.planned.toDelete.push(job.output_path);
            continue;
          }
          if (await deleteOutput(abs, root)) {
            deleted.push(job.output_path);
            this.sum.deletedOutputs.push(job.output_path);
            this.logger.info(
              { mapping: m.name, file: relPath, output: job.output_path },
              'source deleted: output deleted',
            );
          }
        }
      }
      for (const [out, owner] of this.outputOwner)
        if (owner.startsWith(`${m.name}\0${relPath}\0`)) this.outputOwner.delete(out);
      if (this.opts.dryRun) continue;
      this.state.deleteFile(m.name, relPath);
      this.sum.removedSources++;
      this.events.emit('file:removed', { mapping: m.name, file: relPath, outputsDeleted: deleted });
    }
  }

  /** Wait until every queued job has finished (or failed), then apply deletions of removed sources. */
  async drain(): Promise<void> {
    while (this.tasks.size > 0) await Promise.all([...this.tasks]);
    await this.processRemovals();
    while (this.tasks.size > 0) await Promise.all([...this.tasks]);
  }

  /**
   * Stop taking new uploads; let jobs in flight finish until the deadline, then stop polling (their
   * id+key stay recorded: the next run collects them).
   */
  async stop(opts: { deadlineMs?: number } = {}): Promise<void> {
    this.stopping = true;
    this.stopUploads(
      'the run was stopped (signal); remaining documents are handled by the next run',
      'stopped',
    );
    const deadline = opts.deadlineMs ?? 30_000;
    const all = Promise.all([...this.tasks]);
    const timer = sleep(deadline, 'timeout' as const);
    const r = await Promise.race([all.then(() => 'done' as const), timer]);
    if (r === 'timeout') this.pollAbort.abort();
    await all;
  }

  /** The error that must stop the run (auth refused, internal error), if any. */
  fatalError(): Error | undefined {
    return this.fatal;
  }

  /** What was (or, in a dry run, would be) done so far. */
  summary(): SyncSummary {
    return { ...this.sum, durationMs: Date.now() - this.started };
  }

  plan(): SyncPlan {
    const strip = <T extends object>(x: T) => {
      const { ck: _ck, ...rest } = x as T & { ck?: string };
      return rest as T;
    };
    return { ...this.planned, toTranslate: this.planned.toTranslate.map(strip) };
  }

  /** Record the end of the run; returns the final summary (also emitted as run:summary). */
  finish(status?: 'ok' | 'failed' | 'interrupted'): SyncSummary {
    const s = this.summary();
    if (this.opts.dryRun) {
      s.translated = this.planned.toTranslate.length;
      s.reused = this.planned.toReuse.length;
      s.resumed = this.planned.toResume.length;
    }
    if (!this.finished && !this.opts.dryRun) {
      this.finished = true;
      const st =
        status ?? (this.stopping ? 'interrupted' : s.failed.length > 0 || this.fatal ? 'failed' : 'ok');
      this.state.finishRun(this.runId, st, summaryCounts(s), s.billedCharacters);
    }
    this.events.emit('run:summary', s);
    return s;
  }
}

/** Two absolute folders are the same or one lies inside the other. */
function foldersOverlap(a: string, b: string): boolean {
  const inside = (child: string, parent: string) =>
    child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);
  return a === b || inside(a, b) || inside(b, a);
}

function isAbort(err: unknown): boolean {
  return (err as { name?: string }).name === 'AbortError';
}

/** Map with at most `limit` calls in flight; results in input order. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export function createSyncSession(args: SyncSessionArgs): SyncSession {
  return new SyncSession(args);
}
