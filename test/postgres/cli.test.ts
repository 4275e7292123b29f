import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PG_SCHEMA_VERSION } from '../../src/state/postgres/migrations.js';
import { PostgresState } from '../../src/state/postgres/store.js';
import { freezeWorker } from '../helpers/backends.js';
import { runCli } from '../helpers/cli.js';
import { opsProject, type OpsProject } from '../cli/ops-fixture.js';
import { createTestDatabase, pgForTests, type TestDatabase } from '../helpers/postgres.js';

// The commands a user runs against a PostgreSQL state: the manifest's `state:` URL and its
// password rules, `state migrate`, and `status` showing the workers.

const server = await pgForTests();

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-pgcli-'));
  fs.mkdirSync(path.join(dir, 'src'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function manifest(state: string, extra = ''): string {
  const file = path.join(dir, 'pipeline.yaml');
  fs.writeFileSync(
    file,
    `state: ${state}\n${extra}mappings:\n  - name: docs\n    source: src\n    output: out/{lang}/{path}\n    targets: [{ lang: de }]\n`,
  );
  return file;
}

describe('the state URL in the manifest', () => {
  it('a password in the URL is refused, naming the file and line, and never printed', async () => {
    const file = manifest('postgres://locsync:hunter2secret@db.example:5432/pipeline');
    const r = await runCli(['validate', '-c', file]);
    expect(r.code).toBe(2);
    expect(r.stderr + r.stdout).toContain(`${file}:1:`);
    expect(r.stderr + r.stdout).toMatch(/holds a password.*PGPASSWORD/);
    expect(r.stderr + r.stdout).not.toContain('hunter2secret');
  });

  it('postgres: options without a PostgreSQL state are an error at their line', async () => {
    const file = manifest('.locsync/state.db', 'postgres:\n  lease_seconds: 20\n');
    const r = await runCli(['validate', '-c', file]);
    expect(r.code).toBe(2);
    expect(r.stderr + r.stdout).toContain(`${file}:2:`);
    expect(r.stderr + r.stdout).toMatch(/state is the SQLite file/);
  });

  it('a password variable that is not set is named', async () => {
    const file = manifest(
      'postgres://locsync@127.0.0.1:1/x',
      'postgres:\n  password_env: LOCSYNC_TEST_NO_SUCH_PW\n',
    );
    const r = await runCli(['state', 'migrate', '-c', file], { env: { LOCSYNC_TEST_NO_SUCH_PW: undefined } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/LOCSYNC_TEST_NO_SUCH_PW, which is not set/);
  });

  it('an unreachable server: exit 1 with the URL (without password) and the cause', async () => {
    const file = manifest('postgres://locsync@127.0.0.1:1/pipeline');
    const r = await runCli(['state', 'migrate', '-c', file], { env: { PGPASSWORD: 'pw-never-shown-9' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /PostgreSQL state at postgres:\/\/locsync@127\.0\.0\.1:1\/pipeline: .*ECONNREFUSED/,
    );
    expect(r.stderr).not.toContain('pw-never-shown-9');
  });
});

describe.skipIf(!server)('state migrate and status on PostgreSQL', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase(server!);
  });
  afterEach(() => db.drop());

  it('migrate creates the schema once; status shows live and dead workers and the jobs they hold', async () => {
    const file = manifest(db.url);
    const before = await runCli(['status', '-c', file]);
    expect(before.code).toBe(0);
    expect(before.stdout).toMatch(/No state yet in .*state migrate/);

    const first = await runCli(['state', 'migrate', '-c', file]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`schema migrated from version 0 to version ${PG_SCHEMA_VERSION}`);
    const again = await runCli(['state', 'migrate', '-c', file, '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({
      backend: 'postgres',
      from: PG_SCHEMA_VERSION,
      to: PG_SCHEMA_VERSION,
    });

    const live = await PostgresState.open(
      { url: db.url },
      { worker: { command: 'watch', leaseSeconds: 30 } },
    );
    const dead = await PostgresState.open({ url: db.url }, { worker: { command: 'sync', leaseSeconds: 5 } });
    try {
      const job = {
        mapping: 'docs',
        rel_path: 'a.docx',
        sha256: 's',
        target_lang: 'de',
        fingerprint: 'f',
        base_fingerprint: 'b',
        output_path: 'out/de/a.docx',
        run_id: null,
      };
      await live.jobs.created(job);
      await dead.jobs.created({ ...job, rel_path: 'b.docx', sha256: 't', output_path: 'out/de/b.docx' });
      freezeWorker(dead);
      await dead.pool.query(`UPDATE workers SET heartbeat_at = now() - interval '1 minute' WHERE id = $1`, [
        dead.workerId,
      ]);
      const r = await runCli(['status', '-c', file, '--json']);
      expect(r.code).toBe(1); // a dead worker is something to look at
      const data = JSON.parse(r.stdout) as {
        workers: Array<{ id: string; state: string; jobs_held: number; pid: number }>;
      };
      const byId = new Map(data.workers.map((w) => [w.id, w]));
      expect(byId.get(live.workerId!)).toMatchObject({ state: 'alive', jobs_held: 1, pid: process.pid });
      expect(byId.get(dead.workerId!)).toMatchObject({ state: 'dead' });
      const text = await runCli(['status', '-c', file]);
      expect(text.stdout).toMatch(/Workers \(1 alive\):/);
      expect(text.stdout).toMatch(/pid \d+ sync: DEAD/);
    } finally {
      await live.close();
      await dead.close();
    }
  });
});

describe.skipIf(!server)('sync, plan, report and budgets on a PostgreSQL state', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase(server!);
  });
  afterEach(() => db.drop());

  const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, 'src', name), text);
  const outputs = () => fs.readdirSync(path.join(dir, 'out', 'de')).sort();

  it('translates, prices the next plan, reports what was billed, and holds the monthly cap from its ledger', async () => {
    const file = manifest(db.url, 'budget:\n  per_month: 100\n');
    write('a.txt', 'The first document.\n');
    write('b.txt', 'The second document.\n');
    const first = await runCli(['sync', '-c', file, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const summary = JSON.parse(first.stdout) as { translated: number; billedCharacters: number };
    expect(summary.translated).toBe(2);
    expect(outputs()).toEqual(['a.txt', 'b.txt']);
    // Nothing is kept in a local SQLite file: the state is the database.
    expect(fs.existsSync(path.join(dir, '.locsync', 'state.db'))).toBe(false);

    const again = await runCli(['sync', '-c', file, '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ translated: 0, unchanged: 2, uploads: 0 });

    // status reads the shared ledger (the month's bill) and scans the sources against it (stale outputs, progress).
    const status = await runCli(['status', '-c', file, '--json']);
    expect(status.code, status.stderr).toBe(0);
    const seen = JSON.parse(status.stdout) as {
      spending: { billed_characters: number };
      stale: unknown[];
      progress: Array<{ mapping: string; target: string; upToDate: number }>;
    };
    expect(seen.spending.billed_characters).toBe(summary.billedCharacters);
    expect(seen.stale).toEqual([]);
    expect(seen.progress).toMatchObject([{ mapping: 'docs', target: 'de', upToDate: 2 }]);

    write('c.txt', 'x'.repeat(90) + '\n');
    const plan = await runCli(['plan', '-c', file, '--json']);
    expect(plan.code, plan.stderr).toBe(0);
    const priced = JSON.parse(plan.stdout) as { price: { total: { billed: number; documents: number } } };
    expect(priced.price.total).toMatchObject({ documents: 1, billed: 90 });

    const report = await runCli(['report', '-c', file, '--json']);
    expect(report.code, report.stderr).toBe(0);
    const billed = JSON.parse(report.stdout) as { total: { documents: number; billed_characters: number } };
    expect(billed.total).toMatchObject({ documents: 2, billed_characters: summary.billedCharacters });

    // The month has billed the first two documents: c.txt would go over per_month (100).
    const capped = await runCli(['sync', '-c', file]);
    expect(capped.code).toBe(5);
    expect(capped.stderr).toMatch(/per_month/);
    expect(outputs()).toEqual(['a.txt', 'b.txt']);
  });

  it('a new database beside existing translations: sync refuses, naming it; state adopt records them; nothing is uploaded again', async () => {
    const file = manifest(db.url);
    write('a.txt', 'The first document.\n');
    write('b.txt', 'The second document.\n');
    expect((await runCli(['sync', '-c', file])).code).toBe(0);
    // The pipeline is pointed at an empty database (the old one lost): the outputs are on disk.
    const fresh = await createTestDatabase(server!);
    try {
      const moved = manifest(fresh.url);
      const refused = await runCli(['sync', '-c', moved, '--json']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`the state ${fresh.url} records no translation`);
      expect(refused.stderr).toContain('pg_restore');
      expect(refused.stderr).not.toContain('.backup-*');
      const adopted = await runCli(['state', 'adopt', '-c', moved, '--json']);
      expect(adopted.code, adopted.stderr).toBe(0);
      expect((JSON.parse(adopted.stdout) as { adopted: unknown[] }).adopted).toHaveLength(2);
      const after = await runCli(['sync', '-c', moved, '--json']);
      expect(after.code, after.stderr).toBe(0);
      expect(JSON.parse(after.stdout)).toMatchObject({ translated: 0, unchanged: 2, uploads: 0 });
      expect(fs.existsSync(path.join(dir, '.locsync', 'state.db'))).toBe(false);
    } finally {
      await fresh.drop();
    }
  });

  it('an upload repeated in the same run after its answer was lost is listed by report and status', async () => {
    let p: OpsProject | undefined;
    try {
      p = await opsProject({
        service: {
          faults: [{ match: { method: 'POST', path: '/v2/document' }, drop: 1, dropAfterBody: true }],
        },
        manifest: {
          state: db.url,
          mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
        },
      });
      p.write('a.txt', 'The answer to this upload is lost.\n');
      const run = await p.cli(['sync']);
      expect(run.code, run.stderr).toBe(0);
      // The service billed a.txt twice: once for the lost answer, once for the retry.
      expect(
        p.service.requests().filter((e) => e.method === 'POST' && e.path === '/v2/document'),
      ).toHaveLength(2);
      const report = await p.cli(['report']);
      expect(report.stdout).toContain('Possibly billed twice (1 document');
      expect(report.stdout).toContain('docs/a.txt -> de: 1 upload(s) whose answer was lost');
      const status = await p.cli(['status', '--json', '--no-scan']);
      expect(status.code, status.stderr).toBe(0);
      const data = JSON.parse(status.stdout) as { possibly_billed_twice: unknown[] };
      expect(data.possibly_billed_twice).toHaveLength(1);
      expect(data.possibly_billed_twice[0]).toMatchObject({
        file: 'a.txt',
        unconfirmed_uploads: 1,
        status: 'done',
      });
    } finally {
      await p?.close();
    }
  }, 120_000);
});
