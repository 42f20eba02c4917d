import type { Channel } from '../api.ts';
import { useRef } from 'preact/hooks';
import { counterText, countText, type ChannelSettings } from './counting.ts';
import type { ExactCount } from './server-counts.ts';

export type PreviewMedia = { path: string; name: string; type: 'image' | 'video'; alt: string };

/** Platforms whose posts the preview dresses in their own colour; others look neutral. */
const LOOKS = new Set(['x', 'bluesky', 'mastodon', 'linkedin', 'facebook', 'instagram', 'threads', 'telegram', 'discord', 'slack']);

/** A channel's picture when it is on this site (the page's CSP allows no other origin); its initial otherwise. */
export function Avatar({ channel }: { channel: Channel }) {
  const local = channel.picture && new URL(channel.picture, location.href).origin === location.origin;
  if (local) return <img class="avatar" src={channel.picture} alt="" />;
  return (
    <span class="avatar" aria-hidden="true">
      {[...channel.name.trim()][0]?.toUpperCase() ?? '?'}
    </span>
  );
}

/**
 * How the post will look on one channel: its name and handle, the text as text (never markup),
 * the media with their alt text, the comments under it, and the counter in the platform's unit.
 */
export function Preview({
  channel,
  info,
  exact,
  text,
  media,
  comments,
}: {
  channel: Channel;
  info: ChannelSettings | undefined;
  /** The server's count of this text as the platform counts it, once it has answered for this text. */
  exact?: ExactCount | undefined;
  text: string;
  media: PreviewMedia[];
  comments: Array<{ text: string; delay: number }>;
}) {
  const limit = exact ? { max: exact.max, unit: exact.unit } : info?.textLimit;
  const used = exact ? exact.length : info ? countText(text.trim(), info.textLimit.unit) : 0;
  const over = exact ? exact.over : info ? used > info.textLimit.max : false;
  // Said to screen readers only from the server's count (after a pause in typing), and only when it goes over or back.
  const wasOver = useRef(false);
  let spoken = '';
  if (exact?.over) spoken = `${channel.name}: the text is ${exact.length - exact.max} over the limit of ${exact.max}.`;
  else if (exact && wasOver.current) spoken = `${channel.name}: the text is within the limit again.`;
  if (exact) wasOver.current = exact.over;
  const tooMany = info ? media.length > info.media.maxItems : false;
  return (
    <article
      class={`preview look-${LOOKS.has(channel.identifier) ? channel.identifier : 'plain'}`}
      aria-label={`Preview on ${channel.name}`}
    >
      <header>
        <Avatar channel={channel} />
        <span class="who">
          <strong>{channel.name}</strong>
          <span class="muted">{channel.profile ? `@${channel.profile}` : channel.identifier}</span>
        </span>
      </header>
      <p class="preview-text">{text.trim() || <span class="muted">(no text)</span>}</p>
      {media.length > 0 && (
        <ul class="preview-media">
          {media.map((m) => (
            <li>{m.type === 'image' ? <img src={m.path} alt={m.alt} /> : <span class="tag">Video: {m.name}</span>}</li>
          ))}
        </ul>
      )}
      {comments
        .filter((c) => c.text.trim())
        .map((c) => (
          <p class="preview-comment">
            <span class="muted">{c.delay ? `Comment, ${c.delay} min later: ` : 'Comment: '}</span>
            {c.text.trim()}
          </p>
        ))}
      <footer>
        {info && limit ? (
          <span
            class={over ? 'counter over' : 'counter'}
            data-channel={channel.id}
            data-counted={exact ? 'server' : 'estimate'}
            title={exact ? `Counted as ${info.name} counts it` : 'An estimate until the server has counted it'}
          >
            {counterText(used, limit)}
            {over && ' — too long'}
          </span>
        ) : (
          <span class="muted">Reading the platform's limits…</span>
        )}
        <span class="visually-hidden" aria-live="polite">
          {spoken}
        </span>
        {tooMany && info && <span class="counter over"> · at most {info.media.maxItems} files</span>}
      </footer>
    </article>
  );
}
