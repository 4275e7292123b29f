import { git } from '../util/git.js';

// The previous versions of `locsync review --since <git ref>`: a file as the commit holds it
// (`git show <ref>:./<path>`), read in the manifest's folder (any folder of the work tree).

/** The commit `ref` names, or undefined when it names none here (not a repository, unknown ref). */
export async function resolveCommit(cwd: string, ref: string): Promise<string | undefined> {
  // `--end-of-options`: a ref that starts with '-' is never read as an option.
  const r = await git(cwd, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  return r.ok ? r.out.toString('utf8').trim() : undefined;
}

/** The bytes of `relPath` (relative to `cwd`, '/' separators) at `commit`; undefined: not there. */
export async function fileAt(cwd: string, commit: string, relPath: string): Promise<Buffer | undefined> {
  const r = await git(cwd, ['show', `${commit}:./${relPath}`]);
  return r.ok ? r.out : undefined;
}

/**
 * Files under `cwd` that differ between `commit` and the work tree, or are new there (untracked, not
 * ignored): paths relative to `cwd`, '/' separators.
 */
export async function changedSince(cwd: string, commit: string): Promise<Set<string>> {
  const [diff, untracked] = await Promise.all([
    git(cwd, ['diff', '--name-only', '--relative', '--no-renames', '-z', commit, '--']),
    git(cwd, ['ls-files', '--others', '--exclude-standard', '-z']),
  ]);
  if (!diff.ok) throw new Error(`git diff ${commit}: ${diff.err}`);
  const names = [diff, untracked].flatMap((r) => (r.ok ? r.out.toString('utf8').split('\0') : []));
  return new Set(names.filter((n) => n !== ''));
}
