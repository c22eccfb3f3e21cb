import { describe, expect, it } from 'vitest';
import { calculateTaxRequest, type VatIdCheck } from '@paymesh/contracts';
import { defaultTaxSettings } from './tax-settings';
import {
  assertKnownCountries,
  effectiveMode,
  engineInputOf,
  ossYearsOf,
  taxPointOf,
  uncheckedVatId,
  vatIdPlanOf,
} from './calculation-input';

const request = (extra: Record<string, unknown> = {}) =>
  calculateTaxRequest.parse({
    organizationId: 'a'.repeat(24),
    mode: 'test',
    currency: 'EUR',
    vatIdValidation: 'format',
    buyer: { country: 'FR' },
    lines: [{ name: 'Plan', quantity: 1, unitPrice: 10000, itemType: 'digital_service' }],
    ...extra,
  });

const viesAnswer: VatIdCheck = {
  vatId: 'FR40303265045',
  status: 'valid',
  source: 'vies',
  checkedAt: '2026-03-01T10:00:00.000Z',
  consultationNumber: 'WAPIAAAAA1',
  companyName: 'ACME SA',
  address: 'Paris',
  error: null,
};

describe('taxPointOf', () => {
  it('keeps a requested date and defaults to the UTC day of the clock', () => {
    expect(taxPointOf('2025-12-31', new Date('2026-03-01T00:00:00Z'))).toBe('2025-12-31');
    expect(taxPointOf(undefined, new Date('2026-03-01T23:59:59.999Z'))).toBe('2026-03-01');
  });
});

describe('ossYearsOf', () => {
  it('counts the tax point year and the year before', () => {
    expect(ossYearsOf('2026-05-01', 2026)).toEqual([2026, 2025]);
  });
  it('leaves out years before the scheme and years not begun', () => {
    expect(ossYearsOf('2021-02-01', 2026)).toEqual([2021]);
    expect(ossYearsOf('2020-02-01', 2026)).toEqual([]);
    expect(ossYearsOf('2027-01-05', 2026)).toEqual([2026]);
  });
});

describe('effectiveMode', () => {
  it('downgrades vies to format unless the organization enabled VIES', () => {
    expect(effectiveMode('vies', { viesEnabled: false })).toBe('format');
    expect(effectiveMode('vies', { viesEnabled: true })).toBe('vies');
    expect(effectiveMode('none', { viesEnabled: true })).toBe('none');
    expect(effectiveMode('format', { viesEnabled: true })).toBe('format');
  });
});

describe('vatIdPlanOf', () => {
  it('reuses a stored check whatever the mode', () => {
    const req = request({ vatIdCheck: viesAnswer, buyer: { country: 'FR', vatId: 'FR00000000000' } });
    expect(vatIdPlanOf(req, 'none')).toEqual({ kind: 'reuse', check: viesAnswer });
  });
  it('reports an absent or blank VAT ID as not given', () => {
    expect(vatIdPlanOf(request(), 'vies')).toEqual({ kind: 'skip', check: uncheckedVatId(null) });
    expect(vatIdPlanOf(request({ buyer: { country: 'FR', vatId: '  ' } }), 'vies').kind).toBe('skip');
    expect(uncheckedVatId(null).status).toBe('not_given');
  });
  it('does not look at the VAT ID in mode none', () => {
    const plan = vatIdPlanOf(request({ buyer: { country: 'FR', vatId: 'FR40303265045' } }), 'none');
    expect(plan).toEqual({ kind: 'skip', check: { ...uncheckedVatId('FR40303265045'), status: 'not_checked' } });
  });
  it('checks in the effective mode', () => {
    const req = request({ buyer: { country: 'FR', vatId: ' FR40303265045 ' } });
    expect(vatIdPlanOf(req, 'format')).toEqual({ kind: 'check', vatId: 'FR40303265045', mode: 'format' });
    expect(vatIdPlanOf(req, 'vies')).toEqual({ kind: 'check', vatId: 'FR40303265045', mode: 'vies' });
  });
});

describe('engineInputOf', () => {
  it("takes the organization's price mode unless the request overrides it", () => {
    const settings = { ...defaultTaxSettings(), priceMode: 'net' as const };
    const ctx = { taxPoint: '2026-03-01', mode: 'format' as const, settings, vatIdCheck: uncheckedVatId(null) };
    expect(engineInputOf(request(), ctx).priceMode).toBe('net');
    expect(engineInputOf(request({ priceMode: 'gross' }), ctx).priceMode).toBe('gross');
  });
  it('passes the resolved date, mode and check, and a blank postcode as null', () => {
    const input = engineInputOf(request({ buyer: { country: 'FR', postcode: ' ' } }), {
      taxPoint: '2026-03-01',
      mode: 'vies',
      settings: defaultTaxSettings(),
      vatIdCheck: viesAnswer,
    });
    expect(input).toMatchObject({
      date: '2026-03-01',
      currency: 'EUR',
      vatIdValidation: 'vies',
      vatIdCheck: viesAnswer,
      buyer: { country: 'FR', postcode: null },
    });
  });
});

describe('assertKnownCountries', () => {
  it('refuses unassigned buyer and ship-to countries by field', () => {
    expect(() => assertKnownCountries(request({ buyer: { country: 'QQ' } }))).toThrow(/buyer\.country: "QQ"/);
    const line = { name: 'Box', quantity: 1, unitPrice: 100, itemType: 'goods', shipToCountry: 'XX' };
    expect(() => assertKnownCountries(request({ lines: [line] }))).toThrow(/lines\.0\.shipToCountry/);
    expect(() => assertKnownCountries(request({ lines: [{ ...line, shipToCountry: 'AT' }] }))).not.toThrow();
  });
});
