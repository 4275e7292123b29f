/**
 * Long synchronous work cut into slices of about `ms`, with the event loop's turn between them: the
 * status page, /healthz and /metrics answer while a walk or a check of 100,000 files runs.
 */
export class TimeSlices {
  private start = performance.now();

  constructor(private readonly ms = 10) {}

  /** The current slice has run its time: yield() before going on. */
  due(): boolean {
    return performance.now() - this.start > this.ms;
  }

  /** Gives the event loop its turn, then starts a new slice. */
  async yield(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.start = performance.now();
  }
}
