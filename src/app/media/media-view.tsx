import { useEffect, useRef, useState } from 'preact/hooks';
import type { components } from '../../client/api-types.ts';
import { api, ApiFailure, type Media } from '../api.ts';
import { mayUseMedia, type Viewer } from '../roles.ts';
import { Banner, type Message } from '../shared/banner.tsx';
import { DropZone } from '../shared/drop-zone.tsx';
import { bytes, messageOf, when } from '../shared/format.ts';
import { uploadFile } from '../upload.ts';

type UploadLink = components['schemas']['UploadLink'];
type LinkFile = components['schemas']['UploadLinkFile'];
type Sending = { key: string; name: string; progress: number; error: string | null };

const PAGE_SIZE = 24;
/** How often an open upload link is asked what arrived. */
const LINK_POLL_MS = 3000;

/** The media library: a grid of thumbnails, search by name, upload with progress, delete, upload links. */
export default function MediaView({ viewer }: { viewer: Viewer }) {
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(0);
  const [files, setFiles] = useState<{ results: Media[]; pages: number; total: number } | null>(null);
  const [sending, setSending] = useState<Sending[]>([]);
  const [message, setMessage] = useState<Message>(null);
  const [reload, setReload] = useState(0);
  const canUse = mayUseMedia(viewer.role);

  // The search is sent once the person stops typing for a moment.
  useEffect(() => {
    const timer = setTimeout(() => {
      setQuery(search.trim());
      setPage(0);
    }, 250);
    return () => clearTimeout(timer);
  }, [search]);

  useEffect(() => {
    if (!canUse) return;
    let live = true;
    api('get', '/media', { query: { page: String(page), pageSize: String(PAGE_SIZE), search: query || undefined } }).then(
      (result) => live && setFiles(result),
      (error: unknown) => live && setMessage({ text: messageOf(error), bad: true }),
    );
    return () => {
      live = false;
    };
  }, [page, query, reload, canUse]);

  if (!canUse) {
    return (
      <section aria-labelledby="media-title">
        <h1 id="media-title">Media library</h1>
        <p class="muted">
          Your role ({viewer.role}) cannot use the media library: it takes a contributor, an editor, an admin or an owner.
        </p>
      </section>
    );
  }

  async function send(list: FileList | File[]) {
    const chosen = [...list];
    const keyed = chosen.map((file, i) => ({ file, key: `${Date.now()}-${i}-${file.name}` }));
    setSending((s) => [...s, ...keyed.map(({ file, key }) => ({ key, name: file.name, progress: 0, error: null }))]);
    const update = (key: string, change: Partial<Sending>) => setSending((s) => s.map((x) => (x.key === key ? { ...x, ...change } : x)));
    let sent = 0;
    for (const { file, key } of keyed) {
      try {
        await uploadFile(file, (progress) => update(key, { progress }));
        sent++;
        setSending((s) => s.filter((x) => x.key !== key));
      } catch (error) {
        update(key, { error: messageOf(error) });
      }
    }
    if (sent) {
      setMessage({ text: sent === 1 ? `${keyed[0]!.file.name} is in the library.` : `${sent} files are in the library.`, bad: false });
      setPage(0);
      setReload((n) => n + 1);
    }
  }

  async function remove(file: Media) {
    if (!window.confirm(`Delete ${file.name} from the library? Posts already published keep their copy.`)) return;
    try {
      await api('delete', '/media/{id}', { params: { id: file.id } });
      setMessage({ text: `${file.name} was deleted.`, bad: false });
      setReload((n) => n + 1);
    } catch (error) {
      const text =
        error instanceof ApiFailure && error.status === 409
          ? `${file.name} is attached to posts not yet published; remove it from them first. (${error.message})`
          : messageOf(error);
      setMessage({ text, bad: true });
    }
  }

  return (
    <section class="media-view" aria-labelledby="media-title">
      <h1 id="media-title">Media library</h1>
      <div class="toolbar">
        <label>
          Search by name
          <input type="search" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} />
        </label>
        <label class="button-like">
          Upload files
          <input
            type="file"
            class="visually-hidden"
            multiple
            accept="image/*,video/mp4"
            onChange={(e) => {
              const input = e.target as HTMLInputElement;
              if (input.files?.length) void send(input.files);
              input.value = '';
            }}
          />
        </label>
      </div>
      <DropZone onFiles={(list) => void send(list)}>Drop images or MP4 videos here</DropZone>
      {sending.length > 0 && (
        <ul class="uploads" aria-label="Uploads">
          {sending.map((s) => (
            <li>
              <span class="name">{s.name}</span>
              {s.error ? (
                <span class="error-text">{s.error}</span>
              ) : (
                <progress max={1} value={s.progress} aria-label={`Uploading ${s.name}`} />
              )}
              {s.error && (
                <button type="button" class="secondary" onClick={() => setSending((all) => all.filter((x) => x.key !== s.key))}>
                  Dismiss
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <Banner message={message} />
      <UploadLinkPanel onArrived={() => setReload((n) => n + 1)} />
      {files === null ? (
        <p class="muted">Loading the library…</p>
      ) : files.results.length === 0 ? (
        <p class="muted">
          {query ? `No file's name contains “${query}”.` : 'The library is empty: upload a file or share an upload link.'}
        </p>
      ) : (
        <>
          <p class="muted">
            {files.total === 1 ? '1 file' : `${files.total} files`}
            {query ? ` whose name contains “${query}”` : ''}
          </p>
          <ul class="media-grid">
            {files.results.map((file) => (
              <li class="media-card">
                <a href={file.path} target="_blank" rel="noopener noreferrer" class="thumb">
                  {file.type === 'image' ? (
                    <img src={file.path} alt={file.name} loading="lazy" />
                  ) : (
                    <video src={file.path} preload="metadata" muted aria-label={file.name} />
                  )}
                </a>
                <p class="name" title={file.name}>
                  {file.name}
                </p>
                <p class="muted small">
                  {file.type === 'video' ? 'Video' : 'Image'} · {bytes(file.size)}
                  {file.width && file.height ? ` · ${file.width}×${file.height}` : ''}
                  <br />
                  {when(file.createdAt)}
                </p>
                <button type="button" class="danger" onClick={() => void remove(file)} aria-label={`Delete ${file.name}`}>
                  Delete
                </button>
              </li>
            ))}
          </ul>
          {files.pages > 1 && (
            <nav class="pager" aria-label="Pages">
              <button type="button" class="secondary" disabled={page === 0} onClick={() => setPage(page - 1)}>
                Newer
              </button>
              <span>
                Page {page + 1} of {files.pages}
              </span>
              <button type="button" class="secondary" disabled={page + 1 >= files.pages} onClick={() => setPage(page + 1)}>
                Older
              </button>
            </nav>
          )}
        </>
      )}
    </section>
  );
}

/** Create an upload link, copy it, and watch what people send through it. */
function UploadLinkPanel({ onArrived }: { onArrived: () => void }) {
  const [link, setLink] = useState<UploadLink | null>(null);
  const [arrived, setArrived] = useState<LinkFile[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const seen = useRef(0);

  useEffect(() => {
    if (!link) return;
    let live = true;
    const look = () =>
      api('get', '/upload-link/{id}', { params: { id: link.id } }).then(
        (contents) => {
          if (!live) return;
          setArrived(contents.files);
          if (contents.count > seen.current) {
            seen.current = contents.count;
            onArrived();
          }
        },
        (e: unknown) => live && setError(messageOf(e)),
      );
    void look();
    const timer = setInterval(() => void look(), LINK_POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [link?.id]);

  async function create() {
    setError(null);
    try {
      const created = (await api('post', '/upload-link')) as unknown as UploadLink;
      seen.current = 0;
      setArrived([]);
      setCopied(false);
      setLink(created);
    } catch (e) {
      setError(messageOf(e));
    }
  }

  return (
    <details class="upload-link">
      <summary>Ask someone for files (upload link)</summary>
      <p class="muted">
        A page where anyone with the link can add files to this library, for two hours. It cannot read the library or post.
      </p>
      {!link ? (
        <button type="button" onClick={() => void create()}>
          Create an upload link
        </button>
      ) : (
        <>
          <p class="link-row">
            <code class="link-url">{link.url}</code>
            <button
              type="button"
              class="secondary"
              onClick={() =>
                navigator.clipboard?.writeText(link.url).then(
                  () => setCopied(true),
                  () => setCopied(false),
                )
              }
            >
              {copied ? 'Copied' : 'Copy'}
            </button>
          </p>
          <p class="muted small">Works until {when(link.expiresAt)}. This page checks every few seconds for new files.</p>
          <p aria-live="polite">{arrived.length === 0 ? 'Nothing has arrived yet.' : `${arrived.length} arrived:`}</p>
          {arrived.length > 0 && (
            <ul class="arrived">
              {arrived.map((f) => (
                <li>{f.name}</li>
              ))}
            </ul>
          )}
        </>
      )}
      {error && <p class="error-text">{error}</p>}
    </details>
  );
}
