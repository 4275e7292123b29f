import type { Manifest } from './schema.js';
import { httpUrlSchema } from './sections/values.js';

type WebhookSettings = NonNullable<Manifest['notify']>['webhook'];

export type WebhookUrl =
  | { url: string }
  /** `unset`: url_env names a variable this environment does not have (a CI machine may not). */
  | { problem: string; unset: boolean };

/**
 * The URL a webhook posts to: `url` (the schema checked it), or the value of the environment
 * variable `url_env`, checked here against the same rule so that `validate` and the start of a run
 * refuse a value that is not an http(s) URL instead of a send failing mid-run. The value is never
 * quoted in the problem: it is in the environment because it carries a token.
 */
export function webhookUrl(webhook: WebhookSettings, env: NodeJS.ProcessEnv = process.env): WebhookUrl {
  if (webhook.url !== undefined) return { url: webhook.url };
  const name = webhook.url_env ?? '';
  const value = env[name];
  if (!value)
    return {
      problem: `notify.webhook.url_env: the environment variable ${name} is not set (it holds the webhook URL)`,
      unset: true,
    };
  if (!httpUrlSchema.safeParse(value).success)
    return {
      problem: `notify.webhook.url_env: the value of the environment variable ${name} is not an http:// or https:// URL`,
      unset: false,
    };
  return { url: value };
}
