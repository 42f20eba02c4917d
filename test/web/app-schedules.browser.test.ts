import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { unique } from '../helpers/app.ts';
import { accessibilityProblems } from '../helpers/browser.ts';
import { screenshotsBothWidths } from '../helpers/web-app.ts';
import { appSuite } from './browser-suite.ts';

/**
 * The posting schedules in the web app's channels view, in real headless Chromium against the
 * real server on loopback: the workspace's default and a channel's own weekly slots and time zone,
 * set with the keyboard and read back through the public API; a refusal shows the API's message;
 * a viewer reads them and changes nothing. axe-core on both; screenshots go to /tmp/herald-shots/schedules.
 */
const SHOTS = '/tmp/herald-shots/schedules';

const app = appSuite({ artifacts: SHOTS });

/** Presses Enter on the control named `name` after reaching it with the keyboard's focus. */
async function press(page: Page, role: 'button', name: string | RegExp): Promise<void> {
  const control = page.getByRole(role, { name, exact: typeof name === 'string' });
  await control.focus();
  await page.keyboard.press('Enter');
}

type Schedule = { timeZone: string; slots: Array<{ day: string; time: string }>; source: string };

describe('the web app: posting schedules', () => {
  it("an owner sets the workspace's default and a channel's own schedule with the keyboard; the API has them; a viewer only reads", async () => {
    const { email, workspace } = await app.owner('owner', unique('Schedules'));
    const channel = await app.hookChannel(workspace.id);
    const page = await app.open(email, '/app/channels');
    const section = page.getByRole('region', { name: 'Posting schedules' });
    await section.getByText("Herald's built-in default").waitFor();
    const slots = section.locator('.slot-list li');
    const builtIn = await slots.count();
    expect(builtIn).toBe(21);

    // The workspace's default: a time zone and one more slot, all from the keyboard.
    await section.getByLabel('Time zone', { exact: true }).fill('Europe/Paris');
    await press(page, 'button', 'Add a slot');
    await slots.nth(builtIn).waitFor();
    await section.getByLabel(`Day of slot ${builtIn + 1}`, { exact: true }).focus();
    await section.getByLabel(`Day of slot ${builtIn + 1}`, { exact: true }).selectOption('wednesday');
    await section.getByLabel(`Time of slot ${builtIn + 1}`, { exact: true }).fill('07:45');
    const first = {
      day: await section.getByLabel('Day of slot 1', { exact: true }).inputValue(),
      time: await section.getByLabel('Time of slot 1', { exact: true }).inputValue(),
    };
    await press(page, 'button', 'Remove slot 1');
    await press(page, 'button', 'Save the schedule');
    await section.getByText("The workspace's default schedule is saved.").waitFor();
    const workspaceDefault = (await app.api(page, 'GET', '/schedule')).body as unknown as Schedule;
    expect(workspaceDefault).toMatchObject({ timeZone: 'Europe/Paris', source: 'workspace' });
    expect(workspaceDefault.slots).toHaveLength(builtIn);
    expect(workspaceDefault.slots).toContainEqual({ day: 'wednesday', time: '07:45' });
    expect(workspaceDefault.slots).not.toContainEqual(first);
    expect(await accessibilityProblems(page)).toEqual([]);

    // The channel: it uses the default until it has its own; its next free slot is shown in its zone.
    await section.getByLabel('Schedule of', { exact: true }).selectOption(channel.id);
    await section.getByText("This channel uses the workspace's default schedule.").waitFor();
    const next = (await app.api(page, 'GET', `/find-slot/${channel.id}`)).body as unknown as { date: string };
    const shown = new Date(next.date).toLocaleString('en-GB', { timeZone: 'Europe/Paris', dateStyle: 'medium', timeStyle: 'short' });
    await section.getByText(`Next free slot: ${shown} (Europe/Paris).`).waitFor();
    await section.getByLabel('Time zone', { exact: true }).fill('Australia/Sydney');
    while ((await slots.count()) > 1) await press(page, 'button', `Remove slot ${await slots.count()}`);
    await section.getByLabel('Day of slot 1', { exact: true }).selectOption('monday');
    await section.getByLabel('Time of slot 1', { exact: true }).fill('10:00');
    await press(page, 'button', 'Save the schedule');
    await section.getByText("Hook's schedule is saved.").waitFor();
    await section.getByText('This channel has its own schedule.').waitFor();
    const own = (await app.api(page, 'GET', `/integrations/${channel.id}/schedule`)).body as unknown as Schedule;
    expect(own).toEqual(
      expect.objectContaining({ timeZone: 'Australia/Sydney', source: 'channel', slots: [{ day: 'monday', time: '10:00' }] }),
    );
    const sydney = (await app.api(page, 'GET', `/find-slot/${channel.id}`)).body as unknown as { date: string };
    const inSydney = (options: Intl.DateTimeFormatOptions) =>
      new Date(sydney.date).toLocaleString('en-GB', { timeZone: 'Australia/Sydney', ...options });
    expect([inSydney({ weekday: 'long' }), inSydney({ hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })]).toEqual([
      'Monday',
      '10:00',
    ]);
    await screenshotsBothWidths(page, SHOTS, 'schedules');
    expect(await accessibilityProblems(page)).toEqual([]);

    // A time zone the API does not know: its refusal, in words; nothing changes.
    await section.getByLabel('Time zone', { exact: true }).fill('Mars/Olympus_Mons');
    await press(page, 'button', 'Save the schedule');
    await section.locator('[role=status].bad').waitFor();
    expect(await section.locator('[role=status]').innerText()).toMatch(/time zone/i);
    expect(((await app.api(page, 'GET', `/integrations/${channel.id}/schedule`)).body as unknown as Schedule).timeZone).toBe(
      'Australia/Sydney',
    );

    // Back to the workspace's default.
    await press(page, 'button', 'Use the workspace default');
    await section.getByText("Hook now uses the workspace's default schedule.").waitFor();
    expect(((await app.api(page, 'GET', `/integrations/${channel.id}/schedule`)).body as unknown as Schedule).source).toBe('workspace');

    // A viewer reads the schedules and has nothing to press; the API refuses a change from them.
    const viewer = await app.open((await app.member(workspace.id, 'viewer')).email, '/app/channels');
    const readOnly = viewer.getByRole('region', { name: 'Posting schedules' });
    await readOnly.getByText('An owner or an admin changes the schedules.').waitFor();
    expect(await readOnly.getByLabel('Time zone', { exact: true }).inputValue()).toBe('Europe/Paris');
    expect(await readOnly.getByLabel('Time zone', { exact: true }).isDisabled()).toBe(true);
    expect(await readOnly.locator('button').count()).toBe(0);
    expect((await app.api(viewer, 'PUT', '/schedule', { timeZone: 'UTC', slots: [] })).status).toBe(403);
    expect(await accessibilityProblems(viewer)).toEqual([]);
  }, 240_000);
});
