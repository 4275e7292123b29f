import { redactUrl, registerSecret } from '../log/secrets.js';
import type { LoadedManifest } from '../manifest/load.js';
import { ConfigError } from '../util/errors.js';

// The API key of the manifest's service, read from the environment variable it names: apart from the
// client (connect.ts) so that a run can refuse a missing key at once without loading the client.

/**
 * The key of the manifest's service url (trimmed), registered as a secret with the url's password;
 * a ConfigError when it is missing. Undefined when the manifest names no url (the embedded service).
 */
export function serviceApiKey(
  loaded: Pick<LoadedManifest, 'path' | 'manifest'>,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const service = loaded.manifest.service;
  if (service.url === undefined) return undefined;
  // A password in the URL (a proxy's, say) is a secret like the key: scrubbed from every line.
  registerSecret(urlPassword(service.url));
  const apiKey = env[service.key_env];
  if (apiKey === undefined || apiKey.trim() === '') {
    throw new ConfigError(
      `The API key is missing: set the environment variable ${service.key_env} ` +
        `(named by service.key_env) to the key of ${redactUrl(service.url)}. The key is never read from the manifest.`,
      { file: loaded.path },
    );
  }
  return apiKey.trim();
}

function urlPassword(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}
