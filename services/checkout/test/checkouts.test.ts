import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, EMPTY_TARGET_ALLOW_LIST, newObjectId } from '@paymesh/core';
import { createCheckout } from '../src/app/create-checkout';
import { getCheckout, listCheckouts } from '../src/app/get-checkout';
import { updateCheckout } from '../src/app/update-checkout';
import { getPublicCheckout } from '../src/app/public-checkout';
import { createHandoff } from '../src/app/create-handoff';
import { consumeHandoff } from '../src/app/consume-handoff';
import { recordLicenseState } from '../src/app/record-license';
import type { LicenseState } from '../src/domain/license';
import { CHECKOUTS, HANDOFFS } from '../src/store/collections';
import { openHarness, type Harness } from './harness';

const input = { amount: 2500, currency: 'EUR', externalReference: 'order-1' };

describe('checkout sessions on PostgreSQL', () => {
  let h: Harness;
  let org: { organizationId: string; siteId: string };

  beforeAll(async () => {
    h = await openHarness();
    org = await h.site({ frontendDomains: ['shop.example', 'localhost:5173'] });
  });
  afterAll(async () => h?.close());

  const newCheckout = (extra: Record<string, unknown> = {}) =>
    createCheckout(h.deps, {
      organizationId: org.organizationId,
      mode: 'live',
      siteId: org.siteId,
      ...input,
      ...extra,
    });

  it('creates a session with random public ID, unique short code, payment URL and default expiry', async () => {
    const a = await newCheckout();
    const b = await newCheckout();
    expect(a.sessionPublicId).toMatch(/^cs_[A-Za-z0-9_-]{32}$/);
    expect(a.sessionPublicId).not.toBe(b.sessionPublicId);
    expect(a.shortCode).not.toBe(b.shortCode);
    expect(a.paymentUrl).toBe(`https://pay.example/c/${a.sessionPublicId}`);
    expect(a.expiresAt).toBe('2026-03-02T12:00:00.000Z');
    expect(a.status).toBe('pending');
    const stored = await h.store.collection(CHECKOUTS).get(a.id);
    expect(stored).toMatchObject({ amount: 2500, currency: 'EUR', organizationId: org.organizationId, mode: 'live' });
  });

  it('answers 404 for a site of another organization or mode, and stores nothing', async () => {
    const before = await h.store.collection(CHECKOUTS).count({});
    await expect(
      createCheckout(h.deps, { organizationId: newObjectId(), mode: 'live', siteId: org.siteId, ...input }),
    ).rejects.toMatchObject({
      httpStatus: 404,
    });
    await expect(
      createCheckout(h.deps, { organizationId: org.organizationId, mode: 'test', siteId: org.siteId, ...input }),
    ).rejects.toMatchObject({
      httpStatus: 404,
    });
    await expect(newCheckout({ currency: 'EURO' })).rejects.toMatchObject({ httpStatus: 400, field: 'currency' });
    expect(await h.store.collection(CHECKOUTS).count({})).toBe(before);
  });

  it('runs creation guards before storing (the dispute-block hook)', async () => {
    const before = await h.store.collection(CHECKOUTS).count({});
    h.deps.guards.push({
      name: 'test-block',
      check: async () => {
        throw new ConflictError('blocked', { code: 'CHECKOUT_BLOCKED_BY_DISPUTE' });
      },
    });
    try {
      await expect(newCheckout()).rejects.toMatchObject({ httpStatus: 409, code: 'CHECKOUT_BLOCKED_BY_DISPUTE' });
    } finally {
      h.deps.guards.pop();
    }
    expect(await h.store.collection(CHECKOUTS).count({})).toBe(before);
  });

  it('refuses IPN targets resolving to private addresses, without naming the address', async () => {
    const strict = await openHarness({ ipnPolicy: { allowHttp: false, allowedTargets: EMPTY_TARGET_ALLOW_LIST } });
    try {
      const s = await strict.site();
      strict.dns.set('internal.example', ['10.0.0.7']);
      strict.dns.set('public.example', ['93.184.216.34']);
      const make = (ipnUrl: string) => createCheckout(strict.deps, { ...s, mode: 'live', ...input, ipnUrl });
      const internal = await make('https://internal.example/ipn').then(
        () => new Error('accepted'),
        (e: Error) => e,
      );
      expect(internal.message).toMatch(/internal\.example resolves to a non-public address$/);
      expect(internal.message).not.toContain('10.0.0.7');
      strict.dns.set('nat64.example', ['64:ff9b::a9fe:a9fe']);
      await expect(make('https://nat64.example/ipn')).rejects.toThrow(/non-public/);
      await expect(make('https://nowhere.example/ipn')).rejects.toThrow(/does not resolve/);
      await expect(make('http://public.example/ipn')).rejects.toThrow(/must use https/);
      expect((await make('https://public.example/ipn')).ipnUrl).toBe('https://public.example/ipn');
    } finally {
      await strict.close();
    }
  });

  it('lists with status, reference and date filters, and derives expired', async () => {
    const other = await h.site();
    const mine = await createCheckout(h.deps, {
      ...other,
      mode: 'live',
      amount: 100,
      currency: 'USD',
      invoiceNumber: 'INV-42',
    });
    h.clock.advance(60_000);
    const later = await createCheckout(h.deps, {
      ...other,
      mode: 'live',
      amount: 200,
      currency: 'USD',
      externalReference: 'x',
      expiresAt: '2026-03-01T12:30:00Z',
    });
    /** The ids of the other organisation's checkouts a filter lists (first page). */
    const ids = async (
      filter: Omit<Parameters<typeof listCheckouts>[1], 'organizationId' | 'mode' | 'page' | 'limit'> = {},
    ) =>
      (
        await listCheckouts(h.deps, {
          organizationId: other.organizationId,
          mode: 'live',
          ...filter,
          page: 1,
          limit: 10,
        })
      ).items.map((c) => c.id);
    expect(await ids()).toEqual([later.id, mine.id]);
    expect(await ids({ invoiceNumber: 'INV-42' })).toEqual([mine.id]);
    expect(await ids({ createdFrom: later.createdAt })).toEqual([later.id]);
    h.clock.advance(60 * 60_000);
    expect(await ids({ status: 'expired' })).toEqual([later.id]);
    expect(await ids({ status: 'pending' })).toEqual([mine.id]);
    h.clock.set('2026-03-01T12:00:00.000Z');
  });

  it('updates only pending sessions and only the changeable fields', async () => {
    const c = await newCheckout();
    const ref = { organizationId: org.organizationId, mode: 'live' as const, id: c.id };
    const updated = await updateCheckout(h.deps, ref, {
      returnUrl: 'https://shop.example/done/{transactionId}',
      ipnUrl: 'https://shop.example/ipn',
      metadata: { a: 'b' },
      expiresAt: '2026-03-03T00:00:00Z',
    });
    expect(updated).toMatchObject({
      returnUrl: 'https://shop.example/done/{transactionId}',
      ipnUrl: 'https://shop.example/ipn',
      metadata: { a: 'b' },
      expiresAt: '2026-03-03T00:00:00.000Z',
    });
    const cleared = await updateCheckout(h.deps, ref, { ipnUrl: '' });
    expect(cleared.ipnUrl).toBeNull();
    await expect(updateCheckout(h.deps, ref, {})).rejects.toMatchObject({ httpStatus: 400 });
    await expect(updateCheckout(h.deps, ref, { returnUrl: 'nope' })).rejects.toMatchObject({
      httpStatus: 400,
      field: 'returnUrl',
    });
    await expect(
      updateCheckout(h.deps, { ...ref, organizationId: newObjectId() }, { metadata: {} }),
    ).rejects.toMatchObject({ httpStatus: 404 });
    h.clock.advance(3 * 24 * 3_600_000);
    await expect(updateCheckout(h.deps, ref, { metadata: {} })).rejects.toMatchObject({
      httpStatus: 409,
      code: 'CHECKOUT_NOT_PENDING',
    });
    h.clock.set('2026-03-01T12:00:00.000Z');
    expect((await getCheckout(h.deps, org.organizationId, 'live', c.id)).metadata).toEqual({ a: 'b' });
  });

  describe('public view', () => {
    it('shows line items, enabled provider types of the mode, expiry and the VAT mode', async () => {
      const c = await newCheckout({ items: [{ name: 'Plan', quantity: 2, unitPrice: 1250 }] });
      h.payments.addProvider({ organizationId: org.organizationId, type: 'provider_a' });
      h.payments.addProvider({ organizationId: org.organizationId, type: 'provider_a' });
      h.payments.addProvider({ organizationId: org.organizationId, type: 'provider_c' });
      h.payments.addProvider({ organizationId: org.organizationId, type: 'provider_b', enabled: false });
      h.payments.addProvider({ organizationId: org.organizationId, type: 'provider_d', testMode: true });
      const v = await getPublicCheckout(h.deps, c.sessionPublicId, '');
      expect(v).toEqual({
        id: c.sessionPublicId,
        currency: 'EUR',
        amount: 2500,
        status: 'pending',
        lineItems: [{ name: 'Plan', quantity: 2, unitAmount: 1250 }],
        providers: ['provider_a', 'provider_c'],
        branding: { logo: undefined, primaryColor: undefined },
        expiresAt: c.expiresAt,
        vatIdValidation: 'format',
      });
    });

    it('allows the site frontend domains as origin and refuses others with 403', async () => {
      const c = await newCheckout();
      await expect(getPublicCheckout(h.deps, c.sessionPublicId, 'https://shop.example')).resolves.toMatchObject({
        id: c.sessionPublicId,
      });
      await expect(getPublicCheckout(h.deps, c.sessionPublicId, 'http://localhost:5173')).resolves.toMatchObject({
        id: c.sessionPublicId,
      });
      await expect(getPublicCheckout(h.deps, c.sessionPublicId, 'https://evil.example')).rejects.toMatchObject({
        httpStatus: 403,
      });
      await expect(getPublicCheckout(h.deps, 'cs_unknown', '')).rejects.toMatchObject({ httpStatus: 404 });
    });

    it('denies blocked and not activated merchants, follows licence events in occurrence order', async () => {
      const s = await h.site();
      const c = await createCheckout(h.deps, { ...s, mode: 'live', ...input });
      const licence = (licenseState: LicenseState, at: string) =>
        recordLicenseState(h.deps, { organizationId: s.organizationId, licenseState, at });
      // Unknown organization (events lag): allowed.
      await expect(getPublicCheckout(h.deps, c.sessionPublicId, '')).resolves.toBeDefined();
      // The change arrives before the creation event: the older creation must not win.
      await licence('BLOCKED', '2026-03-01T10:00:01.000Z');
      expect(await licence('ACTIVE', '2026-03-01T10:00:00.000Z')).toBe('stale');
      await expect(getPublicCheckout(h.deps, c.sessionPublicId, '')).rejects.toMatchObject({
        httpStatus: 403,
        code: 'LICENSE_BLOCKED',
      });
      await licence('NOT_ACTIVATED', '2026-03-01T10:00:02.000Z');
      await expect(getPublicCheckout(h.deps, c.sessionPublicId, '')).rejects.toMatchObject({
        httpStatus: 403,
        code: 'LICENSE_NOT_ACTIVATED',
      });
      await licence('ACTIVE', '2026-03-01T10:00:03.000Z');
      await expect(getPublicCheckout(h.deps, c.sessionPublicId, '')).resolves.toBeDefined();
    });

    it('shows an expired session as expired', async () => {
      const c = await newCheckout({ expiresAt: '2026-03-01T12:10:00Z' });
      h.clock.advance(10 * 60_000);
      expect((await getPublicCheckout(h.deps, c.sessionPublicId, '')).status).toBe('expired');
      h.clock.set('2026-03-01T12:00:00.000Z');
    });
  });

  describe('handoff', () => {
    it('hands the choice over once; the token is stored only as a hash', async () => {
      const c = await newCheckout();
      const provider = h.payments.addProvider({ organizationId: org.organizationId });
      const billing = {
        name: 'Ada',
        email: 'ada@example.com',
        line1: 'Main 1',
        city: 'Berlin',
        postalCode: '10115',
        country: 'de',
      };
      const { token, expiresInSeconds } = await createHandoff(h.deps, {
        sessionPublicId: c.sessionPublicId,
        providerId: provider.id,
        billingAddress: billing,
        browserOrigin: '',
      });
      expect(expiresInSeconds).toBe(600);
      expect(token).toMatch(/^ho_[A-Za-z0-9_-]{43}$/);
      const raw = JSON.stringify((await h.store.collection(HANDOFFS).find({ checkoutId: c.id })).items);
      expect(raw).not.toContain(token);
      await expect(
        consumeHandoff(h.deps, { sessionPublicId: 'cs_other', token, browserOrigin: '' }),
      ).rejects.toMatchObject({ httpStatus: 404 });
      const first = await consumeHandoff(h.deps, { sessionPublicId: c.sessionPublicId, token, browserOrigin: '' });
      expect(first).toEqual({
        providerId: provider.id,
        billingAddress: { ...billing, country: 'DE' },
        createdAt: '2026-03-01T12:00:00.000Z',
      });
      await expect(
        consumeHandoff(h.deps, { sessionPublicId: c.sessionPublicId, token, browserOrigin: '' }),
      ).rejects.toMatchObject({ httpStatus: 404 });
    });

    it('lets exactly one of concurrent consumers win', async () => {
      const c = await newCheckout();
      const provider = h.payments.addProvider({ organizationId: org.organizationId });
      const { token } = await createHandoff(h.deps, {
        sessionPublicId: c.sessionPublicId,
        providerId: provider.id,
        browserOrigin: '',
      });
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, () =>
          consumeHandoff(h.deps, { sessionPublicId: c.sessionPublicId, token, browserOrigin: '' }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    });

    it('expires tokens, refuses unknown providers and foreign origins', async () => {
      const c = await newCheckout();
      const provider = h.payments.addProvider({ organizationId: org.organizationId });
      const { token } = await createHandoff(h.deps, {
        sessionPublicId: c.sessionPublicId,
        providerId: 'provider_a',
        browserOrigin: '',
      });
      h.clock.advance(601_000);
      await expect(
        consumeHandoff(h.deps, { sessionPublicId: c.sessionPublicId, token, browserOrigin: '' }),
      ).rejects.toMatchObject({ httpStatus: 404 });
      h.clock.set('2026-03-01T12:00:00.000Z');
      await expect(
        createHandoff(h.deps, { sessionPublicId: c.sessionPublicId, providerId: newObjectId(), browserOrigin: '' }),
      ).rejects.toMatchObject({
        httpStatus: 400,
        field: 'providerId',
      });
      await expect(
        createHandoff(h.deps, {
          sessionPublicId: c.sessionPublicId,
          providerId: provider.id,
          browserOrigin: 'https://evil.example',
        }),
      ).rejects.toMatchObject({ httpStatus: 403 });
      await expect(
        createHandoff(h.deps, {
          sessionPublicId: c.sessionPublicId,
          providerId: provider.id,
          billingAddress: { name: 'x' },
          browserOrigin: '',
        }),
      ).rejects.toMatchObject({ httpStatus: 400 });
    });
  });
});
