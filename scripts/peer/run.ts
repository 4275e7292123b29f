// `npm run test:peer`: the official Node client's own test suite (deepl-node, MIT, pinned below)
// run against `locsync serve`, in real-service mode and in mock mode. See docs/local-service.md.
//
// The suite is never vendored: it comes from DEEPL_NODE_SRC (a checkout or an unpacked archive of
// the pinned release), else from a git clone of DEEPL_NODE_GIT (the public repository's URL) at the
// pinned commit. Its own devDependencies are installed from the npm registry into a temp folder.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const PINNED_VERSION = '1.27.0';
export const PINNED_COMMIT = '02d741065cad091a569551a32993b6d645f6cb60';
/** The suite's files that exercise a service (the rest test the client alone, or other APIs). */
export const SUITE_FILES = [
  'tests/general.test.ts',
  'tests/translateText.test.ts',
  'tests/translateDocument.test.ts',
  'tests/glossary.test.ts',
  'tests/multilingualGlossary.test.ts',
  'tests/styleRules.test.ts',
];

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
type Mode = 'real' | 'mock';

interface ExpectedFailure {
  mode: Mode | 'both';
  file: string;
  test: string;
  reason: string;
}

function fail(message: string): never {
  process.stderr.write(`test:peer: ${message}\n`);
  process.exit(2);
}

function run(cmd: string, args: string[], cwd: string): void {
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit' });
  if (r.status !== 0) fail(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

/** The suite's source folder: DEEPL_NODE_SRC, or a clone of DEEPL_NODE_GIT at the pinned commit. */
function suiteSource(): string {
  const src = process.env.DEEPL_NODE_SRC;
  if (src) return resolve(src);
  const git = process.env.DEEPL_NODE_GIT;
  if (!git)
    fail(
      [
        `the official client's test suite is not available.`,
        `Set DEEPL_NODE_SRC to a checkout of the public repository DeepLcom/deepl-node at tag v${PINNED_VERSION}`,
        `(commit ${PINNED_COMMIT}), e.g. git archive v${PINNED_VERSION} | tar -x -C /tmp/deepl-node,`,
        `or set DEEPL_NODE_GIT to that repository's git URL to clone it at the pinned commit.`,
      ].join('\n  '),
    );
  const dir = join(tmpdir(), `locsync-peer-clone-${PINNED_COMMIT.slice(0, 12)}`);
  if (!existsSync(join(dir, 'package.json'))) {
    rmSync(dir, { recursive: true, force: true });
    run('git', ['clone', '--quiet', '--no-checkout', git, dir], tmpdir());
    run('git', ['checkout', '--quiet', PINNED_COMMIT], dir);
  }
  return dir;
}

/** A copy of the suite with its own devDependencies installed (kept between runs). */
function prepareSuite(src: string): string {
  const pkg = JSON.parse(readFileSync(join(src, 'package.json'), 'utf8')) as {
    name?: string;
    version?: string;
  };
  if (pkg.name !== 'deepl-node') fail(`${src} is not deepl-node (package.json name: ${pkg.name})`);
  if (pkg.version !== PINNED_VERSION)
    fail(`${src} holds deepl-node ${pkg.version}; this runner is pinned to ${PINNED_VERSION}`);
  const work = join(tmpdir(), `locsync-peer-deepl-node-${PINNED_VERSION}`);
  mkdirSync(work, { recursive: true });
  for (const f of ['package.json', 'package-lock.json', 'jest.config.js', 'jest.setup.js', 'tsconfig.json'])
    cpSync(join(src, f), join(work, f));
  for (const d of ['src', 'tests']) {
    rmSync(join(work, d), { recursive: true, force: true });
    cpSync(join(src, d), join(work, d), { recursive: true });
  }
  if (!existsSync(join(work, 'node_modules', '.bin', 'jest'))) {
    process.stdout.write(`installing deepl-node ${PINNED_VERSION}'s devDependencies (npm ci) in ${work}\n`);
    run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], work);
  }
  return work;
}

interface Server {
  url: string;
  port: number;
  child: ChildProcess;
}

/** `locsync serve` on a free port; resolves with its URL once it listens. */
function serve(args: string[], env: Record<string, string> = {}): Promise<Server> {
  const child = spawn(process.execPath, [join(repo, 'bin/locsync.js'), 'serve', '--port', '0', ...args], {
    cwd: repo,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolvePromise, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/[^\s]+):(\d+)/.exec(out);
      if (m) resolvePromise({ url: `${m[1]}:${m[2]}`, port: Number(m[2]), child });
    });
    child.once('exit', (code) =>
      reject(new Error(`locsync serve exited (${code}) before listening: ${out}`)),
    );
  });
}

interface JestResult {
  testResults: Array<{
    name: string;
    assertionResults: Array<{ fullName: string; status: string }>;
  }>;
}

function runJest(work: string, mode: Mode, server: Server, key: string): JestResult {
  const outFile = join(work, `results-${mode}.json`);
  rmSync(outFile, { force: true });
  // localhost: the suite's request-parameter tests intercept http://localhost:<port> with nock.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DEEPL_SERVER_URL: `http://localhost:${server.port}`,
    DEEPL_AUTH_KEY: key,
  };
  delete env.DEEPL_MOCK_SERVER_PORT;
  delete env.DEEPL_MOCK_PROXY_SERVER_PORT;
  if (mode === 'mock') env.DEEPL_MOCK_SERVER_PORT = String(server.port);
  process.stdout.write(
    `\n=== deepl-node ${PINNED_VERSION} suite, ${mode === 'real' ? 'real-service mode' : 'mock mode'}, against ${server.url} ===\n`,
  );
  spawnSync(
    join(work, 'node_modules', '.bin', 'jest'),
    // jest's default 5 s per test is a budget for a quiet machine; on a shared one a glossary of
    // 10,000 entries or a quota round trip can take longer. Tests with their own timeout keep it.
    ['--ci', '--maxWorkers=2', '--testTimeout=30000', '--json', `--outputFile=${outFile}`, ...SUITE_FILES],
    { cwd: work, env, stdio: 'inherit' },
  );
  if (!existsSync(outFile)) fail(`jest wrote no results (${mode} mode)`);
  return JSON.parse(readFileSync(outFile, 'utf8')) as JestResult;
}

function loadExpected(): ExpectedFailure[] {
  const file = join(here, 'expected-failures.yaml');
  return (parse(readFileSync(file, 'utf8')) as { expected_failures: ExpectedFailure[] }).expected_failures;
}

/** Per file: passed / failed / skipped; then each failure, expected (with its reason) or not. */
function report(mode: Mode, result: JestResult, expected: ExpectedFailure[]): number {
  const mine = expected.filter((e) => e.mode === mode || e.mode === 'both');
  process.stdout.write(`\n--- ${mode} mode, per file (passed / failed / skipped) ---\n`);
  let unexpected = 0;
  const failures: string[] = [];
  const failedNames = new Set<string>();
  for (const file of result.testResults.sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = file.name.slice(file.name.indexOf('tests/'));
    const count = (s: string) => file.assertionResults.filter((a) => a.status === s).length;
    process.stdout.write(
      `${rel.padEnd(36)} ${count('passed')} / ${count('failed')} / ${count('pending') + count('skipped')}\n`,
    );
    for (const a of file.assertionResults.filter((x) => x.status === 'failed')) {
      failedNames.add(`${rel}|${a.fullName}`);
      const known = mine.find((e) => e.file === rel && e.test === a.fullName);
      if (known) failures.push(`  expected  ${rel} › ${a.fullName}\n            reason: ${known.reason}`);
      else {
        unexpected++;
        failures.push(`  UNEXPECTED ${rel} › ${a.fullName}`);
      }
    }
  }
  for (const e of mine)
    if (!failedNames.has(`${e.file}|${e.test}`))
      failures.push(`  passes now (listed as expected failure): ${e.file} › ${e.test}`);
  process.stdout.write(`--- ${mode} mode, failures ---\n${failures.join('\n') || '  none'}\n`);
  return unexpected;
}

async function main(): Promise<void> {
  const work = prepareSuite(suiteSource());
  const expected = loadExpected();
  run('npm', ['run', '--silent', 'build'], repo);
  const phrasebook = join(here, 'phrasebook.tsv');
  const key = randomBytes(16).toString('hex');
  const common = ['--phrasebook', phrasebook, '--queue-seconds', '0', '--translate-seconds', '0'];
  let unexpected = 0;
  for (const mode of ['real', 'mock'] as const) {
    // Real-service mode: one accepted key (the suite checks that another is refused). Mock mode:
    // any key (the suite makes random ones per session) and the style rule list the official mock
    // starts with.
    const server =
      mode === 'real'
        ? await serve(common, { LOCSYNC_SERVE_KEY: key })
        : await serve([...common, '--style-rules', join(here, 'style-rules.yaml')]);
    try {
      unexpected += report(mode, runJest(work, mode, server, key), expected);
    } finally {
      server.child.kill('SIGTERM');
    }
  }
  process.stdout.write(
    unexpected === 0
      ? '\ntest:peer: every failure is on the expected list\n'
      : `\ntest:peer: ${unexpected} unexpected failure(s)\n`,
  );
  process.exit(unexpected === 0 ? 0 : 1);
}

await main();
