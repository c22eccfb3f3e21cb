import { describe, expect, it } from 'vitest';
import { bodyOf, formOf } from './client-form';
import type { Client } from './invoicing';

const stored: Client = {
  id: '65f0a1b2c3d4e5f6a7b8c9d0',
  name: 'Stadt Musterhausen',
  email: 'rechnung@musterhausen.example',
  phone: null,
  address: { street: 'Rathausplatz 1', city: 'Musterhausen', postalCode: '12345', country: 'DE' },
  taxInfo: {
    taxId: { masked: '…5976' },
    taxIdType: 'vat',
    taxCountry: 'DE',
    peppolRoutingAddress: { schemeId: '0204', value: { masked: '…9-96' }, confirmedByBuyer: true },
  },
  notes: null,
  metadata: null,
  language: 'de',
  eInvoiceFormat: 'xrechnung',
  createdAt: '2026-11-27T10:00:00.000Z',
  updatedAt: '2026-11-27T10:00:00.000Z',
};

describe('client form body', () => {
  it('a new client: empty fields are null, no address without any address field, countries upper case', () => {
    const f = { ...formOf(undefined), name: ' Erika Muster ', taxCountry: 'fr' };
    expect(bodyOf(f, undefined)).toEqual({
      name: 'Erika Muster',
      email: null,
      phone: null,
      address: null,
      taxInfo: { taxCountry: 'FR', taxIdType: null, peppolRoutingAddress: null },
      notes: null,
      language: null,
      eInvoiceFormat: null,
    });
  });

  it('an edit keeps compliance values the member sees only masked unless they are retyped', () => {
    const before = formOf(stored);
    const body = bodyOf({ ...before, city: 'Neustadt' }, before);
    expect(body.address).toEqual({ street: 'Rathausplatz 1', city: 'Neustadt', postalCode: '12345', country: 'DE' });
    expect(body.taxInfo).toEqual({ taxCountry: 'DE', taxIdType: 'vat' });
    expect(body.language).toBe('de');
    expect(body.eInvoiceFormat).toBe('xrechnung');

    const retyped = bodyOf({ ...before, taxId: 'DE136695976', peppolValue: '992-90009-96' }, before);
    expect(retyped.taxInfo).toMatchObject({
      taxId: { plaintext: 'DE136695976' },
      peppolRoutingAddress: { schemeId: '0204', value: { plaintext: '992-90009-96' }, confirmedByBuyer: true },
    });
  });

  it('choosing no Peppol scheme clears the routing address', () => {
    const before = formOf(stored);
    expect(bodyOf({ ...before, peppolScheme: '' }, before).taxInfo).toMatchObject({ peppolRoutingAddress: null });
  });
});
