import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_ARGS, ROOT, runCli } from '../helpers/cli.js';
import { changedIn, git, initRepo, type Repo } from '../helpers/git-repo.js';
import { API_KEY, createFixture, type Fixture } from '../sync/fixture.js';

// The CI recipes' shell steps (deploy/ci/*.sh, issue 48) run against a local repository whose
// remote is a bare repository on disk: the plan of a pull request (its summary, drift fails), and
// after a push to main the sync on a branch of its own pushed with a pull request. GitLab's push
// options reach the bare repository for real (a pre-receive hook records them). gh is GitHub's
// and not run here: a stand-in on PATH records its command line, checked as gh documents it.

let fx: Fixture | undefined;
let repo: Repo | undefined;
/** Outside the checkout: the tools on PATH, the summary, what the remote recorded. */
let side: string | undefined;
afterEach(async () => {
  await fx?.close();
  repo?.close();
  if (side) fs.rmSync(side, { recursive: true, force: true });
  fx = undefined;
  repo = undefined;
  side = undefined;
});

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A folder for PATH: `locsync` (this checkout's CLI) and the `gh` stand-in. */
function toolsIn(dir: string): { bin: string; ghCalls: () => Array<{ args: string[]; body: string }> } {
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  const locsync = [process.execPath, ...CLI_ARGS].map(quote).join(' ');
  fs.writeFileSync(path.join(bin, 'locsync'), `#!/bin/sh\nexec ${locsync} "$@"\n`, { mode: 0o755 });
  const log = path.join(dir, 'gh-calls.jsonl');
  // gh's command line and the body file's content (the script removes the file afterwards).
  fs.writeFileSync(
    path.join(bin, 'gh'),
    `#!/usr/bin/env node
const fs = require('node:fs');
const args = process.argv.slice(2);
const i = args.indexOf('--body-file');
const body = i >= 0 ? fs.readFileSync(args[i + 1], 'utf8') : '';
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ args, body }) + '\\n');
console.log('https://github.example/acme/docs/pull/1');
`,
    { mode: 0o755 },
  );
  const ghCalls = () =>
    fs.existsSync(log)
      ? fs
          .readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { args: string[]; body: string })
          .map((c) => ({ ...c, body: c.body.trimEnd() }))
      : [];
  return { bin, ghCalls };
}

/** The branch the pull-request script pushed, from its last line. */
const branchOf = (stdout: string) => /^locsync-pull-request: (\S+) pushed to/m.exec(stdout)?.[1] ?? '';

/** A script of deploy/ci run in the fixture's checkout (asynchronously: the service is in this process). */
async function script(f: Fixture, bin: string, name: string, arg?: string, env: Record<string, string> = {}) {
  const r = await runCli([path.join(ROOT, 'deploy/ci', name), ...(arg ? [arg] : [])], {
    cwd: f.dir,
    timeoutMs: 120_000,
    env: {
      PATH: `${bin}:${process.env.PATH}`,
      LOCSYNC_TEST_SYNC_KEY: API_KEY,
      GIT_CONFIG_GLOBAL: '/dev/null',
      ...env,
    },
    command: 'bash',
  });
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
}

// Five runs of the CLI through the scripts: on a loaded machine they take more than the default minute.
describe('deploy/ci scripts', () => {
  it('plan on a pull request, then sync on a branch with a pull request (GitHub) or merge request (GitLab)', async () => {
    fx = await createFixture({ files: { 'a.txt': 'First document.\n' } });
    fx.write('.gitignore', '.locsync/\n');
    side = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-ci-'));
    const tools = toolsIn(side);
    repo = initRepo(fx.dir);
    // GitLab reads push options on its side: the bare repository takes them and records them.
    git(repo.remote, 'config', 'receive.advertisePushOptions', 'true');
    const options = path.join(side, 'push-options');
    fs.writeFileSync(
      path.join(repo.remote, 'hooks', 'pre-receive'),
      `#!/bin/sh\ni=0\nwhile [ $i -lt "\${GIT_PUSH_OPTION_COUNT:-0}" ]; do eval "echo \\"\\$GIT_PUSH_OPTION_$i\\"" >> ${quote(options)}; i=$((i+1)); done\n`,
      { mode: 0o755 },
    );

    // The pull request's check: changes pending is drift, the priced plan in the summary.
    const summary = path.join(side, 'summary.md');
    const pending = await script(fx, tools.bin, 'locsync-plan.sh', summary);
    expect(pending.code).toBe(3);
    expect(pending.stderr).toContain('changes pending (drift)');
    const text = fs.readFileSync(summary, 'utf8');
    expect(text).toContain('## locsync plan\n\nChanges pending (drift)');
    expect(text).toMatch(/a\.txt/);
    expect(text).toMatch(/characters/);

    // A push to main: the sync on a branch, pushed, and gh asked for the pull request.
    const main = git(fx.dir, 'rev-parse', 'HEAD');
    const gh = await script(fx, tools.bin, 'locsync-pull-request.sh', 'github');
    expect(gh.stderr).not.toContain('nothing committed');
    expect(gh.code).toBe(0);
    const branch = branchOf(gh.stdout);
    expect(branch).toMatch(new RegExp(`^locsync/translations-\\d{8}-\\d{6}-${main.slice(0, 8)}$`));
    const pushed = git(repo.remote, 'rev-parse', branch);
    expect(git(repo.remote, 'rev-parse', `${pushed}~1`)).toBe(main);
    expect(changedIn(repo.remote, pushed)).toEqual(['A out/de/a.txt', 'A out/fr/a.txt']);
    const subject = git(fx.dir, 'log', '-1', '--format=%s', pushed);
    expect(tools.ghCalls()).toEqual([
      {
        args: [
          'pr',
          'create',
          '--base',
          'main',
          '--head',
          branch,
          '--title',
          subject,
          '--body-file',
          expect.any(String),
        ],
        body: git(fx.dir, 'log', '-1', '--format=%b', pushed),
      },
    ]);
    expect(gh.stdout).toContain(`${branch} pushed to origin, pull request into main: ${subject}`);

    // The check of that pull request: up to date.
    const upToDate = await script(fx, tools.bin, 'locsync-plan.sh', summary);
    expect(upToDate.code).toBe(0);
    expect(fs.readFileSync(summary, 'utf8')).toContain('Up to date: nothing to translate');

    // A push to main before that request is merged: no sync (its outputs are not on main: they
    // would be translated again).
    git(fx.dir, 'switch', '-q', 'main');
    const early = await script(fx, tools.bin, 'locsync-pull-request.sh', 'github');
    expect(early.code).toBe(0);
    expect(early.stdout).toContain(`${branch.replace(/^locsync\//, '')} is not merged into main yet`);
    expect(fx.exists('out/de/a.txt')).toBe(false);

    // The request merged: a push to main with nothing to translate makes no commit, no request.
    git(fx.dir, 'merge', '-q', '--ff-only', branch);
    git(fx.dir, 'push', '-q', 'origin', 'main');
    const idle = await script(fx, tools.bin, 'locsync-pull-request.sh', 'github');
    expect(idle.code).toBe(0);
    expect(idle.stdout).toContain('nothing delivered, no pull request');
    expect(git(fx.dir, 'branch', '--list', 'locsync/*').split('\n')).toHaveLength(1);
    expect(tools.ghCalls()).toHaveLength(1);

    // GitLab: a new source on main, checked out as GitLab does (a detached HEAD, the branch in
    // CI_COMMIT_BRANCH); the merge request made by the push options.
    expect(git(fx.dir, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
    fx.write('src/b.txt', 'Second document.\n');
    git(fx.dir, 'add', 'src/b.txt');
    git(fx.dir, 'commit', '-q', '-m', 'a new document');
    git(fx.dir, 'switch', '-q', '--detach');
    const gl = await script(fx, tools.bin, 'locsync-pull-request.sh', 'gitlab', { CI_COMMIT_BRANCH: 'main' });
    expect(gl.code).toBe(0);
    const glBranch = branchOf(gl.stdout);
    expect(changedIn(repo.remote, glBranch)).toEqual(['A out/de/b.txt', 'A out/fr/b.txt']);
    expect(fs.readFileSync(options, 'utf8').split('\n').filter(Boolean)).toEqual([
      'merge_request.create',
      'merge_request.target=main',
      `merge_request.title=${git(fx.dir, 'log', '-1', '--format=%s', glBranch)}`,
      'merge_request.remove_source_branch',
    ]);
  }, 240_000);
});
