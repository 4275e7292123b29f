import type { PlannedAction } from '../plan/types.js';

// The order of the work in a run: work on one output runs in plan order (later work on the same
// output waits for the earlier), everything else at once; every piece is tracked until it settles.

export class OutputOrder {
  /** Work scheduled per output path (later work on the same output waits). */
  private readonly outputs = new Map<string, Promise<void>>();
  private readonly tasks = new Set<Promise<void>>();

  constructor(
    private readonly hooks: {
      /** A piece of work threw (it handles what it expects itself). */
      failed: (output: string, err: unknown) => void;
      /** A piece of work settled. */
      settled: () => void;
    },
  ) {}

  /** Pieces of work scheduled or running. */
  get size(): number {
    return this.tasks.size;
  }

  /** Whether work on an output is scheduled or running. */
  busy(output: string): boolean {
    return this.outputs.has(output);
  }

  idle(): boolean {
    return this.outputs.size === 0;
  }

  /** Run `fn` after the work already scheduled for the same output; tracked for drain(). */
  schedule(output: string, fn: () => Promise<unknown>): Promise<void> {
    const before = this.outputs.get(output) ?? Promise.resolve();
    const p = before
      .then(fn)
      .then(() => undefined)
      .catch((err: unknown) => this.hooks.failed(output, err));
    this.outputs.set(output, p);
    this.tasks.add(p);
    void p.finally(() => {
      this.tasks.delete(p);
      if (this.outputs.get(output) === p) this.outputs.delete(output);
      this.hooks.settled();
    });
    return p;
  }

  /** Every piece scheduled, also those scheduled while waiting. */
  async drain(): Promise<void> {
    while (this.tasks.size > 0) await Promise.all([...this.tasks]);
  }
}

/** The first translation (or resume) of each content key in flight: identical documents wait for it. */
export class ContentInFlight {
  private readonly byKey = new Map<string, Promise<void>>();

  of(content: string): Promise<void> | undefined {
    return this.byKey.get(content);
  }

  add(content: string, p: Promise<void>): void {
    this.byKey.set(content, p);
    void p.finally(() => {
      if (this.byKey.get(content) === p) this.byKey.delete(content);
    });
  }
}

/**
 * Several workers plan the same work in the same order: each starts its uploads at a place of its
 * own in the list (a random rotation of the translations; everything else keeps its position), so
 * that they do not all ask for the same documents at once and turn each other away.
 */
export function startAnywhere(actions: PlannedAction[]): PlannedAction[] {
  const at = actions.flatMap((a, i) => (a.kind === 'translate' ? [i] : []));
  if (at.length < 2) return actions;
  const shift = Math.floor(Math.random() * at.length);
  const out = [...actions];
  at.forEach((pos, k) => (out[pos] = actions[at[(k + shift) % at.length]!]!));
  return out;
}

/** Resolves 'over' after `ms` or when `ended` aborts; cancel() clears the timer (no wait is left behind). */
export function graceTimer(ms: number, ended: AbortSignal): { over: Promise<'over'>; cancel(): void } {
  let cancel = () => {};
  const over = new Promise<'over'>((resolve) => {
    const end = () => {
      clearTimeout(timer);
      ended.removeEventListener('abort', end);
      resolve('over');
    };
    const timer = setTimeout(end, ms);
    if (ended.aborted) end();
    else ended.addEventListener('abort', end);
    cancel = () => {
      clearTimeout(timer);
      ended.removeEventListener('abort', end);
    };
  });
  return { over, cancel };
}
