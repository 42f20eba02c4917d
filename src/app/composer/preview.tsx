import type { Channel } from '../api.ts';
import { counterText, countText, type ChannelSettings } from './counting.ts';

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
  text,
  media,
  comments,
}: {
  channel: Channel;
  info: ChannelSettings | undefined;
  text: string;
  media: PreviewMedia[];
  comments: Array<{ text: string; delay: number }>;
}) {
  const used = info ? countText(text.trim(), info.textLimit.unit) : 0;
  const over = info ? used > info.textLimit.max : false;
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
        {info ? (
          <span class={over ? 'counter over' : 'counter'} data-channel={channel.id}>
            {counterText(used, info.textLimit)}
            {over && ' — too long'}
          </span>
        ) : (
          <span class="muted">Reading the platform's limits…</span>
        )}
        {tooMany && info && <span class="counter over"> · at most {info.media.maxItems} files</span>}
      </footer>
    </article>
  );
}
