import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The shape of a run, checked on the source as the import rules are (npm run lint:imports): the
// executor never calls the planner, and job rows have one writer. A line of code that breaks either
// fails here with the file named.

const SRC = path.resolve(__dirname, '../../src');

/**
 * Every TypeScript file under src/, relative to it, with its text; src/local-service (the local service, a
 * program of its own with its own job store) apart.
 */
function sources(): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (abs !== path.join(SRC, 'local-service')) walk(abs);
      } else if (e.name.endsWith('.ts'))
        out.push({
          file: path.relative(SRC, abs).split(path.sep).join('/'),
          text: fs.readFileSync(abs, 'utf8'),
        });
    }
  };
  walk(SRC);
  return out;
}

/** The files whose code matches `pattern` (comments left out). */
function filesMatching(pattern: RegExp, files = sources()): string[] {
  return files
    .filter(({ text }) => pattern.test(text.replace(/\/\*[^]*?\*\/|\/\/.*$/gm, '')))
    .map(({ file }) => file)
    .sort();
}

/** The job ledger's transitions (src/state/types.ts JobLedger): its write methods. */
const TRANSITIONS =
  'created|takenUp|unconfirmedUpload|reused|adopted|uploadStarted|uploaded|downloading|done|lostDownload|failed|superseded';

describe('the shape of a run', () => {
  it('the executor and the job drivers never plan: no replan hook, no view of the planner', () => {
    const run = sources().filter(
      ({ file }) => file.startsWith('sync/run/') || file.startsWith('sync/segments/'),
    );
    expect(filesMatching(/\breplan\b|\bPlanner\b|watchWork/, run)).toEqual([]);
    // Nothing hands the planner the executor to read: what is busy is an argument of each call.
    expect(filesMatching(/\bwatchWork\b|\.replan\(/)).toEqual([]);
  });

  it('one job lifecycle: both methods deliver through one step, and no driver subclasses another', () => {
    const sync = sources().filter(({ file }) => file.startsWith('sync/'));
    // A translation is checked, and its job recorded done, by the shared delivery step only.
    expect(filesMatching(/\bgate\.vet\(/, sync)).toEqual(['sync/run/output-delivery.ts']);
    expect(filesMatching(/\bledger\.done\(/, sync)).toEqual(['sync/run/output-delivery.ts']);
    // The methods are strategies of the one lifecycle (src/sync/run/job-lifecycle.ts), not subclasses.
    expect(filesMatching(/\bclass \w+(<[^>]*>)? extends (?!Error\b|EventEmitter\b)\w+/, sync)).toEqual([]);
  });

  it("the state's job transitions are called from the run's ledger only", () => {
    // state.jobs.<transition>( or jobs.<transition>( on a JobLedger: only src/sync/run/run-ledger.ts.
    expect(filesMatching(new RegExp(`\\bjobs\\.(${TRANSITIONS})\\(`))).toEqual(['sync/run/run-ledger.ts']);
    // The SQLite store's row writes are its ledger's alone (the jobs table hands them to it only).
    expect(filesMatching(/\.(createJob|updateJob|deleteJob)\(/)).toEqual(['state/sqlite/ledger.ts']);
  });

  it("the run's summary is written by its report only", () => {
    expect(filesMatching(/\.sum\.\w+(\s*(\+\+|\+=|=[^=])|\.push\()/)).toEqual(['sync/run/live-summary.ts']);
  });
});
