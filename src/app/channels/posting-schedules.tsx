import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../client/api-types.ts';
import { api, type Channel } from '../api.ts';
import { Banner, type Message } from '../shared/banner.tsx';
import { messageOf } from '../shared/format.ts';
import { formatInstant } from '../zone-time.ts';

type Schedule = components['schemas']['PostingSchedule'];
type Slot = components['schemas']['PostingSlot'];
type Day = Slot['day'];

const DAYS: Day[] = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const dayLabel = (day: Day) => `${day[0]!.toUpperCase()}${day.slice(1)}`;

/** The workspace's default schedule, or a channel's. */
const WORKSPACE = '';

/** Where a schedule comes from, in words. */
function sourceText(schedule: Schedule, isChannel: boolean): string {
  if (!isChannel) return schedule.source === 'default' ? "Herald's built-in default: no default set for this workspace yet." : '';
  if (schedule.source === 'channel') return 'This channel has its own schedule.';
  return schedule.source === 'workspace'
    ? "This channel uses the workspace's default schedule. Saving here gives it its own."
    : "This channel uses Herald's built-in default. Saving here gives it its own.";
}

/** The time zones the browser knows, for the field's suggestions. */
function timeZones(): string[] {
  const supported = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf;
  return supported ? supported('timeZone') : ['UTC'];
}

/**
 * The posting schedules: the workspace's default and each channel's own weekly slots in a time
 * zone (what `type: "queue"` fills, and the next free slot), read and set through the public
 * schedule endpoints. Owners and admins change them; other roles read them.
 */
export function PostingSchedules({ channels, canManage }: { channels: Channel[]; canManage: boolean }) {
  const [target, setTarget] = useState<string>(WORKSPACE);
  const [schedule, setSchedule] = useState<Schedule | null>(null);
  const [zone, setZone] = useState('UTC');
  const [slots, setSlots] = useState<Slot[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const [busy, setBusy] = useState(false);
  const channel = channels.find((c) => c.id === target);

  function show(read: Schedule) {
    setSchedule(read);
    setZone(read.timeZone);
    setSlots(read.slots.map((s) => ({ ...s })));
  }

  async function load(id: string) {
    setSchedule(null);
    setNext(null);
    try {
      show(id === WORKSPACE ? await api('get', '/schedule') : await api('get', '/integrations/{id}/schedule', { params: { id } }));
      if (id !== WORKSPACE)
        setNext(
          await api('get', '/find-slot/{channelId}', { params: { channelId: id } }).then(
            (slot) => slot.date,
            () => null,
          ),
        );
    } catch (error) {
      setMessage({ text: messageOf(error), bad: true });
    }
  }

  useEffect(() => {
    void load(target);
  }, [target]);

  async function save(event: Event) {
    event.preventDefault();
    setBusy(true);
    const body = { timeZone: zone.trim(), slots };
    try {
      show(
        target === WORKSPACE
          ? await api('put', '/schedule', { body })
          : await api('put', '/integrations/{id}/schedule', { params: { id: target }, body }),
      );
      setMessage({ text: `${channel ? `${channel.name}'s schedule` : "The workspace's default schedule"} is saved.`, bad: false });
      if (target !== WORKSPACE) await load(target);
    } catch (error) {
      setMessage({ text: messageOf(error), bad: true });
    } finally {
      setBusy(false);
    }
  }

  async function useDefault() {
    if (!channel) return;
    setBusy(true);
    try {
      await api('delete', '/integrations/{id}/schedule', { params: { id: channel.id } });
      setMessage({ text: `${channel.name} now uses the workspace's default schedule.`, bad: false });
      await load(channel.id);
    } catch (error) {
      setMessage({ text: messageOf(error), bad: true });
    } finally {
      setBusy(false);
    }
  }

  const change = (i: number, patch: Partial<Slot>) => setSlots(slots.map((slot, j) => (j === i ? { ...slot, ...patch } : slot)));
  const add = () => setSlots([...slots, { day: slots.at(-1)?.day ?? 'monday', time: '09:00' }]);
  const removeSlot = (i: number) => setSlots(slots.filter((_, j) => j !== i));
  const readOnly = !canManage || busy;

  return (
    <section class="posting-schedules" aria-labelledby="schedules-title">
      <h2 id="schedules-title">Posting schedules</h2>
      <p class="muted small">
        Posts added to the queue take the next free slot of their channel's weekly schedule, in its time zone. A channel without a schedule
        of its own uses the workspace's default.
      </p>
      <Banner message={message} />
      <label for="schedule-of">Schedule of</label>
      <select id="schedule-of" value={target} onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}>
        <option value={WORKSPACE}>The workspace (default)</option>
        {channels.map((c) => (
          <option value={c.id}>{c.name}</option>
        ))}
      </select>
      {schedule === null ? (
        <p class="muted">Loading the schedule…</p>
      ) : (
        <form
          class="schedule-editor"
          onSubmit={(e) => void save(e)}
          aria-label={channel ? `${channel.name}'s schedule` : 'Default schedule'}
        >
          {sourceText(schedule, channel !== undefined) && <p class="muted small">{sourceText(schedule, channel !== undefined)}</p>}
          {channel && (
            <p>
              {next
                ? `Next free slot: ${formatInstant(next, schedule.timeZone)} (${schedule.timeZone}).`
                : 'No free slot in the coming year.'}
            </p>
          )}
          <label for="schedule-zone">Time zone</label>
          <input
            id="schedule-zone"
            type="text"
            list="schedule-zones"
            required
            maxLength={64}
            value={zone}
            disabled={readOnly}
            onInput={(e) => setZone((e.target as HTMLInputElement).value)}
          />
          <datalist id="schedule-zones">
            {timeZones().map((z) => (
              <option value={z} />
            ))}
          </datalist>
          <fieldset>
            <legend>Weekly slots</legend>
            {slots.length === 0 && <p class="muted small">No slot: nothing is queued on it.</p>}
            <ol class="slot-list">
              {slots.map((slot, i) => (
                <li class="inline-fields">
                  <label for={`slot-day-${i}`} class="visually-hidden">
                    Day of slot {i + 1}
                  </label>
                  <select
                    id={`slot-day-${i}`}
                    value={slot.day}
                    disabled={readOnly}
                    onChange={(e) => change(i, { day: (e.target as HTMLSelectElement).value as Day })}
                  >
                    {DAYS.map((day) => (
                      <option value={day}>{dayLabel(day)}</option>
                    ))}
                  </select>
                  <label for={`slot-time-${i}`} class="visually-hidden">
                    Time of slot {i + 1}
                  </label>
                  <input
                    id={`slot-time-${i}`}
                    type="time"
                    required
                    value={slot.time}
                    disabled={readOnly}
                    onInput={(e) => change(i, { time: (e.target as HTMLInputElement).value })}
                  />
                  {canManage && (
                    <button
                      type="button"
                      class="secondary"
                      disabled={busy}
                      onClick={() => removeSlot(i)}
                      aria-label={`Remove slot ${i + 1}`}
                    >
                      Remove
                    </button>
                  )}
                </li>
              ))}
            </ol>
            {canManage && (
              <button type="button" class="secondary" disabled={busy} onClick={add}>
                Add a slot
              </button>
            )}
          </fieldset>
          {canManage ? (
            <div class="inline-fields">
              <button type="submit" disabled={busy}>
                {busy ? 'Saving…' : 'Save the schedule'}
              </button>
              {channel && schedule.source === 'channel' && (
                <button type="button" class="secondary" disabled={busy} onClick={() => void useDefault()}>
                  Use the workspace default
                </button>
              )}
            </div>
          ) : (
            <p class="muted small">An owner or an admin changes the schedules.</p>
          )}
        </form>
      )}
    </section>
  );
}
