import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { deliverToGit, type GitOutcome } from '../../src/delivery/deliver.js';
import { DeliveryLog } from '../../src/delivery/delivered.js';
import { silentLogger } from '../../src/log/logger.js';
import { createSyncEvents } from '../../src/sync/events.js';
import { changedIn, git, initRepo, type Repo } from '../helpers/git-repo.js';
import { createFixture, defaultManifest, runCliOn, type Fixture } from '../sync/fixture.js';

// Where locsync must not commit (issue 48): not a git checkout, a detached HEAD, a merge under way,
// a locked index, outputs outside the checkout. The run delivers its files all the same and fails
// saying why nothing was committed; the next run that commits takes those files in. And the CLI:
// `sync --commit` and `git:` of the manifest (author, push) as cron runs them.

let fx: Fixture | undefined;
let repo: Repo | undefined;
afterEach(async () => {
  await fx?.close();
  repo?.close();
  fx = undefined;
  repo = undefined;
});

async function inRepo(manifest: Record<string, unknown> = {}): Promise<Fixture> {
  fx = await createFixture({ files: { 'a.txt': 'First document.\n' }, manifest });
  fx.write('notes.txt', 'Notes.\n');
  fx.write('.gitignore', '.locsync/\n');
  repo = initRepo(fx.dir);
  return fx;
}

async function syncAndCommit(f: Fixture): Promise<GitOutcome> {
  const events = createSyncEvents();
  const log = new DeliveryLog(events, 'sync');
  expect((await f.sync({ events })).failed).toEqual([]);
  return deliverToGit({
    loaded: await f.load(),
    delivery: log.take(),
    options: { push: false },
    logger: silentLogger(),
  });
}

const commits = (f: Fixture) => Number(git(f.dir, 'rev-list', '--count', 'HEAD'));

describe('sync --commit refuses to commit, delivers the files and says why', () => {
  it('not a git checkout: exit 1, the outputs written, the reason on stderr', async () => {
    fx = await createFixture({ files: { 'a.txt': 'First document.\n' } });
    const r = await runCliOn(fx, 'sync', '--commit');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `locsync: nothing committed: ${fs.realpathSync(fx.dir)} is not in a git checkout`,
    );
    expect(r.stderr).toContain('run `git init` there');
    expect(fx.exists('out/de/a.txt') && fx.exists('out/fr/a.txt')).toBe(true);
    expect(r.stdout).toContain('2 translated');
  });

  it('a detached HEAD; once on a branch, the next run commits what the refused one delivered', async () => {
    const f = await inRepo();
    git(f.dir, 'checkout', '-q', '--detach');
    const refused = await syncAndCommit(f);
    expect(refused.committed).toBeUndefined();
    expect(refused.failure).toMatch(
      /^nothing committed: HEAD is detached \(at [0-9a-f]+\): .*`git switch <branch>`/,
    );
    expect(refused.failure).toContain('the next run that commits takes them in');
    expect(f.exists('out/de/a.txt')).toBe(true);
    expect(commits(f)).toBe(1);

    git(f.dir, 'switch', '-q', 'main');
    const next = await syncAndCommit(f);
    expect(next.failure).toBeUndefined();
    expect(changedIn(f.dir)).toEqual(['A out/de/a.txt', 'A out/fr/a.txt']);
    expect(git(f.dir, 'log', '-1', '--format=%s')).toMatch(
      /^locsync: 2 documents into de, fr \(\d+ characters\)$/,
    );
  });

  it('a merge in progress, a locked index: nothing committed, each with the way out', async () => {
    const f = await inRepo();
    git(f.dir, 'switch', '-q', '-c', 'other');
    f.write('notes.txt', 'Notes, on the other branch.\n');
    git(f.dir, 'commit', '-q', '-am', 'other');
    git(f.dir, 'switch', '-q', 'main');
    f.write('notes.txt', 'Notes, on main.\n');
    git(f.dir, 'commit', '-q', '-am', 'main');
    expect(() => git(f.dir, 'merge', '-q', 'other')).toThrow();
    const merging = await syncAndCommit(f);
    expect(merging.failure).toMatch(
      /^nothing committed: a merge is in progress: finish it \(git commit\) or abort it \(git merge --abort\)/,
    );
    git(f.dir, 'merge', '--abort');

    const lock = path.join(f.dir, '.git', 'index.lock');
    fs.writeFileSync(lock, '');
    f.write('src/b.txt', 'Second document.\n');
    const locked = await syncAndCommit(f);
    expect(locked.failure).toContain(
      `nothing committed: the index is locked (${fs.realpathSync(lock)} exists)`,
    );
    expect(f.exists('out/de/b.txt')).toBe(true);
    expect(commits(f)).toBe(2);
    fs.rmSync(lock);
  });

  it('outputs outside the checkout', async () => {
    fx = await createFixture({ files: { 'a.txt': 'First document.\n' } });
    // The checkout is the project's folder; the outputs go to a folder beside it.
    const project = path.join(fx.dir, 'project');
    fs.mkdirSync(project);
    fs.renameSync(fx.src, path.join(project, 'src'));
    const manifest = {
      ...defaultManifest(fx.service.url),
      mappings: [
        { name: 'docs', source: 'src', output: '../delivered/{lang}/{path}', targets: [{ lang: 'de' }] },
      ],
    };
    fs.writeFileSync(path.join(project, 'pipeline.yaml'), stringify(manifest));
    fs.rmSync(fx.manifestPath);
    repo = initRepo(project);
    const r = await runCliOn(
      { ...fx, manifestPath: path.join(project, 'pipeline.yaml'), dir: project },
      'sync',
      '--commit',
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('output(s) lie outside the checkout');
    expect(r.stderr).toContain('../delivered/de/a.txt');
    expect(fs.existsSync(path.join(fx.dir, 'delivered/de/a.txt'))).toBe(true);
  });
});

describe('git: of the manifest (cron)', () => {
  it('commit, push and author from the manifest; --json says what was committed and pushed', async () => {
    const f = await inRepo({ git: { commit: true, push: true, author: 'locsync bot <bot@example.com>' } });
    const r = await runCliOn(f, 'sync', '--json');
    expect(r.stderr).not.toContain('nothing committed');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      git: { commit: string; branch: string; files: string[]; pushed: { remote: string } };
    };
    expect(out.git.commit).toBe(git(f.dir, 'rev-parse', 'HEAD'));
    expect(out.git.files.sort()).toEqual(['out/de/a.txt', 'out/fr/a.txt']);
    expect(out.git.pushed.remote).toBe('origin');
    expect(git(repo!.remote, 'rev-parse', 'main')).toBe(out.git.commit);
    expect(git(f.dir, 'log', '-1', '--format=%an <%ae> / %cn <%ce>')).toBe(
      'locsync bot <bot@example.com> / locsync bot <bot@example.com>',
    );
    expect(git(f.dir, 'status', '--porcelain')).toBe('');
  });
});
