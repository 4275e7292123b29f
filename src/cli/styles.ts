import type { Command } from 'commander';

/** `locsync styles` (stub: its issue's work replaces this). */
export function registerStyles(program: Command): void {
  program
    .command('styles')
    .description('(not implemented yet)')
    .action(() => {
      throw new Error('styles: not implemented yet');
    });
}
