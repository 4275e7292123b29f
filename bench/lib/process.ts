import type { ChildProcess } from 'node:child_process';

// Services a benchmark starts in a child process (so that the figures are the service's own).

/**
 * The URL a child prints as `listening on http://...` on its stdout (as `locsync serve` does);
 * rejects when the child exits first. `what` names the child in the error.
 */
export function listeningUrl(child: ChildProcess, what: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${what} exited (${code})`)));
  });
}
