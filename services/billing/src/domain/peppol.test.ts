import { describe, expect, it } from 'vitest';
import { isGln, isLeitwegId, peppolProblem } from './peppol';

describe('Leitweg-ID', () => {
  it('accepts IDs whose MOD 97-10 check digits match, with and without a fine address', () => {
    expect(isLeitwegId('04011000-1234512345-06')).toBe(true);
    expect(isLeitwegId('992-90009-96')).toBe(true);
    expect(isLeitwegId('99000000-18188-18')).toBe(true);
  });
  it('counts letters of the fine address as A=10 ... Z=35, in either case', () => {
    expect(isLeitwegId('04011000-900X999-08')).toBe(true);
    expect(isLeitwegId('09564000-NUE0001-49')).toBe(true);
    expect(isLeitwegId('09564000-NUE0002-49')).toBe(false);
    expect(isLeitwegId('09564000-nue0001-49')).toBe(true);
  });
  it('rejects wrong check digits and malformed IDs', () => {
    expect(isLeitwegId('04011000-1234512345-07')).toBe(false);
    expect(isLeitwegId('04011000-1234512345')).toBe(false);
    expect(isLeitwegId('0-1234512345-06')).toBe(false);
    expect(isLeitwegId('04011000-12345_12345-06')).toBe(false);
    expect(isLeitwegId('1234567890123-06')).toBe(false);
  });
});

describe('GLN', () => {
  it('checks 13 digits with the GS1 mod-10 check digit', () => {
    expect(isGln('4000001000005')).toBe(true);
    expect(isGln('4000001000006')).toBe(false);
    expect(isGln('400000100000')).toBe(false);
    expect(isGln('400000100000A')).toBe(false);
  });
});

describe('peppolProblem', () => {
  const de = 'DE';
  it('accepts 9930 only for a valid German VAT ID the buyer confirmed', () => {
    expect(peppolProblem({ schemeId: '9930', value: 'DE136695976', confirmedByBuyer: true }, de)).toBeNull();
    expect(peppolProblem({ schemeId: '9930', value: 'de 136 695 976', confirmedByBuyer: true }, de)).toBeNull();
    expect(peppolProblem({ schemeId: '9930', value: 'DE136695976', confirmedByBuyer: false }, de)?.field).toBe(
      'taxInfo.peppolRoutingAddress.confirmedByBuyer',
    );
    expect(peppolProblem({ schemeId: '9930', value: 'DE136695977', confirmedByBuyer: true }, de)?.field).toBe(
      'taxInfo.peppolRoutingAddress.value',
    );
    expect(peppolProblem({ schemeId: '9930', value: 'ATU13585627', confirmedByBuyer: true }, de)?.field).toBe(
      'taxInfo.peppolRoutingAddress.value',
    );
    expect(peppolProblem({ schemeId: '9930', value: 'DE136695976', confirmedByBuyer: true }, 'FR')?.field).toBe(
      'taxInfo.taxCountry',
    );
    expect(peppolProblem({ schemeId: '9930', value: 'DE136695976', confirmedByBuyer: true }, null)?.field).toBe(
      'taxInfo.taxCountry',
    );
  });
  it('accepts 0088 for a supplied valid GLN in any country', () => {
    expect(peppolProblem({ schemeId: '0088', value: '4000001000005', confirmedByBuyer: false }, 'FR')).toBeNull();
    expect(peppolProblem({ schemeId: '0088', value: '4000001000005', confirmedByBuyer: false }, null)).toBeNull();
    expect(peppolProblem({ schemeId: '0088', value: '4000001000004', confirmedByBuyer: true }, 'FR')?.field).toBe(
      'taxInfo.peppolRoutingAddress.value',
    );
  });
  it('accepts 0204 only for a German recipient that confirmed a valid Leitweg-ID', () => {
    expect(peppolProblem({ schemeId: '0204', value: '992-90009-96', confirmedByBuyer: true }, de)).toBeNull();
    expect(peppolProblem({ schemeId: '0204', value: '992-90009-96', confirmedByBuyer: false }, de)?.field).toBe(
      'taxInfo.peppolRoutingAddress.confirmedByBuyer',
    );
    expect(peppolProblem({ schemeId: '0204', value: '992-90009-96', confirmedByBuyer: true }, 'AT')?.field).toBe(
      'taxInfo.taxCountry',
    );
    expect(peppolProblem({ schemeId: '0204', value: '992-90009-95', confirmedByBuyer: true }, de)?.field).toBe(
      'taxInfo.peppolRoutingAddress.value',
    );
  });
  it('rejects other schemes', () => {
    expect(peppolProblem({ schemeId: '0060', value: '123456789', confirmedByBuyer: true }, de)?.field).toBe(
      'taxInfo.peppolRoutingAddress.schemeId',
    );
  });
});
