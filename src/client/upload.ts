import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { components } from './api-types.ts';
import { UsageError } from './errors.ts';
import type { Api } from './http.ts';
import { unreadable } from './content.ts';
import { bytes } from './output.ts';
import { stdio } from './stdio.ts';

type UploadResult = components['schemas']['UploadResult'];

const TYPES: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.bmp': 'image/bmp',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.mp4': 'video/mp4',
};

/** Checks every file before the first is sent, so a typo does not leave half a batch uploaded. */
export function checkFiles(files: string[]): Array<{ file: string; size: number }> {
  return files.map(checkFile);
}

/** A local file that can be sent, with its size; a UsageError says why one cannot. */
export function checkFile(file: string): { file: string; size: number } {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    throw new UsageError(unreadable(file, error));
  }
  if (!stat.isFile()) throw new UsageError(`${file} is not a regular file.`);
  try {
    fs.accessSync(file, fs.constants.R_OK);
  } catch (error) {
    throw new UsageError(unreadable(file, error));
  }
  return { file, size: stat.size };
}

/** A progress bar on standard error, drawn only when it is a terminal. */
export function progressBar(label: string, total: number): (sent: number, done?: boolean) => void {
  if (!stdio().stderr.isTTY) return () => {};
  let last = -1;
  return (sent, done = false) => {
    const percent = total ? Math.floor((sent / total) * 100) : 100;
    if (percent === last && !done) return;
    last = percent;
    const width = 24;
    const filled = Math.round((percent / 100) * width);
    stdio().stderr.write(
      `\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(percent).padStart(3)}% ${bytes(sent)}/${bytes(total)}${done ? '\n' : ''}`,
    );
  };
}

/** Sends one file as `multipart/form-data` (part `file`), streamed, reporting the bytes sent. */
export function uploadFile(api: Api, file: string, size: number, onProgress: (sent: number) => void): Promise<UploadResult> {
  const boundary = `----herald${randomBytes(12).toString('hex')}`;
  const name = path.basename(file).replace(/["\r\n]/g, '_');
  const type = TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* body(): AsyncGenerator<Uint8Array> {
    let sent = 0;
    yield head;
    for await (const chunk of fs.createReadStream(file, { highWaterMark: 64 * 1024 })) {
      sent += (chunk as Buffer).length;
      onProgress(sent);
      yield chunk as Buffer;
    }
    yield tail;
  }
  return api.request<UploadResult>('POST', '/upload', {
    // The library keeps one copy of identical content, so sending a file again after a failure is safe.
    retry: true,
    raw: () => ({ body: body(), contentType: `multipart/form-data; boundary=${boundary}`, length: head.length + size + tail.length }),
  });
}
