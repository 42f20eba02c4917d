import type { PublishMedia } from '../providers/provider.ts';

/** A file of the media library, as posts see it. */
export type LibraryFile = {
  id: string;
  path: string;
  name: string;
  mimeType: string;
  size: number;
  width: number | null;
  height: number | null;
  durationMs: number | null;
};

/** What posts need from the media library: find files by their `path`, and read their bytes. */
export interface MediaLookup {
  findByPaths(workspaceId: string, paths: string[]): Promise<ReadonlyMap<string, LibraryFile>>;
  read(file: LibraryFile & { workspaceId?: string }, range?: { start: number; end: number }): Promise<Buffer>;
}

export function toPublishMedia(file: LibraryFile, read: PublishMedia['read']): PublishMedia {
  return {
    id: file.id,
    url: file.path,
    name: file.name,
    mimeType: file.mimeType,
    size: file.size,
    width: file.width,
    height: file.height,
    durationMs: file.durationMs,
    read,
  };
}

export function describeMedia(file: LibraryFile): Omit<PublishMedia, 'read'> {
  const { read: _read, ...described } = toPublishMedia(file, () => Promise.reject(new Error('not read')));
  return described;
}
