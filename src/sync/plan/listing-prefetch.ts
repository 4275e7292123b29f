import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { usesSegments, type Mapping } from '../../manifest/sections/mapping.js';
import type { LoadedManifest } from '../../manifest/types.js';
import type { ManifestFolders } from './folders.js';
import type { FoundFile, ListedTree } from './list-sources.js';
import { decodeFiles, type DigestRequest, type EncodedListing, type ListingJob } from './listing-codec.js';

// A no-op sync over a large tree is mostly the listing of its source folders (a stat per file). The
// sync starts each mapping's listing in a worker thread as soon as the manifest is read, so that it
// runs on another core while the main thread opens the state, backs it up and gets the plan ready;
// the scan then takes the listing from there (listing-worker.ts) instead of walking the folder
// itself. A listing is used only for the exact folder and rules the scan asks for; a worker that
// fails is forgotten and the scan walks the folder as always.

const YOUNG_GENERATION_MB = 16;

/** This module runs from src/ (under tsx or vitest), not compiled. */
const FROM_SOURCES = fileURLToPath(import.meta.url).endsWith('.ts');

/** The folder and rules a mapping's scan lists its sources with. */
export function listingJob(folders: ManifestFolders, m: Mapping): ListingJob {
  return {
    src: folders.sourceOf(m),
    include: m.include,
    // Output folders inside the source folder are not sources.
    ignore: [...m.exclude, ...folders.outputsInsideSource(m)],
    opts: { followLinksOutside: m.links_outside_source === 'follow', segmentFormats: usesSegments(m) },
  };
}

/** A listing made in a worker: its files decoded on first use; its digest made in the worker. */
export class PrefetchedTree implements ListedTree {
  private decoded: FoundFile[] | undefined;
  readonly unsupported;
  readonly problems;

  constructor(
    private readonly src: string,
    private readonly encoded: EncodedListing,
    private readonly worker: Worker,
  ) {
    this.unsupported = encoded.unsupported;
    this.problems = encoded.problems;
  }

  get count(): number {
    return this.encoded.count;
  }

  get files(): FoundFile[] {
    return (this.decoded ??= decodeFiles(this.src, this.encoded));
  }

  /** listingDigest of these files, made by the worker with the signatures of their extensions. */
  digest(signatureOf: (ext: string) => number): Promise<string> {
    const req: DigestRequest = {
      signatures: Object.fromEntries(this.encoded.exts.map((e) => [e, signatureOf(e)])),
    };
    return new Promise((resolve, reject) => {
      this.worker.once('message', (d: string) => resolve(d));
      this.worker.once('error', reject);
      this.worker.postMessage(req);
    });
  }
}

/** The listings started for a run, taken by the scans. */
export class ListingPrefetch {
  private readonly started = new Map<
    string,
    { worker: Worker; listed: Promise<EncodedListing | undefined> }
  >();

  /** Starts the listing of each mapping's source folder (those of `only`, when given). */
  static start(
    loaded: LoadedManifest,
    folders: ManifestFolders,
    opts: { only?: readonly string[] | undefined; fromSources?: boolean } = {},
  ): ListingPrefetch {
    const { only } = opts;
    const p = new ListingPrefetch();
    // From the sources, a worker loads the TypeScript loader first: that costs more than the listing
    // saves on the trees tests use (their own test takes the workers with fromSources).
    if (FROM_SOURCES && !opts.fromSources) return p;
    for (const m of loaded.manifest.mappings) {
      if (only && !only.includes(m.name)) continue;
      const job = listingJob(folders, m);
      if (!isFolder(job.src)) continue; // missing or a file: the scan says so itself
      p.begin(job);
    }
    return p;
  }

  private begin(job: ListingJob): void {
    let worker: Worker;
    try {
      const entry = workerEntry();
      worker = new Worker(entry.code, {
        ...(entry.eval ? { eval: true } : {}),
        workerData: job,
        // A listing makes a few short-lived objects per file: a young generation this size collects
        // them in a few scavenges instead of hundreds.
        resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
      });
    } catch {
      return;
    }
    // Never what keeps the process alive: a listing nobody takes is dropped at exit.
    worker.unref();
    const listed = new Promise<EncodedListing | undefined>((resolve) => {
      worker.once('message', (e: EncodedListing) => resolve(e));
      worker.once('error', () => resolve(undefined));
      worker.once('exit', () => resolve(undefined));
    });
    this.started.set(keyOf(job), { worker, listed });
  }

  /** The listing made for exactly this folder and these rules, if one was started and succeeded. */
  async take(job: ListingJob): Promise<PrefetchedTree | undefined> {
    const key = keyOf(job);
    const s = this.started.get(key);
    if (!s) return undefined;
    this.started.delete(key);
    const encoded = await s.listed;
    if (!encoded) {
      void s.worker.terminate();
      return undefined;
    }
    return new PrefetchedTree(job.src, encoded, s.worker);
  }

  /** Stops the workers whose listing was not taken. */
  close(): void {
    for (const s of this.started.values()) void s.worker.terminate();
    this.started.clear();
  }
}

function keyOf(job: ListingJob): string {
  return JSON.stringify([
    job.src,
    job.include,
    job.ignore,
    job.opts.followLinksOutside ?? false,
    job.opts.segmentFormats ?? false,
  ]);
}

function isFolder(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The worker's module beside this one: compiled (.js); or, running from the sources (tests,
 * development), the .ts module, loaded through tsx's loader registered in the worker first.
 */
function workerEntry(): { code: string | URL; eval?: true } {
  if (!FROM_SOURCES) return { code: new URL('./listing-worker.js', import.meta.url) };
  const tsxDir = path.dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const api = pathToFileURL(path.join(tsxDir, 'dist', 'esm', 'api', 'index.mjs')).href;
  const entry = new URL('./listing-worker.ts', import.meta.url).href;
  return {
    code: `import(${JSON.stringify(api)}).then((t) => { t.register(); return import(${JSON.stringify(entry)}); })`,
    eval: true,
  };
}
