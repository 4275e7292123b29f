import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { autoBackup, backupPathFor, backupState, listBackups } from '../../src/state/backup.js';
import { checkStateFile } from '../../src/state/check.js';
import { StateDamagedError } from '../../src/state/integrity.js';
import { openState, type StateStore } from '../../src/state/store.js';

// Backups, integrity check and damage detection over real SQLite files.

let dir: string;
let statePath: string;
let state: StateStore;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-backup-'));
  statePath = path.join(dir, 'state.db');
  state = openState(statePath);
  state.putFile({ mapping: 'docs', rel_path: 'a.txt', size: 1, mtime_ms: 1, sha256: 'x' });
});
afterEach(() => {
  state.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const hoursAfter = (t: Date, h: number) => new Date(t.getTime() + h * 3_600_000);

describe('state backups', () => {
  it('writes a consistent copy, mode 0600, that opens as a state with the same rows', async () => {
    const dest = backupPathFor(statePath, new Date('2026-11-23T20:18:07.123Z'), true);
    expect(path.basename(dest)).toBe('state.db.backup-20261123T201807Z-manual');
    await backupState(state.db, dest);
    expect(fs.statSync(dest).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(`${dest}.partial`)).toBe(false);
    const copy = openState(dest);
    try {
      expect(copy.getFile('docs', 'a.txt')?.sha256).toBe('x');
    } finally {
      copy.close();
    }
  });

  it('takes an automatic backup once per interval and keeps only the newest few', async () => {
    const t0 = new Date('2026-11-01T02:15:00Z');
    const cfg = { keep: 2, interval_hours: 24 };
    expect(await autoBackup(state.db, statePath, cfg, t0)).toBeDefined();
    expect(await autoBackup(state.db, statePath, cfg, hoursAfter(t0, 1))).toBeUndefined();
    await backupState(state.db, backupPathFor(statePath, hoursAfter(t0, 2), true));
    expect(await autoBackup(state.db, statePath, cfg, hoursAfter(t0, 24))).toBeDefined();
    expect(await autoBackup(state.db, statePath, cfg, hoursAfter(t0, 48))).toBeDefined();
    const left = listBackups(statePath);
    // The two newest automatic ones, and the manual one (never removed).
    expect(left.map((b) => [b.takenAt.toISOString(), b.manual])).toEqual([
      ['2026-11-03T02:15:00.000Z', false],
      ['2026-11-02T02:15:00.000Z', false],
      ['2026-11-01T04:15:00.000Z', true],
    ]);
  });

  it('keep: 0 takes none', async () => {
    expect(await autoBackup(state.db, statePath, { keep: 0, interval_hours: 1 })).toBeUndefined();
    expect(listBackups(statePath)).toEqual([]);
  });
});

describe('damaged state files', () => {
  it('the integrity check passes on a sound state', () => {
    expect(checkStateFile(statePath)).toEqual([]);
  });

  it('a file that is not a database: a StateDamagedError naming it, and the check says so', () => {
    const bad = path.join(dir, 'garbage.db');
    fs.writeFileSync(bad, 'this is not a database '.repeat(200));
    expect(() => openState(bad)).toThrow(StateDamagedError);
    try {
      openState(bad);
    } catch (err) {
      expect((err as Error).message).toContain(bad);
      expect((err as Error).message).toContain('locsync state adopt');
      expect((err as Error).message).toContain('locsync state check');
    }
    expect(checkStateFile(bad)).toEqual(['file is not a database']);
  });

  it('malformed pages fail the integrity check', () => {
    const file = path.join(dir, 'pages.db');
    const db = new Database(file);
    db.exec("CREATE TABLE t (a TEXT); INSERT INTO t VALUES ('one'), ('two');");
    db.close();
    const bytes = fs.readFileSync(file);
    const page = 4096;
    bytes.fill(0xff, page + 8, page + 200);
    fs.writeFileSync(file, bytes);
    expect(checkStateFile(file).join('\n')).toMatch(/malformed|out of range/);
  });
});
