import { createInterface } from 'node:readline/promises';

/**
 * Ask a yes/no question on the terminal (stderr, so stdout stays the command's output). Off a
 * terminal nobody can answer: false.
 */
export async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
