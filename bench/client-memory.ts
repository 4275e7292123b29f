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
import { listeningUrl } from './lib/process.js';
import { peakRssDuring, toMb } from './lib/rss.js';
import type { BenchResult } from './types.js';

const SELF = fileURLToPath(import.meta.url);
const KEY = 'bench-client-key-0123456789';
const MB = 1024 * 1024;
const BOUND_MB = 50;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Child mode: a local service accepting PNGs of any size, printing its URL. */
async function serve(): Promise<void> {
  const { startService } = await import('../src/local-service/index.js');
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
  const url = await listeningUrl(child, 'bench service');
  return { url, child };
}

/** Samples this process's RSS every 5 ms while `work` runs; returns the highest value seen. */
const peakRss = <T>(work: () => Promise<T>) => peakRssDuring(work, process.pid, 5);

/** A sparse PNG of `mb` megabytes (signature, then zeros). */
async function makePng(path: string, bytes: number): Promise<void> {
  const fh = await open(path, 'w');
  await fh.write(PNG_SIGNATURE, 0, PNG_SIGNATURE.length, 0);
  await fh.truncate(bytes);
  await fh.close();
}

/** Upload `bytes` through the client, wait, download: peak RSS of each direction. */
async function roundTrip(
  client: ServiceClient,
  dir: string,
  bytes: number,
): Promise<{ upload: number; download: number }> {
  const src = join(dir, `in-${bytes}.png`);
  await makePng(src, bytes);
  const up = await peakRss(() => client.uploadDocument(src, { target_lang: 'DE' }));
  await waitDone(client, up.value.document_id, up.value.document_key);
  const dest = join(dir, `out-${bytes}.png`);
  const down = await peakRss(() =>
    client.downloadDocument(up.value.document_id, up.value.document_key, dest),
  );
  const size = (await stat(dest)).size;
  if (size !== bytes || down.value.bytes !== size) {
    throw new Error(`downloaded ${down.value.bytes} bytes (file ${size}), expected ${bytes}`);
  }
  await rm(src);
  await rm(dest);
  return { upload: up.peak, download: down.peak };
}

export async function run(): Promise<BenchResult[]> {
  const sizeMb = benchSize(1024, 128, 'LOCSYNC_BENCH_CLIENT_MB'); // --quick: 128 MB
  // A file 4x smaller: what the big one adds over it is what grows with the size (should be ~0).
  // (Below some 30 MB the garbage collector has not yet run, so small files show their own size.)
  const refMb = Math.max(1, Math.round(sizeMb / 4));
  const dir = await mkdtemp(join(tmpdir(), 'locsync-bench-client-'));
  const { url, child } = await startChild();
  // Default timeouts: a transfer is bounded by idle time only, however long it takes.
  const client = new ServiceClient({ baseUrl: url, apiKey: KEY });
  try {
    // Warm up (JIT, sockets, modules) with a small file so the baseline is the steady state.
    await roundTrip(client, dir, 64 * 1024);
    global.gc?.();
    await sleep(100);
    const baseline = process.memoryUsage.rss();
    const ref = await roundTrip(client, dir, refMb * MB);
    const big = await roundTrip(client, dir, sizeMb * MB);

    console.log(
      `client memory: RSS before ${toMb(baseline)} MB; ${sizeMb} MB file: peak upload ${toMb(big.upload)} MB ` +
        `(+${toMb(big.upload - baseline)}), peak download ${toMb(big.download)} MB (+${toMb(big.download - baseline)}); ` +
        `${refMb} MB file: +${toMb(ref.upload - baseline)} / +${toMb(ref.download - baseline)}`,
    );
    const bound = `< ${BOUND_MB} MB over baseline`;
    const over = (name: string, peak: number): BenchResult => {
      const value = toMb(peak - baseline);
      return { name, value, unit: 'MB', bound, ratio: Math.round((value / BOUND_MB) * 1000) / 1000 };
    };
    return [
      { name: 'client.rss.baseline', value: toMb(baseline), unit: 'MB' },
      over(`client.upload.${sizeMb}MB.rss_over_baseline`, big.upload),
      over(`client.download.${sizeMb}MB.rss_over_baseline`, big.download),
      // Growth with file size: the big file's peak minus the 4x smaller file's (noise around 0 = flat).
      {
        name: `client.upload.rss_growth_${refMb}MB_to_${sizeMb}MB`,
        value: toMb(big.upload - ref.upload),
        unit: 'MB',
      },
      {
        name: `client.download.rss_growth_${refMb}MB_to_${sizeMb}MB`,
        value: toMb(big.download - ref.download),
        unit: 'MB',
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
