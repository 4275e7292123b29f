import path from 'node:path';
import {
  compareWithSnapshot,
  SnapshotComparison,
  type FolderSnapshot,
  type PolledFile,
} from './folder-snapshot.js';
import { walkSourceFolders } from '../sync/plan/walk-folders.js';
import type { SourceRoots } from './source-roots.js';
import type { WatchedSource } from './sources.js';

// Poll mode (network shares, where other machines' writes raise no event here): every
// watch.interval seconds each source folder is walked a folder at a time with the scan's own rules
// (one readdir per folder, one stat per file: no timer or watch per file), and each folder is
// compared with its previous listing as it is read, the first listing being what the state
// recorded. New and changed files go to the pending set (which waits for the stability window),
// files gone become deletions, unless the source folder itself is gone or is an empty mount point
// (an unmounted share deletes nothing: see source-roots.ts) or they are below a folder that could
// not be read.

export interface PollEvents {
  file(abs: string, kind: 'change' | 'unlink'): void;
  /** After each listing of a source folder: why it cannot be trusted, or undefined when it can. */
  rootState(root: string, problem: string | undefined): void;
}

export class FolderPoller {
  /** The previous listing of each mapping, packed per folder (folder-snapshot.ts). */
  private readonly last = new Map<string, FolderSnapshot>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly sources: WatchedSource[],
    private readonly intervalMs: number,
    private readonly roots: SourceRoots,
    /** What the state recorded of a mapping's files (the first listing compared). */
    private readonly recorded: (mapping: string) => PolledFile[],
    private readonly on: PollEvents,
  ) {}

  /** Poll every interval from now on (the next round starts an interval after the last ended). */
  start(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.running = this.pollOnce().finally(() => {
        this.running = undefined;
        this.start();
      });
    }, this.intervalMs);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** List every source folder once and report what changed since the previous listing. */
  async pollOnce(): Promise<void> {
    for (const s of this.sources) {
      if (this.closed) return;
      const before =
        this.last.get(s.mapping) ?? compareWithSnapshot(new Map(), this.recorded(s.mapping)).snapshot;
      const cmp = new SnapshotComparison(before);
      const problems = await walkSourceFolders(
        s.root,
        s.include,
        s.ignore,
        { followLinksOutside: s.followLinksOutside, segmentFormats: s.segmentFormats },
        (folder, files) => cmp.folder(folder, files),
      );
      let problem = this.roots.missing(s.root);
      if (!problem && problems.some((p) => p.relPath === '.'))
        problem = `source folder ${s.root} cannot be listed: deletions are not applied until it can`;
      this.on.rootState(s.root, problem);
      if (problem) {
        this.last.set(s.mapping, before);
        continue;
      }
      // Files below a folder that could not be read are not gone (nor changed: kept as they were).
      const blind = problems.filter((p) => p.reason === 'unreadable').map((p) => `${p.relPath}/`);
      const snapshot = cmp.finish((folder) => blind.some((b) => `${folder}/`.startsWith(b)));
      const abs = (rel: string) => path.join(s.root, ...rel.split('/'));
      for (const rel of cmp.changed) this.on.file(abs(rel), 'change');
      for (const rel of cmp.gone)
        if (!problems.some((p) => p.relPath === rel) && !blind.some((b) => rel.startsWith(b)))
          this.on.file(abs(rel), 'unlink');
      this.last.set(s.mapping, snapshot);
    }
  }
}

export type { PolledFile };
