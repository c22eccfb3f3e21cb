import { describe, expect, it } from 'vitest';
import { maskIban, normalizeIban } from './iban';

describe('normalizeIban', () => {
  it('accepts valid IBANs typed with spaces and lower case and returns the electronic format', () => {
    expect(normalizeIban('de89 3704 0044 0532 0130 00')).toEqual({ ok: true, iban: 'DE89370400440532013000' });
    expect(normalizeIban('GB82WEST12345698765432')).toEqual({ ok: true, iban: 'GB82WEST12345698765432' });
    expect(normalizeIban('FR14 2004 1010 0505 0001 3M02 606')).toEqual({
      ok: true,
      iban: 'FR1420041010050500013M02606',
    });
  });

  it('rejects a wrong checksum', () => {
    const r = normalizeIban('DE89370400440532013001');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/checksum/);
  });

  it('rejects a wrong length for the country', () => {
    const r = normalizeIban('DE8937040044053201300');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/length/);
  });

  it('rejects unknown countries and non-IBAN text', () => {
    expect(normalizeIban('XX89370400440532013000').ok).toBe(false);
    expect(normalizeIban('not an iban').ok).toBe(false);
    expect(normalizeIban('').ok).toBe(false);
  });
});

describe('maskIban', () => {
  it('keeps country, check digits and the last four characters', () => {
    expect(maskIban('DE89370400440532013000')).toBe('DE89 **** **** **** **30 00');
    expect(maskIban('GB82WEST12345698765432')).toBe('GB82 **** **** **** **54 32');
  });
});
