import { documentBySegments } from '../../documents/format-registry.js';
import {
  methodFor,
  type Mapping,
  type Target,
  type TranslationMethod,
} from '../../manifest/sections/mapping.js';

// How one file goes to one target. The target's method (or its mapping's) decides, except that a
// document the service does not take (Markdown, MDX, WebVTT) goes by segments under the document
// method too: listing it as unsupported would leave a folder of Markdown untranslated (docs/sync.md).

export function methodForFile(
  mapping: Pick<Mapping, 'method'>,
  target: Pick<Target, 'method'>,
  ext: string,
): TranslationMethod {
  const method = methodFor(mapping, target);
  return method === 'document' && documentBySegments(ext) ? 'segments' : method;
}
