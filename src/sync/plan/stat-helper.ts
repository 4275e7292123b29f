import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';

// A second thread for the lstat calls of a large walk. A walk of 100,000 files spends most of its
// time in lstat, one file at a time (and a network share, in waiting for each answer): while the
// walk's thread reads folders and applies the rules, this thread stats the plain files of the
// folders it is handed, so that a no-op on two cores takes less than a bare single-threaded walk
// (issue 51). The walk hands over only folders without links (links are followed on its own thread,
// which keeps the set of folders walked through them) and at most OUTSTANDING at a time; a folder it
// cannot hand over it stats itself. Answers are taken between folders without waiting
// (receiveMessageOnPort); whatever the thread leaves unanswered, because it failed or ended, is
// handed back and statted by the walk after all.

/** Folders handed to the thread and not yet answered: enough to keep it busy, few to take back. */
const OUTSTANDING = 4;

/** A stat answer's size for a file gone since its folder was read (it is left out, as by the walk). */
export const GONE = -1;
/** A stat answer's size for a file that could not be stat'ed (its error code is in `codes`). */
export const FAILED = -2;

/** What the thread runs: lstat of each name, four numbers (size, mtime, inode, ctime) per file. */
const THREAD = `
const fs = require('node:fs');
const port = require('node:worker_threads').workerData.port;
port.on('message', ({ id, prefix, names }) => {
  const stats = new Float64Array(names.length * 4);
  const codes = {};
  for (let k = 0; k < names.length; k++) {
    try {
      const s = fs.lstatSync(prefix + names[k], { throwIfNoEntry: false });
      if (s === undefined) stats[k * 4] = ${GONE};
      else {
        stats[k * 4] = s.size;
        stats[k * 4 + 1] = s.mtimeMs;
        stats[k * 4 + 2] = s.ino;
        stats[k * 4 + 3] = s.ctimeMs;
      }
    } catch (err) {
      stats[k * 4] = ${FAILED};
      codes[k] = err.code || err.message;
    }
  }
  port.postMessage({ id, stats, codes }, [stats.buffer]);
});
`;

/** A folder handed to the thread. */
export interface HandedFolder {
  rel: string;
  prefix: string;
  names: string[];
}

/** A handed folder with the thread's answer: four numbers per name, error codes by index. */
export interface StattedFolder extends HandedFolder {
  stats: Float64Array;
  codes: Record<number, string>;
}

interface Answer {
  id: number;
  stats: Float64Array;
  codes: Record<number, string>;
}

export class StatHelper {
  private readonly handed = new Map<number, HandedFolder>();
  private readonly answered: StattedFolder[] = [];
  private nextId = 0;
  private ended = false;
  private onSettled: (() => void) | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly port: MessagePort,
  ) {
    port.on('message', (a: Answer) => this.take(a));
    // Neither the port nor the thread keeps the process alive, but while finish() waits.
    port.unref();
    const end = () => {
      this.ended = true;
      this.onSettled?.();
    };
    worker.once('error', end);
    worker.once('exit', end);
  }

  /** A thread for the stats, or undefined where none can be started (the walk stats alone). */
  static start(): StatHelper | undefined {
    try {
      const { port1, port2 } = new MessageChannel();
      const worker = new Worker(THREAD, { eval: true, workerData: { port: port2 }, transferList: [port2] });
      worker.unref();
      return new StatHelper(worker, port1);
    } catch {
      return undefined;
    }
  }

  /** Hands a folder's names to the thread, unless it already has enough (then: false). */
  offer(folder: HandedFolder): boolean {
    if (this.ended || this.handed.size >= OUTSTANDING) return false;
    const id = this.nextId++;
    this.handed.set(id, folder);
    this.port.postMessage({ id, prefix: folder.prefix, names: folder.names });
    return true;
  }

  /** The folders answered since the last call, taken without waiting. */
  answers(): StattedFolder[] {
    this.drain();
    return this.answered.splice(0);
  }

  /**
   * Waits for the folders still handed, then ends the thread: the answered ones, and the ones it left
   * unanswered (it failed or ended), for the walk to stat itself.
   */
  async finish(): Promise<{ answered: StattedFolder[]; unanswered: HandedFolder[] }> {
    this.drain();
    if (this.handed.size > 0 && !this.ended) {
      this.port.ref(); // the process waits for these answers
      await new Promise<void>((resolve) => {
        this.onSettled = resolve;
      });
    }
    this.close();
    const unanswered = [...this.handed.values()];
    this.handed.clear();
    return { answered: this.answered.splice(0), unanswered };
  }

  /** Ends the thread (a walk that failed half-way: nothing it answers is wanted). */
  close(): void {
    this.onSettled = undefined;
    this.port.close();
    void this.worker.terminate();
  }

  /** Takes the answers waiting on the port (the event loop hands over the others as they come). */
  private drain(): void {
    for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port))
      this.take(m.message as Answer);
  }

  private take(a: Answer): void {
    const folder = this.handed.get(a.id);
    if (!folder) return;
    this.handed.delete(a.id);
    this.answered.push({ ...folder, stats: a.stats, codes: a.codes });
    if (this.handed.size === 0) this.onSettled?.();
  }
}
