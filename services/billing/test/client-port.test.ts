import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newObjectId, NotFoundError } from '@paymesh/core';
import type { DroppableStore } from '@paymesh/store';
import type { BillingDeps, OrgKey } from '../src/app/deps';
import { loadInvoiceBuyer } from '../src/app/client-port';
import { clientAad, type ClientDoc } from '../src/domain/client';
import { CLIENTS } from '../src/store/collections';
import { billingDeps, billingStore, dropStore } from './kit';

describe('loadInvoiceBuyer on PostgreSQL', () => {
  let store: DroppableStore;
  let deps: BillingDeps;
  const key: OrgKey = { organizationId: newObjectId(), mode: 'live' };

  beforeAll(async () => {
    store = await billingStore('billing_test');
    deps = billingDeps(store);
  });
  afterAll(() => dropStore(store));

  async function storeClient(k: OrgKey): Promise<string> {
    const id = newObjectId();
    const now = new Date().toISOString();
    await store.collection<ClientDoc>(CLIENTS).insert({
      id,
      organizationId: k.organizationId,
      mode: k.mode,
      name: 'Muster GmbH',
      email: 'billing@muster.example',
      phone: null,
      address: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
      taxInfo: {
        taxId: deps.secrets.seal('DE136695976', clientAad(k, id, 'taxInfo.taxId')),
        taxIdDigest: null,
        taxIdType: 'vat',
        taxCountry: 'DE',
        peppolRoutingAddress: {
          schemeId: '0088',
          value: deps.secrets.seal('4000001000005', clientAad(k, id, 'taxInfo.peppolRoutingAddress.value')),
          confirmedByBuyer: false,
        },
      },
      notes: null,
      metadata: null,
      createdAt: now,
      updatedAt: now,
    });
    return id;
  }

  it('returns the buyer with its compliance values decrypted', async () => {
    const id = await storeClient(key);
    expect(await loadInvoiceBuyer(deps, key, id)).toEqual({
      clientId: id,
      name: 'Muster GmbH',
      email: 'billing@muster.example',
      address: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
      taxId: 'DE136695976',
      taxIdType: 'vat',
      taxCountry: 'DE',
      peppolRoutingAddress: { schemeId: '0088', value: '4000001000005' },
      // A client without a document language or e-invoice format of its own: the organization's apply.
      language: null,
      eInvoiceFormat: null,
    });
  });

  it('does not find another organization’s or the other mode’s client, nor an unknown id', async () => {
    const id = await storeClient(key);
    await expect(loadInvoiceBuyer(deps, { organizationId: newObjectId(), mode: 'live' }, id)).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(loadInvoiceBuyer(deps, { ...key, mode: 'test' }, id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(loadInvoiceBuyer(deps, key, newObjectId())).rejects.toBeInstanceOf(NotFoundError);
  });
});
