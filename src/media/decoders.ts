import { createRequire } from 'node:module';
import type * as FileType from 'file-type';
import type * as ImageSize from 'image-size';

// The file-type and image size readers are loaded with the first upload, not at start-up.

let fileType: Promise<typeof FileType> | undefined;

export async function fileTypeFromBuffer(buffer: Uint8Array): ReturnType<typeof FileType.fileTypeFromBuffer> {
  return (await (fileType ??= import('file-type'))).fileTypeFromBuffer(buffer);
}

const require = createRequire(import.meta.url);
let imageSizeModule: typeof ImageSize | undefined;

/** Synchronous, as image-size is: its CommonJS build is required on first use. */
export function imageSize(input: Uint8Array): ReturnType<typeof ImageSize.imageSize> {
  return (imageSizeModule ??= require('image-size') as typeof ImageSize).imageSize(input);
}
