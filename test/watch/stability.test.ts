import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PendingFiles } from '../../src/watch/pending.js';
import { checkStable, findOfficeLock, isOfficeLockFile, officeLockNames } from '../../src/watch/stability.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-watch-stab-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A file whose mtime is `ageMs` before `now`. */
function file(name: string, content: string, now: number, ageMs: number): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, content);
  const t = new Date(now - ageMs);
  fs.utimesSync(p, t, t);
  return p;
}

describe('stability check', () => {
  it('needs two agreeing looks, and a quiet window by mtime and by what it saw', () => {
    const now = Date.now();
    const p = file('a.txt', 'one', now, 10_000);
    const first = checkStable(p, undefined, 2000, now);
    expect(first.ready).toBe(false);
    const seen = first.ready ? undefined : 'seen' in first ? first.seen : undefined;
    expect(checkStable(p, seen, 2000, now + 100).ready).toBe(true);

    // It grew between the looks: not ready until it has kept still for the window.
    fs.appendFileSync(p, ' two');
    const t = new Date(now - 10_000);
    fs.utimesSync(p, t, t);
    const grown = checkStable(p, seen, 2000, now + 200);
    expect(grown.ready).toBe(false);
    const seen2 = !grown.ready && 'seen' in grown ? grown.seen : undefined;
    expect(checkStable(p, seen2, 2000, now + 1000).ready).toBe(false);
    expect(checkStable(p, seen2, 2000, now + 2300).ready).toBe(true);
  });

  it('a recent mtime holds a file back; a missing file is gone', () => {
    const now = Date.now();
    const p = file('b.txt', 'fresh', now, 500);
    const first = checkStable(p, undefined, 2000, now);
    const seen = !first.ready && 'seen' in first ? first.seen : undefined;
    expect(checkStable(p, seen, 2000, now + 100).ready).toBe(false);
    expect(checkStable(p, seen, 2000, now + 1600).ready).toBe(true);
    expect(checkStable(path.join(dir, 'nope.txt'), undefined, 2000, now)).toEqual({
      ready: false,
      why: 'gone',
    });
  });

  it('knows the lock files of Word/Excel/PowerPoint and LibreOffice', () => {
    expect(officeLockNames('/x/report.docx').sort()).toEqual(
      ['.~lock.report.docx#', '~$eport.docx', '~$port.docx', '~$report.docx'].sort(),
    );
    expect(isOfficeLockFile('/x/~$port.docx')).toBe(true);
    expect(isOfficeLockFile('/x/.~lock.report.docx#')).toBe(true);
    expect(isOfficeLockFile('/x/report.docx')).toBe(false);
    const now = Date.now();
    const doc = file('report.docx', 'x', now, 10_000);
    expect(findOfficeLock(doc)).toBeUndefined();
    fs.writeFileSync(path.join(dir, '.~lock.report.docx#'), 'owner');
    expect(findOfficeLock(doc)).toBe(path.join(dir, '.~lock.report.docx#'));
    const first = checkStable(doc, undefined, 1000, now);
    const seen = !first.ready && 'seen' in first ? first.seen : undefined;
    expect(checkStable(doc, seen, 1000, now + 100)).toMatchObject({ ready: false, why: 'open' });
  });
});

describe('pending set', () => {
  it('coalesces events per file and keeps the latest kind', () => {
    const now = Date.now();
    const pending = new PendingFiles(1000);
    for (let i = 0; i < 1000; i++) pending.add({ mapping: 'docs', relPath: 'a.txt' }, dir, 'change', now);
    pending.add({ mapping: 'docs', relPath: 'b.txt' }, dir, 'change', now);
    expect(pending.size).toBe(2);
  });

  it('a deleted file that is back (saved by delete + rename) is a change, not a deletion', () => {
    const now = Date.now();
    const pending = new PendingFiles(1000);
    pending.add({ mapping: 'docs', relPath: 'c.txt' }, dir, 'unlink', now);
    file('c.txt', 'saved again', now, 10_000);
    const s1 = pending.sweep(now + 5000);
    expect(s1.removed).toEqual([]);
    expect(pending.sweep(now + 5100).ready).toEqual([]); // first look at the file that is back
    const s3 = pending.sweep(now + 5200);
    expect(s3.ready.map((e) => e.relPath)).toEqual(['c.txt']);
    expect(s3.removed).toEqual([]);
  });

  it('a deletion waits while new files are still settling (a rename is seen as new name first)', () => {
    const now = Date.now();
    const pending = new PendingFiles(1000);
    pending.add({ mapping: 'docs', relPath: 'old.txt' }, dir, 'unlink', now);
    file('new.txt', 'renamed', now, 0);
    pending.add({ mapping: 'docs', relPath: 'new.txt' }, dir, 'change', now);
    // new.txt has a fresh mtime: still settling at +3.5 s (mtime moves with the test's clock).
    fs.utimesSync(path.join(dir, 'new.txt'), new Date(now + 3400), new Date(now + 3400));
    expect(pending.sweep(now + 3500).removed).toEqual([]);
    expect(pending.sweep(now + 6000).ready.map((e) => e.relPath)).toEqual(['new.txt']);
    expect(pending.sweep(now + 6100).removed.map((e) => e.relPath)).toEqual(['old.txt']);
  });
});
