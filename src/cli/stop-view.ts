import { formatDuration } from '../util/format.js';
import { STOP_TEXT } from './shutdown.js';
import type { RunTracker } from '../sync/run-tracker.js';

// What the terminal view shows once a stop signal came: what is still awaited and until when, in
// short lines (each fits 80 columns, so that the view never cuts the countdown or the next step). The
// lines of the jobs themselves are the view's.

/**
 * The header lines while stopping: a countdown to the end of the grace (first Ctrl-C), or what is
 * still awaited after the second one (only answers of uploads already sent).
 */
export function stoppingLines(t: RunTracker, now: number): string[] {
  const s = t.stopping;
  if (!s) return [];
  const jobs = t.inFlight();
  const uploads = jobs.filter((j) => j.phase === 'uploading').length;
  const downloads = jobs.filter((j) => j.phase === 'downloading').length;
  if (!s.waiting)
    return [
      `Stopping: awaiting ${uploads} upload answer(s), ${downloads} download(s) under way`,
      `  (cutting them could bill twice); ${STOP_TEXT.exitNow}`,
    ];
  const left = Math.max(0, s.graceEndsAt - now);
  return [
    `Stopping: ${jobs.length} document(s) in flight; waiting at most ${formatDuration(left)} more`,
    `  (ends as soon as they are done); ${STOP_TEXT.again}`,
  ];
}
