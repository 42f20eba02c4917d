/** Compiles the sources into dist/build-<id>/ and returns the entry file. */
export function build(root?: string, id?: string | null): Promise<string>;
/** The compiled entry file for the sources as they are now, building it first when needed. */
export function ensureBuilt(root?: string): Promise<string>;
