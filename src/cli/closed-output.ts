// A reader that goes away before the command is done (`locsync status | head`, `locsync watch | grep`
// ended with Ctrl-C, a log collector restarted) must not end the command: a write into the closed
// pipe fails with EPIPE, and Node.js throws an unhandled stream error for it, a stack trace and exit 1
// in the middle of a sync whose uploads and downloads are still being recorded. What cannot be shown
// any more is dropped; the command finishes its work and exits as it would have.

const guarded = new WeakSet<NodeJS.WriteStream>();

/** Drops the output of `stream` once its reader has gone, instead of crashing on it. */
export function keepGoingWhenReaderCloses(stream: NodeJS.WriteStream): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}
