import { z } from 'zod';
import { envVarName, httpUrlSchema, seconds } from './values.js';

// `service` of the manifest: which translation service, and how to call it.

/** service.requests_per_second when the manifest sets none. */
export const DEFAULT_REQUESTS_PER_SECOND = 50;

export const serviceSchema = z.strictObject({
  /** Base URL of the service; omitted: the embedded local service. */
  url: httpUrlSchema
    .optional()
    .describe('Base URL of the service (http:// or https://); left out, the embedded local service is used.'),
  plan: z
    .enum(['pro', 'free'])
    .default('pro')
    .describe('Plan of the account (the free plan has no style lists).'),
  /** Name of the environment variable holding the API key (never the key itself). */
  key_env: envVarName
    .default('LOCSYNC_API_KEY')
    .describe('Name of the environment variable holding the API key (never the key itself).'),
  auth_scheme: z
    .string()
    .min(1)
    .default('Service-Auth-Key')
    .describe('Scheme word of the Authorization header.'),
  concurrency: z.number().int().min(1).max(64).default(4).describe('Documents in flight at once.'),
  // 50: what the official client's maintainers advise as the service's limit (deepl-node issue
  // 33), above which it answers 429; packed text requests make far fewer calls than that.
  requests_per_second: z
    .number()
    .positive()
    .max(1000)
    .default(DEFAULT_REQUESTS_PER_SECOND)
    .describe('Requests per second to the service, all calls together.'),
  /** Maximum documents translated by the service and not yet downloaded. */
  max_undownloaded: z
    .number()
    .int()
    .min(1)
    .default(20)
    .describe('Maximum documents translated by the service and not yet downloaded.'),
  timeouts: z
    .strictObject({
      connect: seconds.default(10).describe('Seconds to connect.'),
      response: seconds.default(60).describe('Seconds to the first byte of a response.'),
      idle: seconds.default(120).describe('Seconds without data while a body streams.'),
    })
    .default({ connect: 10, response: 60, idle: 120 })
    .describe('Timeouts of each request, in seconds.'),
  retry: z
    .strictObject({
      max_attempts: z.number().int().min(1).max(20).default(6).describe('Attempts per request.'),
      max_wait: seconds.default(300).describe('Seconds to keep retrying one request.'),
    })
    .default({ max_attempts: 6, max_wait: 300 })
    .describe('Retries of failed requests (only where repeating them is safe).'),
  /** An upload whose answer was lost after the document was sent: uploaded again in the same run. */
  retry_unanswered_uploads: z
    .boolean()
    .default(true)
    .describe(
      'An upload whose answer was lost after the document was sent (the service may have accepted and billed it) is uploaded again later in the same run (after a pause of 5 s, behind the uploads already waiting): possibly billed twice, listed by the summary, status and report. false: it is reported as failed (maybe-accepted) and the next run uploads it, for a person to decide first.',
    ),
  /** Options of the embedded local service (used only when `url` is omitted). */
  local: z
    .strictObject({
      phrasebook: z
        .string()
        .optional()
        .describe('Phrasebook YAML of exact translations, relative to the manifest.'),
      queue_seconds: z.number().min(0).default(0).describe('Seconds a document waits in the queue.'),
      translate_seconds: z.number().min(0).default(0.5).describe('Seconds a document takes to translate.'),
    })
    .default({ queue_seconds: 0, translate_seconds: 0.5 })
    .describe('Options of the embedded local service (only when url is left out).'),
});

export type ServiceConfig = z.infer<typeof serviceSchema>;
