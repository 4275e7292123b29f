import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { builtCliIsCurrent, ROOT } from '../helpers/cli.js';

// The install path of the README: the packed tarball installed with `npm install -g` into a
// prefix puts a working `locsync` on PATH; the deployment recipes in deploy/ are checked by the
// tools that read them (systemd-analyze, logrotate) against that installed command.

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-pack-'));
const prefix = path.join(tmp, 'prefix');
const bin = path.join(prefix, 'bin', 'locsync');
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The commands of the README's "Your own pipeline" block, as argument lists. */
function readmeOwnPipeline(): string[][] {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Your own pipeline'));
  const block = section.slice(
    section.indexOf('```sh') + 5,
    section.indexOf('```', section.indexOf('```sh') + 5),
  );
  return block
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter((l) => l.startsWith('locsync '))
    .map((l) => l.split(/\s+/).slice(1));
}

/**
 * better-sqlite3's binary as a local prebuild for its install script (prebuild-install), found through
 * a `.prebuild-installrc` above the install prefix. Users with network get the same prebuilt binary
 * downloaded; this machine has none, and the fallback, compiling SQLite with node-gyp, took most of
 * this test's time. The binary is the checkout's own, which `npm ci` made for this Node; when its
 * version or ABI does not match the one npm installs, the name differs and the script falls back.
 */
function offerSqlitePrebuild(): void {
  const pkgJson = createRequire(import.meta.url).resolve('better-sqlite3/package.json');
  const { version } = JSON.parse(fs.readFileSync(pkgJson, 'utf8')) as { version: string };
  const binary = 'build/Release/better_sqlite3.node';
  if (!fs.existsSync(path.join(path.dirname(pkgJson), binary))) return;
  const dir = path.join(tmp, 'prebuilds');
  fs.mkdirSync(dir);
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const tar = spawnSync('tar', ['-czf', path.join(dir, name), '-C', path.dirname(pkgJson), binary]);
  if (tar.status !== 0) return;
  fs.writeFileSync(path.join(tmp, '.prebuild-installrc'), JSON.stringify({ 'local-prebuilds': dir }));
}

function run(cmd: string, args: string[], cwd = ROOT) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, CI: '1' } });
  return { code: r.status, out: `${r.stdout}\n${r.stderr}` };
}

describe('packaging and deployment recipes', () => {
  it('npm pack, then npm install -g of the tarball into a prefix: locsync --version runs', () => {
    // A current dist/ (CI's, built by `npm ci`) is packed as it is: building it again here would
    // rewrite the files that the other test files' CLI children are loading (CLI_ARGS).
    const pack = run('npm', [
      'pack',
      '--pack-destination',
      tmp,
      '--json',
      ...(builtCliIsCurrent() ? ['--ignore-scripts'] : []),
    ]);
    expect(pack.code, pack.out).toBe(0);
    const tarball = path.join(tmp, `locsync-${VERSION}.tgz`);
    expect(fs.existsSync(tarball)).toBe(true);
    offerSqlitePrebuild();
    const install = run(
      'npm',
      ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball],
      tmp,
    );
    expect(install.code, install.out).toBe(0);
    // No warning about the project's npm configuration on every call.
    expect(install.out).not.toMatch(/build_from_source/);
    const version = run(bin, ['--version'], tmp);
    expect(version.code, version.out).toBe(0);
    expect(version.out.trim()).toBe(VERSION);
    // Real commands of the installed copy: its help and a starter manifest that validates.
    expect(run(bin, ['--help'], tmp).out).toContain('Exit codes:');
    // A new user in a fresh folder follows the README's own-pipeline commands with that command.
    const work = path.join(tmp, 'work');
    fs.mkdirSync(work, { recursive: true });
    const steps = readmeOwnPipeline();
    expect(steps.map((s) => s[0])).toEqual([
      'init',
      'validate',
      'plan',
      'sync',
      'status',
      'check',
      'report',
      'review',
    ]);
    for (const args of steps) {
      const r = run(bin, args, work);
      expect(r.code, `locsync ${args.join(' ')}\n${r.out}`).toBe(0);
      // init made the source folder: a document in it gives the rest something to do.
      if (args[0] === 'init') fs.writeFileSync(path.join(work, 'docs', 'hello.txt'), 'Hello.\n');
    }
    expect(fs.existsSync(path.join(work, 'translated/de/hello.txt'))).toBe(true);
    // `review -o review.html` wrote the page of what the run changed.
    expect(fs.readFileSync(path.join(work, 'review.html'), 'utf8')).toContain('hello.txt');
  }, 600_000);

  it('the README says how to install before any locsync command, and nowhere a bare npx locsync', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const lines = readme.split('\n');
    const firstCommand = lines.findIndex((l) => /^locsync /.test(l));
    const install = lines.findIndex((l) => /^npm install -g \./.test(l));
    expect(install).toBeGreaterThan(-1);
    expect(install).toBeLessThan(firstCommand);
    // `npx locsync` outside the checkout asks the registry for somebody else's package.
    for (const f of [
      'README.md',
      ...fs
        .readdirSync(path.join(ROOT, 'docs'))
        .filter((n) => n.endsWith('.md'))
        .map((n) => `docs/${n}`),
      'samples/README.md',
      'src/cli/init.ts',
    ])
      expect(fs.readFileSync(path.join(ROOT, f), 'utf8'), f).not.toMatch(/npx locsync [a-z]/);
  });

  it.skipIf(!has('systemd-analyze'))('the systemd units pass systemd-analyze verify', () => {
    // The command the units start: the installed locsync when the test above made it, else node.
    const command = fs.existsSync(bin) ? bin : process.execPath;
    const units = path.join(tmp, 'units');
    fs.mkdirSync(units);
    for (const f of fs.readdirSync(path.join(ROOT, 'deploy/systemd'))) {
      const text = fs.readFileSync(path.join(ROOT, 'deploy/systemd', f), 'utf8');
      if (f.endsWith('.service')) expect(text).toContain('ExecStart=/usr/local/bin/locsync ');
      fs.writeFileSync(path.join(units, f), text.replaceAll('/usr/local/bin/locsync', command));
    }
    const names = fs.readdirSync(units).map((f) => path.join(units, f));
    const verify = run('systemd-analyze', ['verify', ...names], units);
    expect(verify.out.trim()).toBe('');
    expect(verify.code).toBe(0);
  });

  it.skipIf(!has('logrotate'))('the logrotate snippet parses', () => {
    // Its user and group exist on a deployed host only: root here.
    const conf = path.join(tmp, 'logrotate.conf');
    fs.writeFileSync(
      conf,
      fs
        .readFileSync(path.join(ROOT, 'deploy/logrotate/locsync'), 'utf8')
        .replaceAll('locsync locsync', 'root root')
        .replace('/var/log/locsync/', `${tmp}/log/`),
    );
    const r = run('logrotate', ['-d', '-s', path.join(tmp, 'logrotate.state'), conf], tmp);
    expect(r.code, r.out).toBe(0);
    expect(r.out).not.toMatch(/error/i);
  });
});
