import type { EventInput } from '@fullcalendar/core';
import { Draggable } from '@fullcalendar/interaction';
import { useEffect, useRef } from 'preact/hooks';
import type { Post } from './api.ts';
import { STATES } from './states.ts';
import { postTitle } from './text.ts';
import { instantToZoned } from './zone-time.ts';

/** The posts a month's busy day holds beyond the ones it shows (its "+N more" entry carries `data-more-day`). */
export type MoreOpen = { day: string; label: string; posts: Post[] };

/**
 * The rest of a busy day, opened from its "+N more" entry: each post opens its detail (where the
 * keyboard moves it), and each one that may move is dragged from here to another day like the
 * posts the day shows (FullCalendar's external dragging: the calendar receives it as an event).
 */
export function MorePosts({
  open,
  zone,
  movable,
  eventOf,
  onOpen,
  onList,
  onClose,
}: {
  open: MoreOpen;
  zone: string;
  movable: (post: Post) => boolean;
  eventOf: (post: Post) => EventInput;
  onOpen: (post: Post) => void;
  onList: () => void;
  onClose: () => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const close = useRef<HTMLButtonElement>(null);
  const current = useRef(open);
  current.current = open;

  useEffect(() => {
    close.current?.focus();
  }, [open.day]);

  useEffect(() => {
    if (!list.current) return;
    const draggable = new Draggable(list.current, {
      itemSelector: '.more-post.movable',
      eventData: (el) => {
        const post = current.current.posts.find((p) => p.id === el.dataset.id)!;
        return { ...eventOf(post), create: true, startTime: el.dataset.time };
      },
    });
    return () => draggable.destroy();
  }, []);

  useEffect(() => {
    // Placed under the day's "+N more" entry, inside the calendar's box, again whenever the calendar lays itself out anew.
    const el = box.current!;
    const area = el.offsetParent as HTMLElement | null;
    if (!area) return;
    const place = () => {
      const entry = area.querySelector(`[data-more-day="${open.day}"]`);
      if (!entry) return;
      const at = entry.getBoundingClientRect();
      const origin = area.getBoundingClientRect();
      el.style.top = `${at.bottom - origin.top}px`;
      el.style.left = `${Math.max(0, Math.min(at.left - origin.left, area.clientWidth - el.offsetWidth))}px`;
    };
    place();
    const observer = new ResizeObserver(place);
    observer.observe(area);
    return () => observer.disconnect();
  }, [open.day]);

  return (
    <div
      ref={box}
      class="more-posts"
      role="dialog"
      aria-modal="false"
      aria-labelledby="more-posts-title"
      onKeyDown={(event) => event.key === 'Escape' && onClose()}
    >
      <div class="detail-head">
        <h2 id="more-posts-title">{open.label}</h2>
        <button type="button" class="secondary" ref={close} onClick={onClose}>
          Close
        </button>
      </div>
      <p class="muted">Drag a post to another day, or open it to move it with the keyboard.</p>
      <ul ref={list}>
        {open.posts.map((post) => {
          const state = STATES[post.state];
          const may = movable(post);
          return (
            <li
              key={post.id}
              class={`more-post state-${post.state.toLowerCase()}${may ? ' movable' : ''}`}
              data-id={post.id}
              data-time={timeOf(post)}
            >
              <button type="button" onClick={() => onOpen(post)}>
                {timeOf(post)} <span aria-hidden="true">{state.mark}</span> {postTitle(post.content)}
                <span class="visually-hidden"> ({state.label})</span>
              </button>
            </li>
          );
        })}
      </ul>
      <button type="button" class="secondary" onClick={onList}>
        Show the day's list
      </button>
    </div>
  );

  /** Its time of day in the calendar's zone (`HH:mm`): a drop keeps it on the new day. */
  function timeOf(post: Post): string {
    return instantToZoned(new Date(post.publishDate), zone).slice(11, 16);
  }
}
