import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { readStdin } from './content.ts';
import { UsageError } from './errors.ts';
import { stdio } from './stdio.ts';

/**
 * A secret from the person: typed at a prompt that does not echo it on a terminal, or read whole
 * from standard input when it is piped. Never from argv, where other users see it with `ps`.
 */
export async function readSecret(prompt: string): Promise<string> {
  if (!stdio().stdin.isTTY) {
    const secret = (await readStdin()).trim();
    if (!secret)
      throw new UsageError(
        'No API key on standard input: pipe it in (e.g. `herald login --key < key.txt`) or run the command in a terminal to type it.',
      );
    return secret;
  }
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (!muted) stdio().stderr.write(chunk);
      callback();
    },
  });
  const rl = createInterface({ input: stdio().stdin, output, terminal: true });
  try {
    const answer = await new Promise<string>((resolve) => {
      rl.question(prompt, resolve);
      muted = true;
    });
    stdio().stderr.write('\n');
    if (!answer.trim()) throw new UsageError('No API key typed.');
    return answer.trim();
  } finally {
    rl.close();
  }
}
