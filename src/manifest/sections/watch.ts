import { z } from 'zod';
import { seconds } from './values.js';

// `watch` of the manifest: how locsync watch sees changes and stops.

export const watchSchema = z.strictObject({
  /** Poll instead of native events (SMB/NFS shares deliver none). */
  poll: z.boolean().default(false).describe('Poll instead of native events (SMB/NFS shares deliver none).'),
  interval: seconds.default(5).describe('Polling interval, seconds.'),
  /** A file must keep its size and mtime this long before it is uploaded. */
  stability: seconds
    .default(2)
    .describe('Seconds a file must keep its size and mtime before it is uploaded.'),
  /** Full rescan period, in minutes (catches missed events). */
  rescan_minutes: z
    .number()
    .positive()
    .default(60)
    .describe('Full rescan period in minutes (catches missed events).'),
  /** Deadline to stop on SIGINT/SIGTERM, in seconds. */
  shutdown: seconds.default(30).describe('Seconds to finish or record work in progress on SIGINT/SIGTERM.'),
  metrics: z
    .strictObject({
      host: z.string().default('127.0.0.1').describe('Address to listen on.'),
      port: z.number().int().min(0).max(65535).describe('Port (0: any free port).'),
    })
    .optional()
    .describe('Serve /healthz and Prometheus /metrics while watching.'),
});

export type WatchConfig = z.infer<typeof watchSchema>;
