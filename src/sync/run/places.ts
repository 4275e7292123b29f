import PQueue from 'p-queue';

// The two limits on work in flight. A worker place (service.concurrency) is held while a job uploads
// and waits for its translation; a download slot (service.max_undownloaded) from the upload until the
// download, so the service never holds more finished documents than that for us.

/** Places for jobs uploading or waiting for their translation (service.concurrency). */
export interface WorkerPlacePool {
  /** A place: resolves with the function that gives it back (calling it twice is harmless). */
  take(): Promise<() => void>;
}

/** Slots for documents between their upload and their download (service.max_undownloaded). */
export interface DownloadSlotPool {
  /** Wait for a slot (woken early by wakeAll: the caller checks why). */
  acquire(): Promise<void>;
  /** Take a slot without waiting (a document already waiting on the service needs one). */
  hold(): void;
  release(): void;
  /** Wake every waiter (uploads stopped: they give up instead of waiting). */
  wakeAll(): void;
}

export class WorkerPlaces implements WorkerPlacePool {
  private readonly queue: PQueue;

  constructor(concurrency: number) {
    this.queue = new PQueue({ concurrency: Math.max(1, concurrency) });
  }

  /** A place in the pool: resolves with the function that gives it back (calling it twice is harmless). */
  take(): Promise<() => void> {
    return new Promise((resolveTake) => {
      void this.queue.add(() => new Promise<void>((release) => resolveTake(() => release())));
    });
  }
}

export class DownloadSlots implements DownloadSlotPool {
  private held = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly max: number) {}

  /** Wait for a slot (woken early by wakeAll: the caller checks why). */
  async acquire(): Promise<void> {
    while (this.held >= this.max) await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.held++;
  }

  /** Take a slot without waiting (a document already waiting on the service needs one). */
  hold(): void {
    this.held++;
  }

  release(): void {
    this.held = Math.max(0, this.held - 1);
    this.waiters.shift()?.();
  }

  /** Wake every waiter (uploads stopped: they give up instead of waiting). */
  wakeAll(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
