import { Calendar, type EventClickArg, type EventDropArg, type EventInput } from '@fullcalendar/core';
import dayGridPlugin from '@fullcalendar/daygrid';
import interactionPlugin, { type EventReceiveArg } from '@fullcalendar/interaction';
import listPlugin from '@fullcalendar/list';
import luxonPlugin from '@fullcalendar/luxon3';
import timeGridPlugin from '@fullcalendar/timegrid';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiFailure, type Channel, type Post } from './api.ts';
import { MorePosts, type MoreOpen } from './calendar-more.tsx';
import { follow, navigate } from './navigate.ts';
import { mayCompose, mayMovePosts, type Viewer } from './roles.ts';
import { browserZone, STATES, ZONE_KEY } from './states.ts';
import { plainText, postTitle } from './text.ts';
import { formatInstant, instantToZoned, zonedToInstant } from './zone-time.ts';

const MOVABLE = new Set<Post['state']>(['DRAFT', 'AWAITING_APPROVAL', 'QUEUE', 'ERROR']);
const FIELDS = 'id,state,publishDate,integration,content,releaseURL,error';
/** Posts a month's day shows; beyond that, a "+N more" entry that opens the day's list. */
const DAY_POSTS = 4;

/** The "+N more" entry of a month's day: the day (YYYY-MM-DD in the calendar's zone) and how many posts it stands for. */
type More = { day: string; count: number };

/** Each instant's day (YYYY-MM-DD) in `zone`, as the calendar places it. */
function dayKey(zone: string): (iso: string) => string {
  const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
  return (iso) => {
    let year = '';
    let month = '';
    let day = '';
    for (const part of format.formatToParts(new Date(iso))) {
      if (part.type === 'year') year = part.value;
      else if (part.type === 'month') month = part.value;
      else if (part.type === 'day') day = part.value;
    }
    return `${year}-${month}-${day}`;
  };
}

function zones(current: string): string[] {
  const all = (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  return [...new Set([current, browserZone(), 'UTC', ...all])].sort();
}

type Shown = { post: Post; channel: Channel | undefined };

/** Posts in the calendar's own order within a day (`eventOrder`): by time, then by text (read only for posts at the same time). */
function inCalendarOrder(posts: Post[]): Post[] {
  const texts = new Map<Post, string>();
  const text = (post: Post) => texts.get(post) ?? texts.set(post, plainText(post.content)).get(post)!;
  return posts.sort((a, b) => {
    const at = Date.parse(a.publishDate) - Date.parse(b.publishDate);
    return at !== 0 ? at : text(a).localeCompare(text(b));
  });
}

export default function CalendarView({ viewer }: { viewer: Viewer }) {
  const host = useRef<HTMLDivElement>(null);
  const calendar = useRef<Calendar | null>(null);
  const [zone, setZone] = useState(() => localStorage.getItem(ZONE_KEY) || browserZone());
  const [channels, setChannels] = useState<Channel[]>([]);
  const [channelFilter, setChannelFilter] = useState('');
  const [groupFilter, setGroupFilter] = useState('');
  const [message, setMessage] = useState<{ text: string; bad: boolean } | null>(null);
  const [shown, setShown] = useState<Shown | null>(null);
  const [more, setMore] = useState<MoreOpen | null>(null);
  /** The posts each busy day of the month holds beyond the ones it shows, by day. */
  const hidden = useRef(new Map<string, Post[]>());
  /** The "+N more" entry the open list came from: focus goes back to it when the list closes. */
  const moreEntry = useRef<HTMLElement | null>(null);
  const canMove = mayMovePosts(viewer.role);
  const channelsById = useMemo(() => new Map(channels.map((c) => [c.id, c])), [channels]);
  const groups = useMemo(() => {
    const byId = new Map<string, string>();
    for (const c of channels) if (c.customer) byId.set(c.customer.id, c.customer.name);
    return [...byId].map(([id, name]) => ({ id, name }));
  }, [channels]);
  const filters = useRef({ channel: '', group: '', channelsById });
  filters.current = { channel: channelFilter, group: groupFilter, channelsById };

  useEffect(() => {
    api('get', '/integrations').then(setChannels, (error: unknown) => setMessage({ text: String((error as Error).message), bad: true }));
  }, []);

  useEffect(() => {
    if (!host.current) return;
    const narrow = window.matchMedia('(max-width: 40rem)').matches;
    /** A post opens its detail; a day's "+N more" opens the rest of the day, under the entry. */
    function openEntry(props: Record<string, unknown>, el: HTMLElement) {
      const { post, more } = props as { post?: Post; more?: More };
      if (more) {
        moreEntry.current = el;
        setMore({ day: more.day, label: `Posts on ${dayLabel(more.day)}`, posts: hidden.current.get(more.day) ?? [] });
      } else if (post) openPost(post);
    }

    const dayOf = dayKey(zone);
    const dayLabel = (day: string) => new Date(`${day}T12:00:00Z`).toLocaleDateString(undefined, { timeZone: 'UTC', dateStyle: 'long' });

    /** A month's posts: each day's first DAY_POSTS (in the calendar's order), then one "+N more" entry for the rest. */
    function monthEvents(posts: Post[]): EventInput[] {
      const byDay = new Map<string, Post[]>();
      for (const post of posts) {
        const day = dayOf(post.publishDate);
        const list = byDay.get(day);
        if (list) list.push(post);
        else byDay.set(day, [post]);
      }
      const events: EventInput[] = [];
      hidden.current = new Map();
      for (const [day, list] of byDay) {
        if (list.length <= DAY_POSTS) {
          for (const post of list) events.push(toEvent(post));
          continue;
        }
        const ordered = inCalendarOrder(list);
        for (const post of ordered.slice(0, DAY_POSTS)) events.push(toEvent(post));
        hidden.current.set(day, ordered.slice(DAY_POSTS));
        events.push({
          id: `more-${day}`,
          title: `+${list.length - DAY_POSTS} more`,
          start: day,
          allDay: true,
          editable: false,
          classNames: ['posts-more'],
          extendedProps: { order: 1, more: { day, count: list.length - DAY_POSTS } satisfies More },
        });
      }
      return events;
    }

    const cal = new Calendar(host.current, {
      plugins: [dayGridPlugin, timeGridPlugin, listPlugin, interactionPlugin, luxonPlugin],
      initialView: narrow ? 'listWeek' : 'dayGridMonth',
      timeZone: zone,
      headerToolbar: narrow
        ? { left: 'prev,next today', center: '', right: 'dayGridMonth,timeGridWeek,listWeek' }
        : { left: 'prev,next today', center: 'title', right: 'dayGridMonth,timeGridWeek,listWeek' },
      buttonText: { today: 'Today', month: 'Month', week: 'Week', list: 'List' },
      height: 'auto',
      nowIndicator: true,
      allDaySlot: false,
      // A week's day headers: short enough for a phone's seven columns.
      views: {
        timeGridWeek: {
          dayHeaderFormat: narrow ? { weekday: 'narrow', day: 'numeric' } : { weekday: 'short', day: 'numeric', month: 'numeric' },
        },
      },
      editable: canMove,
      // The rest of a busy day ("+N more") is dragged in from its own list (MorePosts).
      droppable: canMove,
      eventDurationEditable: false,
      eventStartEditable: canMove,
      // A month's busy day gets its first posts and one "+N more" entry (see monthEvents): the
      // calendar never draws, measures and hides the rest, which cost seconds with 1,000 posts.
      // The limit here only catches a day that fills up by dragging.
      dayMaxEvents: DAY_POSTS + 1,
      eventOrder: 'order,start,-duration,allDay,title',
      // Each view asks for its own range: a week or a day shown after the month must not reuse the month's shortened days.
      lazyFetching: false,
      displayEventEnd: false,
      eventTimeFormat: { hour: '2-digit', minute: '2-digit', hour12: false },
      slotLabelFormat: { hour: '2-digit', minute: '2-digit', hour12: false },
      // One call per visible range, with only the fields the calendar shows.
      events: (info, success, failure) => {
        const { channel, group } = filters.current;
        // Only the month view asks for more than a week.
        const month = info.end.getTime() - info.start.getTime() > 8 * 86_400_000;
        api('get', '/posts', {
          query: { startDate: info.start.toISOString(), endDate: info.end.toISOString(), fields: FIELDS, customer: group || undefined },
        }).then(
          (list) => {
            const posts = list.posts.filter((p) => !channel || p.integration.id === channel);
            success(month ? monthEvents(posts) : posts.map(toEvent));
          },
          (error: unknown) => {
            setMessage({ text: (error as Error).message, bad: true });
            failure(error as Error);
          },
        );
      },
      // The toolbar's icons are decoration (the buttons have names); day cells need no name of their own.
      datesSet: () => {
        // Another range or view: a busy day's list belongs to the range it was opened in.
        setMore(null);
        host.current?.querySelectorAll('.fc-icon').forEach((icon) => icon.setAttribute('aria-hidden', 'true'));
      },
      dayCellDidMount: (arg) => arg.el.removeAttribute('aria-labelledby'),
      // A click on a day (month) or a time (week) opens the composer there.
      dateClick: (arg) => {
        if (!mayCompose(viewer.role)) return;
        const at = arg.allDay ? new Date(arg.date.getTime() + 9 * 60 * 60_000) : arg.date;
        navigate(`/app/compose?date=${encodeURIComponent(at.toISOString())}`);
      },
      eventClick: (arg: EventClickArg) => {
        arg.jsEvent.preventDefault();
        openEntry(arg.event.extendedProps, arg.el);
      },
      eventDidMount: (arg) => {
        const { post, more } = arg.event.extendedProps as { post?: Post; more?: More };
        if (more) arg.el.dataset.moreDay = more.day;
        arg.el.setAttribute(
          'aria-label',
          more ? `${more.count} more posts on ${dayLabel(more.day)}: show them` : `${STATES[post!.state].label}: ${arg.event.title}`,
        );
        // Focus and Enter or Space come from the calendar itself: an event is interactive when there is an eventClick.
      },
      eventDrop: (arg: EventDropArg) => {
        const post = arg.event.extendedProps.post as Post;
        const date = arg.event.start!.toISOString();
        void move(post, date).then((moved) => (moved ? arg.event.setExtendedProp('post', moved) : arg.revert()));
      },
      // A post dragged out of a busy day's list: the calendar placed it at the same time of day on the day it was dropped on.
      eventReceive: (arg: EventReceiveArg) => {
        const post = arg.event.extendedProps.post as Post;
        const date = arg.event.start!.toISOString();
        if (dayOf(date) === dayOf(post.publishDate)) return arg.revert();
        // Moved, it comes back with the range's posts from the API; refused, it is taken off again and stays in the list.
        void move(post, date).then((moved) => (moved ? arg.event.remove() : arg.revert()));
      },
    });
    cal.render();
    calendar.current = cal;
    return () => {
      setMore(null);
      cal.destroy();
    };
  }, [zone, canMove]);

  function openPost(post: Post) {
    setShown({ post, channel: filters.current.channelsById.get(post.integration.id) });
  }

  const movable = (post: Post) => canMove && MOVABLE.has(post.state);

  /**
   * Moves a post to `date` through the API, for a drag and for the keyboard alike: says where it
   * went, or the API's refusal in words. Answers the moved post, or null when it stayed.
   */
  async function move(post: Post, date: string): Promise<Post | null> {
    try {
      await api('patch', '/posts/{id}', { params: { id: post.id }, body: { date } });
    } catch (error) {
      setMessage({ text: error instanceof ApiFailure ? error.message : 'The post could not be moved.', bad: true });
      return null;
    }
    setMessage({ text: `Moved to ${formatInstant(date, zone)}.`, bad: false });
    const moved = { ...post, publishDate: date };
    setShown((open) => (open?.post.id === post.id ? { ...open, post: moved } : open));
    // The days are drawn again from the API (a busy day's first posts and "+N more" follow the move); the post leaves a busy day's list.
    calendar.current?.refetchEvents();
    setMore((open) => {
      const posts = open?.posts.filter((p) => p.id !== post.id);
      return open && posts!.length > 0 ? { ...open, posts: posts! } : null;
    });
    return moved;
  }

  /** The keyboard's move (the detail panel's day field): the same time of day, in the calendar's zone, on another day. */
  async function moveToDay(post: Post, day: string): Promise<void> {
    const time = instantToZoned(new Date(post.publishDate), zone).slice(11, 16);
    await move(post, zonedToInstant(`${day}T${time}`, zone).toISOString());
  }

  // A filter changed: fetch the range again (not on the first render, whose range the calendar fetches itself: one call per range).
  const filtered = useRef(false);
  useEffect(() => {
    if (filtered.current) {
      setMore(null);
      calendar.current?.refetchEvents();
    }
    filtered.current = true;
  }, [channelFilter, groupFilter]);

  function toEvent(post: Post): EventInput {
    const state = STATES[post.state];
    return {
      id: post.id,
      title: `${state.mark} ${postTitle(post.content)}`,
      start: post.publishDate,
      allDay: false,
      startEditable: movable(post),
      classNames: ['post', `state-${post.state.toLowerCase()}`],
      extendedProps: { post, order: 0 },
    };
  }

  return (
    <section class="calendar-view" aria-labelledby="calendar-title">
      <div class="view-head">
        <h1 id="calendar-title">Calendar</h1>
        {mayCompose(viewer.role) && (
          <a class="button" href="/app/compose" onClick={follow}>
            New post
          </a>
        )}
      </div>
      <div class="toolbar">
        <label>
          Time zone
          <select
            value={zone}
            onChange={(e) => {
              const value = (e.target as HTMLSelectElement).value;
              localStorage.setItem(ZONE_KEY, value);
              setZone(value);
            }}
          >
            {zones(zone).map((z) => (
              <option value={z}>{z}</option>
            ))}
          </select>
        </label>
        <label>
          Channel
          <select value={channelFilter} onChange={(e) => setChannelFilter((e.target as HTMLSelectElement).value)}>
            <option value="">All channels</option>
            {channels.map((c) => (
              <option value={c.id}>{c.name}</option>
            ))}
          </select>
        </label>
        <label>
          Client group
          <select value={groupFilter} onChange={(e) => setGroupFilter((e.target as HTMLSelectElement).value)}>
            <option value="">All groups</option>
            {groups.map((g) => (
              <option value={g.id}>{g.name}</option>
            ))}
          </select>
        </label>
      </div>
      <ul class="legend" aria-label="States">
        {Object.entries(STATES).map(([key, s]) => (
          <li class={`state-${key.toLowerCase()}`}>
            <span aria-hidden="true">{s.mark}</span> {s.label}
          </li>
        ))}
      </ul>
      {!canMove && <p class="muted">Your role ({viewer.role}) can look at the calendar but not move posts.</p>}
      <p role="status" class={message ? `banner ${message.bad ? 'bad' : 'good'}` : 'visually-hidden'}>
        {message?.text ?? ''}
      </p>
      <div class="calendar-area">
        <div ref={host} class="calendar" />
        {more && (
          <MorePosts
            open={more}
            zone={zone}
            movable={movable}
            eventOf={toEvent}
            onOpen={openPost}
            onList={() => {
              calendar.current?.changeView('listDay', more.day);
              setMore(null);
            }}
            onClose={() => {
              setMore(null);
              if (moreEntry.current?.isConnected) moreEntry.current.focus();
            }}
          />
        )}
      </div>
      {shown && (
        <Detail
          shown={shown}
          zone={zone}
          onMove={movable(shown.post) ? (day) => moveToDay(shown.post, day) : undefined}
          onClose={() => setShown(null)}
        />
      )}
    </section>
  );
}

function Detail({
  shown,
  zone,
  onMove,
  onClose,
}: {
  shown: Shown;
  zone: string;
  onMove?: (day: string) => Promise<void>;
  onClose: () => void;
}) {
  const { post, channel } = shown;
  const close = useRef<HTMLButtonElement>(null);
  const day = instantToZoned(new Date(post.publishDate), zone).slice(0, 10);
  const [target, setTarget] = useState(day);
  const [busy, setBusy] = useState(false);
  useEffect(() => setTarget(day), [post.id, day]);
  useEffect(() => {
    close.current?.focus();
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && onClose();
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [post.id]);
  return (
    <aside class="detail" role="dialog" aria-modal="false" aria-labelledby="detail-title">
      <div class="detail-head">
        <h2 id="detail-title">
          <span class={`tag state-${post.state.toLowerCase()}`}>
            {STATES[post.state].mark} {STATES[post.state].label}
          </span>
        </h2>
        <button type="button" class="secondary" ref={close} onClick={onClose}>
          Close
        </button>
      </div>
      <dl class="facts">
        <dt>Channel</dt>
        <dd>{channel ? channel.name : post.integration.providerIdentifier}</dd>
        <dt>Time</dt>
        <dd>
          {new Date(post.publishDate).toLocaleString(undefined, { timeZone: zone, dateStyle: 'full', timeStyle: 'short' })} ({zone})
        </dd>
        {post.releaseURL && (
          <>
            <dt>Published</dt>
            <dd>
              <a href={post.releaseURL} rel="noopener noreferrer" target="_blank">
                {post.releaseURL}
              </a>
            </dd>
          </>
        )}
        {post.error && (
          <>
            <dt>Error</dt>
            <dd>{post.error}</dd>
          </>
        )}
      </dl>
      <p class="content">{plainText(post.content)}</p>
      {onMove && (
        <form
          class="move-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (target === day || !target) return;
            setBusy(true);
            void onMove(target).finally(() => setBusy(false));
          }}
        >
          <label>
            Move to day
            <input type="date" required value={target} onInput={(e) => setTarget((e.target as HTMLInputElement).value)} />
          </label>
          <button type="submit" disabled={busy}>
            Move
          </button>
        </form>
      )}
      <p>
        <a href={`/app/posts/${encodeURIComponent(post.id)}`} onClick={follow}>
          Open the post
        </a>
      </p>
    </aside>
  );
}
