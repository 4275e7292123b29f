import type { Command } from 'commander';

/** `locsync init` (stub: its issue's work replaces this). */
export function registerInit(program: Command): void {
  program
    .command('init')
    .description('(not implemented yet)')
    .action(() => {
      throw new Error('init: not implemented yet');
    });
}
