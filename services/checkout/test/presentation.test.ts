import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newObjectId } from '@paymesh/core';
import { createCheckout } from '../src/app/create-checkout';
import { getPublicCheckout } from '../src/app/public-checkout';
import { createHandoff } from '../src/app/create-handoff';
import { createTransaction } from '../src/app/create-transaction';
import { markTransactionPending } from '../src/app/mark-transaction-pending';
import { createDomain } from '../src/app/domains';
import { verifyDomainCname } from '../src/app/verify-domain';
import { createSite } from '../src/app/create-site';
import { getSite } from '../src/app/get-site';
import { updateSite } from '../src/app/update-site';
import { SITES } from '../src/store/collections';
import { openHarness, type Harness } from './harness';

const input = { amount: 2500, currency: 'EUR', externalReference: 'order-1' };
const billing = { name: 'Ada', email: 'ada@example.com', country: 'DE' };
const CNAME_TARGET = 'checkout.paymesh.example';

describe('public checkout: origins, VAT ID mode and branding (PostgreSQL)', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await openHarness();
  });
  afterAll(async () => h?.close());

  /** Registers a custom domain and runs the real CNAME check against the stub resolver. */
  async function domain(
    organizationId: string,
    hostname: string,
    opts: { siteId?: string; mode?: 'live' | 'test'; verified: boolean },
  ) {
    await createDomain(h.deps, { organizationId, mode: opts.mode ?? 'live', hostname, siteId: opts.siteId ?? null });
    h.cnames.set(hostname, [opts.verified ? `${CNAME_TARGET}.` : 'elsewhere.example.']);
    const check = await verifyDomainCname(h.deps, organizationId, opts.mode ?? 'live', hostname);
    expect(check.verified).toBe(opts.verified);
  }

  describe('origin allow-list with the organization custom domains', () => {
    it('allows verified domains of the organization (organization-wide or of this site), refuses the others with 403', async () => {
      const shop = await h.site({ frontendDomains: ['shop.example'] });
      const { organizationId, siteId } = shop;
      const other = await h.site({ organizationId, frontendDomains: ['other.example'] });
      const foreign = await h.site();
      await domain(organizationId, 'pay.org-wide.example', { verified: true });
      await domain(organizationId, 'pay.this-site.example', { verified: true, siteId });
      await domain(organizationId, 'pay.unverified.example', { verified: false });
      await domain(organizationId, 'pay.other-site.example', { verified: true, siteId: other.siteId });
      await domain(organizationId, 'pay.test-mode.example', { verified: true, mode: 'test' });
      await domain(foreign.organizationId, 'pay.foreign.example', { verified: true });
      const c = await createCheckout(h.deps, { organizationId, mode: 'live', siteId, ...input });
      const view = (origin: string) => getPublicCheckout(h.deps, c.sessionPublicId, origin);

      await expect(view('https://pay.org-wide.example')).resolves.toMatchObject({ id: c.sessionPublicId });
      await expect(view('https://pay.this-site.example')).resolves.toMatchObject({ id: c.sessionPublicId });
      await expect(view('https://shop.example')).resolves.toMatchObject({ id: c.sessionPublicId });
      for (const refused of [
        'https://pay.unverified.example',
        'https://pay.other-site.example',
        'https://pay.test-mode.example',
        'https://pay.foreign.example',
        'https://pay.org-wide.example:8443',
        'https://www.pay.org-wide.example',
      ]) {
        await expect(view(refused), refused).rejects.toMatchObject({ httpStatus: 403 });
      }
    });

    it('stops allowing a domain once a CNAME check finds it repointed', async () => {
      const { organizationId, siteId } = await h.site();
      await domain(organizationId, 'pay.repointed.example', { verified: true });
      const c = await createCheckout(h.deps, { organizationId, mode: 'live', siteId, ...input });
      await expect(
        getPublicCheckout(h.deps, c.sessionPublicId, 'https://pay.repointed.example'),
      ).resolves.toBeDefined();
      h.cnames.set('pay.repointed.example', ['elsewhere.example']);
      expect((await verifyDomainCname(h.deps, organizationId, 'live', 'pay.repointed.example')).verified).toBe(false);
      await expect(getPublicCheckout(h.deps, c.sessionPublicId, 'https://pay.repointed.example')).rejects.toMatchObject(
        { httpStatus: 403 },
      );
    });

    it('applies the same rule to handoffs, transaction create and the transaction calls', async () => {
      const { organizationId, siteId } = await h.site();
      await domain(organizationId, 'pay.handoff.example', { verified: true });
      await domain(organizationId, 'pay.handoff-unverified.example', { verified: false });
      const provider = h.payments.addProvider({ organizationId });
      const c = await createCheckout(h.deps, { organizationId, mode: 'live', siteId, ...input });
      const ok = 'https://pay.handoff.example';
      const bad = 'https://pay.handoff-unverified.example';
      await expect(
        createHandoff(h.deps, { sessionPublicId: c.sessionPublicId, providerId: provider.id, browserOrigin: ok }),
      ).resolves.toBeDefined();
      await expect(
        createHandoff(h.deps, { sessionPublicId: c.sessionPublicId, providerId: provider.id, browserOrigin: bad }),
      ).rejects.toMatchObject({
        httpStatus: 403,
      });
      await expect(
        createTransaction(h.deps, {
          sessionPublicId: c.sessionPublicId,
          providerId: provider.id,
          billingAddress: billing,
          browserOrigin: bad,
        }),
      ).rejects.toMatchObject({ httpStatus: 403 });
      const t = await createTransaction(h.deps, {
        sessionPublicId: c.sessionPublicId,
        providerId: provider.id,
        billingAddress: billing,
        browserOrigin: ok,
      });
      const markPending = (browserOrigin: string) =>
        markTransactionPending(h.deps, {
          transactionId: t.transaction.id,
          browserOrigin,
          sessionPublicId: c.sessionPublicId,
        });
      await expect(markPending(bad)).rejects.toMatchObject({ httpStatus: 403 });
      await expect(markPending(ok)).resolves.toMatchObject({ status: 0 });
    });
  });

  describe('VAT ID validation mode', () => {
    async function viesCheckout(mode: 'live' | 'test' = 'live') {
      const organizationId = newObjectId();
      const { site } = await createSite(h.deps, {
        organizationId,
        mode,
        name: 'Vies shop',
        url: 'https://shop.example',
        frontendDomains: [],
        vatIdValidation: 'vies',
      });
      const c = await createCheckout(h.deps, { organizationId, mode, siteId: site.id, ...input });
      return { organizationId, siteId: site.id, c };
    }

    it('shows vies when the tax settings of the organization and mode allow VIES, format otherwise', async () => {
      const allowed = await viesCheckout();
      h.tax.allowVies(allowed.organizationId);
      expect((await getPublicCheckout(h.deps, allowed.c.sessionPublicId, '')).vatIdValidation).toBe('vies');

      const notAllowed = await viesCheckout();
      expect((await getPublicCheckout(h.deps, notAllowed.c.sessionPublicId, '')).vatIdValidation).toBe('format');

      // VIES allowed in live only: the test-mode checkout is downgraded.
      const testMode = await viesCheckout('test');
      h.tax.allowVies(testMode.organizationId, 'live');
      expect((await getPublicCheckout(h.deps, testMode.c.sessionPublicId, '')).vatIdValidation).toBe('format');
      h.tax.allowVies(testMode.organizationId, 'test');
      expect((await getPublicCheckout(h.deps, testMode.c.sessionPublicId, '')).vatIdValidation).toBe('vies');
    });

    it('degrades to format, without failing the view, while the tax service is unavailable', async () => {
      const { organizationId, c } = await viesCheckout();
      h.tax.allowVies(organizationId);
      h.tax.unavailable = true;
      try {
        await expect(getPublicCheckout(h.deps, c.sessionPublicId, '')).resolves.toMatchObject({
          id: c.sessionPublicId,
          vatIdValidation: 'format',
        });
      } finally {
        h.tax.unavailable = false;
      }
      expect((await getPublicCheckout(h.deps, c.sessionPublicId, '')).vatIdValidation).toBe('vies');
    });

    it('asks tax only for sites set to vies; none and the default format are shown as configured', async () => {
      const { organizationId, siteId } = await h.site();
      const c = await createCheckout(h.deps, { organizationId, mode: 'live', siteId, ...input });
      const before = h.tax.calls;
      expect((await getPublicCheckout(h.deps, c.sessionPublicId, '')).vatIdValidation).toBe('format');
      await updateSite(h.deps, { organizationId, mode: 'live', id: siteId, vatIdValidation: 'none' });
      expect((await getPublicCheckout(h.deps, c.sessionPublicId, '')).vatIdValidation).toBe('none');
      expect(h.tax.calls).toBe(before);
      await updateSite(h.deps, { organizationId, mode: 'live', id: siteId, vatIdValidation: 'vies' });
      h.tax.allowVies(organizationId);
      expect((await getPublicCheckout(h.deps, c.sessionPublicId, '')).vatIdValidation).toBe('vies');
      expect(h.tax.calls).toBe(before + 1);
    });

    it('stores format for a new site by default and rejects unknown modes naming the field, writing nothing', async () => {
      const { organizationId, siteId } = await h.site();
      expect((await getSite(h.deps, organizationId, 'live', siteId)).checkoutSettings).toEqual({
        vatIdValidation: 'format',
      });
      await expect(
        updateSite(h.deps, { organizationId, mode: 'live', id: siteId, name: 'New', vatIdValidation: 'strict' }),
      ).rejects.toMatchObject({
        httpStatus: 400,
        field: 'checkoutSettings.vatIdValidation',
      });
      expect((await getSite(h.deps, organizationId, 'live', siteId)).name).toBe('Shop');
      const before = (await h.store.collection(SITES).find({ organizationId })).total;
      await expect(
        createSite(h.deps, {
          organizationId,
          mode: 'live',
          name: 'X',
          url: 'https://x.example',
          frontendDomains: [],
          vatIdValidation: 'VIES',
        }),
      ).rejects.toMatchObject({ field: 'checkoutSettings.vatIdValidation' });
      expect((await h.store.collection(SITES).find({ organizationId })).total).toBe(before);
    });
  });

  describe('branding', () => {
    it('shows the site branding in the public view; a partial update changes one field, an empty value clears it', async () => {
      const organizationId = newObjectId();
      const { site } = await createSite(h.deps, {
        organizationId,
        mode: 'live',
        name: 'Branded',
        url: 'https://shop.example',
        frontendDomains: [],
        branding: { logo: 'https://cdn.shop.example/logo.png', primaryColor: '#0A84FF' },
      });
      expect(site.branding).toEqual({ logo: 'https://cdn.shop.example/logo.png', primaryColor: '#0a84ff' });
      const c = await createCheckout(h.deps, { organizationId, mode: 'live', siteId: site.id, ...input });
      expect((await getPublicCheckout(h.deps, c.sessionPublicId, '')).branding).toEqual({
        logo: 'https://cdn.shop.example/logo.png',
        primaryColor: '#0a84ff',
      });

      await updateSite(h.deps, { organizationId, mode: 'live', id: site.id, branding: { primaryColor: '#112233' } });
      expect((await getPublicCheckout(h.deps, c.sessionPublicId, '')).branding).toEqual({
        logo: 'https://cdn.shop.example/logo.png',
        primaryColor: '#112233',
      });
      await updateSite(h.deps, { organizationId, mode: 'live', id: site.id, branding: { logo: '' } });
      expect((await getPublicCheckout(h.deps, c.sessionPublicId, '')).branding).toEqual({
        logo: undefined,
        primaryColor: '#112233',
      });
    });

    it.each([
      ['an http logo', { logo: 'http://cdn.shop.example/logo.png' }, 'branding.logo'],
      ['a relative logo', { logo: '/logo.png' }, 'branding.logo'],
      ['a logo with credentials', { logo: 'https://user:pw@cdn.shop.example/logo.png' }, 'branding.logo'],
      ['a color name', { primaryColor: 'red' }, 'branding.primaryColor'],
      ['a short color', { primaryColor: '#fff' }, 'branding.primaryColor'],
    ])('rejects %s naming the field and writes nothing', async (_name, branding, field) => {
      const { organizationId, siteId } = await h.site();
      await expect(updateSite(h.deps, { organizationId, mode: 'live', id: siteId, branding })).rejects.toMatchObject({
        httpStatus: 400,
        field,
      });
      expect((await getSite(h.deps, organizationId, 'live', siteId)).branding).toEqual({});
    });
  });
});
