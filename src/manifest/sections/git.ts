import { z } from 'zod';

// `git` of the manifest: delivery as a commit (docs/operations.md, "Delivering through git"). The
// same settings serve `sync` from cron (what --commit and --push ask for on the command line) and
// `locsync watch`, which commits in batches.

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600 };

/** `10m`, `90s`, `1h` or a number of seconds, as seconds. */
export const gitEvery = z
  .union([
    z.number().positive(),
    z.string().regex(/^\d+(\.\d+)?\s*[smh]$/, 'a duration such as 30s, 10m or 1h (or a number of seconds)'),
  ])
  .transform((v) => (typeof v === 'number' ? v : parseFloat(v) * UNIT_SECONDS[v.trim().slice(-1)]!));

/** `Name <email>`: git's own form of an identity. */
const identity = z
  .string()
  .regex(/^[^<>\n]+<[^<>\s]+>$/, 'an identity as git writes it: Name <email@example.com>');

export const gitSchema = z.strictObject({
  commit: z
    .boolean()
    .default(false)
    .describe(
      'Commit the outputs a run wrote or removed, and nothing else, in one commit (as `sync --commit` does); watch commits in batches (every).',
    ),
  push: z
    .boolean()
    .default(false)
    .describe(
      "Push each such commit to the branch's upstream (never forced; a rejected push leaves the commit in place and fails).",
    ),
  every: gitEvery
    .default(600)
    .describe('Watch: at most one commit per this long (10m, 30s, 1h or seconds; default 10m).'),
  author: identity
    .optional()
    .describe(
      "Author and committer of the commits, as git writes them (`locsync bot <bot@example.com>`). Default: git's own configuration (user.name, user.email).",
    ),
});

export type GitConfig = z.infer<typeof gitSchema>;

/** What a run does with git after it: commit (and push), from `--commit`/`--push` or `git:`. */
export interface GitDeliveryOptions {
  push: boolean;
  /** `Name <email>` (git.author); git's own configuration otherwise. */
  author?: string;
}

/** Commit when asked by a flag or by `git.commit`; `--push` and `git.push` imply the commit. */
export function gitDeliveryWanted(
  git: GitConfig | undefined,
  flags: { commit?: boolean; push?: boolean } = {},
): GitDeliveryOptions | undefined {
  const push = !!flags.push || !!git?.push;
  if (!flags.commit && !push && !git?.commit) return undefined;
  return { push, ...(git?.author ? { author: git.author } : {}) };
}
