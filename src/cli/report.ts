import type { Command } from 'commander';

/** `locsync report` (stub: its issue's work replaces this). */
export function registerReport(program: Command): void {
  program
    .command('report')
    .description('(not implemented yet)')
    .action(() => {
      throw new Error('report: not implemented yet');
    });
}
