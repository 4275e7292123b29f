import type { Command } from 'commander';

/** `locsync validate` (stub: its issue's work replaces this). */
export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('(not implemented yet)')
    .action(() => {
      throw new Error('validate: not implemented yet');
    });
}
