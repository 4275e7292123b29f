// Uploads whose answer was lost (the service may have accepted them: "maybe-accepted") wait here for
// their turn to be uploaded again in the same run: when the rest of the run's work is done, or after a
// pause, whichever comes first. Waiting changes nothing about the bill (the document id is lost either
// way); the pause keeps the troubled moment of the service that lost the answer from taking the repeat
// too, and lets a stop, the quota or a budget end the run first. After it the repeat queues for a
// worker place behind every upload already waiting for one: it never delays the run's other
// documents, and it is done by the time they are (a long pause would add its whole translation to
// the end of the run).

/** How long a lost answer waits while other work goes on. */
export const LOST_ANSWER_PAUSE_MS = 5_000;

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
