import { createHash } from 'node:crypto';
import type { FileStamp } from './file-stamp.js';
import { unsupportedProblem, type ListOptions, type ScanProblem } from './source-rules.js';
import { NUMBERS_PER_FILE, walkSourceFolders } from './walk-folders.js';
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
  const unsupported = (relPath: string) =>
    out.unsupported.push(unsupportedProblem(relPath, opts.segmentFormats)!);
  out.problems = await walkSourceFolders(
    sourceDir,
    include,
    ignore,
    { ...opts, unsupported },
    (rel, { names, stats }, prefix) => {
      for (let k = 0, at = 0; k < names.length; k++, at += NUMBERS_PER_FILE) {
        const name = names[k]!;
        out.files.push(
          new WalkedFile(
            rel === '' ? name : `${rel}/${name}`,
            stats[at]!,
            stats[at + 1]!,
            stats[at + 2]!,
            stats[at + 3]!,
            prefix,
            name,
          ),
        );
      }
    },
  );
  out.files.sort((a, b) => (a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0));
  out.unsupported.sort((a, b) => (a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0));
  return out;
}

/** sha256 of a file, in chunks (flat memory whatever the size). */
export async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of fileChunks(file)) h.update(chunk);
  return h.digest('hex');
}
