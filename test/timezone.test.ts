import { expect, it } from 'vitest';

it('the suite runs in a non-UTC time zone, so local-time bugs show', () => {
  expect(Intl.DateTimeFormat().resolvedOptions().timeZone).toBe('Australia/Adelaide');
  expect(new Date('2026-01-15T00:00:00Z').getTimezoneOffset()).toBe(-630);
});
