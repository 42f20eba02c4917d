import { ApiFailure, csrf } from './api.ts';
import type { components } from '../client/api-types.ts';

export type UploadResult = components['schemas']['UploadResult'];

/**
 * Sends one file to the media library (POST /upload, multipart, the session with the CSRF
 * header), reporting progress as a fraction from 0 to 1; the composer and the media library both
 * upload through it. XMLHttpRequest, because fetch reports no upload progress.
 */
export function uploadFile(file: File, onProgress: (fraction: number) => void): Promise<UploadResult> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/public/v1/upload');
    xhr.setRequestHeader('x-herald-csrf', csrf());
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    });
    xhr.addEventListener('load', () => {
      let data: { msg?: string; message?: string; code?: string } & Partial<UploadResult> = {};
      try {
        data = JSON.parse(xhr.responseText) as typeof data;
      } catch {
        // An answer that is not JSON is reported by its status below.
      }
      if (xhr.status === 200 && data.id && data.path) {
        onProgress(1);
        resolve({ id: data.id, path: data.path });
      } else reject(new ApiFailure(xhr.status, data.code, data.msg ?? data.message ?? `The upload failed (${xhr.status}).`));
    });
    xhr.addEventListener('error', () => reject(new ApiFailure(0, undefined, 'The upload did not reach the server; check the connection.')));
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}
