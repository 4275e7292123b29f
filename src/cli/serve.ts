import type { Command } from 'commander';

/** `locsync serve`: the local service (src/service). Filled in by the local-service work. */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Run the local translation service (the whole spec, no account, no network)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port)', '8787')
    .action(() => {
      throw new Error('serve: not implemented yet');
    });
}
