import { loadManifest, type LoadedManifest } from '../manifest/load.js';
import { ConfigError } from '../util/errors.js';
import { requireYesOffTerminal, parseRetranslate } from '../sync/plan/retranslate.js';
import { ListingPrefetch } from '../sync/plan/listing-prefetch.js';
import { ManifestFolders } from '../sync/plan/folders.js';
import type { SyncCliOptions } from './sync-command.js';

// `locsync sync`: what is needed to read the manifest and start listing the source folders is loaded
// first; the run itself (state, planner, executor, service client: most of the command's modules) is
// loaded while the listing runs on other threads (sync-command.ts).

/** `--max-billed N`: a whole number of characters. */
function parseMaxBilled(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.replace(/[_,]/g, '')))
    throw new ConfigError(
      `--max-billed: "${value}" is not a number of characters (e.g. --max-billed 2000000)`,
    );
  return Number(value.replace(/[_,]/g, ''));
}

export async function syncAction(opts: SyncCliOptions): Promise<void> {
  process.exitCode = await syncCommand(opts);
}

export async function syncCommand(opts: SyncCliOptions): Promise<number> {
  let recorded: { loaded: LoadedManifest; runStarted: boolean } | undefined;
  try {
    return await syncRun(opts, (r) => (recorded = r));
  } catch (err) {
    // A run refused before it began is recorded with its reason (a started run records itself).
    if (recorded && !recorded.runStarted)
      await (await import('./refused-run.js')).recordRefusedRun(recorded.loaded, 'sync', err);
    throw err;
  }
}

async function syncRun(
  opts: SyncCliOptions,
  track: (r: { loaded: LoadedManifest; runStarted: boolean }) => void,
): Promise<number> {
  requireYesOffTerminal(parseRetranslate(opts.retranslate), {
    ...(opts.yes ? { yes: true } : {}),
    interactive: !!process.stdin.isTTY && !!process.stdout.isTTY,
    option: `--retranslate ${opts.retranslate ?? ''}`,
  });
  if (opts.overwriteEdits && !opts.yes && !(process.stdin.isTTY && process.stdout.isTTY))
    throw new ConfigError(
      '--overwrite-edits replaces outputs people have edited with the new translation (their corrections are lost); without a terminal it needs --yes',
    );
  const maxBilled = parseMaxBilled(opts.maxBilled);
  const loaded = await loadManifest(opts.config);
  const progress = { loaded, runStarted: false };
  // A dry run is no run: nothing is recorded of it.
  if (!opts.dryRun) track(progress);
  const names = loaded.manifest.mappings.map((m) => m.name);
  const unknown = (opts.only ?? []).filter((n) => !names.includes(n));
  if (unknown.length)
    throw new ConfigError(
      `--only: no mapping named ${unknown.join(', ')} in ${loaded.path} (mappings: ${names.join(', ')})`,
    );

  // The source folders are listed on other threads while the state is opened and the plan made ready.
  const listings = opts.dryRun
    ? undefined
    : ListingPrefetch.start(loaded, new ManifestFolders(loaded), { only: opts.only });
  const { runSyncCommand } = await import('./sync-command.js');
  return runSyncCommand(opts, { loaded, maxBilled, progress, listings });
}
