import { describe, expect, it } from 'vitest';
import { formatIban, printerOf } from './format';

const en = printerOf('en');
const de = printerOf('de');

describe('document formatting', () => {
  it('prints minor units with the currency exponent, per language', () => {
    expect(en.money(123_456, 'EUR')).toBe('€1,234.56');
    expect(en.money(1_500, 'JPY')).toBe('JP¥1,500');
    expect(en.money(-995, 'EUR')).toBe('-€9.95');
    expect(de.money(123_456, 'EUR')).toBe('1.234,56\u00a0€');
    expect(de.money(1_500, 'JPY')).toBe('1.500\u00a0¥');
    expect(printerOf(undefined)).toBe(en);
  });

  it('prints dates as ISO days in English and as DD.MM.YYYY in German', () => {
    expect(en.date('2026-11-27')).toBe('2026-11-27');
    expect(de.date('2026-11-27')).toBe('27.11.2026');
    expect(de.date('2027-01-01')).toBe('01.01.2027');
    expect(de.month('2026-11-27')).toBe('November 2026');
    expect(de.percent(7.7)).toBe('7,7 %');
    expect(en.percent(19)).toBe('19 %');
  });

  it('prints an IBAN in groups of four', () => {
    expect(formatIban('DE89370400440532013000')).toBe('DE89 3704 0044 0532 0130 00');
    expect(formatIban('AT61 1904300234573201')).toBe('AT61 1904 3002 3457 3201');
  });

  it('adds one note per special tax decision and none for domestic sales', () => {
    expect(en.taxNotes([{ decision: 'domestic' }, { decision: null }])).toEqual([]);
    const notes = en.taxNotes([{ decision: 'reverse_charge' }, { decision: 'export' }, { decision: 'reverse_charge' }]);
    expect(notes).toHaveLength(2);
    expect(notes[0]).toMatch(/^Reverse charge/);
    expect(notes[1]).toMatch(/export/);
    expect(de.taxNotes([{ decision: 'reverse_charge' }])[0]).toMatch(/^Steuerschuldnerschaft des Leistungsempfängers/);
  });

  it('states payment terms for invoices only, payable on receipt when there are none', () => {
    expect(en.paymentTerms({ kind: 'invoice', dueDate: '2027-03-15', paymentTermsDays: 14 })).toBe(
      'Payable within 14 days, by 2027-03-15.',
    );
    expect(en.paymentTerms({ kind: 'invoice', dueDate: null, paymentTermsDays: 1 })).toBe(
      'Payable within 1 day of the invoice date.',
    );
    expect(de.paymentTerms({ kind: 'invoice', dueDate: '2027-03-15', paymentTermsDays: 14 })).toBe(
      'Zahlbar innerhalb von 14 Tagen bis zum 15.03.2027.',
    );
    expect(en.paymentTerms({ kind: 'credit_note', dueDate: '2027-03-15', paymentTermsDays: 14 })).toBeNull();
    expect(en.paymentTerms({ kind: 'invoice', dueDate: null, paymentTermsDays: null })).toBe(
      'Payable on receipt, without deduction.',
    );
    expect(de.paymentTerms({ kind: 'invoice', dueDate: null, paymentTermsDays: null })).toBe(
      'Zahlbar sofort nach Erhalt ohne Abzug.',
    );
  });

  it('states the date of supply: the service period, else the merchant rule said as such', () => {
    const base = { kind: 'invoice' as const, issueDate: '2026-11-27', supplyDateRule: null };
    expect(de.supply({ ...base, servicePeriod: { start: '2026-10-01', end: '2026-10-31' } })).toEqual({
      label: 'Leistungszeitraum',
      value: '01.10.2026 – 31.10.2026',
    });
    expect(en.supply({ ...base, servicePeriod: { start: '2026-10-05', end: '2026-10-05' } })).toEqual({
      label: 'Date of supply',
      value: '2026-10-05',
    });
    expect(de.supply({ ...base, servicePeriod: null })).toEqual({
      label: 'Leistungsdatum',
      value: '27.11.2026 (Leistungsdatum entspricht dem Rechnungsdatum)',
    });
    expect(en.supply({ ...base, servicePeriod: null, supplyDateRule: 'invoice_month' })).toEqual({
      label: 'Service period',
      value: 'November 2026 (service period = month of the invoice date)',
    });
    expect(en.supply({ ...base, kind: 'credit_note', servicePeriod: null })).toBeNull();
  });
});
