import type { Command } from 'commander';

/** `locsync sync` (stub: its issue's work replaces this). */
export function registerSync(program: Command): void {
  program
    .command('sync')
    .description('(not implemented yet)')
    .action(() => {
      throw new Error('sync: not implemented yet');
    });
}
