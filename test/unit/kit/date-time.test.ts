import { describe, expect, it } from 'vitest';
import { isCalendarDateTime } from '../../../src/kit/date-time.ts';

describe('isCalendarDateTime', () => {
  it.each([
    '2026-01-31T00:00:00Z',
    '2024-02-29T23:59:59.999Z',
    '2026-12-31T23:59:60Z',
    '2026-04-30T08:15:00+05:30',
    '2026-04-30t08:15:00-00:00',
  ])('accepts %s', (value) => expect(isCalendarDateTime(value)).toBe(true));

  it.each([
    '2026-02-30T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-01-00T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T12:00:60Z',
    '2026-01-01T00:00:00+24:00',
    '2026-01-01 00:00:00Z',
    '2026-01-01T00:00Z',
  ])('refuses %s', (value) => expect(isCalendarDateTime(value)).toBe(false));
});
