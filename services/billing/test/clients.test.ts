import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newObjectId, NotFoundError, ValidationError } from '@paymesh/core';
import { clientCreate, type ClientCreate } from '@paymesh/contracts';
import { type DroppableStore, TEST_PG_URL } from '@paymesh/store';
import type { BillingDeps, OrgKey } from '../src/app/deps';
import { loadInvoiceBuyer } from '../src/app/client-port';
import { clientHistory } from '../src/app/client-history';
import { createClient } from '../src/app/create-client';
import { deleteClient } from '../src/app/delete-client';
import { getClient, listClients } from '../src/app/read-clients';
import { searchClients } from '../src/app/search-clients';
import { updateClient } from '../src/app/update-client';
import { CLIENT_HISTORY, CLIENTS } from '../src/store/collections';
import { billingDeps, billingStore, dropStore } from './kit';
import { testDatabase } from '../../../test/support/kit';

const PG_URL = TEST_PG_URL;
const VAT = 'DE136695976';
const GLN = '4000001000005';

describe('billing clients on PostgreSQL', () => {
  let store: DroppableStore;
  let deps: BillingDeps;
  let database: string;
  const key = (): OrgKey => ({ organizationId: newObjectId(), mode: 'live' });
  const input = (over: Partial<ClientCreate> = {}): ClientCreate =>
    clientCreate.parse({ name: 'Muster GmbH', email: 'billing@muster.example', ...over });
  const page = { page: 1, limit: 20, includeTaxInfo: false };

  beforeAll(async () => {
    database = testDatabase('billing_test');
    store = await billingStore('billing_test', database);
    deps = billingDeps(store);
  });
  afterAll(() => dropStore(store));

  it('stores tax ID and Peppol address only encrypted, masks them unless asked, and hands them to invoices', async () => {
    const k = key();
    const taxInfo = {
      taxId: { plaintext: 'de 136 695 976' },
      taxIdType: 'vat',
      taxCountry: 'DE',
      peppolRoutingAddress: { schemeId: '0088', value: { plaintext: GLN } },
    };
    const created = await createClient(
      deps,
      k,
      input({ taxInfo: clientCreate.shape.taxInfo.parse(taxInfo) }),
      'user:u1',
      false,
    );
    expect(created.taxInfo).toEqual({
      taxId: { masked: '…5976' },
      taxIdType: 'vat',
      taxCountry: 'DE',
      peppolRoutingAddress: { schemeId: '0088', value: { masked: '…0005' }, confirmedByBuyer: false },
    });
    const full = await getClient(deps, k, created.id, true);
    expect(full.taxInfo?.taxId).toEqual({ masked: '…5976', plaintext: VAT });
    expect(full.taxInfo?.peppolRoutingAddress?.value.plaintext).toBe(GLN);

    const pg = new Client({ connectionString: PG_URL });
    await pg.connect();
    try {
      const { rows } = await pg.query(`SELECT doc::text AS doc FROM "${database}"."${CLIENTS}" WHERE id = $1`, [
        created.id,
      ]);
      expect(rows).toHaveLength(1);
      expect(rows[0].doc).not.toContain('136695976');
      expect(rows[0].doc).not.toContain(GLN);
      const history = await pg.query(`SELECT doc::text AS doc FROM "${database}"."${CLIENT_HISTORY}"`);
      for (const row of history.rows) expect(row.doc).not.toMatch(/136695976|4000001000005/);
    } finally {
      await pg.end();
    }
    expect(await loadInvoiceBuyer(deps, k, created.id)).toMatchObject({
      taxId: VAT,
      peppolRoutingAddress: { schemeId: '0088', value: GLN },
    });
  });

  it('searches name and e-mail words, ranks fuller matches first, and finds exact tax IDs', async () => {
    const k = key();
    const vat = clientCreate.shape.taxInfo.parse({ taxId: { plaintext: VAT }, taxIdType: 'vat', taxCountry: 'DE' });
    const a = await createClient(
      deps,
      k,
      input({ name: 'Muster GmbH', email: 'office@muster.example' }),
      'user:u1',
      false,
    );
    const b = await createClient(
      deps,
      k,
      input({ name: 'Beispiel Muster AG', email: 'ap@beispiel.example' }),
      'user:u1',
      false,
    );
    const c = await createClient(
      deps,
      k,
      input({ name: 'Acme Ltd', email: 'ap@acme.example', taxInfo: vat }),
      'user:u1',
      false,
    );
    await createClient(deps, key(), input({ name: 'Muster Elsewhere', taxInfo: vat }), 'user:u1', false);

    const muster = await searchClients(deps, k, { ...page, q: 'muster' });
    expect(muster.items.map((x) => x.id).sort()).toEqual([a.id, b.id].sort());
    expect(muster.total).toBe(2);
    expect((await searchClients(deps, k, { ...page, q: 'beispiel muster' })).items[0]?.id).toBe(b.id);
    expect((await searchClients(deps, k, { ...page, q: 'office' })).items.map((x) => x.id)).toEqual([a.id]);
    expect((await searchClients(deps, k, { ...page, q: 'DE 136 695 976' })).items.map((x) => x.id)).toEqual([c.id]);
    expect((await searchClients(deps, k, { ...page, q: '136695976' })).total).toBe(0);
    expect((await searchClients(deps, k, { ...page, q: 'nobody' })).total).toBe(0);
  });

  it('records who changed what and when; secret changes only as changed; no-op updates write nothing', async () => {
    const k = key();
    const created = await createClient(deps, k, input(), 'user:u1', false);
    await updateClient(
      deps,
      k,
      created.id,
      { name: 'Muster AG', taxInfo: { taxId: { plaintext: VAT }, taxIdType: 'vat', taxCountry: 'DE' } },
      'api_key:k9',
      false,
    );
    await updateClient(deps, k, created.id, { name: 'Muster AG' }, 'api_key:k9', false);
    const history = await clientHistory(deps, k, created.id, { page: 1, limit: 20 });
    expect(history.items.map((e) => [e.action, e.actor])).toEqual([
      ['create', 'user:u1'],
      ['update', 'api_key:k9'],
    ]);
    expect(history.items[1]?.changes).toEqual([
      { field: 'name', secret: false, old: 'Muster GmbH', new: 'Muster AG' },
      { field: 'taxInfo.taxId', secret: true },
      { field: 'taxInfo.taxIdType', secret: false, old: null, new: 'vat' },
      { field: 'taxInfo.taxCountry', secret: false, old: null, new: 'DE' },
    ]);
    await deleteClient(deps, k, created.id, 'user:u2');
    await expect(getClient(deps, k, created.id, false)).rejects.toBeInstanceOf(NotFoundError);
    const after = await clientHistory(deps, k, created.id, { page: 1, limit: 20 });
    expect(after.items.at(-1)).toMatchObject({ action: 'delete', actor: 'user:u2' });
    await expect(deleteClient(deps, k, created.id, 'user:u2')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses invalid tax info and other tenants’ clients without writing anything', async () => {
    const k = key();
    const created = await createClient(deps, k, input(), 'user:u1', false);
    const before = await store.collection(CLIENT_HISTORY).count({ organizationId: k.organizationId });
    const peppol9930 = {
      taxCountry: 'DE',
      peppolRoutingAddress: { schemeId: '9930', value: { plaintext: VAT }, confirmedByBuyer: false },
    };
    await expect(
      createClient(deps, k, input({ taxInfo: clientCreate.shape.taxInfo.parse(peppol9930) }), 'user:u1', false),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(
      updateClient(
        deps,
        k,
        created.id,
        { taxInfo: { taxId: { plaintext: 'DE136695977' }, taxIdType: 'vat', taxCountry: 'DE' } },
        'user:u1',
        false,
      ),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(updateClient(deps, key(), created.id, { name: 'Hijack' }, 'user:u1', false)).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(deleteClient(deps, { ...k, mode: 'test' }, created.id, 'user:u1')).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(clientHistory(deps, key(), created.id, { page: 1, limit: 20 })).rejects.toBeInstanceOf(NotFoundError);
    expect((await listClients(deps, k, page)).items.map((c) => [c.id, c.name])).toEqual([[created.id, 'Muster GmbH']]);
    expect(await store.collection(CLIENT_HISTORY).count({ organizationId: k.organizationId })).toBe(before);
  });
});
