import type { Command } from 'commander';

/** `locsync watch` (stub: its issue's work replaces this). */
export function registerWatch(program: Command): void {
  program
    .command('watch')
    .description('(not implemented yet)')
    .action(() => {
      throw new Error('watch: not implemented yet');
    });
}
