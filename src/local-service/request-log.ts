// The request log: every API request in arrival order, with its answer (status 0: dropped).
import type { RequestLogEntry } from './types.js';

const MAX_ENTRIES = 100_000;

export class RequestLog {
  private entries: Array<RequestLogEntry & { finished: boolean }> = [];
  private seq = 0;

  /** Opens an entry at arrival; `finish` completes it. */
  start(method: string, path: string): RequestLogEntry & { finished: boolean } {
    const e = { seq: ++this.seq, time: new Date().toISOString(), method, path, status: 0, finished: false };
    this.entries.push(e);
    if (this.entries.length > MAX_ENTRIES) this.entries.splice(0, this.entries.length - MAX_ENTRIES * 0.9);
    return e;
  }

  /** Finished requests in arrival order (copies). */
  list(): RequestLogEntry[] {
    return this.entries
      .filter((e) => e.finished)
      .map(({ finished: _finished, ...e }) => ({
        ...e,
        ...(e.upload ? { upload: { ...e.upload } } : {}),
        ...(e.text ? { text: { ...e.text } } : {}),
      }));
  }

  clear(): void {
    this.entries = [];
  }
}
