import type { JobRef, SyncEvents } from './events.js';

// What a sync or watch run is doing, kept from its SyncEvents (no output of its own): the totals of
// each phase, the jobs in flight, bytes and billed characters, and an estimate of the time left.
// The terminal view (progress.ts) and the status page draw it.

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

/** Totals of a run: `total` units of work, and how many have passed each phase. */
export interface RunTotals {
  /** Source files listed by the scans. */
  scanned: number;
  /** Units this run works on: translations (new and resumed) and copies of identical ones. */
  total: number;
  /** Translations that reached the service (uploaded, or resumed from an earlier upload). */
  uploaded: number;
  /** Translations the service has finished (being downloaded or done). */
  translated: number;
  /** Outputs written from a download. */
  downloaded: number;
  reused: number;
  failed: number;
  /** Units found but not started yet (waiting for a free worker). */
  waiting: number;
  /** In flight, by phase. */
  uploading: number;
  atService: number;
  downloading: number;
  skipped: number;
  billed: number;
  /** Bytes of the outputs written from downloads. */
  bytes: number;
}

/** Keeps the state of a run from its events. */
export class RunTracker {
  readonly jobs = new Map<number, InFlightJob>();
  private readonly scannedBy = new Map<string, number>();
  /** Watch: per mapping, files added since its last scan, and recorded files removed since. */
  private readonly addedSince = new Map<string, Set<string>>();
  private readonly removedSince = new Map<string, Set<string>>();
  private planned = 0;
  private resumed = 0;
  private started = 0;
  private uploaded = new Set<number>();
  private translated = new Set<number>();
  done = 0;
  reused = 0;
  failed = 0;
  skipped = 0;
  /** Units the run was stopped before (resumed by the next run). */
  left = 0;
  billed = 0;
  bytes = 0;
  /** Mappings scanned to the end (watch: rescans too). */
  scansDone = 0;
  uploadsStopped: string | undefined;
  /** Stopped by a signal: how it goes (the view shows a countdown to graceEndsAt). */
  stopping: { graceEndsAt: number; waiting: boolean } | undefined;
  readonly startedAt: number;
  /** When the first unit of work was found: the rate of the estimate counts from there. */
  private workSince: number | undefined;

  constructor(
    events: SyncEvents,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
    events.on('scan:progress', (e) => this.scannedBy.set(e.mapping, e.files));
    events.on('scan:start', (e) => {
      // The scan counts every file afresh.
      this.addedSince.delete(e.mapping);
      this.removedSince.delete(e.mapping);
    });
    events.on('scan:done', (e) => {
      this.scannedBy.set(e.mapping, e.files);
      this.scansDone++;
    });
    events.on('source:changed', (e) => {
      const setOf = (m: Map<string, Set<string>>) =>
        m.get(e.mapping) ?? m.set(e.mapping, new Set()).get(e.mapping)!;
      const added = setOf(this.addedSince);
      const removed = setOf(this.removedSince);
      // Each file once however many events tell of it; one deleted and written again counts as it was.
      if (e.change === 'added') {
        if (!removed.delete(e.file)) added.add(e.file);
      } else if (!added.delete(e.file) && e.recorded) removed.add(e.file);
    });
    events.on('file:skipped', () => this.skipped++);
    events.on('action', (a) => {
      // Resumed uploads are counted by job:queued (resumed), the rest are not work of this run.
      if (a.kind !== 'translate' && a.kind !== 'reuse') return;
      this.workSince ??= this.now();
      this.planned++;
    });
    events.on('job:queued', (e) => {
      this.workSince ??= this.now();
      if (e.resumed) {
        this.resumed++;
        this.uploaded.add(e.jobId);
      } else this.started++;
      this.set(e, 'queued');
    });
    events.on('job:uploading', (e) => this.set(e, 'uploading'));
    events.on('job:uploaded', (e) => {
      this.uploaded.add(e.jobId);
      this.set(e, 'waiting');
    });
    events.on('job:translating', (e) => this.set(e, 'waiting', e.status));
    events.on('job:downloading', (e) => {
      this.translated.add(e.jobId);
      this.set(e, 'downloading');
    });
    events.on('job:lost', (e) => {
      // Uploaded again: it goes through every phase once more.
      this.uploaded.delete(e.jobId);
      this.translated.delete(e.jobId);
      this.set(e, 'queued');
    });
    events.on('job:done', (e) => {
      this.jobs.delete(e.jobId);
      this.uploaded.add(e.jobId);
      this.translated.add(e.jobId);
      this.done++;
      this.bytes += e.bytes;
    });
    events.on('job:reused', (e) => {
      this.jobs.delete(e.jobId);
      this.reused++;
    });
    events.on('job:failed', (e) => {
      this.jobs.delete(e.jobId);
      this.failed++;
    });
    events.on('job:left', (e) => {
      this.jobs.delete(e.jobId);
      this.left++;
    });
    events.on('billed', (e) => (this.billed += e.characters));
    events.on('uploads:stopped', (e) => (this.uploadsStopped = e.reason));
    events.on('run:stopping', (e) => (this.stopping = { graceEndsAt: e.graceEndsAt, waiting: true }));
    events.on('run:stop-waiting', () => {
      if (this.stopping) this.stopping.waiting = false;
    });
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

  totals(): RunTotals {
    const phase = { queued: 0, uploading: 0, waiting: 0, downloading: 0 };
    for (const j of this.jobs.values()) phase[j.phase]++;
    // A unit that failed before it took a worker (the source changed, the run stopped) was
    // announced but never queued: it still counts as finished.
    const total = Math.max(this.planned + this.resumed, this.finished());
    return {
      scanned: this.sourceFiles(),
      total,
      uploaded: this.uploaded.size,
      translated: this.translated.size,
      downloaded: this.done,
      reused: this.reused,
      failed: this.failed,
      waiting: Math.max(0, total - this.finished() - this.jobs.size) + phase.queued,
      uploading: phase.uploading,
      atService: phase.waiting,
      downloading: phase.downloading,
      skipped: this.skipped,
      billed: this.billed,
      bytes: this.bytes,
    };
  }

  /** Source files: as the last scan of each mapping counted them, and changed since (watch). */
  sourceFiles(): number {
    let n = 0;
    for (const files of this.scannedBy.values()) n += files;
    for (const added of this.addedSince.values()) n += added.size;
    for (const removed of this.removedSince.values()) n -= removed.size;
    return Math.max(0, n);
  }

  /** Units finished one way or another (left by a stop included). */
  finished(): number {
    return this.done + this.reused + this.failed + this.left;
  }

  /**
   * Milliseconds left at the rate units have finished so far; undefined until one has finished
   * (or when nothing is left).
   */
  etaMs(): number | undefined {
    const t = this.totals();
    const finished = this.finished();
    const left = t.total - finished;
    if (!this.workSince || finished === 0 || left <= 0) return undefined;
    return ((this.now() - this.workSince) / finished) * left;
  }

  /** Jobs started (not just queued) in the pipeline, oldest first. */
  inFlight(): InFlightJob[] {
    return [...this.jobs.values()].filter((j) => j.phase !== 'queued').sort((a, b) => a.since - b.since);
  }
}
