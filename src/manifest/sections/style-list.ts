import { z } from 'zod';
import { RULE_CATEGORIES, STYLE_LANGUAGES, STYLE_LIMITS } from '../../api/types.js';

// `style_lists` of the manifest: a style list inline or in a file of its own (docs/styles.md).

export const customInstructionSchema = z.strictObject({
  label: z
    .string()
    .min(1)
    .max(STYLE_LIMITS.labelMax)
    .describe('Short label; instructions are matched by label, so it must be unique in its list.'),
  prompt: z.string().min(1).max(STYLE_LIMITS.promptMax).describe('The instruction text.'),
  source_language: z
    .string()
    .optional()
    .describe('Source language the instruction applies to (lower-case, e.g. en).'),
});

const ruleCategoryShape = Object.fromEntries(
  RULE_CATEGORIES.map((c) => [
    c,
    z
      .record(z.string(), z.string())
      .optional()
      .describe(`Rules of the ${c} category: rule name → chosen option.`),
  ]),
) as Record<(typeof RULE_CATEGORIES)[number], z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodString>>>;
export const configuredRulesSchema = z.strictObject(ruleCategoryShape);

export const DRIFT_POLICIES = ['fail', 'overwrite', 'adopt'] as const;

/** A style list as written inline in the manifest or alone in its own file. */
export const styleListBodySchema = z.strictObject({
  /** The list's name on the service (defaults to the manifest key). */
  name: z
    .string()
    .min(1)
    .max(STYLE_LIMITS.nameMax)
    .optional()
    .describe("The list's name on the service (default: its key in style_lists)."),
  language: z
    .enum(STYLE_LANGUAGES)
    .describe('Language the rules apply to; targets using the list must have it.'),
  drift: z
    .enum(DRIFT_POLICIES)
    .default('fail')
    .describe(
      'When the list was changed on the service since locsync last applied it: fail (stop and show what changed), overwrite (make it match this file), adopt (write the service state back into this file).',
    ),
  configured_rules: configuredRulesSchema
    .default({})
    .describe('Predefined rules by category: category → rule name → option.'),
  custom_instructions: z
    .array(customInstructionSchema)
    .max(STYLE_LIMITS.instructionsMax)
    .default([])
    .describe(`Free-text instructions, at most ${STYLE_LIMITS.instructionsMax} per list.`),
});

/** `style_lists.<key>`: inline, or `{ file: path }` (one list per file, path relative to the manifest). */
export const styleListEntrySchema = z.union([
  z.strictObject({
    file: z
      .string()
      .min(1)
      .describe(
        "YAML file holding the list (one list per file), relative to the manifest; a regular file inside the project (the git repository, or the manifest's folder), also through links.",
      ),
  }),
  styleListBodySchema,
]);

export type StyleListBody = z.infer<typeof styleListBodySchema>;
export type StyleListEntry = z.infer<typeof styleListEntrySchema>;
