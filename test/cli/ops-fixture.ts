import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Document, Packer, Paragraph } from 'docx';
import { stringify } from 'yaml';
import { startService } from '../../src/local-service/index.js';
import type { RunningService, ServiceOptions } from '../../src/local-service/types.js';
import { runCli, type CliResult } from '../helpers/cli.js';

// A project as an operator has it: a temp folder with a manifest and documents, the local service
// on 127.0.0.1 port 0 (data in a temp folder, so its billing can be read back), the CLI run as a
// child process.

export const OPS_KEY = 'ops-test-api-key-7f3a9c1e';
export const KEY_ENV = 'LOCSYNC_TEST_OPS_KEY';
/** Fast status polls for the child processes. */
export const FAST_POLL_ENV = {
  LOCSYNC_POLL_INITIAL_MS: '50',
  LOCSYNC_POLL_MIN_MS: '20',
  LOCSYNC_POLL_MAX_MS: '200',
};

export interface OpsProject {
  dir: string;
  manifest: string;
  service: RunningService;
  serviceData: string;
  write(rel: string, content: string | Buffer): void;
  /** Run locsync in the project folder (piped output). */
  cli(args: string[], env?: Record<string, string | undefined>): Promise<CliResult>;
  /** billed_characters and document_key of every document downloaded from the service. */
  serviceDocuments(): Array<{ document_id: string; document_key: string; billed_characters: number | null }>;
  /** The document_key of every document the service accepted (failed ones too). */
  documentKeys(): string[];
  close(): Promise<void>;
}

export async function smallDocx(text: string): Promise<Buffer> {
  return Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph(text)] }] }));
}

export async function opsProject(
  opts: { service?: ServiceOptions; manifest?: Record<string, unknown> } = {},
): Promise<OpsProject> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-ops-'));
  const serviceData = path.join(dir, 'service-data');
  const service = await startService({
    authKey: OPS_KEY,
    dataDir: serviceData,
    translateSeconds: 0.05,
    ...opts.service,
  });
  const manifest = path.join(dir, 'pipeline.yaml');
  fs.writeFileSync(
    manifest,
    stringify({
      version: 1,
      service: {
        url: service.url,
        key_env: KEY_ENV,
        concurrency: 2,
        requests_per_second: 1000,
        retry: { max_attempts: 3, max_wait: 5 },
      },
      state: '.locsync/state.db',
      max_attempts: 3,
      watch: { shutdown: 10 },
      mappings: [
        {
          name: 'docs',
          source: 'src',
          output: 'out/{lang}/{path}',
          targets: [{ lang: 'de' }, { lang: 'fr' }],
        },
      ],
      ...opts.manifest,
    }),
  );
  const write = (rel: string, content: string | Buffer) => {
    const abs = path.join(dir, 'src', rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
  };
  return {
    dir,
    manifest,
    service,
    serviceData,
    write,
    cli: (args, env = {}) =>
      runCli(args, {
        cwd: dir,
        env: { [KEY_ENV]: OPS_KEY, CI: undefined, ...FAST_POLL_ENV, ...env },
        timeoutMs: 90_000,
      }),
    serviceDocuments() {
      const db = new Database(path.join(serviceData, 'service.db'), { readonly: true });
      try {
        return db
          .prepare<[], { document_id: string; document_key: string; billed_characters: number | null }>(
            'SELECT document_id, document_key, billed_characters FROM documents WHERE downloaded = 1',
          )
          .all();
      } finally {
        db.close();
      }
    },
    documentKeys() {
      const db = new Database(path.join(serviceData, 'service.db'), { readonly: true });
      try {
        return db
          .prepare<[], { document_key: string }>('SELECT document_key FROM documents')
          .all()
          .map((r) => r.document_key);
      } finally {
        db.close();
      }
    },
    async close() {
      await service.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every stderr line parsed as JSON (throws on a line that is not). */
export function jsonLines(stderr: string): Array<Record<string, unknown>> {
  return stderr
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
