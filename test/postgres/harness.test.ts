import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pgAnswers, pgBinDir, startThrowawayCluster } from '../helpers/postgres.js';

// The throwaway cluster is what the restart tests stop and start (never the machine's server).

describe.skipIf(!pgBinDir())('a throwaway PostgreSQL cluster', () => {
  it('answers on its own port, comes back after a restart, and leaves nothing behind', async () => {
    const cluster = await startThrowawayCluster();
    expect(cluster).toBeDefined();
    try {
      expect(await pgAnswers(cluster!.url)).toBe(true);
      cluster!.halt();
      expect(await pgAnswers(cluster!.url)).toBe(false);
      cluster!.start();
      expect(await pgAnswers(cluster!.url)).toBe(true);
    } finally {
      await cluster!.stop();
    }
    expect(await pgAnswers(cluster!.url)).toBe(false);
    expect(fs.existsSync(cluster!.root)).toBe(false);
  });
});
