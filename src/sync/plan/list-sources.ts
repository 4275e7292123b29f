import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import micromatch from 'micromatch';
import { DOCUMENT_EXTENSIONS } from '../../api/types.js';
import { PART_SUFFIX } from '../../util/part-file.js';
import { extOf } from './fingerprint.js';

// Finding the source files of a mapping: fast-glob with include/exclude, editor lock and temp files
// ignored, symlinked files followed, symlinked folders followed unless they lead back into the tree
// (a loop), unreadable folders and files reported instead of failing the scan.

/** Ignored in every source folder: editor lock files, temp files, OS litter, our own partial files. */
export const DEFAULT_IGNORES = [
  '**/~$*',
  '**/.~lock.*#',
  '**/*.tmp',
  '**/.DS_Store',
  '**/Thumbs.db',
  '**/desktop.ini',
  `**/*${PART_SUFFIX}`,
];

/**
 * DEFAULT_IGNORES for one file or folder name, without a glob match per entry (the scan's hot path;
 * test/sync/scan.test.ts checks that both agree).
 */
export function isDefaultIgnored(name: string): boolean {
  return (
    name.startsWith('~$') ||
    name.endsWith('.tmp') ||
    name.endsWith(PART_SUFFIX) ||
    (name.startsWith('.~lock.') && name.endsWith('#')) ||
    name === '.DS_Store' ||
    name === 'Thumbs.db' ||
    name === 'desktop.ini'
  );
}

export interface FoundFile {
  /** Path relative to the source folder, '/' separators. */
  readonly relPath: string;
  readonly absPath: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/**
 * A file found by the walk. Its absolute path is made when asked for (hashing, uploading): a listing
 * of 100,000s of files keeps no absolute path string per file.
 */
class WalkedFile implements FoundFile {
  constructor(
    readonly relPath: string,
    readonly size: number,
    readonly mtimeMs: number,
    /** The walked folder, with a trailing separator. */
    private readonly dirPrefix: string,
    /** The path below it as fast-glob gave it ('/' separators). */
    private readonly sub: string,
  ) {}
  get absPath(): string {
    return this.dirPrefix + (path.sep === '/' ? this.sub : this.sub.replaceAll('/', path.sep));
  }
}

export interface ScanProblem {
  relPath: string;
  reason: 'unreadable' | 'symlink-loop' | 'link-outside' | 'unsupported';
  message: string;
}

export interface ListedTree {
  files: FoundFile[];
  unsupported: ScanProblem[];
  problems: ScanProblem[];
}

export function isSupportedExtension(ext: string): boolean {
  return (DOCUMENT_EXTENSIONS as readonly string[]).includes(ext);
}

interface Matchers {
  included(relPath: string): boolean;
  ignored(relPath: string): boolean;
}

function isInsideOrSame(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export interface ListOptions {
  /** Follow symbolic links that lead outside the source folder (the mapping's links_outside_source). */
  followLinksOutside?: boolean;
}

/**
 * The problem of a source entry reached through a link that leads outside the source folder
 * (`/etc/passwd` linked into a shared folder must not be uploaded and billed without a word), or
 * undefined when it stays inside or such links are allowed.
 */
export function linkOutsideProblem(
  relPath: string,
  real: string,
  rootReal: string,
  opts: ListOptions,
): ScanProblem | undefined {
  if (opts.followLinksOutside || isInsideOrSame(rootReal, real)) return undefined;
  return {
    relPath,
    reason: 'link-outside',
    message: `symbolic link leads outside the source folder (to ${real}): skipped; set links_outside_source: follow on the mapping to translate it`,
  };
}

/**
 * List the files of a source folder (sorted by relative path). `ignore` are extra glob patterns
 * relative to the folder (the mapping's exclude, output folders inside the source).
 */
export async function listSourceFiles(
  sourceDir: string,
  include: string[],
  ignore: string[],
  opts: ListOptions = {},
): Promise<ListedTree> {
  const out: ListedTree = { files: [], unsupported: [], problems: [] };
  let rootReal: string;
  try {
    rootReal = fs.realpathSync(sourceDir);
  } catch (err) {
    out.problems.push({
      relPath: '.',
      reason: 'unreadable',
      message: `source folder ${sourceDir}: ${(err as Error).message}`,
    });
    return out;
  }
  const visited = new Set<string>([rootReal]);
  const allIgnores = [...DEFAULT_IGNORES, ...ignore];
  const everything = include.length === 0 || include.every((p) => p === '**/*' || p === '**');
  const inc = include.map((p) => micromatch.matcher(p, { dot: false }));
  const ign = allIgnores.map((p) => micromatch.matcher(p, { dot: true }));
  const m: Matchers = {
    included: (r) => everything || inc.some((f) => f(r)),
    ignored: (r) => ign.some((f) => f(r)),
  };
  await walk(sourceDir, '', rootReal, m, allIgnores, visited, out, opts);
  out.files.sort((a, b) => (a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0));
  return out;
}

async function walk(
  dir: string,
  prefix: string,
  rootReal: string,
  m: Matchers,
  ignore: string[],
  visited: Set<string>,
  out: ListedTree,
  opts: ListOptions,
): Promise<void> {
  const rel = (p: string) => (prefix ? `${prefix}/${p}` : p);
  // Report unreadable folders instead of failing the whole scan.
  const readdir = ((
    p: string,
    opts: unknown,
    cb: (err: NodeJS.ErrnoException | null, e?: fs.Dirent[]) => void,
  ) => {
    fs.readdir(p, opts as { withFileTypes: true }, (err, entries) => {
      if (err && err.code !== 'ENOENT') {
        out.problems.push({
          relPath: rel(path.relative(dir, p).split(path.sep).join('/')) || '.',
          reason: 'unreadable',
          message: `folder cannot be read: ${err.code ?? err.message}`,
        });
        cb(null, []);
        return;
      }
      cb(err, entries);
    });
  }) as unknown as typeof fs.readdir;

  // Symlinks must be seen whatever the include patterns say, so the walk lists everything not
  // ignored and the include patterns are applied to files (paths from the source root).
  const nested = prefix !== '';
  const found = await fg(['**/*'], {
    cwd: dir,
    // The default ignores are name checks below (one glob less per entry for fast-glob to match).
    ignore: nested ? [] : ignore.filter((p) => !DEFAULT_IGNORES.includes(p)),
    dot: false,
    onlyFiles: false,
    followSymbolicLinks: false,
    // Entries with their dirent only: files are stat'ed below, keeping just size and mtime (fast-glob's
    // stats mode would hold a full fs.Stats per file until the walk ends).
    objectMode: true,
    // One pattern and no symlink followed by fast-glob: an entry cannot come twice, so no index of every
    // path seen (a Set of 100,000 strings and a lookup per entry).
    unique: false,
    fs: { readdir },
  });
  // Folders with an ignored name: fast-glob went into them, their files are dropped here.
  const ignoredDirs: string[] = [];
  for (const e of found)
    if (e.dirent.isDirectory() && isDefaultIgnored(e.name)) ignoredDirs.push(e.path + '/');
  const entries = found.filter(
    (e) =>
      !isDefaultIgnored(e.name) &&
      (ignoredDirs.length === 0 || !ignoredDirs.some((d) => e.path.startsWith(d))) &&
      (!nested || !m.ignored(rel(e.path))),
  );
  const dirPrefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
  for (const e of entries) {
    const relPath = rel(e.path);
    // fast-glob's paths are normalised with '/': joined by hand (path.join per file is not free).
    const abs = dirPrefix + (path.sep === '/' ? e.path : e.path.replaceAll('/', path.sep));
    const dirent = e.dirent;
    if (dirent.isSymbolicLink()) {
      let st: fs.Stats;
      try {
        st = fs.statSync(abs);
      } catch (err) {
        out.problems.push({
          relPath,
          reason: (err as NodeJS.ErrnoException).code === 'ELOOP' ? 'symlink-loop' : 'unreadable',
          message: `symbolic link cannot be followed: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        });
        continue;
      }
      const real = fs.realpathSync(abs);
      const outside = linkOutsideProblem(relPath, real, rootReal, opts);
      if (outside) {
        if (st.isDirectory() || m.included(relPath)) out.problems.push(outside);
        continue;
      }
      if (st.isFile()) {
        if (m.included(relPath))
          pushFile(out, new WalkedFile(relPath, st.size, st.mtimeMs, dirPrefix, e.path));
      } else if (st.isDirectory()) {
        const parentReal = fs.realpathSync(path.dirname(abs));
        if (visited.has(real) || isInsideOrSame(real, rootReal) || isInsideOrSame(real, parentReal)) {
          out.problems.push({
            relPath,
            reason: 'symlink-loop',
            message: `symbolic link to a folder already scanned (${real}): not followed`,
          });
          continue;
        }
        visited.add(real);
        await walk(abs, relPath, rootReal, m, ignore, visited, out, opts);
      }
      continue;
    }
    if (!dirent.isFile() || !m.included(relPath)) continue;
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(abs, { throwIfNoEntry: false });
    } catch (err) {
      out.problems.push({
        relPath,
        reason: 'unreadable',
        message: `cannot be read: ${(err as NodeJS.ErrnoException).code}`,
      });
      continue;
    }
    if (st) pushFile(out, new WalkedFile(relPath, st.size, st.mtimeMs, dirPrefix, e.path));
  }
}

function pushFile(out: ListedTree, file: FoundFile): void {
  const relPath = file.relPath;
  const ext = extOf(relPath);
  if (!isSupportedExtension(ext)) {
    out.unsupported.push({
      relPath,
      reason: 'unsupported',
      message: ext ? `.${ext} files are not translated by the service` : 'no file extension',
    });
    return;
  }
  out.files.push(file);
}

/** sha256 of a file, streamed (flat memory whatever the size). */
export function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    fs.createReadStream(file, { highWaterMark: 1 << 20 })
      .on('data', (d) => h.update(d))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}
