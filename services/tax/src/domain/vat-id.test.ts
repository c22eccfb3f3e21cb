import { describe, expect, it } from 'vitest';
import { parseVatId, VAT_PREFIXES, vatIdFormat } from './vat-id';

/** One valid VAT ID per prefix (check digits computed with the member state's rule) and the same with one digit changed. */
const EXAMPLES: Record<string, [valid: string, wrongCheckDigit: string]> = {
  AT: ['ATU31989140', 'ATU31989141'],
  BE: ['BE0869140586', 'BE0869140580'],
  BG: ['BG300924427', 'BG300924420'],
  CY: ['CY07777760T', 'CY07777761T'],
  CZ: ['CZ23119926', 'CZ23119920'],
  DE: ['DE321571435', 'DE321571430'],
  DK: ['DK99654163', 'DK99654160'],
  EE: ['EE106035652', 'EE106035650'],
  EL: ['EL981462794', 'EL981462790'],
  ES: ['ESB51861359', 'ESB51861350'],
  FI: ['FI14946999', 'FI14946990'],
  FR: ['FR47759777570', 'FR47759777571'],
  HR: ['HR83542216204', 'HR83542216200'],
  HU: ['HU20279321', 'HU20279320'],
  IE: ['IE7112213D', 'IE7112210D'],
  IT: ['IT08223980015', 'IT08223980010'],
  LT: ['LT366550211', 'LT366550210'],
  LU: ['LU27172407', 'LU27172400'],
  LV: ['LV42834457423', 'LV42834457420'],
  MT: ['MT28850519', 'MT28850510'],
  NL: ['NL769350665B01', 'NL769350660B01'],
  PL: ['PL0968378837', 'PL0968378830'],
  PT: ['PT550951580', 'PT550951581'],
  RO: ['RO57845505', 'RO57845500'],
  SE: ['SE636888181601', 'SE636888181001'],
  SI: ['SI51184486', 'SI51184480'],
  SK: ['SK3247918300', 'SK3247918301'],
  XI: ['XI106966106', 'XI106966100'],
};

describe('parseVatId', () => {
  it('covers the 27 member states and Northern Ireland', () => {
    expect([...VAT_PREFIXES].sort()).toEqual(Object.keys(EXAMPLES).sort());
    expect(VAT_PREFIXES).toHaveLength(28);
  });

  for (const [prefix, [valid, wrong]] of Object.entries(EXAMPLES)) {
    it(`${prefix}: accepts a valid ID and rejects a wrong check digit and a wrong length`, () => {
      expect(parseVatId(valid)).toEqual({ ok: true, countryCode: prefix, number: valid.slice(2), vatId: valid });
      expect(parseVatId(wrong)).toMatchObject({ ok: false, reason: 'checksum', countryCode: prefix });
      const tooLong = parseVatId(`${valid}123456`);
      expect(tooLong).toEqual({
        ok: false,
        reason: 'format',
        countryCode: prefix,
        message: `A ${prefix} VAT ID is ${vatIdFormat(prefix)}.`,
      });
    });
  }

  it('accepts spaces, dots, dashes and lower case, and normalizes them away', () => {
    expect(parseVatId(' de 321.571-435 ')).toMatchObject({
      ok: true,
      vatId: 'DE321571435',
      countryCode: 'DE',
      number: '321571435',
    });
    expect(parseVatId('nl769350665b01')).toMatchObject({ ok: true, vatId: 'NL769350665B01' });
    expect(parseVatId('atu 3198 9140')).toMatchObject({ ok: true, vatId: 'ATU31989140' });
    expect(parseVatId('el-981-462-794')).toMatchObject({ ok: true, vatId: 'EL981462794' });
  });

  it('rejects any other character', () => {
    for (const raw of [
      'DE321571435!',
      'DE/321571435',
      'DE_321571435',
      'DE32157\t1435',
      'DÉ321571435',
      'DE3215714,35',
    ]) {
      expect(parseVatId(raw)).toMatchObject({ ok: false, reason: 'characters' });
    }
    expect(parseVatId('D'.repeat(41))).toMatchObject({ ok: false, reason: 'characters' });
  });

  it('names the format of the country when the shape is wrong', () => {
    expect(parseVatId('DE12345678')).toEqual({
      ok: false,
      reason: 'format',
      countryCode: 'DE',
      message: 'A DE VAT ID is DE followed by 9 digits.',
    });
    expect(parseVatId('DE012345678')).toMatchObject({ reason: 'format' });
    expect(parseVatId('AT31989140')).toMatchObject({
      reason: 'format',
      message: 'A AT VAT ID is AT followed by U and 8 digits.',
    });
    expect(parseVatId('NL769350665C01')).toMatchObject({ reason: 'format', countryCode: 'NL' });
    expect(parseVatId('XIGD001')).toMatchObject({ reason: 'format', countryCode: 'XI' });
  });

  it('explains prefixes VIES does not know', () => {
    expect(parseVatId('GR981462794')).toMatchObject({
      ok: false,
      reason: 'unknown_prefix',
      countryCode: null,
      message: expect.stringContaining('EL, not GR'),
    });
    expect(parseVatId('GB106966106')).toMatchObject({
      reason: 'unknown_prefix',
      message: expect.stringContaining('Northern Ireland'),
    });
    expect(parseVatId('US123456789')).toMatchObject({
      reason: 'unknown_prefix',
      message: expect.stringContaining('US is not an EU VAT prefix'),
    });
    expect(parseVatId('CHE123456789')).toMatchObject({ reason: 'unknown_prefix' });
    expect(parseVatId('321571435')).toMatchObject({
      reason: 'unknown_prefix',
      message: expect.stringContaining('starts with the two-letter country prefix'),
    });
  });

  it('requires something', () => {
    expect(parseVatId('   ')).toMatchObject({ ok: false, reason: 'empty' });
  });
});
