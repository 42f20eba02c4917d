/** Compiles the sources into dist/build-<id>/ and returns the entry file `name` (cli or user). */
export function build(root?: string, id?: string | null, name?: 'cli' | 'user'): Promise<string>;
/** The compiled entry file `name` for the sources as they are now, building it first when needed. */
export function ensureBuilt(root?: string, name?: 'cli' | 'user'): Promise<string>;
