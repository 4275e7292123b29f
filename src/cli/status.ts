import type { Command } from 'commander';

/** `locsync status` (stub: its issue's work replaces this). */
export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('(not implemented yet)')
    .action(() => {
      throw new Error('status: not implemented yet');
    });
}
