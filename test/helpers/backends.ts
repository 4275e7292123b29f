import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openState } from '../../src/state/store.js';
import { PostgresState } from '../../src/state/postgres/store.js';
import type { SyncState } from '../../src/state/types.js';
import { createTestDatabase, pgForTests, type TestDatabase } from './postgres.js';

// The state backends a shared suite runs against: `describe.each(await stateBackends())(...)`.
// SQLite always; PostgreSQL when a server is found (else the suite prints what to install).

export interface OpenedState {
  state: SyncState;
  close(): Promise<void>;
}

export interface StateBackend {
  name: 'sqlite' | 'postgres';
  /** A fresh, empty state (a new file, or a new database); `worker` opens it as a worker. */
  open(opts?: { worker?: string }): Promise<
    OpenedState & {
      /** Another open of the same state (another process, another worker). */
      reopen(opts?: { worker?: string }): Promise<OpenedState>;
      /** Close the first open only (the state stays, for reopen). */
      closeThis(): Promise<void>;
    }
  >;
}

const sqlite: StateBackend = {
  name: 'sqlite',
  open: async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-backend-'));
    const file = path.join(dir, 'state.db');
    const mk = (): OpenedState => {
      const st = openState(file);
      return { state: st, close: async () => st.close() };
    };
    const first = mk();
    return {
      ...first,
      closeThis: first.close,
      reopen: async () => mk(),
      close: async () => {
        await first.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

function postgres(server: { url: string }): StateBackend {
  return {
    name: 'postgres',
    open: async (opts = {}) => {
      const db: TestDatabase = await createTestDatabase(server);
      const opened: PostgresState[] = [];
      const mk = async (o: { worker?: string } = {}): Promise<OpenedState> => {
        const st = await PostgresState.open(
          { url: db.url },
          o.worker ? { worker: { command: o.worker, leaseSeconds: 30 } } : {},
        );
        opened.push(st);
        return { state: st, close: () => st.close() };
      };
      const first = await mk(opts);
      return {
        ...first,
        closeThis: first.close,
        reopen: mk,
        close: async () => {
          for (const st of opened) await st.close().catch(() => undefined);
          await db.drop();
        },
      };
    },
  };
}

export async function stateBackends(): Promise<StateBackend[]> {
  const server = await pgForTests();
  return server ? [sqlite, postgres(server)] : [sqlite];
}

/** A worker frozen (kill -9, a stalled VM): its heartbeat stops; nothing is given back. */
export function freezeWorker(st: PostgresState): void {
  (st as unknown as { heartbeat: { stop(): void } }).heartbeat.stop();
}
