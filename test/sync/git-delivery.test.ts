import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { deliverToGit, type GitOutcome } from '../../src/delivery/deliver.js';
import { DeliveryLog } from '../../src/delivery/delivered.js';
import { silentLogger } from '../../src/log/logger.js';
import { createSyncEvents } from '../../src/sync/events.js';
import type { SyncOptions, SyncSummary } from '../../src/sync/engine.js';
import { changedIn, cloneOf, git, initRepo, statusOf, type Repo } from '../helpers/git-repo.js';
import { segmentsMapping } from '../segments/helpers.js';
import { createFixture, runCliOn, type Fixture, type FixtureOptions } from './fixture.js';

// Delivery through git (issue 48) with real git and a bare repository on disk as the remote: one
// commit holding exactly the outputs a run wrote or removed, the user's staging area untouched, the
// state never committed, no commit on a no-op, the push, a rejected push, and a reviewer's commit
// kept. Runs on both state backends (the sync suite's fixture).

let fx: Fixture | undefined;
let repo: Repo | undefined;
const closers: Array<() => void> = [];
afterEach(async () => {
  await fx?.close();
  repo?.close();
  for (const c of closers.splice(0)) c();
  fx = undefined;
  repo = undefined;
});

async function project(opts: FixtureOptions): Promise<{ f: Fixture; r: Repo }> {
  fx = await createFixture(opts);
  fx.write('notes.txt', 'Notes of the team.\n');
  repo = initRepo(fx.dir);
  return { f: fx, r: repo };
}

/** A sync, then its delivery committed (and pushed), as `sync --commit [--push]` does. */
async function syncAndCommit(
  f: Fixture,
  push = false,
  opts: SyncOptions = {},
): Promise<{ summary: SyncSummary; git: GitOutcome }> {
  const events = createSyncEvents();
  const log = new DeliveryLog(events, 'sync');
  const summary = await f.sync({ ...opts, events });
  const loaded = await f.load();
  const outcome = await deliverToGit({
    loaded,
    delivery: log.take(),
    options: { push },
    logger: silentLogger(),
  });
  return { summary, git: outcome };
}

const head = (f: Fixture) => git(f.dir, 'rev-parse', 'HEAD');
const message = (f: Fixture, ref = 'HEAD') => git(f.dir, 'log', '-1', '--format=%B', ref);

describe('sync --commit', () => {
  it("commits exactly the outputs: not the sources, not the state, not the user's changes, which stay staged", async () => {
    const { f } = await project({ files: { 'a.txt': 'First document.\n', 'b.txt': 'Second document.\n' } });
    // The user's work in progress: a staged new file, an unstaged edit, a new source not added.
    f.write('README.md', '# The project\n');
    git(f.dir, 'add', 'README.md');
    f.write('notes.txt', 'Notes of the team, edited.\n');
    f.write('src/c.txt', 'Third document.\n');
    const before = head(f);

    const { summary, git: out } = await syncAndCommit(f);
    expect(summary.failed).toEqual([]);
    expect(out.failure).toBeUndefined();
    expect(git(f.dir, 'rev-parse', 'HEAD~1')).toBe(before);
    expect(changedIn(f.dir)).toEqual(
      ['a', 'b', 'c'].flatMap((n) => [`A out/de/${n}.txt`, `A out/fr/${n}.txt`]).sort(),
    );
    // The staged file is still staged (and only it), the edit and the new source untouched, the
    // state folder never added.
    expect(git(f.dir, 'diff', '--cached', '--name-only')).toBe('README.md');
    const status = statusOf(f.dir);
    expect(status).toContain('A  README.md');
    expect(status).toContain(' M notes.txt');
    expect(status).toContain('?? src/c.txt');
    expect(status.filter((l) => l.includes('out/'))).toEqual([]);
    expect(status.some((l) => l.startsWith('?? .locsync/'))).toBe(true);
    expect(
      git(f.dir, 'ls-tree', '-r', '--name-only', 'HEAD')
        .split('\n')
        .filter((p) => p.startsWith('.locsync')),
    ).toEqual([]);

    const [subject, , ...body] = message(f).split('\n');
    expect(subject).toBe(
      `locsync: 6 documents into de, fr (${summary.billedCharacters.toLocaleString('en-US')} characters)`,
    );
    expect(subject!.length).toBeLessThanOrEqual(72);
    const text = body.join('\n');
    expect(text).toContain(`Run #${summary.runId} of locsync sync delivered 6 documents`);
    expect(text).toContain('de (3):\n  out/de/a.txt\n  out/de/b.txt\n  out/de/c.txt');
    expect(text).toContain(`Locsync-Run: ${summary.runId}`);
    for (const line of text.split('\n'))
      if (!line.startsWith('  out/')) expect(line.length).toBeLessThanOrEqual(72);
    // Author and committer from git's own configuration.
    expect(git(f.dir, 'log', '-1', '--format=%an <%ae> / %cn <%ce>')).toBe(
      'Dana Developer <dana@example.com> / Dana Developer <dana@example.com>',
    );
    expect(out.lines[0]).toMatch(/^Committed [0-9a-f]{7} on main \(6 files\): locsync: 6 documents/);

    // A run with nothing to deliver makes no commit.
    const again = await syncAndCommit(f);
    expect(again.summary.translated).toBe(0);
    expect(again.git.committed).toBeUndefined();
    expect(again.git.lines).toEqual(['Nothing committed: the run delivered nothing.']);
    expect(git(f.dir, 'rev-list', '--count', `${before}..HEAD`)).toBe('1');
  });

  it('pushes to the upstream; a rejected push fails, keeps the local commit and forces nothing', async () => {
    const { f, r } = await project({ files: { 'a.txt': 'First document.\n' } });
    const first = await syncAndCommit(f, true);
    expect(first.git.failure).toBeUndefined();
    expect(git(r.remote, 'rev-parse', 'main')).toBe(head(f));
    expect(first.git.lines[1]).toMatch(/^Pushed main to origin \(main\): [0-9a-f]+\.\.[0-9a-f]+$/);

    // Someone else pushes first: the remote moved.
    const other = cloneOf(r.remote, 'Other Machine');
    closers.push(other.close);
    fs.writeFileSync(path.join(other.dir, 'notes.txt'), 'Changed elsewhere.\n');
    git(other.dir, 'commit', '-q', '-am', 'elsewhere');
    git(other.dir, 'push', '-q');
    const theirs = git(other.dir, 'rev-parse', 'HEAD');

    f.write('src/a.txt', 'First document, changed.\n');
    const second = await syncAndCommit(f, true);
    expect(second.git.committed).toBeDefined();
    expect(second.git.failure).toMatch(
      /^not pushed: the push to origin \(main\) was rejected: .*git pull --rebase/,
    );
    expect(head(f)).toBe(second.git.committed!.commit);
    expect(changedIn(f.dir)).toEqual(['M out/de/a.txt', 'M out/fr/a.txt']);
    expect(git(r.remote, 'rev-parse', 'main')).toBe(theirs);
  });

  it('removals (on_source_delete: delete) are committed as deletions', async () => {
    const { f } = await project({
      files: { 'a.txt': 'First document.\n', 'b.txt': 'Second document.\n' },
      manifest: { on_source_delete: 'delete' },
    });
    await syncAndCommit(f);
    fs.rmSync(path.join(f.src, 'a.txt'));
    const { summary, git: out } = await syncAndCommit(f);
    expect(summary.deletedOutputs.sort()).toEqual(['out/de/a.txt', 'out/fr/a.txt']);
    expect(out.failure).toBeUndefined();
    expect(changedIn(f.dir)).toEqual(['D out/de/a.txt', 'D out/fr/a.txt']);
    const msg = message(f);
    expect(msg.split('\n')[0]).toBe('locsync: 2 outputs removed (sources deleted)');
    expect(msg).toContain('Removed, their sources deleted (2):\n  out/de/a.txt\n  out/fr/a.txt');
    // The deleted source itself is the user's to commit.
    expect(statusOf(f.dir).filter((l) => !l.includes('.locsync/'))).toEqual([' D src/a.txt']);
  });

  it("a reviewer's commit is an edit by a person: review --since shows it, the next source change keeps it", async () => {
    const { f, r } = await project({ files: { 'guide.txt': 'Hello world.\nThe door opens at noon.\n' } });
    await syncAndCommit(f, true);
    const delivered = head(f);
    const reviewer = cloneOf(r.remote, 'Rita Reviewer');
    closers.push(reviewer.close);
    const reviewed = 'Hallo Welt.\nDie Tür öffnet um zwölf Uhr.\n';
    fs.writeFileSync(path.join(reviewer.dir, 'out/de/guide.txt'), reviewed);
    git(reviewer.dir, 'commit', '-q', '-am', 'review: German guide');
    git(reviewer.dir, 'push', '-q');
    git(f.dir, 'pull', '-q', '--ff-only');

    const review = await runCliOn(f, 'review', '--since', delivered, '--json');
    expect(review.code).toBe(0);
    const page = JSON.parse(review.stdout) as {
      sections: Array<{ documents: Array<{ output: string; state: string }> }>;
    };
    expect(page.sections[0]!.documents.map((d) => `${d.output} ${d.state}`)).toEqual([
      'out/de/guide.txt changed',
    ]);

    f.write('src/guide.txt', 'Hello world.\nThe door opens at three.\n');
    const { git: out } = await syncAndCommit(f, true);
    expect(out.failure).toBeUndefined();
    // The reviewer's version stays, in the work tree and in the branch; the new translation lands
    // beside it, in the same commit as the French one.
    expect(f.read('out/de/guide.txt')).toBe(reviewed);
    expect(changedIn(f.dir)).toEqual(['A out/de/guide.locsync-new.txt', 'M out/fr/guide.txt']);
    expect(message(f)).toContain('out/de/guide.locsync-new.txt (beside a version edited by a person)');
    expect(git(r.remote, 'show', 'main:out/de/guide.txt') + '\n').toBe(reviewed);
  });

  it("method: segments: a reviewer's committed wording is kept segment by segment and committed with the change", async () => {
    const { f, r } = await project({
      files: { 'guide.txt': 'First paragraph.\nSecond paragraph, reviewed.\n' },
      manifest: { mappings: [segmentsMapping()] },
    });
    await syncAndCommit(f, true);
    const reviewer = cloneOf(r.remote, 'Rita Reviewer');
    closers.push(reviewer.close);
    const out = path.join(reviewer.dir, 'out/de/guide.txt');
    const lines = fs.readFileSync(out, 'utf8').split('\n');
    lines[1] = 'Zweiter Absatz, von einer Person geprüft.';
    fs.writeFileSync(out, lines.join('\n'));
    git(reviewer.dir, 'commit', '-q', '-am', 'review');
    git(reviewer.dir, 'push', '-q');
    git(f.dir, 'pull', '-q', '--ff-only');

    f.write('src/guide.txt', 'First paragraph, changed.\nSecond paragraph, reviewed.\n');
    const { git: delivered } = await syncAndCommit(f);
    expect(delivered.failure).toBeUndefined();
    const de = f.read('out/de/guide.txt').split('\n');
    expect(de[1]).toBe('Zweiter Absatz, von einer Person geprüft.');
    expect(de[0]).not.toBe(lines[0]);
    expect(changedIn(f.dir)).toEqual(['M out/de/guide.txt']);
  });
});
