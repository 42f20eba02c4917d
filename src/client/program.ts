import { InvalidArgumentError, type Command } from 'commander';
import { resolveSession } from './credentials.ts';
import { Api } from './http.ts';
import { refreshIfDue } from './oauth.ts';
import { fail, notice, type Out } from './output.ts';
import { reword, type Wording } from './wording.ts';

/** The options every command takes, merged with its own. */
export type Options = { json?: boolean; profile?: string; workspace?: string; tz?: string } & Record<string, unknown>;

export type Context = { out: Out; opts: Options; api(): Api };

/**
 * Wraps a command's handler: its options, its API client (made on first use) and its failures,
 * the API's refusals worded with the command's flags.
 */
export function act<A extends unknown[]>(handler: (ctx: Context, ...args: A) => Promise<void>, wording: Wording = []) {
  return async (...params: unknown[]) => {
    const command = params.at(-1) as Command;
    const opts = command.optsWithGlobals<Options>();
    const out = { json: Boolean(opts.json) };
    let api: Api | undefined;
    try {
      // A stored OAuth login about to expire is refreshed first (login and logout manage theirs).
      if (command.name() !== 'login' && command.name() !== 'logout') await refreshIfDue(opts.profile ?? 'default');
      await handler(
        { out, opts, api: () => (api ??= new Api(resolveSession({ profile: opts.profile, workspace: opts.workspace }), notice)) },
        ...(params.slice(0, -2) as A),
      );
    } catch (error) {
      reword(error, wording);
      fail(out, error);
    }
  };
}

/** Adds examples under a command's help. */
export function examples(command: Command, lines: string[]): Command {
  return command.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
}

/** Collects a repeated option into a list. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** A whole number within bounds, for options such as --page and --delay. */
export function integer(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n < min || n > max)
      throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}, not "${value}".`);
    return n;
  };
}

/** A path segment. */
export const seg = (value: string) => encodeURIComponent(value);
