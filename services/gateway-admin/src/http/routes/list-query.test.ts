import { describe, expect, it } from 'vitest';
import { listValues, parseDateRange, parseObjectIds, parseStatuses } from './list-query';

describe('list query parameters', () => {
  it('accepts name[] and name, repeated or comma-separated', () => {
    expect(listValues(['1', '2'], undefined)).toEqual(['1', '2']);
    expect(listValues(undefined, '1,2')).toEqual(['1', '2']);
    expect(listValues('0', ['-2', '1, 4'])).toEqual(['0', '-2', '1', '4']);
    expect(listValues(undefined, undefined)).toEqual([]);
    expect(listValues(undefined, ',')).toEqual([]);
  });

  it('parses status codes and refuses others with the parameter named', () => {
    expect(parseStatuses(['-2', '0', '1', '1'])).toEqual([-2, 0, 1]);
    expect(() => parseStatuses(['5'])).toThrow('statuses: "5" is not a transaction status code');
    expect(() => parseStatuses(['completed'])).toThrow(/statuses/);
    expect(() => parseStatuses(['1.5'])).toThrow(/statuses/);
  });

  it('checks identifiers', () => {
    expect(parseObjectIds(['0123456789abcdef01234567'], 'siteIds')).toEqual(['0123456789abcdef01234567']);
    expect(() => parseObjectIds(['nope'], 'siteIds')).toThrow('siteIds: "nope" is not a 24-hex identifier');
  });

  it('reads dates as whole UTC days with an inclusive end date', () => {
    expect(parseDateRange('2026-04-01', '2026-04-30')).toEqual({
      createdFrom: '2026-04-01T00:00:00.000Z',
      createdTo: '2026-04-30T23:59:59.999Z',
    });
    expect(parseDateRange(undefined, undefined)).toEqual({ createdFrom: '', createdTo: '' });
  });

  it('reads RFC 3339 instants, including offsets whose + arrived as a space', () => {
    expect(parseDateRange('2026-04-01T10:00:00+02:00', '2026-04-01T12:00:00.5Z')).toEqual({
      createdFrom: '2026-04-01T08:00:00.000Z',
      createdTo: '2026-04-01T12:00:00.500Z',
    });
    expect(parseDateRange('2026-04-01T10:00:00 02:00', undefined).createdFrom).toBe('2026-04-01T08:00:00.000Z');
  });

  it('refuses malformed or impossible dates and reversed ranges', () => {
    expect(() => parseDateRange('2026-02-30', undefined)).toThrow('startDate: "2026-02-30" is not a valid date');
    expect(() => parseDateRange('01/04/2026', undefined)).toThrow(
      'startDate must be YYYY-MM-DD or an RFC 3339 timestamp',
    );
    expect(() => parseDateRange(undefined, '2026-04-01T10:00')).toThrow(/endDate/);
    expect(() => parseDateRange('2026-04-02', '2026-04-01')).toThrow('startDate must not be after endDate');
  });
});
