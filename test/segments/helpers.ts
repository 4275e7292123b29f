import { spawn } from 'node:child_process';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import fs from 'node:fs';
import {
  isBilingual,
  openDocument,
  segmentText,
  taggedText,
  type Segment,
} from '../../src/documents/index.js';
import type { RequestLogEntry } from '../../src/local-service/types.js';
import { CLI_ARGS, ROOT } from '../helpers/cli.js';
import { API_KEY, type Fixture } from '../sync/fixture.js';

// What the segment path's tests share: a manifest translating one folder by both methods, the text
// a document holds, and the text requests the local service answered (its request log).

/** Two mappings of the same sources into German: `seg` by segments, `doc` by documents. */
export function bothMethods(): Record<string, unknown> {
  const targets = [{ lang: 'de' }];
  const mapping = (name: string) => ({
    name,
    source: 'src',
    source_lang: 'en',
    output: `out/${name}/{lang}/{path}`,
    targets,
  });
  return { mappings: [{ ...mapping('seg'), method: 'segments' }, mapping('doc')] };
}

/** One mapping `docs` from src to out/{lang}/{path}, German, translated segment by segment. */
export function segmentsMapping(): Record<string, unknown> {
  return {
    name: 'docs',
    source: 'src',
    source_lang: 'en',
    method: 'segments',
    output: 'out/{lang}/{path}',
    targets: [{ lang: 'de' }],
  };
}

/** Each segment of a file as `as` gives it: of a bilingual one (XLIFF) its translation side unless `side`. */
async function segmentsOf(
  file: string,
  side: 'source' | 'target',
  as: (s: Segment) => string,
): Promise<string[]> {
  const format = path.extname(file).slice(1);
  const doc = await openDocument(file, { format, side: isBilingual(format) ? side : 'source' });
  const out: string[] = [];
  for await (const s of doc.segments()) out.push(as(s));
  return out;
}

/** The text a file holds, segment by segment. */
export const segmentTexts = (file: string, side: 'source' | 'target' = 'target') =>
  segmentsOf(file, side, segmentText);

/** The same with each segment's formatting: its pieces as tags (bold stays a piece of its own). */
export const taggedTexts = (file: string, side: 'source' | 'target' = 'target') =>
  segmentsOf(file, side, taggedText);

/** The text requests the service answered since log position `since`. */
export function textRequests(fx: Fixture, since = 0): Array<NonNullable<RequestLogEntry['text']>> {
  return fx.service
    .requests()
    .slice(since)
    .filter((r) => r.path === '/v2/translate' && r.status === 200 && r.text)
    .map((r) => r.text!);
}

/** Characters billed by those requests. */
export function charactersSent(fx: Fixture, since = 0): number {
  return textRequests(fx, since).reduce((n, r) => n + r.characters, 0);
}

/** `locsync sync` of the fixture's manifest in a process of its own (to be killed or stopped). */
export function syncProcess(fx: Fixture): { kill(signal: NodeJS.Signals): Promise<void>; stderr(): string } {
  const child = spawn(process.execPath, [...CLI_ARGS, 'sync', '-c', fx.manifestPath, '--no-progress'], {
    cwd: ROOT,
    env: { ...process.env, LOCSYNC_TEST_SYNC_KEY: API_KEY },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    kill: async (signal) => {
      child.kill(signal);
      await exited;
    },
    stderr: () => stderr,
  };
}

/** Change the fixture's manifest (parsed YAML) and write it back. */
export function editManifest(fx: Fixture, edit: (m: Record<string, unknown>) => void): void {
  const m = parse(fs.readFileSync(fx.manifestPath, 'utf8')) as Record<string, unknown>;
  edit(m);
  fs.writeFileSync(fx.manifestPath, stringify(m));
}
