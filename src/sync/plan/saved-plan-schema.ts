import { z } from 'zod';

// What a saved plan file (`plan -out plan.json`) must hold before anything else reads it: the file
// comes from outside (reviewed, stored, maybe edited), so its shape is checked as any input is, with
// bounded work — a size cap before it is read, a cap on the actions, no recursion over its content.

export const SAVED_PLAN_FORMAT = 'locsync-plan';
export const SAVED_PLAN_VERSION = 1;

/** Above this a file is not read (a JavaScript string holds at most ~512 MiB). */
export const MAX_SAVED_PLAN_BYTES = 512 * 1024 * 1024;
/** More actions than any tree locsync is made for (a million files in two languages). */
export const MAX_SAVED_ACTIONS = 2_000_000;

const outputRef = z.looseObject({
  mapping: z.string(),
  file: z.string(),
  target: z.string(),
  output: z.string(),
});

/** The fields of an action that the comparison with a fresh plan reads; the rest is compared as data. */
export const savedActionSchema = z.looseObject({
  kind: z.enum(['translate', 'reuse', 'resaved', 'resume', 'stale', 'skip', 'delete', 'forget']),
  ref: outputRef.optional(),
  mapping: z.string().optional(),
  file: z.string().optional(),
  reason: z.string().optional(),
  from: z.string().optional(),
  jobId: z.number().int().optional(),
  source: z.looseObject({ sha256: z.string() }).optional(),
  settings: z.looseObject({ fingerprint: z.string() }).optional(),
});

const price = z.looseObject({ characters: z.number(), minimumAdded: z.number(), billed: z.number() });

/** The plan as people read it (`plan` prints it, the file shows it): grouped, with prices. */
const savedFiles = z.looseObject({
  toTranslate: z.array(outputRef.extend({ why: z.string(), price })),
  toReuse: z.array(outputRef.extend({ from: z.string() })),
  toResume: z.array(outputRef),
  stale: z.array(outputRef.extend({ reason: z.string(), price })),
  unchanged: z.number().int().nonnegative(),
  unsupported: z.array(z.looseObject({ mapping: z.string(), file: z.string(), reason: z.string() })),
  skipped: z.array(z.looseObject({ mapping: z.string(), file: z.string(), reason: z.string() })),
  gaveUp: z.array(outputRef),
  toDelete: z.array(z.string()),
  price: z.looseObject({ total: z.looseObject({ documents: z.number(), billed: z.number() }) }),
});

/**
 * The file around its actions, which are checked one by one (savedActionSchema) so that a file of
 * a million broken actions stops at the first few instead of collecting a million problems.
 */
export const savedPlanEnvelopeSchema = z.strictObject({
  format: z.literal(SAVED_PLAN_FORMAT),
  version: z.literal(SAVED_PLAN_VERSION),
  created_at: z.string(),
  manifest: z.strictObject({ path: z.string(), sha256: z.string() }),
  state_token: z.string(),
  plan: z.strictObject({
    actions: z.array(z.unknown()).max(MAX_SAVED_ACTIONS),
    inputs: z.looseObject({ manifest: z.string() }),
    files: savedFiles,
  }),
});

type Envelope = z.infer<typeof savedPlanEnvelopeSchema>;
export type SavedAction = z.infer<typeof savedActionSchema>;
export type SavedPlanFile = Omit<Envelope, 'plan'> & {
  plan: Omit<Envelope['plan'], 'actions'> & { actions: SavedAction[] };
};
