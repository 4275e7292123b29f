import type { LoadedManifest } from '../manifest/types.js';
import type { RunState } from '../sync/engine.js';
import { formatCounted } from '../util/format.js';
import { formatWording, peoplesDocuments, type DocumentWording } from '../xliff/wording.js';

// `status`'s section on whose wording the segments are (docs/xliff.md): the documents with
// segments reviewed by a person (an XLIFF import, a reviewer's correction), each with how many are
// a person's and how many machine translation. Both backends, on the state status has open.

/** The documents with a person's wording (none when the state keeps no memory). */
export async function peoplesWording(loaded: LoadedManifest, state: RunState): Promise<DocumentWording[]> {
  return state.memory ? await peoplesDocuments(loaded, state, state.memory) : [];
}

export function formatPeoplesWording(docs: readonly DocumentWording[]): string[] {
  if (docs.length === 0) return [];
  return [
    `Segments reviewed by a person (${formatCounted(docs.length, 'document')}; the others are as the sync wrote them):`,
    ...docs.map((d) => `  ${d.output}: ${formatWording(d.counts)}`),
  ];
}
