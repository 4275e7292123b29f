import path from 'node:path';
import { peoplesWording } from './status-wording.js';
import type { LoadedManifest } from '../manifest/types.js';
import { conflicts, editedOutputs } from '../sync/edited-outputs.js';
import { postgresStatusSource } from '../report/postgres-status-source.js';
import { collectStatus, scanForStatus } from '../report/status-data.js';
import { qaOutputs } from '../report/qa-outputs.js';
import { refuseForeignTables, schemaVersion } from '../state/postgres/migrate.js';
import { PostgresState } from '../state/postgres/store.js';
import { listWorkers, type WorkerStatus } from '../state/postgres/workers.js';
import { EXIT } from '../util/errors.js';
import { formatDuration } from '../util/format.js';
import type { StatusData } from '../report/status-data.js';
import type { StatusOptions, StatusView } from './status-options.js';

// `locsync status` on a PostgreSQL state: the same runs, jobs in flight, failures, spending and
// (with --scan) stale outputs as on SQLite, and the workers sharing the pipeline (host, pid, last
// heartbeat, jobs held), dead ones flagged.

type WorkerLine = Pick<
  WorkerStatus,
  'id' | 'host' | 'pid' | 'command' | 'version' | 'started_at' | 'heartbeat_at' | 'jobs_held' | 'stopped_at'
> & { state: 'alive' | 'dead' | 'stopped'; heartbeat_age_s: number };

function workerLine(w: WorkerStatus): WorkerLine {
  const state = w.stopped_at ? 'stopped' : w.alive ? 'alive' : 'dead';
  return {
    id: w.id,
    host: w.host,
    pid: w.pid,
    command: w.command,
    version: w.version,
    started_at: w.started_at,
    heartbeat_at: w.heartbeat_at,
    heartbeat_age_s: Math.round(w.heartbeat_age_s * 10) / 10,
    jobs_held: w.jobs_held,
    stopped_at: w.stopped_at,
    state,
  };
}

function formatWorkers(workers: WorkerLine[]): string {
  if (!workers.length) return 'Workers: none has run yet';
  const out = [`Workers (${workers.filter((w) => w.state === 'alive').length} alive):`];
  for (const w of workers) {
    const beat = `last heartbeat ${formatDuration(w.heartbeat_age_s * 1000)} ago`;
    const flag =
      w.state === 'dead'
        ? `DEAD (no heartbeat for its lease; its ${w.jobs_held ? 'jobs are taken over by the others' : 'work is free'})`
        : w.state;
    out.push(`  ${w.host} pid ${w.pid} ${w.command}: ${flag}, ${beat}, ${w.jobs_held} job(s) held`);
  }
  return out.join('\n');
}

/** `view`: status.ts's text layout, shared by both backends. */
export async function postgresStatus(
  opts: StatusOptions,
  loaded: LoadedManifest,
  view: StatusView,
): Promise<void> {
  const pgLoc = loaded.postgres!;
  const now = Date.now();
  const state = await PostgresState.open(pgLoc, { migrate: false, connections: 4 });
  try {
    if ((await schemaVersion(state.pool)) === 0) {
      // Another application's tables of the same names: `state migrate` would not help.
      await refuseForeignTables(state.pool, pgLoc.url);
      const msg = `No state yet in ${state.location}: \`locsync state migrate -c ${opts.config}\` or \`locsync sync -c ${opts.config}\` creates it.`;
      process.stdout.write(
        opts.json ? JSON.stringify({ state: state.location, runs: [] }, null, 2) + '\n' : msg + '\n',
      );
      process.exitCode = EXIT.ok;
      return;
    }
    const qa = await qaOutputs(state.qaResults);
    const status = await collectStatus(postgresStatusSource(state), loaded, {
      runs: Number(opts.runs) || 5,
      config: opts.config,
      now,
      ...(opts.scan ? { scan: await scanForStatus(loaded, state) } : {}),
      qa,
    });
    const workers = (await listWorkers(state.pool)).map(workerLine);
    const edited = await editedOutputs(state.jobs, loaded.dir, opts.config, path.dirname(loaded.statePath));
    const wording = await peoplesWording(loaded, state);
    const data: StatusData & { workers: WorkerLine[] } = { ...status, edited, qa, workers, wording };
    if (opts.json) process.stdout.write(JSON.stringify(data, null, 2) + '\n');
    else
      process.stdout.write(
        view.formatStatus(data, opts.config, now) + '\n\n' + formatWorkers(workers) + '\n',
      );
    const last = data.last_run?.status;
    const dead = workers.some((w) => w.state === 'dead');
    process.exitCode =
      data.failures.length ||
      conflicts(edited).length ||
      qa.failed.length ||
      dead ||
      last === 'failed' ||
      last === 'crashed'
        ? EXIT.failed
        : EXIT.ok;
  } finally {
    await state.close();
  }
}
