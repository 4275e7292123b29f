import { z } from 'zod';

// `qa:` of a mapping (docs/qa.md): which soft output checks fail an output, which are not run. The
// checks themselves are src/qa's; their names are set here, where the manifest accepts them.

/**
 * Soft checks: an output that fails one is delivered and flagged, unless the mapping's
 * `qa.fail_on` names the check (then it is failed like a hard one) or `qa.ignore` does (not run).
 * `untranslated` here is some segments left as the source (all of them is the hard check).
 */
export const SOFT_CHECKS = [
  'untranslated',
  'language',
  'placeholders',
  'urls',
  'emails',
  'code',
  'numbers',
  'glossary',
  'length',
] as const;
export type SoftCheck = (typeof SOFT_CHECKS)[number];

/**
 * What a careful team gets without writing `qa:`: a document in the wrong language and a string
 * whose placeholders were lost are not delivered (the first is no translation for its readers, the
 * second breaks the program that fills it in); everything else is delivered and flagged.
 */
export const DEFAULT_FAIL_ON: readonly SoftCheck[] = ['language', 'placeholders'];

/** `qa:` of a mapping: which soft output checks fail an output, which are not run (docs/qa.md). */
export const qaSchema = z.strictObject({
  fail_on: z
    .array(z.enum(SOFT_CHECKS))
    .optional()
    .describe(
      `Soft checks that fail an output (not delivered, kept in the quarantine, like a hard check) instead of flagging it. Default: [${DEFAULT_FAIL_ON.join(', ')}]. Checks: ${SOFT_CHECKS.join(', ')}.`,
    ),
  ignore: z
    .array(z.enum(SOFT_CHECKS))
    .default([])
    .describe('Soft checks not run for this mapping (a check in both lists is an error).'),
});
