import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostgresState } from '../../src/state/postgres/store.js';
import { openState } from '../../src/state/store.js';
import type { JobRecord, NewJob } from '../../src/state/types.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, pgForTests, type TestDatabase } from '../helpers/postgres.js';

// Moving a pipeline between backends keeps its whole history: what was paid, and the document id
// and key of an unfinished job (so the next run resumes it instead of uploading again).

const server = await pgForTests();

describe.skipIf(!server)('state export / import', () => {
  let dir: string;
  const dbs: TestDatabase[] = [];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-transfer-'));
    fs.mkdirSync(path.join(dir, 'src'));
  });
  afterEach(async () => {
    for (const db of dbs.splice(0)) await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const manifestFor = (state: string, name: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(
      file,
      `state: ${state}\nmappings:\n  - name: docs\n    source: src\n    output: out/{lang}/{path}\n    targets: [{ lang: de }]\n`,
    );
    return file;
  };
  const job = (i: number): NewJob => ({
    mapping: 'docs',
    rel_path: `f${i}.docx`,
    sha256: `sha-${i}`,
    target_lang: 'de',
    fingerprint: 'fp',
    base_fingerprint: 'base',
    output_path: `out/de/f${i}.docx`,
    run_id: null,
  });
  const history = (jobs: JobRecord[]) =>
    jobs.map((j) => [
      j.id,
      j.status,
      j.billed_characters,
      j.document_id,
      j.document_key,
      j.reused_from,
      j.created_at,
    ]);

  it('PostgreSQL -> SQLite -> PostgreSQL keeps jobs, billing, keys, runs and files; new ids follow the old', async () => {
    const a = await createTestDatabase(server!);
    const b = await createTestDatabase(server!);
    dbs.push(a, b);
    const st = await PostgresState.open({ url: a.url }, { worker: { command: 'sync', leaseSeconds: 30 } });
    const run = await st.runs.start('sync');
    for (let i = 0; i < 3; i++) {
      const j = await st.jobs.uploaded(
        await st.jobs.uploadStarted(await st.jobs.created(job(i)), run),
        `DOC-${i}`,
        `KEY-${i}-abcdef`,
      );
      if (i < 2) await st.jobs.done(j, 50_000 + i);
    }
    await st.jobs.reused({ ...job(0), rel_path: 'copy.docx', output_path: 'out/de/copy.docx' }, 1);
    await st.files.put({ mapping: 'docs', rel_path: 'f0.docx', size: 10, mtime_ms: 1.25, sha256: 'sha-0' });
    await st.files.setSnapshot(
      'docs',
      { digest: 'd', outputDirs: ['out/de'], outputsDigest: 'o', outputsStamp: 's' },
      1,
    );
    await st.runs.finish(run, { status: 'ok' }, { translated: 2 }, 100_001);
    const verdict = {
      output_path: 'out/de/f1.docx',
      job_id: 2,
      mapping: 'docs',
      rel_path: 'f1.docx',
      target_lang: 'de',
      outcome: 'flagged' as const,
      findings: '[{"check":"numbers","message":"the number \\"3\\" missing","where":["page 1"]}]',
      checked_at: '2026-11-26T20:00:00.000Z',
    };
    await st.qaResults.record(verdict);
    const before = history(
      await st.pool.query<JobRecord>('SELECT * FROM jobs ORDER BY id').then((r) => r.rows),
    );
    await st.close();

    const exported = path.join(dir, 'exported.db');
    const exportArgs = ['state', 'export', '--to', 'sqlite', exported, '-c', manifestFor(a.url, 'a.yaml')];
    const out = await runCli([...exportArgs, '--json']);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ jobs: 4, files: 1, runs: 1, snapshots: 1 });
    expect(fs.statSync(exported).mode & 0o777).toBe(0o600);
    const lite = openState(exported);
    expect(history(lite.allJobs())).toEqual(before);
    expect(lite.recentRuns()).toMatchObject([
      { id: run, status: 'ok', billed_characters: 100_001, counts: { translated: 2 } },
    ]);
    expect(lite.mappingSnapshot('docs')).toEqual({
      digest: 'd',
      outputDirs: ['out/de'],
      outputsDigest: 'o',
      outputsStamp: 's',
    });
    expect((await lite.jobs.open()).map((j) => j.document_key)).toEqual(['KEY-2-abcdef']);
    expect(await lite.qaResults.list(['flagged'])).toEqual([verdict]);
    lite.close();

    // A second export to the same file is refused (nothing overwritten).
    const again = await runCli(exportArgs);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists/);

    const imported = await runCli(['state', 'import', exported, '-c', manifestFor(b.url, 'b.yaml')]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/imported .* 4 jobs, 1 files, 1 runs/);
    const back = await PostgresState.open({ url: b.url }, { worker: { command: 'sync', leaseSeconds: 30 } });
    try {
      expect(
        history(await back.pool.query<JobRecord>('SELECT * FROM jobs ORDER BY id').then((r) => r.rows)),
      ).toEqual(before);
      const next = await back.jobs.created(job(9));
      expect(next.id).toBe(5);
      expect(await back.files.get('docs', 'f0.docx')).toMatchObject({ size: 10, mtime_ms: 1.25 });
      expect(await back.qaResults.list(['flagged'])).toEqual([verdict]);
    } finally {
      await back.close();
    }
    // Importing twice would mix two histories: refused.
    const twice = await runCli(['state', 'import', exported, '-c', manifestFor(b.url, 'b.yaml')]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/already holds jobs/);
  });
});
