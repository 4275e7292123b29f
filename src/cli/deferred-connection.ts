import type { LoadedManifest } from '../manifest/load.js';
import type { DocumentClient } from '../sync/run/document-method.js';
import type { SyncConnection } from '../sync/sync-run.js';
import type { TextClient } from '../sync/segments/segment-job.js';

// A sync that may need no service at all (a no-op: nothing to upload, nothing to collect) should
// not pay for loading the HTTP client or starting the embedded service. When nothing asks the service
// before the plan is made (no style list or glossary to reconcile, no workers sharing account
// limits), the run gets a client that opens the real connection on its first call.

/** The connection a command works with, closed when it ends. */
export type ClosableConnection = SyncConnection & { close(): Promise<void> };

/** Whether a sync needs the service before its plan is made (the real connection is opened then). */
export function needsServiceAtStart(loaded: LoadedManifest, sharedState: boolean): boolean {
  const terminology = Object.keys(loaded.styleLists).length + Object.keys(loaded.glossaries ?? {}).length > 0;
  return terminology || sharedState;
}

/** A connection whose client is opened by `open` when the run first calls the service. */
export function deferredConnection(open: () => Promise<ClosableConnection>): ClosableConnection {
  let opened: Promise<ClosableConnection> | undefined;
  const real = async (): Promise<DocumentClient & TextClient> =>
    (await (opened ??= open())).client as DocumentClient & TextClient;
  const client: DocumentClient & TextClient = {
    uploadDocument: async (...args) => (await real()).uploadDocument(...args),
    getDocumentStatus: async (...args) => (await real()).getDocumentStatus(...args),
    downloadDocument: async (...args) => (await real()).downloadDocument(...args),
    // The segment path (method: segments) translates text.
    translateText: async (...args) => (await real()).translateText(...args),
  };
  return {
    client,
    close: async () => {
      if (opened) await (await opened).close();
    },
  };
}
