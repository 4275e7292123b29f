import { parentPort, workerData } from 'node:worker_threads';
import { listSourceFiles } from './list-sources.js';
import { encodeListing, listingDigestOf, type ListingJob, type DigestRequest } from './listing-codec.js';

// A worker thread that lists one source folder (listing-prefetch.ts): the same walk and rules as a
// listing in the main thread, handed over encoded (its buffers transferred, not copied). The
// listing's digest is made here too, once the main thread sends the settings signatures it needs.

const job = workerData as ListingJob;
const port = parentPort!;
const listed = await listSourceFiles(job.src, job.include, job.ignore, job.opts);
const encoded = encodeListing(listed);
port.postMessage(encoded, [encoded.names.buffer, encoded.stats.buffer]);
port.once('message', (req: DigestRequest) => {
  port.postMessage(listingDigestOf(listed.files, req));
  port.close();
});
