import { describe, expect, it } from 'vitest';
import { ValidationError } from '@paymesh/core';
import { taxSettingsPatch } from '@paymesh/contracts';
import { applyTaxPatch, defaultTaxSettings } from './tax-settings';
import { ossThresholdStatus } from './oss-threshold';

const patch = (body: unknown) => taxSettingsPatch.parse(body);

describe('applyTaxPatch', () => {
  it('merges rounding field by field and keeps what the patch does not name', () => {
    const next = applyTaxPatch(defaultTaxSettings(), patch({ rounding: { method: 'half_even' }, priceMode: 'net' }));
    expect(next.rounding).toEqual({ level: 'per_line', method: 'half_even' });
    expect(next.priceMode).toBe('net');
    expect(next.viesEnabled).toBe(false);
  });

  it('requires a home country for OSS and IOSS', () => {
    expect(() => applyTaxPatch(defaultTaxSettings(), patch({ ossEnabled: true }))).toThrow(ValidationError);
    const ok = applyTaxPatch(defaultTaxSettings(), patch({ ossEnabled: true, homeCountry: 'de' }));
    expect(ok).toMatchObject({ ossEnabled: true, homeCountry: 'DE' });
    try {
      applyTaxPatch(ok, patch({ homeCountry: null }));
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).field).toBe('homeCountry');
    }
  });

  it('rejects an unassigned country code', () => {
    expect(() => applyTaxPatch(defaultTaxSettings(), patch({ homeCountry: 'QQ' }))).toThrow(/homeCountry/);
  });
});

describe('taxSettingsPatch', () => {
  it('rejects unknown enums and fields with their path', () => {
    const r = taxSettingsPatch.safeParse({ rounding: { level: 'per_invoice' } });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(['rounding', 'level']);
    expect(taxSettingsPatch.safeParse({ vies: true }).success).toBe(false);
  });
});

describe('ossThresholdStatus', () => {
  it('is exceeded only above EUR 10 000', () => {
    expect(ossThresholdStatus(2026, 0)).toEqual({
      year: 2026,
      currency: 'EUR',
      threshold: 1_000_000,
      currentTotal: 0,
      exceeded: false,
      unconvertedEntries: 0,
    });
    expect(ossThresholdStatus(2026, 1_000_000).exceeded).toBe(false);
    expect(ossThresholdStatus(2026, 1_000_001).exceeded).toBe(true);
  });
});

describe("the organization's own VAT ID", () => {
  it('is stored normalized and cleared with null', () => {
    const set = applyTaxPatch(defaultTaxSettings(), patch({ vatId: 'nl 769350665 b01' }));
    expect(set.vatId).toBe('NL769350665B01');
    expect(applyTaxPatch(set, patch({ priceMode: 'net' })).vatId).toBe('NL769350665B01');
    expect(applyTaxPatch(set, patch({ vatId: null })).vatId).toBeNull();
  });

  it('must have its member state format and check digits', () => {
    try {
      applyTaxPatch(defaultTaxSettings(), patch({ vatId: 'DE12345678' }));
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).field).toBe('vatId');
      expect((err as ValidationError).message).toBe('vatId: A DE VAT ID is DE followed by 9 digits.');
    }
    expect(() => applyTaxPatch(defaultTaxSettings(), patch({ vatId: 'DE321571430' }))).toThrow(/check digits/);
  });
});
