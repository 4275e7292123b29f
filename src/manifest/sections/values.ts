import { z } from 'zod';

// Values several sections of the manifest take alike.

/** A duration in seconds (service timeouts and retries, watch timings). */
export const seconds = z.number().positive();

/** An http:// or https:// URL: the service's base URL, a webhook (also when read from url_env). */
export const httpUrlSchema = z.url({ protocol: /^https?$/ });

/** The name of an environment variable that holds a secret (never the secret itself). */
export const envVarName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/);
