import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openState, type StateStore } from '../../src/state/store.js';
import type { NewJob } from '../../src/state/types.js';

// The SQLite ledger commits the transitions asked for in one turn of the event loop together
// (src/state/sqlite/write-group.ts, issue 51): each still answers only once it is committed, and a
// write that fails is undone alone.

let dir: string;
let state: StateStore;
let file: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-write-group-'));
  file = path.join(dir, 'state.db');
  state = openState(file);
});
afterEach(() => {
  state.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const job = (i: number): NewJob => ({
  mapping: 'docs',
  rel_path: `f${i}.txt`,
  sha256: String(i).padStart(64, '0'),
  target_lang: 'de',
  fingerprint: 'fp',
  base_fingerprint: 'base',
  output_path: `out/de/f${i}.txt`,
  run_id: null,
});

/** Frames in the WAL since the last checkpoint (a commit appends every page it changed). */
function walFrames(): number {
  const pageSize = state.db.pragma('page_size', { simple: true }) as number;
  const size = fs.statSync(`${file}-wal`).size;
  return size <= 32 ? 0 : (size - 32) / (pageSize + 24);
}

describe('the ledger writes of one turn', () => {
  it('share one commit, and each is seen by another connection once its call answers', async () => {
    const created = await Promise.all(Array.from({ length: 40 }, (_, i) => state.jobs.created(job(i))));
    state.db.pragma('wal_checkpoint(TRUNCATE)');
    expect(walFrames()).toBe(0);
    const other = new Database(file, { readonly: true });
    try {
      // 40 drives, each recording its upload's answer in the same turn.
      const uploaded = await Promise.all(created.map((j, i) => state.jobs.uploaded(j, `doc${i}`, `key${i}`)));
      expect(uploaded.every((j) => j.status === 'uploaded')).toBe(true);
      const seen = other.prepare(`SELECT COUNT(*) AS n FROM jobs WHERE status = 'uploaded'`).get() as {
        n: number;
      };
      expect(seen.n).toBe(40);
      // One commit of the pages they share; a commit each wrote the table's and its indexes'
      // pages 40 times over.
      expect(walFrames()).toBeLessThan(20);
    } finally {
      other.close();
    }
  });

  it('a write that fails is undone alone: the others of its turn are committed', async () => {
    const [a, b] = await Promise.all([state.jobs.created(job(1)), state.jobs.created(job(2))]);
    const results = await Promise.allSettled([
      state.jobs.uploaded(a!, 'doc-a', 'key-a'),
      // A transition of a row that is not there: its read-back throws inside the group.
      state.jobs.uploaded({ ...b!, id: 999 }, 'doc-x', 'key-x'),
      state.jobs.uploaded(b!, 'doc-b', 'key-b'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(state.getJob(a!.id)?.document_id).toBe('doc-a');
    expect(state.getJob(b!.id)?.document_id).toBe('doc-b');
  });

  it('a write still queued when the state is closed is refused, not lost silently', async () => {
    const p = state.jobs.created(job(1));
    state.close();
    await expect(p).rejects.toThrow(/closed/);
  });
});
