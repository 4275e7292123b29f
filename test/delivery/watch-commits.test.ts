import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BatchedCommits } from '../../src/delivery/batched-commits.js';
import type { GitOutcome } from '../../src/delivery/deliver.js';
import { silentLogger } from '../../src/log/logger.js';
import type { LoadedManifest } from '../../src/manifest/types.js';
import { changedIn, git, initRepo, type Repo } from '../helpers/git-repo.js';
import { startWatchFixture, waitFor, type WatchFixture } from '../watch/helpers.js';

// `locsync watch` with git.commit (issue 48): what the watch delivers is committed in batches, at
// most one commit per git.every, never one per file; stopping commits the batch not committed yet.

let w: WatchFixture | undefined;
let repo: Repo | undefined;
afterEach(async () => {
  await w?.close();
  repo?.close();
  w = undefined;
  repo = undefined;
});

describe('watch: commits in batches', () => {
  it('one commit per git.every whatever the number of files; the last batch is committed at the stop', async () => {
    let every = 0.3;
    const outcomes: GitOutcome[] = [];
    let commits: BatchedCommits | undefined;
    w = await startWatchFixture({
      files: { 'a.txt': 'First document.\n' },
      manifest: () => ({ git: { commit: true, push: true } }),
      beforeStart: (runner) => {
        const dir = runner.manifest.dir;
        fs.writeFileSync(path.join(dir, '.gitignore'), '.locsync/\n');
        repo = initRepo(dir);
        // The manifest in force, with the test's git.every (read as each batch starts).
        const manifest = (): LoadedManifest => {
          const l = runner.manifest;
          return { ...l, manifest: { ...l.manifest, git: { ...l.manifest.git!, every } } };
        };
        commits = new BatchedCommits(runner.events, manifest, silentLogger(), (o) => outcomes.push(o));
      },
    });
    const { fx } = w;
    const count = () => Number(git(fx.dir, 'rev-list', '--count', 'HEAD'));
    // The first scan's delivery: committed once git.every has passed, while the watch goes on.
    await waitFor('the first batch committed', () => outcomes.length === 1);
    expect(outcomes[0]!.failure).toBeUndefined();
    expect(changedIn(fx.dir)).toEqual(['A out/de/a.txt', 'A out/fr/a.txt']);
    expect(git(fx.dir, 'log', '-1', '--format=%s')).toMatch(
      /^locsync: 2 documents into de, fr \(\d+ characters\)$/,
    );
    expect(git(repo!.remote, 'rev-parse', 'main')).toBe(git(fx.dir, 'rev-parse', 'HEAD'));

    // A burst of files within one git.every: delivered one by one, committed as one.
    every = 3600;
    const names = ['b', 'c', 'd', 'e', 'f'];
    for (const n of names) fx.write(`src/${n}.txt`, `This is the English document named ${n}.\n`);
    await waitFor('every output', () =>
      names.every((n) => fx.exists(`out/de/${n}.txt`) && fx.exists(`out/fr/${n}.txt`)),
    );
    await w.runner.settle();
    expect(count()).toBe(2);
    await w.runner.stop();
    await commits!.close();
    expect(count()).toBe(3);
    expect(outcomes.length).toBe(2);
    expect(changedIn(fx.dir)).toEqual(
      names.flatMap((n) => [`A out/de/${n}.txt`, `A out/fr/${n}.txt`]).sort(),
    );
    expect(git(fx.dir, 'log', '-1', '--format=%B')).toContain('Run #');
    expect(git(repo!.remote, 'rev-parse', 'main')).toBe(git(fx.dir, 'rev-parse', 'HEAD'));
    // Nothing more to commit: a second close commits nothing.
    await commits!.close();
    expect(count()).toBe(3);
  });
});
