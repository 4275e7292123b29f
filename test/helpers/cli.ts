import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
/** tsx's loader as an absolute URL, so that the CLI also runs with a cwd outside the checkout. */
const TSX = import.meta.resolve('tsx');

/** Newest (or oldest) modification time of the files under `dir` whose names end in `ext`. */
function mtimeBound(dir: string, ext: string, pick: (a: number, b: number) => number, start: number): number {
  let bound = start;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile() && e.name.endsWith(ext))
      bound = pick(bound, fs.statSync(path.join(e.parentPath, e.name)).mtimeMs);
  return bound;
}

/**
 * dist/ was built from the sources as they are: every file of it written after the last change to
 * src/ and the compiler's settings. CI builds it (`npm ci` runs `prepare`) before the tests; in a
 * checkout being edited it is usually older than the sources, and the tests run those.
 */
export function builtCliIsCurrent(): boolean {
  try {
    const settings = ['tsconfig.json', 'tsconfig.build.json'].map(
      (f) => fs.statSync(path.join(ROOT, f)).mtimeMs,
    );
    const newestSource = mtimeBound(path.join(ROOT, 'src'), '.ts', Math.max, Math.max(...settings));
    const oldestBuilt = mtimeBound(path.join(ROOT, 'dist'), '.js', Math.min, Infinity);
    return fs.existsSync(path.join(ROOT, 'dist/cli/main.js')) && oldestBuilt > newestSource;
  } catch {
    return false;
  }
}

/**
 * The node arguments that start the CLI: the built one (bin/locsync.js, what an installed locsync
 * runs) when dist/ is current, else the sources through tsx. The same code either way; the built
 * one starts on half the CPU (tsx transforms and resolves every module again in each child), and
 * the suite starts the CLI some hundreds of times. LOCSYNC_TEST_CLI=source always runs the sources.
 * Every test that starts the CLI starts it with these (runCli, the workers, chaos runs, watch, serve).
 */
export const CLI_ARGS: readonly string[] =
  process.env.LOCSYNC_TEST_CLI !== 'source' && builtCliIsCurrent()
    ? [path.join(ROOT, 'bin/locsync.js')]
    : ['--import', TSX, MAIN];

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Run the locsync CLI as a child process (CLI_ARGS), the way a user runs it.
 * Output is piped (not a TTY). `env` is merged over process.env.
 */
export function runCli(
  args: string[],
  opts: {
    cwd?: string;
    env?: Record<string, string | undefined>;
    input?: string;
    timeoutMs?: number;
    /** Another program that runs the CLI itself (a script of deploy/: `bash`), given `args` alone. */
    command?: string;
  } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const [cmd, argv] = opts.command ? [opts.command, args] : [process.execPath, [...CLI_ARGS, ...args]];
    const child = spawn(cmd, argv, {
      cwd: opts.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}
