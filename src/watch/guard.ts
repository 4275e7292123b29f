import fs from 'node:fs';
import type { ServiceClient } from '../api/client.js';
import type { StateStore } from '../state/store.js';
import type { SyncEvents } from '../sync/events.js';
import { sha256File } from '../sync/scan.js';

// On a live drive a file can be replaced between the moment its job was queued and the moment its
// upload starts. Uploading it then would bill the new content under the old content's record (and a
// later copy of the old content would wrongly reuse that output). The guard checks, right before
// each upload, that the file still holds the content its job was made for; if not, the upload is
// refused without calling the service, the job ends as a temporary failure, and the watcher hands
// the file over again (its new content becomes a job of its own).

export class SourceChangedError extends Error {
  constructor(file: string) {
    super(`${file} changed after its job was queued: not uploaded; its new content is translated instead`);
    this.name = 'SourceChangedError';
  }
}

export function guardUploads<C extends Pick<ServiceClient, 'uploadDocument'>>(
  client: C,
  events: SyncEvents,
  state: StateStore,
): C {
  // The engine emits job:uploading and calls uploadDocument in the same tick: the latest event is
  // the job of the upload being started.
  let jobId = 0;
  events.on('job:uploading', (e) => (jobId = e.jobId));
  const uploadDocument: C['uploadDocument'] = async (filePath, req) => {
    const job = jobId ? state.getJob(jobId) : undefined;
    jobId = 0;
    if (job) {
      const known = state.getFile(job.mapping, job.rel_path);
      let st: fs.Stats | undefined;
      try {
        st = fs.statSync(filePath);
      } catch {
        st = undefined;
      }
      const fast =
        st !== undefined &&
        known !== undefined &&
        known.sha256 === job.sha256 &&
        known.size === st.size &&
        known.mtime_ms === st.mtimeMs;
      if (!fast) {
        const sha = st ? await sha256File(filePath).catch(() => undefined) : undefined;
        if (sha !== job.sha256) throw new SourceChangedError(job.rel_path);
      }
    }
    return client.uploadDocument(filePath, req);
  };
  return new Proxy(client, {
    get(target, prop) {
      if (prop === 'uploadDocument') return uploadDocument;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
