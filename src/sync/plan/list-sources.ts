import { createHash } from 'node:crypto';
import type { FileStamp } from './file-stamp.js';
import { unsupportedProblem, type ListOptions, type ScanProblem } from './source-rules.js';
import { NUMBERS_PER_FILE, relPathIn, walkSourceFolders } from './walk-folders.js';
import { fileChunks } from '../../util/file-chunks.js';

// Finding the source files of a mapping: the source folder is walked a folder at a time
// (walk-folders.ts, shared with watch's poll mode) with the rules of source-rules.ts: include/exclude,
// editor lock and temp files ignored, symlinked files followed, symlinked folders followed unless they
// lead back into the tree (a loop), unreadable folders and files reported instead of failing the scan.

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
    /** The walked folder, with a trailing separator (shared by the files of a folder). */
    private readonly dirPrefix: string,
    private readonly name: string,
  ) {}
  get absPath(): string {
    return this.dirPrefix + this.name;
  }
}

export interface ListedTree {
  /** The files, sorted by relative path (made from `folders` when first asked for). */
  readonly files: FoundFile[];
  /** How many files were listed. */
  readonly count: number;
  /** The folders that hold files, each file once, in the order of their first file's path. */
  readonly folders: readonly ListedFolder[];
  /** The files of some of `folders`, sorted by relative path. */
  filesIn(folders: readonly ListedFolder[]): FoundFile[];
  unsupported: ScanProblem[];
  problems: ScanProblem[];
}

/**
 * One folder's files as walked: their names sorted, and NUMBERS_PER_FILE numbers each (size, mtime,
 * inode, ctime) in the same order. A no-op compares these with the snapshot's digest and makes no
 * object per file: 100,000s of file records and path strings outliving the walk cost the no-op more
 * garbage collection than its digest (issue 51).
 */
export interface ListedFolder {
  /** Path relative to the source folder ('' at the top), '/' separators. */
  readonly rel: string;
  /** Its absolute path with a trailing separator. */
  readonly prefix: string;
  readonly names: readonly string[];
  readonly stats: Float64Array;
}

/** The relative paths of the files of `folders`. */
export function relPathsIn(folders: readonly ListedFolder[]): string[] {
  return folders.flatMap(({ rel, names }) => names.map((name) => relPathIn(rel, name)));
}

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A folder's files as walked, sorted by name (the walk hands them in the order readdir gave). */
function sortedFolder(rel: string, prefix: string, names: readonly string[], stats: ArrayLike<number>) {
  const order = names.map((_, k) => k).sort((a, b) => byText(names[a]!, names[b]!));
  const sorted = new Float64Array(names.length * NUMBERS_PER_FILE);
  order.forEach((from, to) => {
    for (let j = 0; j < NUMBERS_PER_FILE; j++)
      sorted[to * NUMBERS_PER_FILE + j] = stats[from * NUMBERS_PER_FILE + j]!;
  });
  return { rel, prefix, names: order.map((k) => names[k]!), stats: sorted };
}

class SourceListing implements ListedTree {
  unsupported: ScanProblem[] = [];
  problems: ScanProblem[] = [];
  private readonly walked: ListedFolder[] = [];
  private sortedFolders: ListedFolder[] | undefined;
  private sortedFiles: FoundFile[] | undefined;
  count = 0;

  add(folder: ListedFolder): void {
    this.walked.push(folder);
    this.count += folder.names.length;
  }

  get folders(): readonly ListedFolder[] {
    // A folder's files lie between its subfolders' in path order ('a/b.txt' < 'a/b/c' < 'a/c'):
    // folders are ordered by their first file.
    return (this.sortedFolders ??= this.walked
      .map((f) => ({ f, first: relPathIn(f.rel, f.names[0]!) }))
      .sort((a, b) => byText(a.first, b.first))
      .map(({ f }) => f));
  }

  get files(): FoundFile[] {
    return (this.sortedFiles ??= this.filesIn(this.walked));
  }

  filesIn(folders: readonly ListedFolder[]): FoundFile[] {
    const files: FoundFile[] = [];
    for (const { rel, prefix, names, stats } of folders)
      for (let k = 0, at = 0; k < names.length; k++, at += NUMBERS_PER_FILE) {
        const name = names[k]!;
        files.push(
          new WalkedFile(
            relPathIn(rel, name),
            stats[at]!,
            stats[at + 1]!,
            stats[at + 2]!,
            stats[at + 3]!,
            prefix,
            name,
          ),
        );
      }
    return files.sort((a, b) => byText(a.relPath, b.relPath));
  }
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
  const out = new SourceListing();
  const unsupported = (relPath: string) =>
    out.unsupported.push(unsupportedProblem(relPath, opts.segmentFormats)!);
  out.problems = await walkSourceFolders(
    sourceDir,
    include,
    ignore,
    { ...opts, unsupported, statThread: true },
    (rel, { names, stats }, prefix) => {
      if (names.length > 0) out.add(sortedFolder(rel, prefix, names, stats));
    },
  );
  out.unsupported.sort((a, b) => byText(a.relPath, b.relPath));
  return out;
}

/** sha256 of a file, in chunks (flat memory whatever the size). */
export async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of fileChunks(file)) h.update(chunk);
  return h.digest('hex');
}
