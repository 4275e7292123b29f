import type { LoadedManifest } from '../manifest/types.js';
import { silentLogger } from '../log/logger.js';
import { formatWording, peoplesDocuments, type DocumentWording } from '../xliff/wording.js';
import { openRunState } from './open-state.js';

// `status`'s section on whose wording the segments are (docs/xliff.md): the documents with
// segments reviewed by a person (an XLIFF import, a reviewer's correction), each with how many are
// a person's and how many machine translation. Both backends.

/** The documents with a person's wording (none when the state keeps no memory). */
export async function peoplesWording(loaded: LoadedManifest): Promise<DocumentWording[]> {
  const opened = await openRunState(loaded, { logger: silentLogger(), command: 'status', drives: false });
  try {
    const memory = opened.state.memory;
    return memory ? await peoplesDocuments(loaded, opened.state, memory) : [];
  } finally {
    await opened.close();
  }
}

export function formatPeoplesWording(docs: readonly DocumentWording[]): string[] {
  if (docs.length === 0) return [];
  return [
    `Segments reviewed by a person (${docs.length} document${docs.length === 1 ? '' : 's'}; the others are as the sync wrote them):`,
    ...docs.map((d) => `  ${d.output}: ${formatWording(d.counts)}`),
  ];
}
