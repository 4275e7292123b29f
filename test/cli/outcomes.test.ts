import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/util/errors.js';
import { opsProject, type OpsProject } from './ops-fixture.js';

// Every run says why it ended: refused runs too are recorded, and status leads with what to do.

let p: OpsProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

async function lastOutcome(
  proj: OpsProject,
): Promise<{ code: number | null; outcome: Record<string, unknown> }> {
  const r = await proj.cli(['status', '--json']);
  return {
    code: r.code,
    outcome: (JSON.parse(r.stdout) as { last_outcome: Record<string, unknown> }).last_outcome,
  };
}

/** Another live process holds the state (this test runner, as the lock names it); answers the release. */
function holdLock(proj: OpsProject): () => void {
  const lock = path.join(proj.dir, '.locsync/state.db.lock');
  fs.writeFileSync(
    lock,
    JSON.stringify({
      pid: process.pid,
      host: os.hostname(),
      command: 'watch',
      started_at: new Date().toISOString(),
    }),
  );
  return () => fs.rmSync(lock);
}

describe('run outcomes', () => {
  it('a bad option and a budget cap are recorded with their reason; status says what to do; a sync refused by the lock is skipped, status stays green', async () => {
    p = await opsProject();
    p.write('a.txt', 'A document with more than fifty characters in it, to go over.\n');
    expect((await p.cli(['sync'])).code).toBe(EXIT.ok);
    expect(await lastOutcome(p)).toEqual({
      code: 0,
      outcome: expect.objectContaining({ command: 'sync', status: 'ok', reason: null, advice: null }),
    });

    p.write('b.txt', 'Another document, with more than fifty characters, to go over the cap.\n');
    const capped = await p.cli(['sync', '--max-billed', '10']);
    expect(capped.code).toBe(EXIT.budget);
    let last = await lastOutcome(p);
    expect(last.code).toBe(EXIT.failed);
    expect(last.outcome).toMatchObject({ status: 'failed', reason: 'budget' });
    expect(last.outcome.advice).toMatch(/--max-billed/);

    const bad = await p.cli(['sync', '--only', 'nope']);
    expect(bad.code).toBe(EXIT.usage);
    last = await lastOutcome(p);
    expect(last.outcome).toMatchObject({ status: 'failed', reason: 'config' });
    expect(last.outcome.advice).toMatch(/locsync validate/);

    // The real run after them succeeds.
    expect((await p.cli(['sync'])).code).toBe(EXIT.ok);

    // Another live process holds the state: the cron sync is refused (exit 4) and recorded as
    // skipped, which is no outcome: status stays green.
    const release = holdLock(p);
    const locked = await p.cli(['sync']);
    expect(locked.code).toBe(EXIT.locked);
    release();
    last = await lastOutcome(p);
    expect(last.code).toBe(EXIT.ok);
    expect(last.outcome).toMatchObject({ command: 'sync', status: 'ok', reason: null });
    const text = await p.cli(['status']);
    expect(text.code).toBe(EXIT.ok);
    expect(text.stdout).not.toMatch(/^Last run #/m);
    expect(text.stdout).toMatch(/: skipped \(lock\); billed 0 characters/);
    // A run still going reads "running (pid N)", said once.
    expect(text.stdout).not.toMatch(/running: running/);
  }, 120_000);

  it('more lock-skipped runs than status shows after a failed run: status still reports that run, and exits as right after it', async () => {
    p = await opsProject();
    p.write('a.txt', 'A document with more than fifty characters in it, to go over.\n');
    expect((await p.cli(['sync', '--max-billed', '10'])).code).toBe(EXIT.budget);
    const after = await lastOutcome(p);
    expect(after).toMatchObject({
      code: EXIT.failed,
      outcome: { run: 1, status: 'failed', reason: 'budget' },
    });

    // Cron syncs while a watch holds the state: two skipped runs, more than the one status shows.
    const release = holdLock(p);
    for (let i = 0; i < 2; i++) expect((await p.cli(['sync'])).code).toBe(EXIT.locked);
    release();
    const json = await p.cli(['status', '--json', '--runs', '1']);
    expect(json.code).toBe(after.code);
    const data = JSON.parse(json.stdout) as {
      last_outcome: unknown;
      last_run: Record<string, unknown>;
      runs: Array<{ status: string }>;
    };
    expect(data.last_outcome).toEqual(after.outcome);
    expect(data.last_run).toMatchObject({ id: 1, status: 'failed', reason: 'budget' });
    expect(data.runs.map((r) => r.status)).toEqual(['skipped']);
    const text = await p.cli(['status', '--runs', '1']);
    expect(text.code).toBe(after.code);
    expect(text.stdout).toMatch(/^Last run #1 \(sync\): failed \(budget\)/m);
    expect(text.stdout).toMatch(/: skipped \(lock\); billed 0 characters/);
    expect(text.stdout).toMatch(/^ {2}\.\.\. the last run that ran: #1 sync .*: failed \(budget\)/m);
  }, 120_000);
});
