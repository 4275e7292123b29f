// Benchmark of the service client (issue 4): peak RSS of the client process while it uploads and
// then downloads a 1 GB file through the local service. Both directions are streamed, so the peak
// must stay within a few tens of MB of the baseline whatever the file size (design.md: < 50 MB).
//
// The service runs in a child process (this same file with --serve) so that the numbers are the
// client's own. The carrier is a PNG (the local service copies images unchanged), made sparse so
// that creating it costs no disk writes.
//
//   npx tsx bench/client-memory.ts            (or import { run } from a bench runner)
//   LOCSYNC_BENCH_CLIENT_MB=256 npx tsx bench/client-memory.ts   (a smaller file; --quick: 128 MB)

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ServiceClient } from '../src/api/client.js';
import { benchSize } from './lib/options.js';
import type { BenchResult } from './types.js';

const SELF = fileURLToPath(import.meta.url);
const KEY = 'bench-client-key-0123456789';
const MB = 1024 * 1024;
const BOUND_MB = 50;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Child mode: a local service accepting PNGs of any size, printing its URL. */
async function serve(): Promise<void> {
  const { startService } = await import('../src/service/index.js');
  const svc = await startService({
    authKey: KEY,
    queueSeconds: 0,
    translateSeconds: 0,
    uploadLimits: { png: 64 * 1024 * MB },
  });
  process.stdout.write(`listening on ${svc.url}\n`);
  process.once('SIGTERM', () => void svc.close().then(() => process.exit(0)));
}

async function startChild(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', SELF, '--serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`bench service exited (${code})`)));
  });
  return { url, child };
}

/** Samples RSS every 5 ms while `work` runs; returns the highest value seen. */
async function peakRss<T>(work: () => Promise<T>): Promise<{ value: T; peak: number }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, peak };
  } finally {
    clearInterval(timer);
  }
}

export async function run(): Promise<BenchResult[]> {
  const sizeMb = benchSize(1024, 128, 'LOCSYNC_BENCH_CLIENT_MB'); // --quick: 128 MB
  const dir = await mkdtemp(join(tmpdir(), 'locsync-bench-client-'));
  const { url, child } = await startChild();
  const client = new ServiceClient({
    baseUrl: url,
    apiKey: KEY,
    timeouts: { responseMs: 600_000, idleMs: 120_000 },
  });
  try {
    const src = join(dir, 'large.png');
    const fh = await open(src, 'w');
    await fh.write(PNG_SIGNATURE, 0, PNG_SIGNATURE.length, 0);
    await fh.truncate(sizeMb * MB);
    await fh.close();

    // Warm up (JIT, sockets, modules) with a small file so the baseline is the steady state.
    const small = join(dir, 'small.png');
    const sh = await open(small, 'w');
    await sh.write(PNG_SIGNATURE);
    await sh.truncate(64 * 1024);
    await sh.close();
    const warm = await client.uploadDocument(small, { target_lang: 'DE' });
    await waitDone(client, warm.document_id, warm.document_key);
    await client.downloadDocument(warm.document_id, warm.document_key, join(dir, 'small.de.png'));

    global.gc?.();
    await sleep(100);
    const baseline = process.memoryUsage.rss();

    const up = await peakRss(() => client.uploadDocument(src, { target_lang: 'DE' }));
    await waitDone(client, up.value.document_id, up.value.document_key);
    const dest = join(dir, 'large.de.png');
    const down = await peakRss(() =>
      client.downloadDocument(up.value.document_id, up.value.document_key, dest),
    );
    const size = (await stat(dest)).size;
    if (size !== sizeMb * MB || down.value.bytes !== size) {
      throw new Error(`downloaded ${down.value.bytes} bytes (file ${size}), expected ${sizeMb * MB}`);
    }

    const toMb = (n: number): number => Math.round((n / MB) * 10) / 10;
    const upDelta = toMb(up.peak - baseline);
    const downDelta = toMb(down.peak - baseline);
    console.log(
      `client memory, ${sizeMb} MB file: RSS before ${toMb(baseline)} MB, peak during upload ${toMb(up.peak)} MB ` +
        `(+${upDelta}), peak during download ${toMb(down.peak)} MB (+${downDelta})`,
    );
    const bound = `< ${BOUND_MB} MB over baseline`;
    return [
      { name: 'client.rss.baseline', value: toMb(baseline), unit: 'MB' },
      {
        name: `client.upload.${sizeMb}MB.rss_over_baseline`,
        value: upDelta,
        unit: 'MB',
        bound,
        ratio: Math.round((upDelta / BOUND_MB) * 1000) / 1000,
      },
      {
        name: `client.download.${sizeMb}MB.rss_over_baseline`,
        value: downDelta,
        unit: 'MB',
        bound,
        ratio: Math.round((downDelta / BOUND_MB) * 1000) / 1000,
      },
    ];
  } finally {
    client.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await rm(dir, { recursive: true, force: true });
  }
}

async function waitDone(client: ServiceClient, id: string, key: string): Promise<void> {
  for (;;) {
    const s = await client.getDocumentStatus(id, key);
    if (s.status === 'done') return;
    if (s.status === 'error') throw new Error(`document ended in error: ${s.message}`);
    await sleep(200);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv.includes('--serve')) {
    await serve();
  } else {
    for (const r of await run()) console.log(JSON.stringify(r));
  }
}
