import type { Logger } from '../log/logger.js';
import { colorsAllowed } from '../log/logger.js';
import { setLiveRegion } from '../log/terminal.js';
import type { JobRef, SyncEvents } from '../sync/events.js';

// What a sync or watch run is doing, fed by its SyncEvents: counters, jobs in flight, billed
// characters. On a terminal it is drawn as a live view under the log lines; on SIGINT/SIGTERM it
// says what was left and how to resume (a log line when there is no terminal).

export type JobPhase = 'queued' | 'uploading' | 'waiting' | 'downloading';

export interface InFlightJob {
  ref: JobRef;
  phase: JobPhase;
  /** The service's own status while waiting (queued / translating). */
  serviceStatus?: string;
  /** Epoch ms when the job entered the pipeline this run / its current phase. */
  since: number;
  phaseSince: number;
}

export interface ProgressCounts {
  scanned: number;
  queued: number;
  uploading: number;
  waiting: number;
  downloading: number;
  done: number;
  reused: number;
  failed: number;
  skipped: number;
  billed: number;
}

/** Keeps the state of a run from its events (no output of its own). */
export class RunTracker {
  readonly jobs = new Map<number, InFlightJob>();
  private readonly scannedBy = new Map<string, number>();
  done = 0;
  reused = 0;
  failed = 0;
  skipped = 0;
  billed = 0;
  uploadsStopped: string | undefined;
  readonly startedAt: number;

  constructor(
    events: SyncEvents,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
    events.on('scan:progress', (e) => this.scannedBy.set(e.mapping, e.files));
    events.on('scan:done', (e) => this.scannedBy.set(e.mapping, e.files));
    events.on('file:skipped', () => this.skipped++);
    events.on('job:queued', (e) => this.set(e, 'queued'));
    events.on('job:uploading', (e) => this.set(e, 'uploading'));
    events.on('job:uploaded', (e) => this.set(e, 'waiting'));
    events.on('job:translating', (e) => this.set(e, 'waiting', e.status));
    events.on('job:downloading', (e) => this.set(e, 'downloading'));
    events.on('job:lost', (e) => this.set(e, 'queued'));
    events.on('job:done', (e) => {
      this.jobs.delete(e.jobId);
      this.done++;
    });
    events.on('job:reused', (e) => {
      this.jobs.delete(e.jobId);
      this.reused++;
    });
    events.on('job:failed', (e) => {
      this.jobs.delete(e.jobId);
      this.failed++;
    });
    events.on('billed', (e) => (this.billed += e.characters));
    events.on('uploads:stopped', (e) => (this.uploadsStopped = e.reason));
  }

  private set(ref: JobRef, phase: JobPhase, serviceStatus?: string): void {
    const t = this.now();
    const prev = this.jobs.get(ref.jobId);
    const samePhase = prev?.phase === phase;
    this.jobs.set(ref.jobId, {
      ref: { ...prev?.ref, ...ref },
      phase,
      ...(serviceStatus ? { serviceStatus } : {}),
      since: prev?.since ?? t,
      phaseSince: samePhase ? prev.phaseSince : t,
    });
  }

  counts(): ProgressCounts {
    const c: ProgressCounts = {
      scanned: [...this.scannedBy.values()].reduce((a, b) => a + b, 0),
      queued: 0,
      uploading: 0,
      waiting: 0,
      downloading: 0,
      done: this.done,
      reused: this.reused,
      failed: this.failed,
      skipped: this.skipped,
      billed: this.billed,
    };
    for (const j of this.jobs.values()) c[j.phase]++;
    return c;
  }

  /** Jobs started (not just queued) in the pipeline, oldest first. */
  inFlight(): InFlightJob[] {
    return [...this.jobs.values()].filter((j) => j.phase !== 'queued').sort((a, b) => a.since - b.since);
  }
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

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
    `${j.ref.mapping}/${j.ref.file} -> ${j.ref.target}: ${state} for ${formatDuration(now - j.phaseSince)}` +
    (j.ref.documentId ? `, document ${j.ref.documentId}` : '')
  );
}

/** The lines of the live view. */
export function renderProgress(
  t: RunTracker,
  opts: { now: number; longJobMs: number; maxJobLines: number; color: boolean },
): string[] {
  const c = t.counts();
  const bold = (s: string) => (opts.color ? `\x1b[1m${s}\x1b[22m` : s);
  const red = (s: string) => (opts.color && c.failed ? `\x1b[31m${s}\x1b[39m` : s);
  const lines = [
    `${bold('locsync')} ${formatDuration(opts.now - t.startedAt)}  scanned ${c.scanned}  queued ${c.queued}  ` +
      `uploading ${c.uploading}  waiting on the service ${c.waiting}  downloading ${c.downloading}`,
    `  done ${c.done}  reused ${c.reused}  ${red(`failed ${c.failed}`)}  billed characters ${c.billed.toLocaleString('en-US')}` +
      (t.uploadsStopped ? `  (uploads stopped)` : ''),
  ];
  const long = t.inFlight().filter((j) => opts.now - j.since >= opts.longJobMs);
  for (const j of long.slice(0, opts.maxJobLines)) lines.push(`  ${describeJob(j, opts.now)}`);
  if (long.length > opts.maxJobLines)
    lines.push(`  ... and ${long.length - opts.maxJobLines} more long jobs`);
  return lines;
}

/** What was left when the run was interrupted, and how to resume (plain text lines). */
export function leftoverReport(
  t: RunTracker,
  configPath: string,
  now = Date.now(),
  resumeCommand = 'sync',
): string[] {
  const inFlight = t.inFlight();
  const queued = t.counts().queued;
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
    const lines = leftoverReport(tracker, args.configPath, Date.now(), args.resumeCommand);
    if (view) {
      view.stop();
      out.write(lines.join('\n') + '\n');
    } else {
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
          not_started: tracker.counts().queued,
        },
        lines.join(' '),
      );
    }
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
