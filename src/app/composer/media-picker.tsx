import { useRef, useState } from 'preact/hooks';
import type { components } from '../../client/api-types.ts';
import { api } from '../api.ts';
import { DropZone } from '../shared/drop-zone.tsx';
import { uploadFile } from '../upload.ts';

type Media = components['schemas']['Media'];

/** A file attached to the post, with the alt text the person wrote for it. */
export type Attached = { id: string; path: string; name: string; type: 'image' | 'video'; mimeType?: string; alt: string };
type Sending = { key: number; name: string; fraction: number; error: string | null };

let sendingKey = 0;

/**
 * The post's media: files dropped here (or chosen) are uploaded to the library with a progress
 * bar; files already in the library are picked from a grid; each file gets its alt text when a
 * chosen channel's platform takes alt text (`altFor`, their names), and only then.
 */
export function MediaPicker({
  media,
  onChange,
  altFor,
  altNotFor,
  altMax,
}: {
  media: Attached[];
  onChange: (media: Attached[]) => void;
  altFor: string[];
  /** The chosen channels whose platforms take no alt text. */
  altNotFor: string[];
  /** The shortest limit of those platforms (Infinity when none says). */
  altMax: number;
}) {
  const altTaken = altFor.length > 0;
  const [sending, setSending] = useState<Sending[]>([]);
  const [library, setLibrary] = useState<Media[] | null>(null);
  const [libraryError, setLibraryError] = useState<string | null>(null);
  // The latest list, for uploads that finish after other changes.
  const current = useRef(media);
  current.current = media;

  function attach(file: Attached) {
    if (current.current.some((m) => m.path === file.path)) return;
    current.current = [...current.current, file];
    onChange(current.current);
  }

  function send(files: FileList | File[]) {
    for (const file of [...files]) {
      const key = ++sendingKey;
      setSending((all) => [...all, { key, name: file.name, fraction: 0, error: null }]);
      uploadFile(file, (fraction) => setSending((all) => all.map((s) => (s.key === key ? { ...s, fraction } : s)))).then(
        (uploaded) => {
          setSending((all) => all.filter((s) => s.key !== key));
          attach({
            id: uploaded.id,
            path: uploaded.path,
            name: file.name,
            type: file.type.startsWith('video/') ? 'video' : 'image',
            mimeType: file.type,
            alt: '',
          });
        },
        (error: unknown) => setSending((all) => all.map((s) => (s.key === key ? { ...s, error: (error as Error).message } : s))),
      );
    }
  }

  function openLibrary() {
    if (library) return setLibrary(null);
    setLibraryError(null);
    api('get', '/media', { query: { page: '0', pageSize: '24' } }).then(
      (page) => setLibrary(page.results),
      (error: unknown) => setLibraryError((error as Error).message),
    );
  }

  return (
    <fieldset class="media-picker">
      <legend>Media</legend>
      <DropZone onFiles={send}>
        <p>Drop images or videos here, or</p>
        <label class="button secondary file-button">
          Choose files
          <input
            type="file"
            class="visually-hidden"
            multiple
            accept="image/*,video/mp4"
            onChange={(e) => {
              const input = e.target as HTMLInputElement;
              if (input.files?.length) send(input.files);
              input.value = '';
            }}
          />
        </label>
        <button type="button" class="secondary" aria-expanded={library !== null} onClick={openLibrary}>
          {library ? 'Close the library' : 'From the library'}
        </button>
      </DropZone>
      {sending.map((s) => (
        <div class="uploading">
          <label for={`upload-${s.key}`}>{s.name}</label>
          {s.error ? (
            <p class="banner bad">
              {s.error}{' '}
              <button type="button" class="link" onClick={() => setSending((all) => all.filter((x) => x.key !== s.key))}>
                Dismiss
              </button>
            </p>
          ) : (
            <progress id={`upload-${s.key}`} max={100} value={Math.round(s.fraction * 100)}>
              {Math.round(s.fraction * 100)}%
            </progress>
          )}
        </div>
      ))}
      {libraryError && <p class="banner bad">{libraryError}</p>}
      {library && (
        <ul class="library-grid" aria-label="Media library">
          {library.length === 0 && <li class="muted">The library is empty.</li>}
          {library.map((file) => {
            const chosen = media.some((m) => m.path === file.path);
            return (
              <li>
                <button
                  type="button"
                  class="secondary pick"
                  aria-pressed={chosen}
                  onClick={() =>
                    chosen
                      ? onChange(media.filter((m) => m.path !== file.path))
                      : attach({ id: file.id, path: file.path, name: file.name, type: file.type, mimeType: file.mimeType, alt: '' })
                  }
                >
                  {file.type === 'image' ? <img src={file.path} alt="" /> : <span class="tag">Video</span>}
                  <span class="name">{file.name}</span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {media.length > 0 && (
        <ul class="attached">
          {media.map((m, i) => (
            <li>
              {m.type === 'image' ? <img src={m.path} alt="" /> : <span class="tag">Video</span>}
              <div class="attached-fields">
                <span class="name">{m.name}</span>
                {altTaken && (
                  <>
                    <label for={`alt-${i}`}>Alt text</label>
                    <input
                      id={`alt-${i}`}
                      type="text"
                      aria-describedby="alt-for"
                      value={m.alt}
                      onInput={(e) => onChange(media.map((x, j) => (j === i ? { ...x, alt: (e.target as HTMLInputElement).value } : x)))}
                    />
                  </>
                )}
                <button type="button" class="secondary" onClick={() => onChange(media.filter((_, j) => j !== i))}>
                  Remove {m.name}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {media.length > 0 &&
        (altTaken ? (
          <p class="muted" id="alt-for">
            Alt text goes to {altFor.join(', ')}
            {Number.isFinite(altMax) ? ` (up to ${altMax} characters)` : ''}
            {altNotFor.length > 0
              ? `; not to ${altNotFor.join(', ')}, whose platform${altNotFor.length > 1 ? 's take' : ' takes'} none`
              : ''}
            .
          </p>
        ) : (
          <p class="muted">None of the chosen channels' platforms takes alt text (Mastodon, Bluesky, X… do).</p>
        ))}
    </fieldset>
  );
}
