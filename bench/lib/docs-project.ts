import path from 'node:path';
import { ServiceClient } from '../../src/api/client.js';
import { loadManifest, type LoadedManifest } from '../../src/manifest/load.js';
import { makeTree, writeDocsManifest } from './tree.js';

// The project the service benchmarks sync: small text files and a manifest pointing at a local
// service, and a client for it without a request rate limit.

/**
 * `docs` small text files under `dir/src` and `dir/pipeline.yaml` syncing them to out/de through the
 * service at `url` with `concurrency` documents in flight; the loaded manifest.
 */
export async function docsProject(
  dir: string,
  docs: number,
  url: string,
  concurrency: number,
): Promise<LoadedManifest> {
  await makeTree(path.join(dir, 'src'), docs);
  return loadManifest(writeDocsManifest(dir, { url, concurrency, requests_per_second: 1000 }));
}

/** A client of a benchmark's local service: no practical rate limit, 2x `concurrency` connections. */
export function benchClient(url: string, apiKey: string, concurrency: number): ServiceClient {
  return new ServiceClient({
    baseUrl: url,
    apiKey,
    rateLimit: { requestsPerSecond: 1000, concurrency: concurrency * 2 },
  });
}
