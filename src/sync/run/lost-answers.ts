// Uploads whose answer was lost (the service may have accepted them: "maybe-accepted") wait here for
// their turn to be uploaded again in the same run: when the rest of the run's work is done, or after a
// pause, whichever comes first (a long run or a watch session does not hold them for hours). Waiting
// changes nothing about the bill (the document id is lost either way); it keeps a troubled moment of
// the service from taking the repeat too, and lets a stop, the quota or a budget end the run first.

/** The longest a lost answer waits while other work goes on. */
export const LOST_ANSWER_PAUSE_MS = 60_000;

export class LostAnswerTurns {
  private readonly waiting = new Set<() => void>();

  constructor(private readonly pauseMs = LOST_ANSWER_PAUSE_MS) {}

  /** Jobs waiting for their turn. */
  get size(): number {
    return this.waiting.size;
  }

  /** Resolves at the job's turn: wakeAll() (the rest is done, or uploads stopped) or the pause. */
  turn(): Promise<void> {
    return new Promise((resolve) => {
      const go = (): void => {
        clearTimeout(timer);
        this.waiting.delete(go);
        resolve();
      };
      const timer = setTimeout(go, this.pauseMs);
      this.waiting.add(go);
    });
  }

  wakeAll(): void {
    for (const go of [...this.waiting]) go();
  }
}
