import { describe, expect, it } from 'vitest';
import { diffClient } from './client-history';
import type { PlainClient } from './client-plain';

const base: PlainClient = {
  name: 'Muster GmbH',
  email: 'billing@muster.example',
  phone: null,
  address: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
  taxInfo: { taxId: 'DE136695976', taxIdType: 'vat', taxCountry: 'DE', peppolRoutingAddress: null },
  notes: null,
  metadata: { crm: '42' },
  language: null,
  eInvoiceFormat: null,
};

describe('diffClient', () => {
  it('lists changed non-secret fields with old and new values', () => {
    const after = { ...base, name: 'Muster AG', address: { ...base.address!, city: 'Hamburg' } };
    expect(diffClient(base, after)).toEqual([
      { field: 'name', secret: false, old: 'Muster GmbH', new: 'Muster AG' },
      { field: 'address', secret: false, old: base.address, new: after.address },
    ]);
  });

  it('reports a changed secret value without either value', () => {
    const after: PlainClient = {
      ...base,
      taxInfo: {
        ...base.taxInfo!,
        taxId: 'DE129273398',
        peppolRoutingAddress: { schemeId: '0088', value: '4000001000005', confirmedByBuyer: false },
      },
    };
    const changes = diffClient(base, after);
    expect(changes).toEqual([
      { field: 'taxInfo.taxId', secret: true },
      { field: 'taxInfo.peppolRoutingAddress.schemeId', secret: false, old: null, new: '0088' },
      { field: 'taxInfo.peppolRoutingAddress.value', secret: true },
      { field: 'taxInfo.peppolRoutingAddress.confirmedByBuyer', secret: false, old: null, new: false },
    ]);
    expect(JSON.stringify(changes)).not.toMatch(/DE1|4000001000005/);
  });

  it('finds nothing when only key order differs, and every set field on create and delete', () => {
    expect(
      diffClient(base, {
        ...base,
        metadata: { crm: '42' },
        address: { country: 'DE', city: 'Berlin', postalCode: '10115', street: 'Hauptstr. 1' },
      }),
    ).toEqual([]);
    expect(diffClient(null, base).map((c) => c.field)).toEqual([
      'name',
      'email',
      'address',
      'metadata',
      'taxInfo.taxId',
      'taxInfo.taxIdType',
      'taxInfo.taxCountry',
    ]);
    expect(diffClient(base, null).find((c) => c.field === 'email')).toEqual({
      field: 'email',
      secret: false,
      old: 'billing@muster.example',
      new: null,
    });
  });
});
