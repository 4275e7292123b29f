import path from 'node:path';
import type { DeleteAction, ForgetAction } from '../plan/types.js';
import { deleteOutput } from './delete-output.js';
import type { ExecutorDeps } from './executor-deps.js';

// Removed sources (on_source_delete): their outputs deleted and their records forgotten, after
// every other piece of work of the run.

export class SourceRemovals {
  private readonly queued: Array<DeleteAction | ForgetAction> = [];

  constructor(private readonly deps: ExecutorDeps) {}

  add(a: DeleteAction | ForgetAction): void {
    this.queued.push(a);
  }

  /** Carries out what is queued; after a stop nothing (the next run finds the removed sources again). */
  async run(): Promise<void> {
    const { loaded, index, state, report } = this.deps;
    if (this.deps.control.stopping) this.queued.length = 0;
    const deleted = new Map<string, string[]>();
    for (const a of this.queued.splice(0)) {
      if (a.kind === 'delete') {
        // Only while the output still holds the translation it was planned for.
        if ((await index.doneOf(a.ref.output))?.id !== a.jobId) continue;
        const abs = path.resolve(loaded.dir, a.ref.output);
        if (await deleteOutput(abs, path.resolve(loaded.dir, a.root))) {
          const k = `${a.ref.mapping}\0${a.ref.file}`;
          deleted.set(k, [...(deleted.get(k) ?? []), a.ref.output]);
          report.outputDeleted(a.ref);
        }
        continue;
      }
      await state.files.remove(a.mapping, a.file);
      report.sourceRemoved(a.mapping, a.file, deleted.get(`${a.mapping}\0${a.file}`) ?? []);
    }
  }
}
