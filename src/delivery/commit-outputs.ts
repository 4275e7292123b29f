import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { git, gitText, type GitResult } from '../util/git.js';
import { NotCommitted, type Checkout } from './checkout.js';

// One commit of exactly the given paths, as the work tree holds them (a path gone from it is
// removed), on HEAD's branch. It is made in a private index (GIT_INDEX_FILE) that starts as HEAD's
// tree, so the user's staging area and every other change in the work tree stay as they were; only
// the committed paths the user had not staged are brought up to the new commit in the user's index,
// so `git status` does not show them as changed back.

/** git's empty tree: what an unborn branch is compared with. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const NO_COMMIT = '0'.repeat(40);

export interface Identity {
  name: string;
  email: string;
}

/** `Name <email>` → the identity, or undefined for git's own configuration. */
export function parseIdentity(author: string | undefined): Identity | undefined {
  const m = author ? /^\s*([^<>]+?)\s*<([^<>\s]+)>\s*$/.exec(author) : null;
  return m ? { name: m[1]!, email: m[2]! } : undefined;
}

function identityEnv(who: Identity | undefined): Record<string, string> {
  if (!who) return {};
  return {
    GIT_AUTHOR_NAME: who.name,
    GIT_AUTHOR_EMAIL: who.email,
    GIT_COMMITTER_NAME: who.name,
    GIT_COMMITTER_EMAIL: who.email,
  };
}

const nul = (paths: string[]) => paths.map((p) => `${p}\0`).join('');
const names = (r: GitResult) => r.out.toString('utf8').split('\0').filter(Boolean);

function failed(what: string, r: GitResult): NotCommitted {
  return new NotCommitted(`${what} failed: ${r.err.split('\n').slice(0, 3).join(' ') || `exit ${r.code}`}`);
}

export interface MadeCommit {
  commit: string;
  /** The paths the commit changed (relative to the checkout's top). */
  files: string[];
  /** A problem after the commit was made (the user's index not brought up to it). */
  warning?: string;
}

/**
 * Commit `paths` (relative to the checkout's top) with `message`; undefined when none of them
 * differs from HEAD (nothing to commit).
 */
export async function commitPaths(
  co: Checkout,
  paths: string[],
  message: string,
  author?: Identity,
): Promise<MadeCommit | undefined> {
  if (paths.length === 0) return undefined;
  const base = co.head ?? EMPTY_TREE;
  // Paths the user staged differently from HEAD: their staging stays as it is, even after our commit.
  const staged = await git(co.top, [
    '--literal-pathspecs',
    'diff-index',
    '--cached',
    '--name-only',
    '-z',
    base,
    '--',
    ...paths,
  ]);
  const userStaged = new Set(staged.ok ? names(staged) : []);
  const index = path.join(co.gitDir, `locsync-index-${process.pid}-${randomBytes(4).toString('hex')}`);
  const env = { GIT_INDEX_FILE: index };
  try {
    const start = await git(co.top, co.head ? ['read-tree', co.head] : ['read-tree', '--empty'], { env });
    if (!start.ok) throw failed('git read-tree', start);
    const add = await git(co.top, ['update-index', '--add', '--remove', '-z', '--stdin'], {
      env,
      input: nul(paths),
    });
    if (!add.ok) throw failed('git update-index', add);
    const changed = await git(co.top, ['diff-index', '--cached', '--name-only', '-z', '--no-renames', base], {
      env,
    });
    if (!changed.ok) throw failed('git diff-index', changed);
    const files = names(changed);
    if (files.length === 0) return undefined;
    const tree = await git(co.top, ['write-tree'], { env });
    if (!tree.ok) throw failed('git write-tree', tree);
    const parents = co.head ? ['-p', co.head] : [];
    const made = await git(co.top, ['commit-tree', gitText(tree), ...parents, '-F', '-'], {
      env: identityEnv(author),
      input: message,
    });
    if (!made.ok)
      throw /tell me who you are|empty ident|unable to auto-detect/i.test(made.err)
        ? new NotCommitted(
            'git does not know who commits: set git.author in the manifest (Name <email>), or `git config user.name` and `git config user.email`',
          )
        : failed('git commit-tree', made);
    const commit = gitText(made);
    const subject = message.split('\n')[0]!;
    // The branch moves only from the commit it was on when this began: a commit made meanwhile wins.
    const moved = await git(co.top, [
      'update-ref',
      '-m',
      subject,
      `refs/heads/${co.branch}`,
      commit,
      co.head ?? NO_COMMIT,
    ]);
    if (!moved.ok)
      throw new NotCommitted(
        `the branch ${co.branch} moved while locsync committed (${moved.err.split('\n')[0]}): run again`,
      );
    const warning = await followInUserIndex(
      co,
      commit,
      files.filter((f) => !userStaged.has(f)),
    );
    return { commit, files, ...(warning ? { warning } : {}) };
  } finally {
    fs.rmSync(index, { force: true });
  }
}

/** The user's index entries of `files` set to `commit`'s (what the work tree holds now). */
async function followInUserIndex(co: Checkout, commit: string, files: string[]): Promise<string | undefined> {
  if (files.length === 0) return undefined;
  const r = await git(
    co.top,
    ['--literal-pathspecs', 'reset', '-q', commit, '--pathspec-from-file=-', '--pathspec-file-nul'],
    { input: nul(files) },
  );
  if (r.ok) return undefined;
  return `the commit is made, but git's index still holds the files as before it (${r.err.split('\n')[0]}): \`git reset -q -- <files>\` brings it up to date`;
}
