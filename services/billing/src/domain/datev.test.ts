import { describe, expect, it } from 'vitest';
import {
  amountField,
  applyDatevPatch,
  chartDefaults,
  documentField,
  effectiveDatev,
  fiscalYearOf,
  postingFields,
  POSTING_COLUMNS,
  DEBTOR_COLUMNS,
  revenueAccountOf,
  revenueGroups,
  textField,
} from './datev';

describe('DATEV rules', () => {
  it('has the column sets of Buchungsstapel 13 (125) and Debitoren/Kreditoren 5 (254)', () => {
    expect(POSTING_COLUMNS).toHaveLength(125);
    expect(new Set(POSTING_COLUMNS).size).toBe(125);
    expect(DEBTOR_COLUMNS).toHaveLength(254);
    expect(new Set(DEBTOR_COLUMNS).size).toBe(254);
  });

  it('books each tax case to the chart default and lets the merchant override per rate and country', () => {
    const skr04 = effectiveDatev({ chart: 'SKR04' });
    expect(revenueAccountOf(skr04, 'domestic', 19, 'DE')).toEqual({ account: 4400, buKey: null });
    expect(revenueAccountOf(skr04, 'domestic', 7, 'DE')).toEqual({ account: 4300, buKey: null });
    expect(revenueAccountOf(skr04, 'domestic', 0, 'DE')).toEqual({ account: 4200, buKey: null });
    expect(revenueAccountOf(skr04, 'intra_community_supply', 0, 'FR')).toEqual({ account: 4125, buKey: null });
    expect(revenueAccountOf(skr04, 'export', 0, null).account).toBe(4120);
    expect(revenueAccountOf(skr04, 'reverse_charge', 0, 'FR').account).toBe(4336);
    expect(revenueAccountOf(skr04, 'oss', 20, 'FR')).toEqual({ account: 4200, buKey: '44' });
    expect(skr04.clearing.default).toBe(1460);
    expect(chartDefaults('SKR03').clearing.default).toBe(1360);

    const own = effectiveDatev(
      applyDatevPatch(undefined, {
        revenue: { domestic: { '19': { account: 8200, buKey: '3' } }, oss: { AT: { account: 8201, buKey: '44' } } },
      }),
    );
    expect(revenueAccountOf(own, 'domestic', 19, 'DE')).toEqual({ account: 8200, buKey: '3' });
    // The other default rates stay.
    expect(revenueAccountOf(own, 'domestic', 7, 'DE').account).toBe(8300);
    expect(revenueAccountOf(own, 'oss', 20, 'AT').account).toBe(8201);
    expect(revenueAccountOf(own, 'oss', 21, 'NL').account).toBe(8200);
  });

  it('merges patches group by group and refuses accounts that do not fit the account length', () => {
    const a = applyDatevPatch(undefined, { consultantNumber: 29098, debtors: { mode: 'collective' } });
    const b = applyDatevPatch(a, { clientNumber: 1, debtors: { collectiveAccount: 12345 } });
    expect(effectiveDatev(b).debtors).toMatchObject({ mode: 'collective', collectiveAccount: 12345 });
    expect(effectiveDatev(b).consultantNumber).toBe(29098);
    expect(() => applyDatevPatch(b, { debtors: { collectiveAccount: 1234 } })).toThrow(/debtors.collectiveAccount/);
    expect(() => applyDatevPatch(b, { debtors: { firstAccount: 70000 } })).toThrow(/debtor account/);
    expect(() => applyDatevPatch(b, { clearing: { default: 13600 } })).toThrow(/clearing.default/);
    // A longer account length moves the debtor range with it.
    expect(effectiveDatev(applyDatevPatch(undefined, { accountLength: 5 })).debtors.firstAccount).toBe(100001);
  });

  it('groups a document by treatment, rate and country', () => {
    const groups = revenueGroups([
      { decision: 'domestic', taxRate: 19, taxCountry: 'DE', gross: 100 },
      { decision: 'domestic_b2b', taxRate: 19, taxCountry: 'DE', gross: 50 },
      { decision: 'domestic', taxRate: 7, taxCountry: 'DE', gross: 30 },
      { decision: 'oss_destination', taxRate: 20, taxCountry: 'FR', gross: 12 },
      { decision: 'oss_destination', taxRate: 20, taxCountry: 'AT', gross: 10 },
      { decision: 'domestic', taxRate: 19, taxCountry: 'DE', gross: -150 + 150 - 0 },
    ]);
    expect(groups.map((g) => [g.treatment, g.rate, g.country, g.gross])).toEqual([
      ['domestic', 19, null, 150],
      ['domestic', 7, null, 30],
      ['oss', 20, 'FR', 12],
      ['oss', 20, 'AT', 10],
    ]);
  });

  it('writes amounts, texts and document numbers as the format wants them', () => {
    expect(amountField(123456, 'EUR')).toBe('1234,56');
    expect(amountField(-5, 'EUR')).toBe('0,05');
    expect(amountField(1500, 'JPY')).toBe('1500,00');
    expect(amountField(12345, 'KWD')).toBe('12,35');
    expect(textField('Sagt "Hallo";\r\nja', 60)).toBe('"Sagt ""Hallo""; ja"');
    expect(textField('x'.repeat(70), 60)).toBe(`"${'x'.repeat(60)}"`);
    expect(documentField('RE_2026.0001')).toBe('"RE-2026-0001"');
    expect(fiscalYearOf('2026-03-31', 4)).toEqual({ start: '2025-04-01', end: '2026-03-31' });
    expect(fiscalYearOf('2026-04-01', 4)).toEqual({ start: '2026-04-01', end: '2027-03-31' });
    const row = postingFields({
      key: 'inv:1:0',
      amount: 11900,
      side: 'S',
      currency: 'EUR',
      account: 10001,
      contra: 8400,
      buKey: null,
      date: '2026-06-15',
      document1: 'RE-1',
      dueDate: '2026-06-29',
      text: 'Rechnung',
      serviceDate: '2026-06-10',
      lock: true,
    });
    expect(row).toHaveLength(125);
    expect(row.slice(0, 14)).toEqual([
      '119,00',
      '"S"',
      '"EUR"',
      '',
      '',
      '',
      '10001',
      '8400',
      '""',
      '1506',
      '"RE-1"',
      '"290626"',
      '',
      '"Rechnung"',
    ]);
    expect([row[113], row[114]]).toEqual(['1', '10062026']);
  });
});
