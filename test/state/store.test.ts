import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { openState, SCHEMA_VERSION } from '../../src/state/store.js';
import { acquireLock, LockedError, lockPathFor } from '../../src/state/lock.js';
import { mountOf, networkFsType } from '../../src/state/netfs.js';

import { scrub } from '../../src/log/secrets.js';
import { insertJobRow, setJobRow } from '../helpers/job-rows.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-state-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('no-op fast-path records', () => {
  it('a changed file loses its verified mark and its mapping snapshot; a done job drops every snapshot', async () => {
    const st = openState(path.join(dir, 'state.db'));
    const file = (rel: string, sha: string) =>
      st.putFile({ mapping: 'm', rel_path: rel, size: 1, mtime_ms: 1, sha256: sha });
    file('a.txt', 'sha-a');
    file('b.txt', 'sha-b');
    file('c d/ü.txt', 'sha-c');
    st.verifyFiles('m', 7, ['a.txt', 'b.txt']);
    st.verifyFiles('m', 2 ** 47 + 5, ['c d/ü.txt']);
    expect(st.filesOf('m').get('c d/ü.txt')?.[3]).toBe(2 ** 47 + 5);
    st.deleteFile('m', 'c d/ü.txt');
    const snap = (digest: string) => ({ digest, outputDirs: ['out/de'], outputsDigest: 'o' });
    st.setMappingSnapshot('m', snap('digest-1'), 2);
    st.setMappingSnapshot('n', snap('digest-2'), 0);
    expect(st.mappingSnapshot('m')).toEqual(snap('digest-1'));
    file('a.txt', 'sha-a2');
    expect(st.filesOf('m').get('a.txt')?.[3]).toBeNull();
    expect(st.filesOf('m').get('b.txt')?.[3]).toBe(7);
    expect(st.mappingSnapshot('m')).toBeUndefined();
    expect(st.mappingSnapshot('n')?.digest).toBe('digest-2');

    // b.txt's output becomes done by a job of b.txt itself: only its mark goes, and every snapshot.
    const job = (rel: string) =>
      insertJobRow(st, {
        mapping: 'm',
        rel_path: rel,
        sha256: 'sha',
        target_lang: 'de',
        fingerprint: 'f',
        base_fingerprint: 'b',
        output_path: 'out/de/b.txt',
        run_id: null,
      });
    st.verifyFiles('m', 7, ['a.txt']);
    await st.jobs.done(job('b.txt'), 0);
    expect(st.filesOf('m').get('b.txt')?.[3]).toBeNull();
    expect(st.filesOf('m').get('a.txt')?.[3]).toBe(7);
    expect(st.mappingSnapshot('n')).toBeUndefined();
    // The same output then made from another source (a.txt): no mark stands any more.
    st.verifyFiles('m', 7, ['b.txt']);
    await st.jobs.done(job('a.txt'), 0);
    expect([...st.filesOf('m').values()].map((k) => k[3])).toEqual([null, null]);
    st.close();
  });
});

describe('openState', () => {
  it('creates the folder and a state file only its owner can read, at the current schema version', () => {
    const p = path.join(dir, 'nested', '.locsync', 'state.db');
    const st = openState(p);
    st.close();
    expect(fs.statSync(p).mode & 0o777).toBe(0o600);
    const db = new Database(p, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('keeps style lists, files and jobs across reopenings', () => {
    const p = path.join(dir, 'state.db');
    const st = openState(p);
    st.setStyle({
      key: 'de',
      style_id: 's1',
      name: 'n',
      language: 'de',
      version: 3,
      hash: 'h',
      applied_at: 't',
    });
    st.putFile({ mapping: 'm', rel_path: 'a b/ü.txt', size: 3, mtime_ms: 1.5, sha256: 'x' });
    const job = insertJobRow(st, {
      mapping: 'm',
      rel_path: 'a b/ü.txt',
      sha256: 'x',
      target_lang: 'de',
      fingerprint: 'f',
      base_fingerprint: 'b',
      output_path: 'out/de/a b/ü.txt',
      run_id: null,
    });
    setJobRow(st, job.id, { status: 'uploaded', document_id: 'D1', document_key: 'secret-key-123456' });
    st.close();
    const again = openState(p);
    expect(again.getStyle('de')?.version).toBe(3);
    expect(again.allStyles()).toHaveLength(1);
    again.deleteStyle('de');
    expect(again.getStyle('de')).toBeUndefined();
    expect(again.getFile('m', 'a b/ü.txt')?.sha256).toBe('x');
    expect(again.filesOf('m').get('a b/ü.txt')?.slice(1)).toEqual([3, 1.5, null, null, null]);
    const open = again.openJobs();
    expect(open.map((j) => [j.status, j.document_id])).toEqual([['uploaded', 'D1']]);
    // reading a job's key registers it as a secret: it cannot reach a log line
    expect(scrub('key=secret-key-123456')).toBe('key=[REDACTED]');
    again.close();
  });

  it('marks runs left running by a dead process as crashed', () => {
    const p = path.join(dir, 'state.db');
    const st = openState(p);
    st.db
      .prepare(
        `INSERT INTO runs (started_at, command, status, pid) VALUES ('t', 'sync', 'running', 999999999)`,
      )
      .run();
    const id = st.startRun('sync');
    expect(st.recentRuns().map((r) => r.status)).toEqual(['running', 'crashed']);
    st.finishRun(id, 'ok', { translated: 2 }, 10);
    expect(st.getRun(id)?.counts).toEqual({ translated: 2 });
    st.close();
  });

  it('refuses a state file newer than it understands', () => {
    const p = path.join(dir, 'state.db');
    const db = new Database(p);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => openState(p)).toThrow(/newer than this locsync/);
  });
});

describe('network filesystems', () => {
  const mounts = [
    { mountPoint: '/', fsType: 'ext4' },
    { mountPoint: '/mnt/share', fsType: 'cifs' },
    { mountPoint: '/mnt/share/local', fsType: 'ext4' },
    { mountPoint: '/srv/nfs', fsType: 'nfs4' },
    { mountPoint: '/home/u/remote', fsType: 'fuse.sshfs' },
  ];
  it('finds the filesystem by the longest mount prefix', () => {
    expect(networkFsType('/mnt/share/team/.locsync/state.db', mounts)).toBe('cifs');
    expect(networkFsType('/mnt/share/local/state.db', mounts)).toBeUndefined();
    expect(networkFsType('/mnt/shared/state.db', mounts)).toBeUndefined();
    expect(networkFsType('/srv/nfs/x/state.db', mounts)).toBe('nfs4');
    expect(networkFsType('/home/u/remote/state.db', mounts)).toBe('fuse.sshfs');
    expect(mountOf('/var/x', mounts)?.mountPoint).toBe('/');
  });
  it('accepts the temp folder of this machine (a local disk)', () => {
    expect(() => openState(path.join(dir, 'ok.db')).close()).not.toThrow();
  });
});

describe('acquireLock', () => {
  it('lets one process hold the state and names the holder to a second one', () => {
    const p = path.join(dir, 'state.db');
    const lock = acquireLock(p);
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import('${path.resolve('src/state/lock.ts')}').then(m => { try { m.acquireLock(${JSON.stringify(p)}); console.log('acquired'); } catch (e) { console.log(e.message); process.exit(3); } })`,
      ],
      { encoding: 'utf8' },
    );
    expect(child.status).toBe(3);
    expect(child.stdout).toContain(`process ${process.pid} on ${os.hostname()}`);
    lock.release();
    expect(fs.existsSync(lockPathFor(p))).toBe(false);
    const again = acquireLock(p);
    again.release();
  });

  it('takes over a lock left by a process that died', () => {
    const p = path.join(dir, 'state.db');
    const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    const deadPid = Number(dead.stdout.trim());
    fs.writeFileSync(
      lockPathFor(p),
      JSON.stringify({ pid: deadPid, host: os.hostname(), started_at: new Date().toISOString() }),
    );
    const lock = acquireLock(p);
    expect(JSON.parse(fs.readFileSync(lock.path, 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('does not take over a live lock from another host', () => {
    const p = path.join(dir, 'state.db');
    fs.writeFileSync(lockPathFor(p), JSON.stringify({ pid: 1, host: 'other-host', started_at: 'x' }));
    expect(() => acquireLock(p)).toThrow(LockedError);
    expect(() => acquireLock(p)).toThrow(/process 1 on other-host/);
  });
});
