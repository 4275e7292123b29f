import { execFile } from 'node:child_process';

// The one way locsync runs git: as a child process in a folder, its output as bytes, never through
// a shell (paths and refs are arguments, never parsed as options or words).

/** Large enough for a whole document as a commit holds it (`git show`). */
const MAX_BYTES = 512 * 1024 * 1024;

export interface GitResult {
  ok: boolean;
  /** git's exit code (0 when ok). */
  code: number;
  out: Buffer;
  /** stderr, trimmed. */
  err: string;
}

export interface GitOptions {
  /** Variables added to the environment (GIT_INDEX_FILE, GIT_AUTHOR_NAME ...). */
  env?: Record<string, string>;
  /** Bytes written to git's stdin. */
  input?: string | Buffer;
}

export function git(cwd: string, args: string[], opts: GitOptions = {}): Promise<GitResult> {
  return new Promise((resolve) => {
    const child = execFile(
      'git',
      args,
      {
        cwd,
        encoding: 'buffer',
        maxBuffer: MAX_BYTES,
        // Never a prompt for a password or a pager: locsync runs unattended (cron, CI, watch).
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', ...opts.env },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ ok: !error, code, out: stdout, err: stderr.toString('utf8').trim() });
      },
    );
    // git may exit before it reads its input (an error): the pipe's EPIPE is no error of ours.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(opts.input ?? '');
  });
}

/** git's stdout as text, without its final newline. */
export const gitText = (r: GitResult): string => r.out.toString('utf8').replace(/\n$/, '');
