import type { Command } from 'commander';

/** `locsync plan` (stub: its issue's work replaces this). */
export function registerPlan(program: Command): void {
  program
    .command('plan')
    .description('(not implemented yet)')
    .action(() => {
      throw new Error('plan: not implemented yet');
    });
}
