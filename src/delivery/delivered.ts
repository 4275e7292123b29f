import type { FailureKind, SyncEventMap, SyncEvents } from '../sync/events.js';
import { outputFile } from '../manifest/in-place-output.js';

// What runs delivered, gathered from their events for one commit: the outputs written (where they
// were written: beside an output a person edited, the file beside it), the outputs removed, what
// was billed, and what is left failed. `sync` takes it once at the end; `watch` takes a batch at a
// time (./batched-commits.ts), each take starting the next batch empty.

export interface WrittenFile {
  /** Path relative to the manifest folder, '/' separators. */
  path: string;
  mapping: string;
  /** The source it translates, relative to its mapping's source folder. */
  file: string;
  target: string;
  /** Characters the service billed for it (0 for a copy of an identical translation). */
  billed: number;
  /** Copied from an identical translation, nothing uploaded. */
  reused: boolean;
  /** Written beside an output a person edited (that output is theirs and left alone). */
  beside: boolean;
}

export interface LeftFailed {
  mapping: string;
  file: string;
  target: string;
  kind: FailureKind;
  error: string;
  willRetry: boolean;
}

export interface Delivery {
  /** The runs that delivered it, in order. */
  runs: number[];
  /** The command of those runs (sync, watch). */
  command: string;
  written: WrittenFile[];
  /** Outputs deleted because their source was (on_source_delete: delete), manifest-relative. */
  removed: string[];
  /** Failed and not delivered since. */
  failed: LeftFailed[];
}

/** What a delivery event says of its output. */
type Done = { mapping: string; file: string; target: string; output: string };

const unit = (r: { mapping: string; file: string; target: string }) => `${r.mapping}\0${r.file}\0${r.target}`;

export class DeliveryLog {
  private runs: number[] = [];
  private written = new Map<string, WrittenFile>();
  private removed = new Set<string>();
  private failed = new Map<string, LeftFailed>();
  /** Outputs whose next delivery goes beside them (job:beside comes just before job:done). */
  private readonly beside = new Map<string, string>();
  private readonly detachAll: () => void;

  constructor(
    events: SyncEvents,
    private readonly command: string,
  ) {
    const handlers: Partial<{ [K in keyof SyncEventMap]: (...e: SyncEventMap[K]) => void }> = {
      'run:start': (e) => void this.runs.push(e.runId),
      'job:beside': (e) => void this.beside.set(e.output, e.beside),
      'job:done': (e) => this.delivered(e, e.billedCharacters, false),
      'job:reused': (e) => this.delivered(e, 0, true),
      'job:failed': (e) => {
        const { mapping, file, target, kind, error, willRetry } = e;
        this.failed.set(unit(e), { mapping, file, target, kind, error, willRetry });
      },
      'file:removed': (e) => {
        for (const p of e.outputsDeleted) {
          this.removed.add(p);
          this.written.delete(p);
        }
      },
    };
    // One table for on and off: each handler is removed exactly as it was added.
    const each = (fn: (name: keyof SyncEventMap, h: (...a: never[]) => void) => void) =>
      Object.entries(handlers).forEach(([name, h]) => fn(name as keyof SyncEventMap, h));
    each((name, h) => events.on(name, h as never));
    this.detachAll = () => each((name, h) => events.off(name, h as never));
  }

  private delivered(e: Done, billed: number, reused: boolean): void {
    const at = this.beside.get(e.output);
    this.beside.delete(e.output);
    // The targets of an in-place file (an .xcstrings catalog) are one file delivered.
    const path = at ?? outputFile(e.output);
    const before = this.written.get(path);
    this.written.set(path, {
      path,
      mapping: e.mapping,
      file: e.file,
      target: e.target,
      // Written twice in one batch (watch: the source changed again): billed twice.
      billed: billed + (before?.billed ?? 0),
      reused: reused && (before?.reused ?? true),
      beside: at !== undefined,
    });
    this.removed.delete(path);
    this.failed.delete(unit(e));
  }

  /** Nothing written or removed since the last take. */
  get empty(): boolean {
    return this.written.size === 0 && this.removed.size === 0;
  }

  /** What was delivered since the last take; the next batch starts empty. */
  take(): Delivery {
    const d: Delivery = {
      runs: [...this.runs],
      command: this.command,
      written: [...this.written.values()].sort((a, b) => a.path.localeCompare(b.path)),
      removed: [...this.removed].sort(),
      failed: [...this.failed.values()],
    };
    // The run in progress goes on delivering into the next batch: it is named there too.
    this.runs = this.runs.slice(-1);
    this.written = new Map();
    this.removed = new Set();
    this.failed = new Map();
    return d;
  }

  /** Stop following the events. */
  detach(): void {
    this.detachAll();
  }
}

/** `earlier` and `later` as one delivery (a file written in both: later's, billed for both). */
export function mergeDeliveries(earlier: Delivery, later: Delivery): Delivery {
  const written = new Map(earlier.written.map((w) => [w.path, w]));
  for (const w of later.written) {
    const before = written.get(w.path);
    written.set(
      w.path,
      before ? { ...w, billed: w.billed + before.billed, reused: w.reused && before.reused } : w,
    );
  }
  const removed = new Set([
    ...earlier.removed.filter((p) => !written.has(p) || later.removed.includes(p)),
    ...later.removed,
  ]);
  for (const p of later.removed) written.delete(p);
  const units = new Set(later.written.map((w) => `${w.mapping}\0${w.file}\0${w.target}`));
  return {
    runs: [...new Set([...earlier.runs, ...later.runs])],
    command: later.command,
    written: [...written.values()].sort((a, b) => a.path.localeCompare(b.path)),
    removed: [...removed].sort(),
    failed: [
      ...earlier.failed.filter((f) => !units.has(`${f.mapping}\0${f.file}\0${f.target}`)),
      ...later.failed,
    ],
  };
}
