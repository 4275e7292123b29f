import path from 'node:path';
import type { LoadedManifest } from '../manifest/types.js';
import { LazyCounter } from './characters.js';
import { pricePlan, type PlanPrice, type PriceableAction } from './plan-price.js';
import { isUncountedFormat, type UploadPrice } from './price.js';

// The price of a plan's uploads from the source files on disk: each source's characters counted
// with locsync's document reader (./characters.ts, the document layer's count), at the manifest's rate (billing:).

/**
 * Prices `actions` (translate and stale ones) of a plan made from `loaded`. Images and formats whose
 * count cannot change the price are not read.
 */
export async function priceFromSources(
  loaded: LoadedManifest,
  actions: readonly PriceableAction[],
): Promise<{ prices: Array<UploadPrice | undefined>; price: PlanPrice }> {
  const sourceDirs = new Map(
    loaded.manifest.mappings.map((m) => [m.name, path.resolve(loaded.dir, m.source)]),
  );
  // Opened on the first document that needs the document reader: plain text is counted without it.
  const counter = new LazyCounter();
  try {
    return await pricePlan(
      actions,
      async (ref) => {
        if (isUncountedFormat(ref.file)) return 0;
        const dir = sourceDirs.get(ref.mapping);
        return dir ? counter.count(path.join(dir, ref.file)) : undefined;
      },
      loaded.manifest.billing,
    );
  } finally {
    await counter.close();
  }
}
