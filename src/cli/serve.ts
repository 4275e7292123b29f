import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { registerSecret } from '../log/secrets.js';
import { ConfigError } from '../util/errors.js';
import { parseFaultList } from '../local-service/faults.js';
import type { StyleRow } from '../local-service/store.js';
import { presetStyleList } from '../local-service/style-rules.js';
import { isSeq, LineCounter, parseDocument } from 'yaml';
import type { FaultSpec, ServiceOptions } from '../local-service/types.js';

interface ServeFlags {
  host: string;
  port: string;
  authKey?: string;
  authKeyEnv?: string;
  plan: string;
  data?: string;
  phrasebook?: string;
  styleRules?: string;
  queueSeconds?: string;
  translateSeconds?: string;
  workers?: string;
  maxUndownloaded?: string;
  characterLimit?: string;
  requestsPerSecond?: string;
  faults?: string;
  logLevel?: string;
}

function num(flag: string, value: string | undefined, min: number, integer = false): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || (integer && !Number.isInteger(n)))
    throw new ConfigError(
      `--${flag} must be ${integer ? 'an integer' : 'a number'} >= ${min} (got '${value}')`,
    );
  return n;
}

/** --faults: inline JSON (a FaultSpec or an array of them) or @file holding that JSON. */
export function parseFaultsFlag(value: string): FaultSpec[] {
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readFileSync(value.slice(1), 'utf8');
    } catch (err) {
      throw new ConfigError(`--faults: cannot read ${value.slice(1)}: ${(err as Error).message}`);
    }
  }
  try {
    return parseFaultList(JSON.parse(text));
  } catch (err) {
    throw new ConfigError(`--faults: ${(err as Error).message}`);
  }
}

/** --style-rules: a YAML (or JSON) list of style rule lists, each with its own style_id. */
export function readPresetStyleLists(file: string): StyleRow[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`--style-rules: cannot read ${file}: ${(err as Error).message}`);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, lineCounter: lines });
  if (doc.errors.length) {
    const e = doc.errors[0]!;
    throw new ConfigError(`${file}:${e.linePos?.[0].line ?? 1}: ${e.message}`, {
      file,
      ...(e.linePos ? { line: e.linePos[0].line } : {}),
    });
  }
  const items = doc.contents;
  if (!isSeq(items))
    throw new ConfigError(`${file}: expected a list of style rule lists (style_id, name, language ...)`, {
      file,
    });
  const ids = new Set<string>();
  return items.items.map((node, n) => {
    const line = node && 'range' in node && node.range ? lines.linePos(node.range[0]).line : undefined;
    const where = `${file}${line ? `:${line}` : ''}: style rule list ${n + 1}`;
    let list: StyleRow;
    try {
      list = presetStyleList((node as { toJSON(): unknown }).toJSON());
    } catch (err) {
      throw new ConfigError(`${where}: ${(err as Error).message}`, { file, ...(line ? { line } : {}) });
    }
    if (ids.has(list.style_id))
      throw new ConfigError(`${where}: style_id ${list.style_id} is given twice`, {
        file,
        ...(line ? { line } : {}),
      });
    ids.add(list.style_id);
    return list;
  });
}

/** The environment variable `serve` reads its accepted key from unless told another. */
export const SERVE_KEY_ENV = 'LOCSYNC_SERVE_KEY';

/** What `serve` says when the key is on its command line, where `ps` shows it to every user. */
export const AUTH_KEY_FLAG_WARNING = `warning: --auth-key puts the key in the process list (ps, /proc) for every user of this machine; give it in the environment instead: ${SERVE_KEY_ENV}=… or --auth-key-env NAME`;

/** The accepted key: --auth-key (discouraged), --auth-key-env NAME, or LOCSYNC_SERVE_KEY; none: any key. */
function serveAuthKey(flags: ServeFlags, env: NodeJS.ProcessEnv): string | undefined {
  if (flags.authKey !== undefined && flags.authKeyEnv !== undefined)
    throw new ConfigError('give --auth-key or --auth-key-env, not both');
  if (flags.authKeyEnv === undefined) return flags.authKey ?? env[SERVE_KEY_ENV];
  const key = env[flags.authKeyEnv];
  if (!key) throw new ConfigError(`--auth-key-env: the environment variable ${flags.authKeyEnv} is not set`);
  return key;
}

export function serveOptions(flags: ServeFlags, env: NodeJS.ProcessEnv = process.env): ServiceOptions {
  if (flags.plan !== 'pro' && flags.plan !== 'free')
    throw new ConfigError(`--plan must be pro or free (got '${flags.plan}')`);
  const authKey = serveAuthKey(flags, env);
  registerSecret(authKey);
  // A long-running server loads its language detector at start: no request waits for it.
  const o: ServiceOptions = {
    host: flags.host,
    port: num('port', flags.port, 0, true)!,
    plan: flags.plan,
    preloadDetection: true,
  };
  if (authKey) o.authKey = authKey;
  if (flags.data) o.dataDir = flags.data;
  if (flags.phrasebook) o.phrasebookPath = flags.phrasebook;
  if (flags.styleRules) o.presetStyleLists = readPresetStyleLists(flags.styleRules);
  const q = num('queue-seconds', flags.queueSeconds, 0);
  if (q !== undefined) o.queueSeconds = q;
  const t = num('translate-seconds', flags.translateSeconds, 0);
  if (t !== undefined) o.translateSeconds = t;
  const w = num('workers', flags.workers, 1, true);
  if (w !== undefined) o.workers = w;
  const m = num('max-undownloaded', flags.maxUndownloaded, 1, true);
  if (m !== undefined) o.maxUndownloaded = m;
  const c = num('character-limit', flags.characterLimit, 1, true);
  if (c !== undefined) o.characterLimit = c;
  const r = num('requests-per-second', flags.requestsPerSecond, 1);
  if (r !== undefined) o.requestsPerSecond = r;
  if (flags.faults) o.faults = parseFaultsFlag(flags.faults);
  if (flags.logLevel) o.logLevel = flags.logLevel;
  return o;
}

export async function serveAction(flags: ServeFlags, cmd?: Command): Promise<void> {
  // --log-level is the program's global flag (commander gives it to the program, wherever it is
  // written): here it sets the request log of the service, which is silent without it.
  const logLevel = flags.logLevel ?? cmd?.optsWithGlobals<{ logLevel?: string }>().logLevel;
  const options = serveOptions({ ...flags, ...(logLevel ? { logLevel } : {}) });
  if (flags.authKey !== undefined) process.stderr.write(`${AUTH_KEY_FLAG_WARNING}\n`);
  // Loaded here, not at start-up: the service and its engine are heavy for every other command.
  const { startService } = await import('../local-service/index.js');
  const service = await startService(options);
  // The handlers are in place before the URL is announced: whoever starts the service may stop it
  // as soon as it reads the URL.
  const stopped = new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  process.stdout.write(`locsync service listening on ${service.url}\n`);
  await stopped;
  await service.close();
  process.stdout.write('locsync service stopped\n');
}
