import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import type { FileStamp } from './file-stamp.js';
import {
  isDefaultIgnored,
  SourceRules,
  statSourceFile,
  unreadableFolder,
  unsupportedProblem,
  type ListOptions,
  type ScanProblem,
} from './source-rules.js';

// Finding the source files of a mapping: fast-glob walks the source folder, and the rules of
// source-rules.ts (shared with watch's poll walk) decide each entry: include/exclude, editor lock
// and temp files ignored, symlinked files followed, symlinked folders followed unless they lead back
// into the tree (a loop), unreadable folders and files reported instead of failing the scan.

export {
  DEFAULT_IGNORES,
  isDefaultIgnored,
  isSupportedExtension,
  linkOutsideProblem,
  type ListOptions,
  type ScanProblem,
} from './source-rules.js';

export interface FoundFile extends FileStamp {
  /** Path relative to the source folder, '/' separators. */
  readonly relPath: string;
  readonly absPath: string;
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
    readonly ino: number,
    readonly ctimeMs: number,
    /** The walked folder, with a trailing separator. */
    private readonly dirPrefix: string,
    /** The path below it as fast-glob gave it ('/' separators). */
    private readonly sub: string,
  ) {}
  get absPath(): string {
    return this.dirPrefix + (path.sep === '/' ? this.sub : this.sub.replaceAll('/', path.sep));
  }
}

export interface ListedTree {
  files: FoundFile[];
  unsupported: ScanProblem[];
  problems: ScanProblem[];
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
  const rules = SourceRules.open(sourceDir, include, ignore, opts);
  if (!(rules instanceof SourceRules)) {
    out.problems.push(rules);
    return out;
  }
  await walk(sourceDir, '', rules, out);
  out.files.sort((a, b) => (a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0));
  return out;
}

async function walk(dir: string, prefix: string, rules: SourceRules, out: ListedTree): Promise<void> {
  const rel = (p: string) => (prefix ? `${prefix}/${p}` : p);
  // Report unreadable folders instead of failing the whole scan.
  const readdir = ((
    p: string,
    opts: unknown,
    cb: (err: NodeJS.ErrnoException | null, e?: fs.Dirent[]) => void,
  ) => {
    fs.readdir(p, opts as { withFileTypes: true }, (err, entries) => {
      if (err && err.code !== 'ENOENT') {
        out.problems.push(unreadableFolder(rel(path.relative(dir, p).split(path.sep).join('/')), err));
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
    ignore: nested ? [] : rules.excludes,
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
      (!nested || !rules.ignored(rel(e.path))),
  );
  const dirPrefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
  for (const e of entries) {
    const relPath = rel(e.path);
    // fast-glob's paths are normalised with '/': joined by hand (path.join per file is not free).
    const abs = dirPrefix + (path.sep === '/' ? e.path : e.path.replaceAll('/', path.sep));
    const dirent = e.dirent;
    if (dirent.isSymbolicLink()) {
      const link = rules.followLink(abs, relPath);
      if (link?.kind === 'problem') out.problems.push(link.problem);
      else if (link?.kind === 'file')
        pushFile(
          out,
          new WalkedFile(relPath, link.size, link.mtimeMs, link.ino, link.ctimeMs, dirPrefix, e.path),
        );
      else if (link?.kind === 'folder') await walk(abs, relPath, rules, out);
      continue;
    }
    if (!dirent.isFile() || !rules.included(relPath)) continue;
    const st = statSourceFile(abs, relPath);
    if (st && 'reason' in st) out.problems.push(st);
    else if (st)
      pushFile(out, new WalkedFile(relPath, st.size, st.mtimeMs, st.ino, st.ctimeMs, dirPrefix, e.path));
  }
}

function pushFile(out: ListedTree, file: FoundFile): void {
  const unsupported = unsupportedProblem(file.relPath);
  if (unsupported) out.unsupported.push(unsupported);
  else out.files.push(file);
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
