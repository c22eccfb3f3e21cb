import { describe, expect, it } from 'vitest';
import { formatIban, formatMoney, paymentTermsOf, taxNotesOf } from './format';

describe('document formatting', () => {
  it('prints minor units with the currency exponent', () => {
    expect(formatMoney(123_456, 'EUR')).toBe('€1,234.56');
    expect(formatMoney(1_500, 'JPY')).toBe('JP¥1,500');
    expect(formatMoney(-995, 'EUR')).toBe('-€9.95');
  });

  it('prints an IBAN in groups of four', () => {
    expect(formatIban('DE89370400440532013000')).toBe('DE89 3704 0044 0532 0130 00');
    expect(formatIban('AT61 1904300234573201')).toBe('AT61 1904 3002 3457 3201');
  });

  it('adds one note per special tax decision and none for domestic sales', () => {
    expect(taxNotesOf([{ decision: 'domestic' }, { decision: null }])).toEqual([]);
    const notes = taxNotesOf([{ decision: 'reverse_charge' }, { decision: 'export' }, { decision: 'reverse_charge' }]);
    expect(notes).toHaveLength(2);
    expect(notes[0]).toMatch(/^Reverse charge/);
    expect(notes[1]).toMatch(/export/);
  });

  it('states payment terms for invoices only', () => {
    expect(paymentTermsOf({ kind: 'invoice', dueDate: '2027-03-15', paymentTermsDays: 14 })).toBe(
      'Payable within 14 days, by 2027-03-15.',
    );
    expect(paymentTermsOf({ kind: 'credit_note', dueDate: '2027-03-15', paymentTermsDays: 14 })).toBeNull();
    expect(paymentTermsOf({ kind: 'invoice', dueDate: null, paymentTermsDays: null })).toBeNull();
  });
});
