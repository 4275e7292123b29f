import { z } from 'zod';
import { envVarName, httpUrlSchema } from './values.js';

// `notify` of the manifest: whom to tell about failed runs and the like, and about what.

/** What a notification can be about (notify.webhook.events). */
export const NOTIFY_EVENTS = [
  'run-failed',
  'run-interrupted',
  'budget-reached',
  'manifest-rejected',
  'drift',
  'source-missing',
  'qa-failed',
] as const;

export const notifySchema = z.strictObject({
  webhook: z
    .strictObject({
      url: httpUrlSchema.optional().describe('URL to POST a JSON message to (kept out of logs). Or url_env.'),
      url_env: envVarName
        .optional()
        .describe('Environment variable holding the URL, for URLs that carry a token.'),
      events: z
        .array(z.enum(NOTIFY_EVENTS))
        .min(1)
        .default([...NOTIFY_EVENTS])
        .describe('What to notify about (default: all).'),
    })
    .refine((w) => (w.url === undefined) !== (w.url_env === undefined), {
      message: 'give the webhook either url or url_env (one of them)',
    })
    .describe(
      'POST a JSON message on failed or interrupted runs, budget reached, rejected manifest edits, drift.',
    ),
});

export type NotifyConfig = z.infer<typeof notifySchema>;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];
