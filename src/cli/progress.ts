import { formatBill, type BillingRate } from '../billing/money.js';
import type { Logger } from '../log/logger.js';
import { colorsAllowed } from '../log/logger.js';
import { setLiveRegion } from '../log/terminal.js';
import type { SyncEvents } from '../sync/events.js';
import { fitSegments, shortenMiddle, truncateLine, visibleWidth, wrapWords } from '../util/fit-text.js';
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

/**
 * One job in flight: "docs/a.txt -> de: waiting on the service (translating) for 12s, document D1".
 * Within `width` the document id goes first, then the name is shortened in its middle: what the job
 * is doing and for how long always shows.
 */
function describeJob(j: InFlightJob, now: number, width = Infinity): string {
  const state =
    j.phase === 'waiting' && j.serviceStatus
      ? `${PHASE_TEXT.waiting} (${j.serviceStatus})`
      : PHASE_TEXT[j.phase];
  const name = printable(`${j.ref.mapping}/${j.ref.file}`);
  const doing = ` -> ${j.ref.target}: ${state} for ${formatDuration(now - j.phaseSince)}`;
  const doc = j.ref.documentId ? `, document ${j.ref.documentId}` : '';
  if (visibleWidth(name + doing + doc) <= width) return name + doing + doc;
  return shortenMiddle(name, Math.max(8, width - visibleWidth(doing))) + doing;
}

export interface ProgressOptions {
  now: number;
  longJobMs: number;
  maxJobLines: number;
  color: boolean;
  /** Columns of the terminal: every line fits (unset: lines as long as they are). */
  width?: number;
  /** `billing:` of the manifest: what was billed is shown in money too. */
  rate?: BillingRate;
}

/**
 * The lines of the live view: totals per phase, then the jobs in flight for long. Within `width`
 * the least useful figures go first (the share done and the ETA always stay); messages wrap
 * between words.
 */
export function renderProgress(t: RunTracker, opts: ProgressOptions): string[] {
  const width = opts.width ?? Infinity;
  const c = t.totals();
  const bold = (s: string) => (opts.color ? `\x1b[1m${s}\x1b[22m` : s);
  const red = (s: string) => (opts.color && c.failed ? `\x1b[31m${s}\x1b[39m` : s);
  const eta = t.etaMs();
  const of = (n: number) => `${formatCount(n)}/${formatCount(c.total)}`;
  const wrap = (l: string) => (width === Infinity ? [l] : wrapWords(l, width, '    '));
  const fit = (segments: Array<{ text: string; drop?: number }>, lead = '') =>
    fitSegments(segments, width, '  ', lead);
  const started = `${bold('locsync')} ${formatDuration(opts.now - t.startedAt)}`;
  const files = { text: `${formatCount(c.scanned)} files`, drop: 2 };
  // Before the first unit of work is found there are no totals yet: say what is going on.
  // Stopping: what is still awaited, with a countdown, above the counters; every job in flight listed.
  const stopping = stoppingLines(t, opts.now).flatMap(wrap);
  if (c.total === 0)
    return [
      ...stopping,
      fit([
        { text: started },
        files,
        { text: t.scansDone ? 'nothing to translate' : 'checking style lists, scanning' },
      ]),
    ];
  const lines = [
    fit([
      { text: started },
      files,
      { text: `upload ${of(c.uploaded + c.reused)}`, drop: 1 },
      { text: `translate ${of(c.translated + c.reused)}`, drop: 0 },
      { text: `download ${of(c.downloaded + c.reused)}`, drop: 3 },
      { text: formatPercent(t.finished(), c.total) },
      ...(eta !== undefined ? [{ text: `ETA ${formatDuration(eta)}` }] : []),
    ]),
    fit(
      [
        { text: `uploading ${c.uploading}`, drop: 2 },
        { text: `at the service ${c.atService}`, drop: 3 },
        { text: `downloading ${c.downloading}`, drop: 1 },
        { text: `waiting ${formatCount(c.waiting)}`, drop: 4 },
        { text: `reused ${formatCount(c.reused)}`, drop: 0 },
        { text: red(`failed ${formatCount(c.failed)}`) },
      ],
      '  ',
    ),
    fit(
      [
        { text: `billed ${formatBill(c.billed, opts.rate)}` },
        { text: `downloaded ${formatBytes(c.bytes)}`, drop: 0 },
      ],
      '  ',
    ),
    ...(t.uploadsStopped ? wrap(`  uploads stopped: ${t.uploadsStopped}`) : []),
  ];
  const long = t.inFlight().filter((j) => t.stopping || opts.now - j.since >= opts.longJobMs);
  for (const j of long.slice(0, opts.maxJobLines)) lines.push(`  ${describeJob(j, opts.now, width - 2)}`);
  if (long.length > opts.maxJobLines)
    lines.push(`  ... and ${long.length - opts.maxJobLines} more long jobs`);
  return [...stopping, ...lines].map((l) => (width === Infinity ? l : truncateLine(l, width)));
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

// The view is redrawn in place: the cursor goes up to the view's first line and each line is blanked
// on its own (erase in line). It never erases "to the end of the screen": tmux and screen take that,
// from the top-left corner, for a full-screen clear and keep every frame in the scrollback.

/**
 * From the line under a view of `drawn` lines, back to its first line; its last `drawn - kept`
 * lines blanked (the first `kept` are about to be written over), the cursor left on its first line.
 */
function blankLines(drawn: number, kept: number): string {
  const up = drawn > 0 ? `\r${ESC}${drawn}A` : '\r';
  const extra = drawn - kept;
  if (extra <= 0) return up;
  // (A count of 0 moves one line: the sequence is left out instead.)
  const down = kept > 0 ? `${ESC}${kept}B` : '';
  return `${up}${down}${`${ESC}2K${ESC}1B`.repeat(extra)}${ESC}${drawn}A`;
}

/** One frame written over the last one (`drawn` lines): each line blanked before it is written. */
export function redrawFrame(drawn: number, lines: string[]): string {
  return blankLines(drawn, lines.length) + lines.map((l) => `${ESC}2K${l}\n`).join('');
}

/** The live view on a terminal (stderr). */
export class ProgressView {
  private drawn = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly tracker: RunTracker,
    private readonly out: NodeJS.WriteStream,
    private readonly opts: {
      longJobMs: number;
      refreshMs: number;
      maxJobLines: number;
      rate?: BillingRate;
    },
  ) {}

  start(): void {
    setLiveRegion({ clear: () => this.clear(), redraw: () => this.draw() });
    this.out.write(`${ESC}?25l`);
    this.draw();
    this.timer = setInterval(() => this.draw(), this.opts.refreshMs);
    this.timer.unref();
  }

  private clear(): void {
    if (this.drawn > 0) this.out.write(blankLines(this.drawn, 0));
    this.drawn = 0;
  }

  private draw(): void {
    if (this.stopped) return;
    // One column short of the terminal: a line filling the last column would wrap on some terminals.
    const lines = renderProgress(this.tracker, {
      now: Date.now(),
      longJobMs: this.opts.longJobMs,
      maxJobLines: Math.max(1, (this.out.rows || 24) - 6),
      color: colorsAllowed(this.out),
      width: Math.max(20, (this.out.columns || 100) - 1),
      ...(this.opts.rate ? { rate: this.opts.rate } : {}),
    });
    // Never taller than the terminal: a line scrolled off the top could not be reached again.
    const shown = lines.slice(0, Math.max(1, (this.out.rows || 24) - 1));
    this.out.write(redrawFrame(this.drawn, shown));
    this.drawn = shown.length;
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
  /** `billing:` of the manifest (the view shows money beside characters). */
  rate?: BillingRate;
}): RunView {
  const tracker = new RunTracker(args.events);
  const out = args.stream ?? process.stderr;
  const view = args.progress
    ? new ProgressView(tracker, out, {
        longJobMs: args.longJobMs ?? longJobMsFromEnv(),
        refreshMs: 250,
        maxJobLines: 10,
        ...(args.rate ? { rate: args.rate } : {}),
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
