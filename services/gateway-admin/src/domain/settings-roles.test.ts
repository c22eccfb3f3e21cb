import { describe, expect, it } from 'vitest';
import { invoicingFieldsBeyondRole } from './settings-roles';

describe('invoicing settings: Admin-only fields', () => {
  it('lets Editors change everything but the payout IBAN', () => {
    expect(invoicingFieldsBeyondRole({ companyName: 'ACME', eInvoice: { enabled: true } }, 'Editor')).toEqual([]);
    expect(
      invoicingFieldsBeyondRole({ companyName: 'ACME', bankIBAN: { plaintext: 'DE89370400440532013000' } }, 'Editor'),
    ).toEqual(['bankIBAN']);
  });

  it('counts clearing the IBAN (null) as a change, an absent field as none', () => {
    expect(invoicingFieldsBeyondRole({ bankIBAN: null }, 'Editor')).toEqual(['bankIBAN']);
    expect(invoicingFieldsBeyondRole({ bankIBAN: undefined }, 'Viewer')).toEqual([]);
  });

  it('lets Admins change the IBAN', () => {
    expect(invoicingFieldsBeyondRole({ bankIBAN: null }, 'Admin')).toEqual([]);
  });
});
