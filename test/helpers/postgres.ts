import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

// A real PostgreSQL server for the tests, found in this order:
//   1. LOCSYNC_TEST_PG_URL (any server the tests may create databases on);
//   2. the machine's server at postgres://postgres@127.0.0.1:5432/test (trust auth on the project's
//      machines; shared with other people, so tests only ever use a database of their own);
//   3. a throwaway cluster made with the installed initdb / pg_ctl on a free port (removed at exit).
// With none of them the Postgres tests are skipped and PG_SKIP_NOTICE says what to install.

export const MACHINE_PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

export const PG_SKIP_NOTICE =
  'PostgreSQL tests skipped: no server at $LOCSYNC_TEST_PG_URL or ' +
  MACHINE_PG_URL +
  ', and no initdb/pg_ctl to make one. Install the server (Debian: apt-get install -y postgresql) or set LOCSYNC_TEST_PG_URL.';

export interface PgServer {
  /** URL of a database on the server that may be used to create and drop other databases. */
  url: string;
  kind: 'env' | 'machine' | 'throwaway';
  /** Stop and remove a throwaway cluster (no-op for servers the tests did not start). */
  stop(): Promise<void>;
}

export interface ThrowawayCluster extends PgServer {
  kind: 'throwaway';
  port: number;
  /** Folder of the cluster (data, socket, log); removed by stop(). */
  root: string;
  /** Stop the server (fast shutdown: open connections are cut) and start it again on the same port. */
  restart(opts?: { downMs?: number }): Promise<void>;
  /** Stop the server and leave it stopped until start(). */
  halt(): void;
  start(): void;
}

/** Whether a server answers at `url` (a connect and `SELECT 1`, 3 s at most). */
export async function pgAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The bin folder of the installed PostgreSQL server (initdb, pg_ctl), or undefined. */
export function pgBinDir(): string | undefined {
  const fromConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const candidates = [
    fromConfig.status === 0 ? fromConfig.stdout.trim() : '',
    ...listVersions('/usr/lib/postgresql').map((v) => `/usr/lib/postgresql/${v}/bin`),
  ];
  return candidates.find(
    (d) => d && fs.existsSync(path.join(d, 'initdb')) && fs.existsSync(path.join(d, 'pg_ctl')),
  );
}

function listVersions(dir: string): string[] {
  try {
    return fs.readdirSync(dir).sort((a, b) => Number(b) - Number(a));
  } catch {
    return [];
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * initdb refuses to run as root: as root, the cluster belongs to the `postgres` account (Debian's
 * package creates it) and its commands run through runuser.
 */
function clusterUser(): { prefix: string[]; uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return { prefix: [], uid: -1, gid: -1 };
  const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (id.status !== 0 || gid.status !== 0) return undefined;
  return { prefix: ['runuser', '-u', 'postgres', '--'], uid: Number(id.stdout), gid: Number(gid.stdout) };
}

/** Create and start a cluster of our own on a free port (trust auth, 127.0.0.1 only). */
export async function startThrowawayCluster(): Promise<ThrowawayCluster | undefined> {
  const bin = pgBinDir();
  const user = clusterUser();
  if (!bin || !user) return undefined;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-pg-'));
  const data = path.join(root, 'data');
  if (user.uid >= 0) fs.chownSync(root, user.uid, user.gid);
  fs.chmodSync(root, 0o700);
  const run = (cmd: string, args: string[]) => {
    const [exe, ...rest] = [...user.prefix, path.join(bin, cmd), ...args];
    execFileSync(exe as string, rest, { stdio: 'pipe', cwd: root });
  };
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const opts = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = () => run('pg_ctl', ['-D', data, '-o', opts, '-l', path.join(root, 'log'), '-w', 'start']);
  const halt = () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  start();
  let running = true;
  const stopAll = () => {
    if (running) {
      running = false;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        /* already stopped */
      }
    }
    fs.rmSync(root, { recursive: true, force: true });
  };
  process.once('exit', stopAll);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    kind: 'throwaway',
    port,
    root,
    stop: async () => {
      process.off('exit', stopAll);
      stopAll();
    },
    halt,
    start,
    restart: async ({ downMs = 0 } = {}) => {
      halt();
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      start();
    },
  };
}

let found: Promise<PgServer | undefined> | undefined;

/** The server the tests of this process use (looked up once). */
export function pgServer(): Promise<PgServer | undefined> {
  found ??= (async () => {
    const fromEnv = process.env.LOCSYNC_TEST_PG_URL;
    if (fromEnv) {
      if (await pgAnswers(fromEnv)) return { url: fromEnv, kind: 'env', stop: async () => undefined };
      throw new Error(`LOCSYNC_TEST_PG_URL is set but no PostgreSQL server answers there`);
    }
    if (await pgAnswers(MACHINE_PG_URL))
      return { url: MACHINE_PG_URL, kind: 'machine', stop: async () => undefined };
    try {
      return await startThrowawayCluster();
    } catch {
      return undefined;
    }
  })();
  return found;
}

export interface TestDatabase {
  /** URL of a fresh, empty database of this test run alone. */
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A URL with another database name (same server, user and options). */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = '/' + database;
  return u.toString();
}

/** Create a database of our own on `server` (never the shared `test` database's schema). */
export async function createTestDatabase(server: { url: string }): Promise<TestDatabase> {
  const name = `locsync_t_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    // A commit waits for its WAL flush on the machine's server (about 5 ms here against 0.6 ms
    // without): the tests make thousands of small commits, and none of them crashes the server, so
    // the flush is not waited for. What a commit makes visible to other sessions is unchanged.
    await admin.query(`ALTER DATABASE ${name} SET synchronous_commit = off`);
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(server.url, name),
    name,
    drop: async () => {
      const c = new pg.Client({ connectionString: server.url });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * The server for a test file, or undefined with the notice printed once: use as
 * `const server = await pgForTests(); describe.skipIf(!server)(...)`.
 */
export async function pgForTests(): Promise<PgServer | undefined> {
  const server = await pgServer();
  if (!server) console.warn(PG_SKIP_NOTICE);
  return server;
}
