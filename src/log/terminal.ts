import { wrapForTerminal } from '../util/fit-text.js';

// One writer for stderr shared by the log lines and the live progress view: when a view is drawn
// on the terminal, a log line first clears the view, is written, and the view is drawn again below.

export interface LiveRegion {
  /** Erase what the view drew (cursor back to where the view started). */
  clear(): void;
  /** Draw the view again. */
  redraw(): void;
}

let live: LiveRegion | undefined;

/** Register the live view that log lines must step around (undefined: none). */
export function setLiveRegion(region: LiveRegion | undefined): void {
  live = region;
}

/** Write `text` to `dest`, keeping an active live view below it. */
export function writeAboveLive(dest: NodeJS.WritableStream, text: string): void {
  if (!live) {
    dest.write(text);
    return;
  }
  live.clear();
  dest.write(text);
  live.redraw();
}

/**
 * A command's text result on stdout (a summary, a table): on a terminal every line wraps between
 * words at its width, where the terminal itself would cut a word in two.
 */
export function writeResult(text: string, out: NodeJS.WriteStream = process.stdout): void {
  out.write((out.isTTY && out.columns ? wrapForTerminal(text, out.columns) : text) + '\n');
}
