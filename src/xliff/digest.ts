import { createHash } from 'node:crypto';

// The target a unit was exported with, as a digest written into the unit (writer.ts) and read
// back by the import (reader.ts): where the output is gone at the import, it tells a target the
// translator changed from one they left as exported (docs/xliff.md).

/** 1.2 keeps it in `extradata` (an attribute for a tool's own data), with this prefix. */
export const EXTRADATA_TARGET = 'target:';
/** 2.1 keeps it in a `target` attribute of locsync's namespace. */
export const LOCSYNC_NS = 'urn:locsync:xliff';

export function targetDigest(tagged: string): string {
  return createHash('sha256').update(tagged).digest('hex').slice(0, 16);
}
