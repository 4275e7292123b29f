import path from 'node:path';
import type { Logger } from '../log/logger.js';
import type { GitDeliveryOptions } from '../manifest/sections/git.js';
import type { LoadedManifest } from '../manifest/types.js';
import { NotCommitted, insideCheckout, openCheckout } from './checkout.js';
import { commitMessage } from './commit-message.js';
import { commitPaths, parseIdentity } from './commit-outputs.js';
import { mergeDeliveries, type Delivery } from './delivered.js';
import { pushBranch, type Pushed } from './push.js';
import { clearUndelivered, loadUndelivered, saveUndelivered } from './undelivered.js';

// A run's delivery as one commit (and its push): the outputs it wrote or removed, nothing else.
// Whatever stops the commit leaves the delivered files on disk and says why nothing was committed;
// that delivery is kept for the next run that commits (./undelivered.ts).

export interface GitOutcome {
  /** The commit made; absent when there was nothing to commit or it was refused. */
  committed?: { commit: string; branch: string; subject: string; files: string[] };
  pushed?: Pushed;
  /** Why nothing was committed, or the commit was not pushed: the run fails with it. */
  failure?: string;
  /** Lines for the user (stdout, after the run's summary). */
  lines: string[];
}

export async function deliverToGit(args: {
  loaded: LoadedManifest;
  delivery: Delivery;
  options: GitDeliveryOptions;
  logger: Logger;
}): Promise<GitOutcome> {
  const { loaded, options, logger } = args;
  const stateDir = path.dirname(loaded.statePath);
  const earlier = loadUndelivered(stateDir);
  const delivery = earlier ? mergeDeliveries(earlier, args.delivery) : args.delivery;
  if (delivery.written.length === 0 && delivery.removed.length === 0)
    return { lines: ['Nothing committed: the run delivered nothing.'] };
  let committed: GitOutcome['committed'];
  try {
    const co = await openCheckout(loaded.dir);
    const paths = insideCheckout(co, loaded.dir, [
      ...delivery.written.map((w) => w.path),
      ...delivery.removed,
    ]);
    const message = commitMessage(delivery, loaded.manifest.billing);
    const made = await commitPaths(co, paths, message, parseIdentity(options.author));
    clearUndelivered(stateDir);
    if (!made)
      return { lines: ['Nothing committed: the delivered outputs are as the branch already holds them.'] };
    if (made.warning) logger.warn(made.warning);
    const subject = message.split('\n')[0]!;
    committed = { commit: made.commit, branch: co.branch, subject, files: made.files };
    logger.info(
      { commit: made.commit, branch: co.branch, files: made.files.length },
      'committed the delivery',
    );
    const lines = [
      `Committed ${made.commit.slice(0, 7)} on ${co.branch} (${made.files.length} files): ${subject}`,
    ];
    if (!options.push) return { committed, lines };
    const pushed = await pushBranch(co, made.commit);
    logger.info(
      { remote: pushed.remote, branch: pushed.remoteBranch, range: pushed.range },
      'pushed the delivery',
    );
    lines.push(`Pushed ${co.branch} to ${pushed.remote} (${pushed.remoteBranch}): ${pushed.range}`);
    return { committed, pushed, lines };
  } catch (err) {
    if (!(err instanceof NotCommitted)) throw err;
    if (committed) {
      logger.error(err.message);
      return {
        committed,
        failure: `not pushed: ${err.message}`,
        lines: [`Committed ${committed.commit.slice(0, 7)} on ${committed.branch}: ${committed.subject}`],
      };
    }
    await saveUndelivered(stateDir, delivery);
    const failure =
      `nothing committed: ${err.message}. The files are delivered on disk; ` +
      'the next run that commits takes them in';
    logger.error(failure);
    return { failure, lines: [] };
  }
}
