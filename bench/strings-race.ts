// Benchmark (issue 51): a string project's first sync and no-op, locsync against DeepL's own CLI
// (`deepl sync`), both at their default settings, against a local service that answers at once.
// The project: FILES JSON files of KEYS short UI strings each (a tenth of them the same in every
// file: "Save", "Cancel" ...) into de, fr and ja. Figures: time, text requests, characters billed
// and characters of `context` uploaded, answers 429, and locsync's requests per 1,000 segments
// (target <= 25, i.e. >= 40 texts a request on average).
//
// Two races: on a service that holds the key to 50 requests a second (it answers 429 beyond, as the
// real service does; 50 is the rate DeepL's maintainers advise and locsync's default), and on one
// without a limit, which the client that ignores the advice wins (the peer has no limit of its
// own; locsync's first sync at requests_per_second 1000 shows what its own work takes).
//
// Both run as their users run them, each a command in its own process (locsync's built
// bin/locsync.js), timed from start to exit. The peer runs only when DEEPL_CLI_DIR names a built
// checkout of DeepLcom/deepl-cli (its dist/cli/index.js: `git checkout v1.2.0 && npm ci && npm run
// build`); without one the bench says so and prints locsync's figures alone.
//
//   npx tsx bench/strings-race.ts   (--quick: 5 files of 200 keys; LOCSYNC_BENCH_RACE_FILES/_KEYS)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startService, type RunningService } from '../src/local-service/index.js';
import { DEFAULT_REQUESTS_PER_SECOND } from '../src/manifest/sections/service.js';
import { BIN, ensureBuilt } from './lib/built-cli.js';
import { benchSize } from './lib/options.js';
import { withTempDir } from './lib/tree.js';
import type { BenchResult } from './types.js';

const FILES = benchSize(50, 5, 'LOCSYNC_BENCH_RACE_FILES');
const KEYS = benchSize(500, 200, 'LOCSYNC_BENCH_RACE_KEYS');
const LANGS = ['de', 'fr', 'ja'];
const KEY = 'bench-strings-race-key';
const COMMON = [
  'Save',
  'Cancel',
  'Delete',
  'Edit',
  'Close',
  'Back',
  'Next',
  'Search',
  'Settings',
  'Sign out',
];

/** One screen's strings: mostly its own labels and sentences, a tenth of them the common ones. */
function screen(f: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let k = 0; k < KEYS; k++) {
    if (k % 10 === 0) out[`common_${k}`] = COMMON[(k / 10) % COMMON.length] as string;
    else if (k % 3 === 0) out[`hint_${k}`] = `Choose how screen ${f} shows item ${k} before you save it.`;
    else out[`label_${k}`] = `Item ${k} of screen ${f}`;
  }
  return out;
}

function writeProject(dir: string): number {
  let segments = 0;
  for (let f = 0; f < FILES; f++) {
    const strings = screen(f);
    segments += Object.keys(strings).length;
    const file = path.join(dir, 'locales/en', `screen-${String(f).padStart(3, '0')}.json`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(strings, null, 2)}\n`);
  }
  return segments;
}

/** locsync's copy of the project in `dir`, its manifest at the defaults (plus `service` settings). */
function writeOurs(dir: string, url: string, service = ''): number {
  const segments = writeProject(dir);
  fs.writeFileSync(
    path.join(dir, 'pipeline.yaml'),
    `version: 1\nservice: { url: '${url}', key_env: LOCSYNC_BENCH_RACE_KEY${service} }\nmappings:\n` +
      `  - { name: web, source: locales/en, source_lang: en, method: segments, output: 'locales/{lang}/{path}', targets: [${LANGS.map((l) => `{ lang: ${l} }`).join(', ')}] }\n`,
  );
  return segments;
}

interface Sent {
  requests: number;
  texts: number;
  characters: number;
  context: number;
}

/** Text requests the service answered since log position `since`. */
function sentSince(service: RunningService, since: number): Sent {
  const out: Sent = { requests: 0, texts: 0, characters: 0, context: 0 };
  for (const r of service.requests().slice(since)) {
    if (r.path !== '/v2/translate' || r.status !== 200 || !r.text) continue;
    out.requests++;
    out.texts += r.text.texts;
    out.characters += r.text.characters;
    out.context += r.text.context_characters;
  }
  return out;
}

interface Ran {
  status: number | null;
  stderr: string;
}

/**
 * Runs a command's script in Node.js without blocking this process: the local service answers from this process's
 * event loop, so a synchronous spawn would leave the peer waiting on a service that cannot answer.
 */
function runNode(cli: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stderr }));
  });
}

/**
 * `locsync sync` of the project as a user runs it (the built command, in its own process, as the
 * peer is), at the manifest's defaults (concurrency, requests per second).
 */
async function locsyncSync(dir: string): Promise<{ ms: number; ok: boolean; error?: string }> {
  const env = { ...process.env, LOCSYNC_BENCH_RACE_KEY: KEY };
  const start = process.hrtime.bigint();
  const r = await runNode(BIN, ['sync'], dir, env);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return r.status === 0 ? { ms, ok: true } : { ms, ok: false, error: firstLine(r) };
}

const firstLine = (r: Ran) => r.stderr.trim().split('\n')[0];

/** `deepl sync` of the same project (a copy), when DEEPL_CLI_DIR names a built checkout. */
async function peerSync(dir: string, url: string): Promise<{ ms: number; ok: boolean; error?: string }> {
  const cli = path.join(process.env.DEEPL_CLI_DIR as string, 'dist/cli/index.js');
  const env = { ...process.env, DEEPL_API_KEY: KEY, DEEPL_CONFIG_DIR: path.join(dir, '.deepl-config') };
  const setUrl = await runNode(cli, ['config', 'set', 'api.baseUrl', url], dir, env);
  if (setUrl.status !== 0) return { ms: 0, ok: false, error: firstLine(setUrl) };
  const start = process.hrtime.bigint();
  const r = await runNode(cli, ['sync'], dir, env);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return r.status === 0 ? { ms, ok: true } : { ms, ok: false, error: firstLine(r) };
}

/** The peer's project: the same files, its config at the defaults. */
function writePeer(dir: string): void {
  writeProject(dir);
  fs.writeFileSync(
    path.join(dir, '.deepl-sync.yaml'),
    `version: 1\nsource_locale: en\ntarget_locales: [${LANGS.join(', ')}]\nbuckets:\n  json:\n    include: ["locales/en/*.json"]\n`,
  );
}

/** Answers 429 the service gave since log position `since` (the client waited and sent again). */
function refusedSince(service: RunningService, since: number): number {
  return service
    .requests()
    .slice(since)
    .filter((r) => r.status === 429).length;
}

/**
 * One race on one service: locsync's first sync and no-op, then the peer's (when built), each on
 * its own copy of the project. `label` names the service in the figures.
 */
async function race(dir: string, service: RunningService, label: string): Promise<BenchResult[]> {
  const ours = path.join(dir, 'locsync');
  const segments = writeOurs(ours, service.url);
  process.stderr.write(
    `strings-race (${label}): ${FILES} files x ${KEYS} keys into ${LANGS.join(', ')}, locsync\n`,
  );
  const mark = service.requests().length;
  const first = await locsyncSync(ours);
  if (!first.ok) throw new Error(`locsync's first sync failed (${label}): ${first.error ?? 'no message'}`);
  const sent = sentSince(service, mark);
  const refused = refusedSince(service, mark);
  const noop = await locsyncSync(ours);
  const perThousand = (sent.requests / (segments * LANGS.length)) * 1000;
  const results: BenchResult[] = [
    {
      name: `strings-race (${label}): locsync text requests per 1,000 segments (${FILES}x${KEYS} keys, 3 languages)`,
      value: Math.round(perThousand * 10) / 10,
      unit: 'requests',
      bound: '<= 25',
      ratio: Math.round((perThousand / 25) * 1000) / 1000,
      note: `${sent.requests} requests, ${Math.round(sent.texts / Math.max(1, sent.requests))} texts each on average`,
    },
    {
      name: `strings-race (${label}): locsync first sync`,
      value: Math.round(first.ms),
      unit: 'ms',
      note: `${sent.characters} characters billed, ${sent.context} of context, ${refused} answers 429`,
    },
    { name: `strings-race (${label}): locsync no-op`, value: Math.round(noop.ms), unit: 'ms' },
  ];
  if (!process.env.DEEPL_CLI_DIR) {
    // Not measured: no figure, and no verdict (the race is not won against a peer not run).
    results.push({
      name: `strings-race (${label}): deepl-cli first sync`,
      value: 0,
      measured: false,
      unit: 'ms',
      note: 'not run: set DEEPL_CLI_DIR to a built checkout of DeepLcom/deepl-cli (v1.2.0)',
    });
    return results;
  }
  const peer = path.join(dir, 'peer');
  writePeer(peer);
  process.stderr.write(`strings-race (${label}): the same project, deepl sync\n`);
  const peerMark = service.requests().length;
  const peerFirst = await peerSync(peer, service.url);
  const peerSent = sentSince(service, peerMark);
  const peerRefused = refusedSince(service, peerMark);
  const peerNoop = await peerSync(peer, service.url);
  // Both pack 50 texts a request and send a repeated text once: ceil(distinct texts / 50) requests
  // per language is the floor, which neither can go below, so equal requests are not lost.
  const wins =
    peerFirst.ok &&
    first.ms < peerFirst.ms &&
    sent.requests <= peerSent.requests &&
    sent.characters < peerSent.characters;
  results.push(
    {
      name: `strings-race (${label}): deepl-cli first sync`,
      value: Math.round(peerFirst.ms),
      unit: 'ms',
      meets: wins,
      note: peerFirst.ok
        ? `${peerSent.requests} requests, ${peerSent.characters} characters billed, ${peerSent.context} of context, ${peerRefused} answers 429`
        : `failed: ${peerFirst.error ?? 'no message'}`,
    },
    {
      name: `strings-race (${label}): deepl-cli no-op`,
      value: Math.round(peerNoop.ms),
      unit: 'ms',
      meets: noop.ms < peerNoop.ms,
    },
  );
  return results;
}

/** Runs `fn` with a local service that answers at once (and holds each key to `requestsPerSecond`). */
async function withService<T>(
  requestsPerSecond: number | undefined,
  fn: (service: RunningService) => Promise<T>,
): Promise<T> {
  const service = await startService({
    queueSeconds: 0,
    translateSeconds: 0,
    authKey: KEY,
    ...(requestsPerSecond ? { requestsPerSecond } : {}),
  });
  try {
    return await fn(service);
  } finally {
    await service.close();
  }
}

export async function run(): Promise<BenchResult[]> {
  ensureBuilt('strings-race');
  return withTempDir('strings-race', async (dir) => {
    // The real service answers 429 to a key that sends too fast; the rate its official client's
    // maintainers advise is locsync's default. A race on a service without a limit is won by the
    // client that ignores the advice, so both races are run.
    const limited = await withService(DEFAULT_REQUESTS_PER_SECOND, (service) =>
      race(path.join(dir, 'limited'), service, `service at ${DEFAULT_REQUESTS_PER_SECOND} requests/s`),
    );
    const unlimited = await withService(undefined, async (service) => {
      const results = await race(path.join(dir, 'unlimited'), service, 'service without a limit');
      // locsync's first sync without its own rate limit (the peer has none): what its work takes.
      const fastDir = path.join(dir, 'unlimited', 'locsync-1000');
      writeOurs(fastDir, service.url, ', requests_per_second: 1000');
      process.stderr.write('strings-race: locsync again at requests_per_second 1000\n');
      const mark = service.requests().length;
      const fast = await locsyncSync(fastDir);
      const sent = sentSince(service, mark);
      results.push({
        name: 'strings-race (service without a limit): locsync first sync at requests_per_second 1000',
        value: Math.round(fast.ms),
        unit: 'ms',
        note: fast.ok
          ? `at the default of ${DEFAULT_REQUESTS_PER_SECOND} a second ${sent.requests} requests take >= ${(sent.requests / DEFAULT_REQUESTS_PER_SECOND).toFixed(1)} s`
          : `failed: ${fast.error ?? 'no message'}`,
      });
      return results;
    });
    return [...limited, ...unlimited];
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await run()) console.log(`${r.name}: ${r.value} ${r.unit}${r.note ? `  (${r.note})` : ''}`);
}
