import { z } from 'zod';
import { DRIFT_POLICIES } from './style-list.js';

// `glossaries` of the manifest: terminology kept in git, entries inline or in CSV/TSV files.

/** "en-de": source and target language of one glossary dictionary (base languages only). */
export const GLOSSARY_PAIR_PATTERN = /^([a-z]{2,3})-([a-z]{2,3})$/;
const glossaryPair = z
  .string()
  .regex(GLOSSARY_PAIR_PATTERN, 'a language pair is written source-target, e.g. en-de');

/** `glossaries.<key>`: terminology kept in git, reconciled with the service like style lists. */
export const glossarySchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(1024)
    .optional()
    .describe("The glossary's name on the service (default: its key in glossaries)."),
  drift: z
    .enum(DRIFT_POLICIES)
    .default('fail')
    .describe(
      "When the glossary's entries were changed on the service since locsync last applied them: fail (stop and show what changed), overwrite (make the service match), adopt (write the service's entries into the files or the manifest).",
    ),
  entries: z
    .record(glossaryPair, z.record(z.string(), z.string()))
    .default({})
    .describe('Entries written in the manifest, per language pair (en-de): source term → target term.'),
  files: z
    .record(glossaryPair, z.string().min(1))
    .default({})
    .describe(
      "Entries kept in files, per language pair (en-de): a .csv (source,target) or .tsv (source<TAB>target) file, relative to the manifest; a regular file inside the project (the git repository, or the manifest's folder), also through links.",
    ),
  header: z
    .boolean()
    .optional()
    .describe(
      "Whether the first line of each of its files is a header: true (always skipped), false (always an entry: a glossary whose first term is 'source'). Unset: a first line whose two columns are header words (source, target, term, translation) or the pair's language codes (en,de) is skipped, and validate says so.",
    ),
});

export type GlossaryBody = z.infer<typeof glossarySchema>;
