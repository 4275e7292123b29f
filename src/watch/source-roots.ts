import fs from 'node:fs';

// Is a source folder really there? A share that is unmounted (or a folder moved away) makes every
// file in it look deleted; with `on_source_delete: delete` that would delete every translation. So a
// deletion is only believed while its source folder is present: the folder exists and is the same
// filesystem as before, or a different one that is not empty (a share mounted again). An empty
// folder on another device than before is a mount point whose share is gone.

export class SourceRoots {
  private readonly devices = new Map<string, number>();

  /** Remember the device of each folder that is there now. */
  constructor(roots: Iterable<string>) {
    for (const r of roots) this.missing(r);
  }

  /** The device of `root` when it was last found there. */
  deviceOf(root: string): number | undefined {
    return this.devices.get(root);
  }

  /** Why `root` cannot be trusted now (undefined: it is there). */
  missing(root: string): string | undefined {
    let st: fs.Stats;
    try {
      st = fs.statSync(root);
    } catch (err) {
      return `source folder ${root} is not there (${(err as NodeJS.ErrnoException).code ?? 'gone'}): share unmounted or folder moved away? deletions are not applied until it is back`;
    }
    if (!st.isDirectory()) return `source folder ${root} is not a folder any more: deletions are not applied`;
    const before = this.devices.get(root);
    if (before !== undefined && before !== st.dev && isEmptyDir(root))
      return `source folder ${root} is an empty folder on another filesystem than before: share unmounted? deletions are not applied until it is back`;
    this.devices.set(root, st.dev);
    return undefined;
  }
}

function isEmptyDir(dir: string): boolean {
  try {
    const d = fs.opendirSync(dir);
    try {
      return d.readSync() === null;
    } finally {
      d.closeSync();
    }
  } catch {
    return true;
  }
}
