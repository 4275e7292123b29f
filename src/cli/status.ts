import { writeResult } from '../log/terminal.js';
import path from 'node:path';
import fs from 'node:fs';
import { printable } from '../log/printable.js';
import { loadManifest, type LoadedManifest } from '../manifest/load.js';
import { formatRepeatedUploads } from '../report/format-repeated.js';
import { formatSpending } from '../report/format-spending.js';
import { formatLanguageProgress } from '../report/language-progress.js';
import { sqliteStatusSource } from '../report/status-source.js';
import { collectStatus, lastRunOutOfView, scanForStatus, type StatusData } from '../report/status-data.js';

import type { StatusOptions } from './status-options.js';

export type { StatusData };
export type { StatusOptions, StatusView } from './status-options.js';
import { openState, type RunRecord } from '../state/store.js';
import { claimOrClose } from './open-state.js';
import { EXIT } from '../util/errors.js';
import { conflicts, editedOutputs, formatEdited } from '../sync/edited-outputs.js';
import { formatQaOutputs, qaOutputs } from '../report/qa-outputs.js';
import { formatPeoplesWording, peoplesWording } from './status-wording.js';
import { formatStringKeys } from '../report/string-keys.js';
import { STALE_ADVICE, staleAdvice } from '../sync/plan/retranslate.js';

/** ` -c <manifest>` in advice, unless it is the default. */
const cfgArg = (cfg: string) => (cfg === 'pipeline.yaml' ? '' : ` -c ${cfg}`);
import { formatCount, formatDuration } from '../util/format.js';

async function collect(opts: StatusOptions, loaded: LoadedManifest, now: number): Promise<StatusData> {
  const state = openState(loaded.statePath);
  claimOrClose(state, loaded, false);
  try {
    const data = await collectStatus(sqliteStatusSource(state), loaded, {
      runs: Number(opts.runs) || 5,
      config: opts.config,
      now,
      ...(opts.scan ? { scan: await scanForStatus(loaded, state) } : {}),
      qa: await qaOutputs(state.qaResults),
    });
    return {
      ...data,
      edited: await editedOutputs(state.jobs, loaded.dir, opts.config, path.dirname(loaded.statePath)),
      wording: await peoplesWording(loaded, state),
    };
  } finally {
    state.close();
  }
}

function ago(iso: string | null, now: number): string {
  return iso ? formatDuration(now - Date.parse(iso)) : '?';
}

function runLine(r: RunRecord, now: number): string {
  // A run still going has no duration yet: its outcome says so ("running (pid N)").
  const dur = r.finished_at
    ? `, ${formatDuration(Date.parse(r.finished_at) - Date.parse(r.started_at))}`
    : '';
  const c = r.counts ?? {};
  const counts = ['translated', 'resumed', 'reused', 'unchanged', 'stale', 'failed']
    .filter((k) => c[k])
    .map((k) => `${k} ${c[k]}`)
    .join(', ');
  const outcome =
    r.status === 'running' ? `running (pid ${r.pid})` : r.reason ? `${r.status} (${r.reason})` : r.status;
  return (
    `#${r.id} ${r.command} ${r.started_at} (${ago(r.started_at, now)} ago)${dur}: ${outcome}` +
    (counts ? `; ${counts}` : '') +
    `; billed ${r.status === 'running' ? 'so far ' : ''}${formatCount(r.billed_characters)} characters`
  );
}

export function formatStatus(d: StatusData, cfg: string, now: number): string {
  const out: string[] = [];
  const last = d.last_outcome;
  if (last?.advice) {
    out.push(
      `Last run #${last.run} (${last.command}): ${last.status}${last.reason ? ` (${last.reason})` : ''}`,
    );
    out.push(`  what to do: ${last.advice}`);
    out.push('');
  }
  out.push(d.runs.length ? 'Last runs:' : `No runs yet: \`locsync sync -c ${cfg}\` starts the first.`);
  for (const r of d.runs) out.push(`  ${runLine(r, now)}`);
  const ran = lastRunOutOfView(d);
  if (ran) out.push(`  ... the last run that ran: ${runLine(ran, now)}`);
  out.push('');
  out.push(d.inFlight.length ? `In flight (${d.inFlight.length}):` : 'In flight: none');
  for (const j of d.inFlight)
    out.push(
      `  ${j.mapping}/${j.file} -> ${j.target}: ${j.state}, for ${j.waited_seconds === null ? '?' : formatDuration(j.waited_seconds * 1000)}`,
    );
  if (d.inFlight.length)
    out.push(`  (the next \`locsync sync -c ${cfg}\` collects them; nothing recorded is uploaded again)`);
  if (d.spooled.documents.length) {
    out.push('');
    out.push(
      `Spooled (${d.spooled.documents.length}; downloaded and paid, not yet written: the next \`locsync sync -c ${cfg}\` puts them in place without the service; kept in ${d.spooled.folder}):`,
    );
    for (const s of d.spooled.documents)
      out.push(
        `  ${s.output ?? '(no open job)'}: document ${s.document_id}${s.holder ? ` (in the spool of worker ${s.holder}, which delivers it; uploaded again only once that worker is gone and its spool out of reach)` : ''}`,
      );
  }
  out.push('');
  out.push(d.failures.length ? `Failures (${d.failures.length}):` : 'Failures: none');
  for (const f of d.failures) {
    out.push(
      `  ${f.mapping}/${f.file} -> ${f.target}${f.gave_up ? ' (gave up)' : ''}: ${f.kind ?? 'error'}: ${f.message ?? ''}`,
    );
    out.push(`    what to do: ${f.advice}`);
  }
  if (d.spending) out.push('', formatSpending(d.spending));
  const repeated = formatRepeatedUploads(d.possibly_billed_twice ?? [], d.spending?.billing);
  if (repeated.length) out.push('', ...repeated);
  if (d.progress?.length) {
    out.push('');
    out.push('Progress by language:');
    out.push(...formatLanguageProgress(d.progress));
  }
  if (d.stale !== null) {
    out.push('');
    out.push(
      d.stale.length
        ? `Stale outputs: ${staleAdvice(d.stale.length, cfgArg(cfg))}:`
        : 'Stale outputs: none (style list and glossary edits not yet applied show in `locsync plan`)',
    );
    for (const s of d.stale.slice(0, 50))
      out.push(`  ${s.output} (${s.because ?? STALE_ADVICE[s.reason].words})`);
    if (d.stale.length > 50) out.push(`  ... and ${d.stale.length - 50} more (--json lists all)`);
  }
  const keys = formatStringKeys(d.string_keys ?? []);
  if (keys.length) out.push('', ...keys);
  if (d.gaveUp?.length) {
    out.push('');
    out.push(
      `Not sent again (${d.gaveUp.length}; failed max_attempts times, or refused for good: see Failures; a changed file or setting is tried again):`,
    );
    for (const g of d.gaveUp) out.push(`  ${g.file} -> ${g.target} (${g.output})`);
  }
  if (d.skipped?.length) {
    out.push('');
    out.push(`Skipped (${d.skipped.length}):`);
    for (const s of d.skipped) out.push(`  ${s.mapping}/${s.file}: ${s.message}`);
  }
  const wording = formatPeoplesWording(d.wording ?? []);
  if (wording.length) out.push('', ...wording);
  const edited = formatEdited(d.edited ?? []);
  if (edited.length) out.push('', ...edited);
  const qa = formatQaOutputs(d.qa, cfg);
  if (qa.length) out.push('', ...qa);
  // File names and service messages come from outside: each entry stays one line.
  return out.map(printable).join('\n');
}

export async function statusAction(opts: StatusOptions): Promise<void> {
  const loaded = await loadManifest(opts.config);
  if (loaded.postgres)
    return (await import('./status-postgres.js')).postgresStatus(opts, loaded, { formatStatus });
  const now = Date.now();
  if (!fs.existsSync(loaded.statePath)) {
    if (opts.json)
      process.stdout.write(JSON.stringify({ state: loaded.statePath, runs: [] }, null, 2) + '\n');
    else
      process.stdout.write(
        `No state yet at ${loaded.statePath}: \`locsync sync -c ${opts.config}\` starts the first run.\n`,
      );
    process.exitCode = EXIT.ok;
    return;
  }
  const data = await collect(opts, loaded, now);
  if (opts.json) process.stdout.write(JSON.stringify(data, null, 2) + '\n');
  else writeResult(formatStatus(data, opts.config, now));
  const last = data.last_run?.status;
  process.exitCode =
    data.failures.length ||
    conflicts(data.edited ?? []).length ||
    data.qa?.failed.length ||
    last === 'failed' ||
    last === 'crashed'
      ? EXIT.failed
      : EXIT.ok;
}
