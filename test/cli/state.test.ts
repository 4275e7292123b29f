import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { opsProject, type OpsProject } from './ops-fixture.js';

// `locsync state check|backup`, the automatic backups of sync, and a damaged state told as such:
// real state files, the CLI as a child process, the local service over HTTP.

let project: OpsProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

function backupsIn(dir: string): string[] {
  return fs.readdirSync(path.join(dir, '.locsync')).filter((n) => n.startsWith('state.db.backup-'));
}

describe('the state file', () => {
  it('sync keeps an automatic backup beside the state; state check passes; state backup adds a manual one', async () => {
    project = await opsProject();
    project.write('a.txt', 'Hello world.\n');
    expect((await project.cli(['sync'])).code).toBe(0);
    // The first sync's backup is of the new, empty state; the second (forced by interval 0.0001 h) holds the job.
    fs.appendFileSync(project.manifest, 'state_backups: { keep: 1, interval_hours: 0.0001 }\n');
    await new Promise((r) => setTimeout(r, 1100));
    expect((await project.cli(['sync'])).code).toBe(0);
    const auto = backupsIn(project.dir);
    expect(auto).toHaveLength(1);
    expect(fs.statSync(path.join(project.dir, '.locsync', auto[0] as string)).mode & 0o777).toBe(0o600);

    const check = await project.cli(['state', 'check', '--json']);
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ ok: true, problems: [] });

    const manual = await project.cli(['state', 'backup']);
    expect(manual.code).toBe(0);
    expect(backupsIn(project.dir).filter((n) => n.endsWith('-manual'))).toHaveLength(1);
    const out = path.join(project.dir, 'copy.db');
    const json = await project.cli(['state', 'backup', '--out', out, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ backup: out, bytes: fs.statSync(out).size });
  });

  it('a damaged state: sync exits 1 naming the file and the recovery commands, uploads nothing; state check exits 1', async () => {
    project = await opsProject();
    project.write('a.txt', 'Hello world.\n');
    expect((await project.cli(['sync'])).code).toBe(0);
    const uploadsBefore = project.serviceDocuments().length;
    const statePath = path.join(project.dir, '.locsync', 'state.db');
    fs.writeFileSync(statePath, Buffer.alloc(8192, 0x5a));
    for (const extra of ['-wal', '-shm']) fs.rmSync(statePath + extra, { force: true });
    project.write('b.txt', 'A new file.\n');

    const sync = await project.cli(['sync']);
    expect(sync.code).toBe(1);
    expect(sync.stderr).toContain(`the state file ${fs.realpathSync(statePath)} is damaged`);
    expect(sync.stderr).toContain('locsync state check');
    expect(sync.stderr).toContain('locsync state adopt');
    expect(sync.stderr).toContain('restore the newest backup');
    expect(sync.stderr).not.toMatch(/SqliteError/);
    expect(project.serviceDocuments()).toHaveLength(uploadsBefore);

    const check = await project.cli(['state', 'check']);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('DAMAGED');
    expect(check.stdout).toContain('file is not a database');
  });
});
