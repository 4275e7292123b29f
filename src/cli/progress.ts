import type { Logger } from '../log/logger.js';
import { colorsAllowed } from '../log/logger.js';
import { setLiveRegion } from '../log/terminal.js';
import type { SyncEvents } from '../sync/events.js';
import { formatBytes, formatCount, formatDuration, formatPercent } from '../util/format.js';
import { RunTracker, type InFlightJob, type JobPhase } from '../sync/run-tracker.js';
import { printable } from '../log/printable.js';
import { stoppingLines } from './stop-view.js';

// The live view of a sync or watch run on a terminal, drawn under the log lines from a RunTracker;
// and on SIGINT/SIGTERM what was left and how to resume (a log line when there is no terminal).

export { RunTracker };

const PHASE_TEXT: Record<JobPhase, string> = {
  queued: 'queued',
  uploading: 'uploading',
  waiting: 'waiting on the service',
  downloading: 'downloading',
};

function describeJob(j: InFlightJob, now: number): string {
  const state =
    j.phase === 'waiting' && j.serviceStatus
      ? `${PHASE_TEXT.waiting} (${j.serviceStatus})`
      : PHASE_TEXT[j.phase];
  return (
    `${printable(`${j.ref.mapping}/${j.ref.file}`)} -> ${j.ref.target}: ${state} for ${formatDuration(now - j.phaseSince)}` +
    (j.ref.documentId ? `, document ${j.ref.documentId}` : '')
  );
}

/** The lines of the live view: totals per phase, then the jobs in flight for long. */
export function renderProgress(
  t: RunTracker,
  opts: { now: number; longJobMs: number; maxJobLines: number; color: boolean },
): string[] {
  const c = t.totals();
  const bold = (s: string) => (opts.color ? `\x1b[1m${s}\x1b[22m` : s);
  const red = (s: string) => (opts.color && c.failed ? `\x1b[31m${s}\x1b[39m` : s);
  const eta = t.etaMs();
  const of = (n: number) => `${formatCount(n)}/${formatCount(c.total)}`;
  const head = `${bold('locsync')} ${formatDuration(opts.now - t.startedAt)}  ${formatCount(c.scanned)} files`;
  // Before the first unit of work is found there are no totals yet: say what is going on.
  // Stopping: what is still awaited, with a countdown, above the counters; every job in flight listed.
  const stopping = stoppingLines(t, opts.now);
  if (c.total === 0)
    return [
      ...stopping,
      `${head}  ${t.scansDone ? 'nothing to translate' : 'checking style lists, scanning'}`,
    ];
  const lines = [
    `${head}  upload ${of(c.uploaded + c.reused)}  translate ${of(c.translated + c.reused)}  ` +
      `download ${of(c.downloaded + c.reused)}  ${formatPercent(t.finished(), c.total)}` +
      (eta !== undefined ? `  ETA ${formatDuration(eta)}` : ''),
    `  uploading ${c.uploading}  at the service ${c.atService}  downloading ${c.downloading}  ` +
      `waiting ${formatCount(c.waiting)}  reused ${formatCount(c.reused)}  ${red(`failed ${formatCount(c.failed)}`)}`,
    `  billed ${formatCount(c.billed)} characters  downloaded ${formatBytes(c.bytes)}` +
      (t.uploadsStopped ? `  uploads stopped: ${t.uploadsStopped}` : ''),
  ];
  const long = t.inFlight().filter((j) => t.stopping || opts.now - j.since >= opts.longJobMs);
  for (const j of long.slice(0, opts.maxJobLines)) lines.push(`  ${describeJob(j, opts.now)}`);
  if (long.length > opts.maxJobLines)
    lines.push(`  ... and ${long.length - opts.maxJobLines} more long jobs`);
  return [...stopping, ...lines];
}

/** What was left when the run was interrupted, and how to resume (plain text lines). */
export function leftoverReport(
  t: RunTracker,
  configPath: string,
  now = Date.now(),
  resumeCommand = 'sync',
): string[] {
  const inFlight = t.inFlight();
  const queued = t.totals().waiting;
  const lines = [
    `Stopping: no new uploads. ${inFlight.length} document(s) in flight` +
      (queued ? `, ${queued} queued and not started` : '') +
      '; documents not uploaded yet are left for the next run.',
  ];
  for (const j of inFlight) lines.push(`  ${describeJob(j, now)}`);
  lines.push(
    `Uploaded documents are recorded with their id: \`locsync ${resumeCommand} -c ${configPath}\` resumes them and the rest; nothing uploaded is paid twice.`,
  );
  return lines;
}

const ESC = '\x1b[';

/** The live view on a terminal (stderr). */
export class ProgressView {
  private drawn = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly tracker: RunTracker,
    private readonly out: NodeJS.WriteStream,
    private readonly opts: { longJobMs: number; refreshMs: number; maxJobLines: number },
  ) {}

  start(): void {
    setLiveRegion({ clear: () => this.clear(), redraw: () => this.draw() });
    this.out.write(`${ESC}?25l`);
    this.draw();
    this.timer = setInterval(() => this.draw(), this.opts.refreshMs);
    this.timer.unref();
  }

  private clear(): void {
    if (this.drawn > 0) this.out.write(`\r${ESC}${this.drawn}A${ESC}0J`);
    this.drawn = 0;
  }

  private draw(): void {
    if (this.stopped) return;
    const width = Math.max(20, (this.out.columns || 100) - 1);
    const lines = renderProgress(this.tracker, {
      now: Date.now(),
      longJobMs: this.opts.longJobMs,
      maxJobLines: Math.max(1, (this.out.rows || 24) - 6),
      color: colorsAllowed(this.out),
    }).map((l) => truncate(l, width));
    this.clear();
    this.out.write(lines.join('\n') + '\n');
    this.drawn = lines.length;
  }

  /** Erase the view and give the terminal back (cursor shown). */
  stop(): void {
    if (this.stopped) return;
    if (this.timer) clearInterval(this.timer);
    this.clear();
    this.stopped = true;
    setLiveRegion(undefined);
    this.out.write(`${ESC}?25h`);
  }
}

/** Cut a line to `width` visible characters (colour sequences do not count). */
function truncate(line: string, width: number): string {
  let visible = 0;
  let out = '';
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '\x1b') {
      const end = line.indexOf('m', i);
      if (end > 0) {
        out += line.slice(i, end + 1);
        i = end;
        continue;
      }
    }
    if (visible >= width) {
      out += '…';
      break;
    }
    out += line[i];
    visible++;
  }
  return out;
}

/** Jobs in flight longer than this get a line of their own (LOCSYNC_PROGRESS_LONG_JOB_MS, default 10 s). */
function longJobMsFromEnv(): number {
  const v = Number(process.env.LOCSYNC_PROGRESS_LONG_JOB_MS);
  return process.env.LOCSYNC_PROGRESS_LONG_JOB_MS && Number.isFinite(v) && v >= 0 ? v : 10_000;
}

export interface RunView {
  tracker: RunTracker;
  /** Stop drawing and forget the signal handlers. */
  close(): void;
}

/**
 * Follow a run: a live view on stderr when `progress` is true (a terminal), and on SIGINT/SIGTERM
 * what was left and how to resume (on the terminal, or as a warn log line without one).
 */
export function startRunView(args: {
  events: SyncEvents;
  logger: Logger;
  configPath: string;
  progress: boolean;
  /** The command that resumes the run (sync, watch). */
  resumeCommand?: string;
  longJobMs?: number;
  stream?: NodeJS.WriteStream;
}): RunView {
  const tracker = new RunTracker(args.events);
  const out = args.stream ?? process.stderr;
  const view = args.progress
    ? new ProgressView(tracker, out, {
        longJobMs: args.longJobMs ?? longJobMsFromEnv(),
        refreshMs: 250,
        maxJobLines: 10,
      })
    : undefined;
  view?.start();
  let reported = false;
  const onSignal = () => {
    if (reported) return;
    reported = true;
    // On a terminal the view goes on: it shows what is awaited and a countdown (stop-view.ts).
    if (view) return;
    const lines = leftoverReport(tracker, args.configPath, Date.now(), args.resumeCommand);
    args.logger.warn(
      {
        in_flight: tracker.inFlight().map((j) => ({
          mapping: j.ref.mapping,
          file: j.ref.file,
          target: j.ref.target,
          document_id: j.ref.documentId,
          state: j.phase,
          waited_s: Math.round((Date.now() - j.phaseSince) / 1000),
        })),
        not_started: tracker.totals().waiting,
      },
      lines.join(' '),
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    tracker,
    close() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      view?.stop();
    },
  };
}
