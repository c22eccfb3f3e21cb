import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newObjectId, NotFoundError, ValidationError } from '@paymesh/core';
import type { DroppableStore } from '@paymesh/store';
import type { BillingDeps, OrgKey } from '../src/app/deps';
import { getInvoicingSettings, settingsAad } from '../src/app/invoicing-settings';
import { getSiteInvoicingSettings } from '../src/app/site-invoicing-settings';
import { initSiteInvoicing } from '../src/app/init-site-invoicing';
import { getPortalSettings } from '../src/app/portal-settings';
import { updateInvoicingSettings, updatePortalSettings, updateSiteInvoicingSettings } from './wire';
import { INVOICING_SETTINGS } from '../src/store/collections';
import type { OrgSettingsDoc } from '@paymesh/store';
import type { InvoicingSettings } from '../src/domain/invoicing-settings';
import { verifySender } from '../src/app/sender-verification';
import { billingDeps, billingStore, dropStore } from './kit';

const IBAN = 'DE89370400440532013000';

describe('billing settings on PostgreSQL', () => {
  let store: DroppableStore;
  let deps: BillingDeps;
  const key = (): OrgKey => ({ organizationId: newObjectId(), mode: 'live' });
  const filter = (k: OrgKey) => ({ organizationId: k.organizationId, mode: k.mode });

  beforeAll(async () => {
    store = await billingStore('billing_test');
    deps = billingDeps(store);
  });
  afterAll(() => dropStore(store));

  it('stores the IBAN only encrypted, bound to its organization', async () => {
    const k = key();
    await updateInvoicingSettings(deps, k, JSON.stringify({ bankIBAN: { plaintext: 'DE89 3704 0044 0532 0130 00' } }));
    const doc = await store.collection<OrgSettingsDoc<InvoicingSettings>>(INVOICING_SETTINGS).findOne(filter(k));
    expect(JSON.stringify(doc)).not.toContain('0532013000');
    const sealed = doc!.settings.bankIBAN!.sealed;
    expect(deps.secrets.open(sealed, settingsAad(k, 'bankIBAN'))).toBe(IBAN);
    expect(() => deps.secrets.open(sealed, settingsAad({ ...k, organizationId: newObjectId() }, 'bankIBAN'))).toThrow();
  });

  it('keeps live and test settings apart', async () => {
    const k = key();
    await updateInvoicingSettings(deps, k, JSON.stringify({ companyName: 'Live Co' }));
    expect((await getInvoicingSettings(deps, { ...k, mode: 'test' })).settings.companyName).toBeNull();
    expect((await getInvoicingSettings(deps, k)).settings.companyName).toBe('Live Co');
  });

  it('applies concurrent first writes on top of each other (no lost update)', async () => {
    const k = key();
    await Promise.all([
      updateInvoicingSettings(deps, k, JSON.stringify({ companyName: 'ACME' })),
      updateInvoicingSettings(deps, k, JSON.stringify({ autoPaymentLinkExpiresInHours: 48 })),
      updateInvoicingSettings(deps, k, JSON.stringify({ invoiceNumberLayout: { sequenceDigits: 7 } })),
    ]);
    const s = (await getInvoicingSettings(deps, k)).settings;
    expect(s).toMatchObject({ companyName: 'ACME', autoPaymentLinkExpiresInHours: 48 });
    expect(s.invoiceNumberLayout.sequenceDigits).toBe(7);
    expect(await store.collection(INVOICING_SETTINGS).count(filter(k))).toBe(1);
  });

  it('writes nothing for an invalid patch, also on the first write', async () => {
    const k = key();
    await expect(
      updateInvoicingSettings(
        deps,
        k,
        JSON.stringify({ companyName: 'X', bankIBAN: { plaintext: 'DE00370400440532013000' } }),
      ),
    ).rejects.toMatchObject({
      field: 'bankIBAN.plaintext',
    });
    expect(await store.collection(INVOICING_SETTINGS).count(filter(k))).toBe(0);
    await expect(updateInvoicingSettings(deps, k, '{"enabled":"yes"}')).rejects.toBeInstanceOf(ValidationError);
  });

  it('accepts site prefixes before checkout.site.created is handled, and the late event changes nothing', async () => {
    const k = key();
    const siteId = newObjectId();
    await updateSiteInvoicingSettings(deps, k, siteId, JSON.stringify({ invoicePrefix: 'SHOP' }));
    expect(await initSiteInvoicing(store, deps.logger, { ...k, siteId, at: new Date().toISOString() })).toBe('exists');
    expect(await getSiteInvoicingSettings(deps, k, siteId)).toMatchObject({
      invoicePrefix: 'SHOP',
      creditNotePrefix: null,
      effective: { invoicePrefix: 'SHOP', creditNotePrefix: 'CN' },
    });
  });

  it("answers 404 for another organization's site record", async () => {
    const k = key();
    const siteId = newObjectId();
    await initSiteInvoicing(store, deps.logger, { ...k, siteId, at: new Date().toISOString() });
    const other = key();
    await expect(getSiteInvoicingSettings(deps, other, siteId)).rejects.toBeInstanceOf(NotFoundError);
    await expect(updateSiteInvoicingSettings(deps, other, siteId, '{"invoicePrefix":"EVIL"}')).rejects.toBeInstanceOf(
      NotFoundError,
    );
    expect((await getSiteInvoicingSettings(deps, k, siteId)).invoicePrefix).toBeNull();
  });

  it('keeps the portal off and magic links on by default, and merges the switches', async () => {
    const k = key();
    const all = ['xrechnung', 'peppol', 'zugferd'];
    expect(await getPortalSettings(deps, k)).toEqual({
      enabled: false,
      magicLinksEnabled: true,
      eInvoiceFormats: all,
      proformaPreviewsEnabled: false,
    });
    expect(await updatePortalSettings(deps, k, '{"magicLinksEnabled":false}')).toEqual({
      enabled: false,
      magicLinksEnabled: false,
      eInvoiceFormats: all,
      proformaPreviewsEnabled: false,
    });
    expect(await updatePortalSettings(deps, k, '{"enabled":true}')).toEqual({
      enabled: true,
      magicLinksEnabled: false,
      eInvoiceFormats: all,
      proformaPreviewsEnabled: false,
    });
    expect(await updatePortalSettings(deps, k, '{"magicLinksEnabled":true}')).toEqual({
      enabled: true,
      magicLinksEnabled: true,
      eInvoiceFormats: all,
      proformaPreviewsEnabled: false,
    });
    expect(await updatePortalSettings(deps, k, '{"eInvoiceFormats":["xrechnung","xrechnung"]}')).toEqual({
      enabled: true,
      magicLinksEnabled: true,
      eInvoiceFormats: ['xrechnung'],
      proformaPreviewsEnabled: false,
    });
    await expect(updatePortalSettings(deps, k, '{"eInvoiceFormats":["pdf"]}')).rejects.toThrow();
    expect(await updatePortalSettings(deps, k, '{"proformaPreviewsEnabled":true}')).toMatchObject({
      enabled: true,
      proformaPreviewsEnabled: true,
    });
    await expect(updatePortalSettings(deps, k, '{"proformaPreviewsEnabled":"yes"}')).rejects.toThrow();
    expect((await getPortalSettings(deps, k)).proformaPreviewsEnabled).toBe(true);
  });

  it('reads settings saved while magic links were off by default as on, and writes the opt-out from then on', async () => {
    const k = key();
    // What every save stored before: the then-default false beside the portal switch.
    const now = new Date().toISOString();
    await store.collection<OrgSettingsDoc<Record<string, unknown>>>('portal_settings').insert({
      ...filter(k),
      settings: {
        enabled: true,
        magicLinksEnabled: false,
        eInvoiceFormats: ['xrechnung'],
        proformaPreviewsEnabled: false,
      },
      createdAt: now,
      updatedAt: now,
    });
    expect(await getPortalSettings(deps, k)).toEqual({
      enabled: true,
      magicLinksEnabled: true,
      eInvoiceFormats: ['xrechnung'],
      proformaPreviewsEnabled: false,
    });
    expect(await updatePortalSettings(deps, k, '{"magicLinksEnabled":false}')).toMatchObject({
      enabled: true,
      magicLinksEnabled: false,
    });
    const stored = await store
      .collection<OrgSettingsDoc<Record<string, unknown>>>('portal_settings')
      .findOne(filter(k));
    expect(stored?.settings).toEqual({
      enabled: true,
      magicLinksOff: true,
      eInvoiceFormats: ['xrechnung'],
      proformaPreviewsEnabled: false,
    });
    // An empty patch writes nothing.
    expect(await updatePortalSettings(deps, k, '{}')).toMatchObject({ magicLinksEnabled: false });
    expect(
      (await store.collection<OrgSettingsDoc<Record<string, unknown>>>('portal_settings').findOne(filter(k)))?.version,
    ).toBe(stored?.version);
  });

  it('records a sender check only for the address it looked up: one changed meanwhile stays pending (409)', async () => {
    const k = key();
    await updateInvoicingSettings(deps, k, JSON.stringify({ documents: { senderEmail: 'billing@race.example' } }));
    const racing = {
      ...deps,
      dns: {
        async lookupTxt() {
          await updateInvoicingSettings(deps, k, JSON.stringify({ documents: { senderEmail: 'other@race.example' } }));
          return { values: [], reason: 'the name does not exist in DNS' };
        },
      },
    };
    await expect(verifySender(racing, k)).rejects.toMatchObject({ kind: 'conflict' });
    const sender = (await getInvoicingSettings(deps, k)).settings.documents?.sender;
    expect(sender).toMatchObject({ email: 'other@race.example', state: 'pending', checkedAt: null });
    const unchecked = { ...deps, dns: { lookupTxt: async () => Promise.reject(new Error('not asked')) } };
    await expect(verifySender(unchecked, key())).rejects.toMatchObject({ code: 'SENDER_EMAIL_MISSING' });
  });
});
