import { git, gitText } from '../util/git.js';
import { NotCommitted, type Checkout } from './checkout.js';

// The push of a delivery's commit: the branch to its upstream (branch.<name>.remote and .merge),
// never forced. A push the remote rejects (it has commits this branch lacks) fails with the way
// out and leaves the local commit as it is.

export interface Pushed {
  remote: string;
  /** The branch on the remote (refs/heads/ left off). */
  remoteBranch: string;
  /** git's own line of what it updated ("1a2b3c4..5d6e7f8"). */
  range: string;
}

export async function pushBranch(co: Checkout, commit: string): Promise<Pushed> {
  const config = async (key: string) => {
    const r = await git(co.top, ['config', '--get', `branch.${co.branch}.${key}`]);
    return r.ok ? gitText(r) : undefined;
  };
  const [remote, merge] = [await config('remote'), await config('merge')];
  const short = commit.slice(0, 7);
  if (!remote || !merge)
    throw new NotCommitted(
      `the branch ${co.branch} has no upstream to push to (commit ${short} is made, not pushed): ` +
        `\`git push -u <remote> ${co.branch}\` once sets it`,
    );
  const remoteBranch = merge.replace(/^refs\/heads\//, '');
  const r = await git(co.top, ['push', '--porcelain', remote, `refs/heads/${co.branch}:${merge}`]);
  const out = gitText(r);
  // --porcelain: one line per ref, "<flag>\t<from>:<to>\t<summary>"; '!' is a rejected ref.
  const line = out.split('\n').find((l) => l.includes(`:${merge}\t`)) ?? '';
  if (!r.ok) {
    if (line.startsWith('!') || /\[rejected\]|non-fast-forward|fetch first/.test(out + r.err))
      throw new NotCommitted(
        `the push to ${remote} (${remoteBranch}) was rejected: the remote has commits this branch has not. ` +
          `The commit ${short} stays here; \`git pull --rebase\` then \`git push\` delivers it (locsync never forces a push)`,
      );
    throw new NotCommitted(
      `the push to ${remote} (${remoteBranch}) failed (${r.err.split('\n').slice(-2).join(' ') || `exit ${r.code}`}): the commit ${short} stays here; \`git push\` delivers it`,
    );
  }
  return { remote, remoteBranch, range: line.split('\t')[2] ?? short };
}
