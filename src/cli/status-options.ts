import type { StatusData } from '../report/status-data.js';

// What `status` is given and how it lays out its text: shared by status.ts and status-postgres.ts
// (which status.ts loads lazily), so that neither imports the other back.

export interface StatusOptions {
  config: string;
  json?: boolean;
  runs: string;
  scan: boolean;
}

/** How status lays out its text (the PostgreSQL status uses the same). */
export interface StatusView {
  formatStatus(d: StatusData, cfg: string, now: number): string;
}
