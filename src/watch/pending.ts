import fs from 'node:fs';
import path from 'node:path';
import { checkStable, type Observation } from './stability.js';
import type { SourceRef } from './sources.js';

// Files seen by the watcher and not yet handed to the engine, keyed by (mapping, path): a burst of
// events for one file is one entry (memory bounded by the number of distinct files), the latest event
// decides whether it was changed or deleted. Nothing is hashed here; only stat calls.

export interface PendingEntry extends SourceRef {
  abs: string;
  kind: 'change' | 'unlink';
  /** When the latest event arrived. */
  since: number;
  seen?: Observation;
  /** The editor lock file that holds this document back (logged once). */
  openIn?: string;
}

export interface Sweep {
  /** Complete files to hash and classify, oldest event first. */
  ready: PendingEntry[];
  /** Sources deleted (and still gone) whose outputs follow on_source_delete. */
  removed: PendingEntry[];
  /** Documents found held open by an editor during this sweep (first time only). */
  newlyOpen: PendingEntry[];
}

const keyOf = (r: SourceRef) => `${r.mapping}\0${r.relPath}`;

export class PendingFiles {
  private readonly entries = new Map<string, PendingEntry>();

  private windowMs = 0;
  private unlinkDelayMs = 0;
  /** Longest a deletion waits for changed files to be handed over first (renames reuse), ms. */
  private maxUnlinkWaitMs = 0;

  /** `windowMs`: the stability window. */
  constructor(windowMs: number) {
    this.setWindow(windowMs);
  }

  /** Change the stability window (a manifest edit); pending files are kept. */
  setWindow(windowMs: number): void {
    this.windowMs = windowMs;
    // A rename's new name must be handed over before the old name's deletion (reuse, not upload):
    // the new name waits one window for its stability check, so a deletion waits two and a margin.
    this.unlinkDelayMs = 2 * windowMs + 1000;
    this.maxUnlinkWaitMs = Math.max(10_000, windowMs * 10);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Record an event (a newer event for the same file replaces the older one). */
  add(ref: SourceRef, root: string, kind: 'change' | 'unlink', now = Date.now()): void {
    const k = keyOf(ref);
    const prev = this.entries.get(k);
    if (prev && prev.kind === kind) {
      prev.since = now;
      return;
    }
    this.entries.set(k, { ...ref, abs: path.join(root, ref.relPath), kind, since: now });
  }

  clear(): void {
    this.entries.clear();
  }

  /**
   * Look at every pending file once. A changed file that vanished becomes a deletion; a deletion
   * whose file is back becomes a change. Deletions wait for the stability window and for the
   * changed files to be handed over first (a rename's new name must be scanned before its old
   * name's outputs are deleted, so that the translation is reused), at most maxUnlinkWaitMs.
   */
  sweep(now = Date.now(), handOverBusy = false): Sweep {
    const out: Sweep = { ready: [], removed: [], newlyOpen: [] };
    let changesWaiting = handOverBusy;
    for (const [k, e] of this.entries) {
      if (e.kind !== 'change') continue;
      const r = checkStable(e.abs, e.seen, this.windowMs, now);
      if (r.ready) {
        this.entries.delete(k);
        out.ready.push(e);
        // Handed over now: deletions wait for the next sweep, after it has been classified.
        changesWaiting = true;
      } else if (r.why === 'gone') {
        Object.assign(e, { kind: 'unlink', since: now, seen: undefined, openIn: undefined });
      } else {
        e.seen = r.seen;
        changesWaiting = true;
        if (r.why === 'open' && e.openIn !== r.lockFile) {
          e.openIn = r.lockFile;
          out.newlyOpen.push(e);
        } else if (r.why !== 'open') e.openIn = undefined;
      }
    }
    for (const [k, e] of this.entries) {
      if (e.kind !== 'unlink') continue;
      const age = now - e.since;
      if (age < this.unlinkDelayMs) continue;
      if (changesWaiting && age < this.maxUnlinkWaitMs) continue;
      this.entries.delete(k);
      if (fs.existsSync(e.abs)) {
        // Back again (saved by delete + rename): a change.
        this.entries.set(k, { ...e, kind: 'change', since: now, seen: undefined });
        continue;
      }
      out.removed.push(e);
    }
    out.ready.sort((a, b) => a.since - b.since);
    return out;
  }
}
