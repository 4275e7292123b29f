import { writeResult } from '../log/terminal.js';
import path from 'node:path';
import type { DriftPolicy } from '../manifest/types.js';
import { AuthError } from '../api/errors.js';
import { createLogger, type Logger } from '../log/logger.js';
import { loadManifest, type LoadedManifest } from '../manifest/load.js';
import { autoBackup } from '../state/backup.js';
import type { StateStore } from '../state/store.js';
import { openRunState } from './open-state.js';
import { runSync } from '../sync/engine.js';
import { serviceApiKey } from './api-key.js';
import { deferredConnection, needsServiceAtStart, type ClosableConnection } from './deferred-connection.js';
import { createSyncEvents, type SyncEvents } from '../sync/events.js';
import type { GitOutcome } from '../delivery/deliver.js';
import { gitDeliveryWanted } from '../manifest/sections/git.js';
import { formatSummary, summaryJson, type SyncSummary } from '../sync/summary.js';
import { notifyRunEvents } from '../notify/run-notifications.js';
import { ConfigError, EXIT } from '../util/errors.js';
import { parseRetranslate, requireYesOffTerminal } from '../sync/plan/retranslate.js';
import { progressWanted } from './context.js';
import { formatFiles } from './plan-text.js';
import { budgetCaps, gateRun, pricedPlan, RunRefused, type GateChecks } from './sync-gate.js';
import { billedThisMonth } from '../billing/ledger.js';
import { startRunView } from './progress.js';
import { onStopSignals } from './shutdown.js';
import { recordRefused, recordRefusedRun } from './refused-run.js';

interface SyncCliOptions {
  config: string;
  dryRun?: boolean;
  only?: string[];
  retranslate?: string;
  /** Translate again (billed) the outputs that failed a hard check (docs/qa.md). */
  retryFailedQa?: boolean;
  drift?: DriftPolicy;
  json?: boolean;
  plan?: string;
  maxBilled?: string;
  yes?: boolean;
  overwriteEdits?: boolean;
  commit?: boolean;
  push?: boolean;
}

type OpenConnection = (
  loaded: LoadedManifest,
  opts: { logger?: Logger; stateDir: string },
) => Promise<ClosableConnection>;

async function openConnectionFn(): Promise<OpenConnection> {
  return ((await import('./connect.js')) as { openConnection: OpenConnection }).openConnection;
}

/** The automatic backup of the state before a sync changes it (state_backups in the manifest). */
async function takeAutoBackup(loaded: LoadedManifest, state: StateStore, logger: Logger): Promise<void> {
  try {
    const written = await autoBackup(state.db, loaded.statePath, loaded.manifest.state_backups);
    if (written) logger.info({ backup: written }, 'state backed up');
  } catch (err) {
    // A backup that cannot be written (disk full) must not stop the translations: said, not thrown.
    logger.warn({ err, state: loaded.statePath }, 'automatic backup of the state failed');
  }
}

/**
 * `--commit`/`--push` or `git:` of the manifest: what the run delivers is gathered from its events
 * and committed after it (src/delivery, loaded only when asked for).
 */
async function gitDelivery(
  loaded: LoadedManifest,
  flags: { commit?: boolean; push?: boolean },
  events: SyncEvents,
): Promise<{ deliver(logger: Logger): Promise<GitOutcome> } | undefined> {
  const options = gitDeliveryWanted(loaded.manifest.git, flags);
  if (!options) return undefined;
  const [{ deliverToGit }, { DeliveryLog }] = await Promise.all([
    import('../delivery/deliver.js'),
    import('../delivery/delivered.js'),
  ]);
  const log = new DeliveryLog(events, 'sync');
  return {
    deliver: (logger) => deliverToGit({ loaded, delivery: log.take(), options, logger }),
  };
}

/** The delivery in `--json`: the commit, the push, or why there was none. */
function gitJson(g: GitOutcome): Record<string, unknown> {
  return {
    ...(g.committed
      ? {
          commit: g.committed.commit,
          branch: g.committed.branch,
          subject: g.committed.subject,
          files: g.committed.files,
        }
      : { commit: null }),
    ...(g.pushed
      ? { pushed: { remote: g.pushed.remote, branch: g.pushed.remoteBranch, range: g.pushed.range } }
      : {}),
    ...(g.failure ? { failure: g.failure } : {}),
  };
}

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
    if (recorded && !recorded.runStarted) await recordRefusedRun(recorded.loaded, 'sync', err);
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

  const logger = createLogger();
  // A dry run changes nothing: no lock, and on PostgreSQL no worker of the pipeline.
  const opened = await openRunState(loaded, { logger, command: 'sync', drives: !opts.dryRun });
  const state = opened.state;
  // A PostgreSQL state is backed up by the database's own means (docs/postgres.md).
  if (!opts.dryRun && opened.sqlite) await takeAutoBackup(loaded, opened.sqlite, logger);
  const abort = new AbortController();
  const stopWaiting = new AbortController();
  const signals = onStopSignals({
    logger,
    message: 'finishing documents in flight, no new uploads',
    next: 'the next run',
    stop: () => abort.abort(),
    stopWaiting: () => stopWaiting.abort(),
  });
  const events = createSyncEvents();
  const git = opts.dryRun ? undefined : await gitDelivery(loaded, opts, events);
  // The webhook's HTTP client is loaded only when a webhook is configured.
  const notifier = loaded.manifest.notify?.webhook
    ? (await import('../notify/webhook.js')).webhookFromManifest(loaded.manifest.notify, {
        pipeline: loaded.path,
        logger,
      })
    : undefined;
  if (notifier) notifyRunEvents(events, notifier, 'sync');
  const view = startRunView({
    events,
    logger,
    configPath: opts.config,
    progress: progressWanted(),
    ...(loaded.manifest.billing ? { rate: loaded.manifest.billing } : {}),
  });
  let summary: SyncSummary | undefined;
  let code: number = EXIT.ok;
  let connection: Awaited<ReturnType<OpenConnection>> | undefined;
  const options = {
    ...(opts.only ? { only: opts.only } : {}),
    ...(opts.retranslate ? { retranslate: opts.retranslate } : {}),
    ...(opts.retryFailedQa ? { retryFailedQa: true } : {}),
    ...(opts.drift ? { drift: opts.drift } : {}),
    ...(opts.overwriteEdits ? { overwriteEdits: true } : {}),
  };
  try {
    const connect = async () =>
      (await openConnectionFn())(loaded, { logger, stateDir: path.dirname(loaded.statePath) });
    // A missing key is refused now, whether or not the run calls the service.
    serviceApiKey(loaded);
    connection =
      opts.dryRun || needsServiceAtStart(loaded, !opened.sqlite)
        ? await connect()
        : deferredConnection(connect);
    if (opts.dryRun) {
      // A dry run is the same plan, priced, printed as `plan` prints it: nothing uploaded or written.
      const files = await pricedPlan({ loaded, state, connection, logger, options });
      if (opts.json) process.stdout.write(JSON.stringify({ files, price: files.price }, null, 2) + '\n');
      else writeResult(formatFiles(files, loaded.manifest.billing));
      return EXIT.ok;
    }
    const caps = budgetCaps(loaded, maxBilled);
    const checks: GateChecks = {
      ...(opts.plan ? { savedPlan: opts.plan } : {}),
      ...(maxBilled !== undefined ? { maxBilled } : {}),
      configArg: opts.config === 'pipeline.yaml' ? '' : ` -c ${opts.config}`,
      ...(opts.overwriteEdits ? { overwriteEdits: true } : {}),
    };
    summary = await runSync({
      loaded,
      connection,
      state,
      logger,
      events,
      // The run's one plan, checked before anything of it is carried out (a refusal: no run started).
      check: async (plan) => {
        const checked = await gateRun({ loaded, state, plan, checks });
        progress.runStarted = true;
        return checked;
      },
      options: {
        ...options,
        signal: abort.signal,
        stopWaiting: stopWaiting.signal,
        stopDeadlineMs: loaded.manifest.watch.shutdown * 1000,
        budget: {
          caps,
          // Only a monthly cap counts the month's bill (a sum over the month's jobs: not for nothing).
          billedThisMonth: caps.perMonth !== undefined ? await billedThisMonth(state) : 0,
        },
      },
    });
    code = summary.interrupted
      ? EXIT.interrupted
      : summary.failed.some((f) => f.kind === 'budget')
        ? EXIT.budget
        : summary.failed.length > 0 || summary.sourceMissing.length > 0
          ? EXIT.failed
          : EXIT.ok;
  } catch (err) {
    summary = (err as { summary?: SyncSummary }).summary;
    if (err instanceof RunRefused) {
      process.stderr.write(`locsync: ${err.message}\n`);
      if (!opts.dryRun) await recordRefused(state, 'sync', err);
      code = err.exitCode;
      if (code === EXIT.budget)
        notifier?.send('budget-reached', `locsync sync: a budget cap stopped the run: ${err.message}`);
    } else if (err instanceof AuthError && summary) {
      process.stderr.write(
        `locsync: the service refused the API key (${err.message}); check $${loaded.manifest.service.key_env}\n`,
      );
      code = EXIT.usage;
    } else {
      throw err;
    }
  } finally {
    view.close();
    signals.dispose();
    await connection?.close().catch(() => undefined);
    await opened.close();
  }
  // What the run delivered is committed once it has ended (the files are on disk whatever happens).
  const delivered = summary && git ? await git.deliver(logger) : undefined;
  if (summary) {
    const rate = loaded.manifest.billing;
    if (opts.json)
      process.stdout.write(
        JSON.stringify(
          { ...summaryJson(summary, rate), ...(delivered ? { git: gitJson(delivered) } : {}) },
          null,
          2,
        ) + '\n',
      );
    else writeResult([formatSummary(summary, rate), ...(delivered?.lines ?? [])].join('\n'));
  }
  if (delivered?.failure) {
    process.stderr.write(`locsync: ${delivered.failure}\n`);
    if (code === EXIT.ok) code = EXIT.failed;
  }
  return code;
}
