import { ApiFailure, csrf } from '../api.ts';

/** A file in the library, as POST /upload answers. */
export type Uploaded = { id: string; path: string };

/**
 * Sends one file to the media library (POST /upload, multipart) with the session and the CSRF
 * header, reporting progress as a fraction (XMLHttpRequest, since fetch reports no upload progress).
 */
export function uploadFile(file: File, onProgress: (fraction: number) => void): Promise<Uploaded> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/public/v1/upload');
    xhr.setRequestHeader('x-herald-csrf', csrf());
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    xhr.onerror = () => reject(new ApiFailure(0, undefined, 'The upload was interrupted (no answer from the server). Try again.'));
    xhr.onload = () => {
      let data: { id?: string; path?: string; msg?: string; message?: string; code?: string } = {};
      try {
        data = JSON.parse(xhr.responseText || '{}') as typeof data;
      } catch {
        // An answer that is not JSON is reported by its status below.
      }
      if (xhr.status === 200 && data.id && data.path) {
        onProgress(1);
        resolve({ id: data.id, path: data.path });
      } else reject(new ApiFailure(xhr.status, data.code, data.msg ?? data.message ?? `The upload failed (${xhr.status}).`));
    };
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}
