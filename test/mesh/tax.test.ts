import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';

/** VAT IDs the VIES sandbox has registered (see sandboxes/vies/README.md). */
const FR_VALID = 'FR47759777570';
const NL_VALID = 'NL769350665B01';
const buyer = { name: 'Ada Buyer', email: 'ada@example.com' };

/**
 * Tax end to end: organization tax settings -> checkout tax preview (Main Backend) and invoice
 * tax preview (Admin API) -> tax CalculateTax with the VIES sandbox -> the tax stored with a
 * transaction, its recalculation while pending and the refusal once it is final.
 */
describe('tax: previews, transactions and VIES', () => {
  let mesh: TestMesh;
  let boot: BootstrapResult;
  let admin: string;
  let pub: string;
  let vies: string;
  let sessionId: string;

  const adminCall = (method: string, path: string, body?: unknown) =>
    api(method, `${admin}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });
  const taxSettings = async (patch: Record<string, unknown>) => {
    const res = await adminCall('PUT', '/organizations/settings/tax', patch);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  const siteMode = async (vatIdValidation: 'none' | 'format' | 'vies') => {
    const res = await adminCall('PUT', `/sites/${boot.siteId}`, { checkoutSettings: { vatIdValidation } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  const newCheckout = async (ref: string) => {
    const res = await adminCall('POST', `/checkouts/${boot.siteId}/create`, {
      amount: 10000,
      currency: 'EUR',
      externalReference: ref,
      items: [{ name: 'Pro plan', quantity: 1, unitPrice: 10000, itemType: 'digital_service' }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.sessionPublicId as string;
  };
  const preview = (billingAddress: unknown, id = sessionId) =>
    api('POST', `${pub}/checkouts/${id}/tax-preview`, { body: { billingAddress } });
  const invoicePreview = (body: Record<string, unknown>) =>
    adminCall('POST', '/invoices/preview-tax', {
      currency: 'EUR',
      items: [
        { description: 'Pro plan', quantity: 1, unitPrice: 10000, amountType: 'gross', itemType: 'digital_service' },
      ],
      ...body,
    });
  /** The figures a buyer and a merchant rely on, for comparing the two previews. */
  const figures = (p: any) => ({
    taxIncluded: p.taxIncluded,
    totalNet: p.totalNet,
    totalTax: p.totalTax,
    totalGross: p.totalGross,
    taxBreakdown: p.taxBreakdown,
    buyerType: p.buyer.type,
  });
  const viesControl = (path: string, body?: unknown) =>
    api(body === undefined ? 'GET' : 'POST', `${vies}/_sandbox${path}`, body === undefined ? {} : { body });
  const transactionCount = async () => (await adminCall('GET', '/transactions?limit=100')).body.total as number;

  beforeAll(async () => {
    mesh = await startTestMesh();
    admin = mesh.adminBaseUrl;
    pub = mesh.publicBaseUrl;
    vies = mesh.sandboxUrls['sandbox-vies'] ?? '';
    boot = await mesh.bootstrap();
    await taxSettings({ homeCountry: 'DE' });
    sessionId = await newCheckout('tax-1');
  });

  afterAll(async () => {
    await mesh?.dispose();
  });

  it('previews the draft payload itself (clientId names the buyer) with the tax the draft is created with', async () => {
    const client = await adminCall('POST', '/clients', {
      name: 'Client FR',
      email: 'client-fr@example.com',
      address: { street: 'Rue 1', city: 'Lyon', postalCode: '69001', country: 'FR' },
    });
    expect(client.status, JSON.stringify(client.body)).toBe(201);
    // The body of POST /invoices as the spec shows it: no buyer, no amountType (gross by default).
    const draft = {
      siteId: boot.siteId,
      clientId: client.body.id,
      currency: 'EUR',
      items: [{ description: 'Pro plan', quantity: 2, unitPrice: 6000, itemType: 'digital_service' }],
      paymentTermsDays: 14,
    };
    const res = await adminCall('POST', '/invoices/preview-tax', draft);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const created = await adminCall('POST', '/invoices', draft);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const calc = created.body.taxCalculation;
    expect(figures(res.body)).toEqual({
      taxIncluded: calc.taxIncluded,
      totalNet: calc.totalNet,
      totalTax: calc.totalTax,
      totalGross: calc.totalGross,
      taxBreakdown: calc.taxBreakdown,
      buyerType: 'consumer',
    });
    expect(res.body).toMatchObject({
      totalGross: 12000,
      taxBreakdown: [{ taxRateCode: created.body.taxCalculation.taxBreakdown[0].taxRateCode }],
    });
    // The explicit buyer of today's shape still answers, and wins over the client.
    expect(
      (await adminCall('POST', '/invoices/preview-tax', { ...draft, buyer: { country: 'DE' } })).body.taxBreakdown[0],
    ).toMatchObject({ taxRate: 19 });
  });

  it('taxes a German consumer at 19 %, the same in the checkout and the invoice preview', async () => {
    const res = await preview({ country: 'DE' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      currency: 'EUR',
      taxIncluded: true,
      totalNet: 8403,
      totalTax: 1597,
      totalGross: 10000,
      taxBreakdown: [{ taxRate: 19, taxableBase: 8403, taxAmount: 1597 }],
      lines: [{ name: 'Pro plan', quantity: 1, net: 8403, tax: 1597, gross: 10000, taxRate: 19 }],
      buyer: { type: 'consumer', vatIdStatus: 'not_given', consultationNumber: null },
    });
    expect(res.body.taxBreakdown[0].taxRateCode).toMatch(/^[A-Z0-9_]+$/);
    expect(typeof res.body.buyer.vatIdTreatment).toBe('string');
    const inv = await invoicePreview({ buyer: { country: 'DE' } });
    expect(inv.status, JSON.stringify(inv.body)).toBe(200);
    expect(figures(inv.body)).toEqual(figures(res.body));
  });

  it('taxes a Dutch consumer at the German 19 % without OSS and at 21 % once ossEnabled', async () => {
    await taxSettings({ ossEnabled: false });
    const origin = await preview({ country: 'NL', postcode: '1011 AB' });
    expect(origin.status, JSON.stringify(origin.body)).toBe(200);
    expect(origin.body).toMatchObject({ totalTax: 1597, taxBreakdown: [{ taxRate: 19 }] });
    expect(figures((await invoicePreview({ buyer: { country: 'NL' } })).body)).toEqual(figures(origin.body));

    await taxSettings({ ossEnabled: true });
    const destination = await preview({ country: 'NL', postcode: '1011 AB' });
    expect(destination.body).toMatchObject({
      totalNet: 8264,
      totalTax: 1736,
      totalGross: 10000,
      taxBreakdown: [{ taxRate: 21, taxAmount: 1736 }],
    });
    expect(figures((await invoicePreview({ buyer: { country: 'NL' } })).body)).toEqual(figures(destination.body));
  });

  it('reverse-charges a French business with a VIES-valid VAT ID only in vies mode', async () => {
    expect(vies, 'the VIES sandbox runs in the test mesh').not.toBe('');
    await taxSettings({ viesEnabled: true });
    await siteMode('format');
    const formatOnly = await preview({ country: 'FR', vatId: FR_VALID });
    expect(formatOnly.status, JSON.stringify(formatOnly.body)).toBe(200);
    expect(formatOnly.body.buyer).toMatchObject({ type: 'consumer', vatIdStatus: 'well_formed' });
    expect(formatOnly.body.totalTax).toBeGreaterThan(0);

    await siteMode('vies');
    const res = await preview({ country: 'FR', vatId: 'fr 4775 9777 570' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      totalTax: 0,
      totalGross: 10000,
      taxBreakdown: [{ taxRate: 0, taxRateCode: 'REVERSE_CHARGE', taxAmount: 0 }],
      buyer: { type: 'business', vatIdStatus: 'valid' },
    });
    const inv = await invoicePreview({ buyer: { country: 'FR', vatId: FR_VALID }, vatIdValidation: 'vies' });
    expect(inv.status, JSON.stringify(inv.body)).toBe(200);
    expect(figures(inv.body)).toEqual(figures(res.body));
    // The organization's viesEnabled gates VIES for the invoice preview too.
    await taxSettings({ viesEnabled: false });
    expect(
      (await invoicePreview({ buyer: { country: 'FR', vatId: FR_VALID }, vatIdValidation: 'vies' })).body.buyer.type,
    ).toBe('consumer');
    await taxSettings({ viesEnabled: true });
  });

  it('does not tax an export to the United States', async () => {
    const res = await preview({ country: 'US', postcode: '10001' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      totalTax: 0,
      totalGross: 10000,
      taxBreakdown: [{ taxRate: 0, taxRateCode: 'EXPORT', taxAmount: 0 }],
    });
    expect(figures((await invoicePreview({ buyer: { country: 'US' } })).body)).toEqual(figures(res.body));
  });

  it('still answers while VIES is down and says how the VAT ID was treated', async () => {
    expect((await viesControl('/outage', { mode: 'down', error: 'SERVICE_UNAVAILABLE' })).status).toBe(200);
    try {
      const res = await preview({ country: 'NL', vatId: NL_VALID });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.buyer).toMatchObject({ type: 'consumer', vatIdStatus: 'unverified', consultationNumber: null });
      expect(res.body.buyer.vatIdTreatment).toMatch(/VIES/);
      expect(res.body).toMatchObject({ totalTax: 1736, taxBreakdown: [{ taxRate: 21 }] });
    } finally {
      await viesControl('/outage', { mode: 'up' });
    }
  });

  it('answers a malformed VAT ID with a consumer treatment the buyer can correct', async () => {
    const res = await preview({ country: 'FR', vatId: 'FR123' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.buyer).toMatchObject({ type: 'consumer', vatIdStatus: 'malformed' });
  });

  describe('transactions', () => {
    let transactionId: string;

    it('stores the tax computed when the buyer pays', async () => {
      const before = await transactionCount();
      const res = await api('POST', `${pub}/transactions/create`, {
        body: {
          sessionPublicId: sessionId,
          providerId: boot.providers!.provider_a!.id,
          billingAddress: { ...buyer, country: 'NL', postalCode: '1011 AB' },
        },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      transactionId = res.body.transactionId;
      expect(await transactionCount()).toBe(before + 1);
      const tax = await adminCall('GET', `/transactions/${transactionId}/tax`);
      expect(tax.status).toBe(200);
      expect(tax.body).toMatchObject({
        transactionId,
        status: 'computed',
        tax: { totalTax: 1736, totalGross: 10000, buyer: { country: 'NL', postcode: '1011 AB', type: 'consumer' } },
        input: {
          organizationId: boot.organizationId,
          mode: 'live',
          buyer: { country: 'NL' },
          priceMode: 'gross',
          vatIdCheck: { status: 'not_given' },
        },
      });
      expect(tax.body.input.date).toBe(tax.body.tax.date);
      expect((await adminCall('GET', `/transactions/${transactionId}`)).body.billingAddress).toMatchObject({
        country: 'NL',
        vatId: null,
      });
    });

    it('carries the buyer VAT ID through a handoff, normalized', async () => {
      const id = await newCheckout('tax-handoff');
      const handoff = await api('POST', `${pub}/checkouts/${id}/handoff`, {
        body: {
          providerId: boot.providers!.provider_a!.id,
          billingAddress: { ...buyer, country: 'NL', vatId: 'nl 769350665 b01' },
        },
      });
      expect(handoff.status, JSON.stringify(handoff.body)).toBe(200);
      const consumed = await api('POST', `${pub}/checkouts/${id}/handoff/${handoff.body.handoffToken}/consume`);
      expect(consumed.body.billingAddress).toMatchObject({ country: 'NL', vatId: NL_VALID });
    });

    it('recalculates while pending, and refuses once the payment completed', async () => {
      const again = await adminCall('POST', `/transactions/${transactionId}/recalculate-tax`, { recheckVatId: true });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body).toMatchObject({ transactionId, status: 'computed', tax: { totalTax: 1736 } });
      expect((await adminCall('POST', `/transactions/${transactionId}/recalculate-tax`)).status).toBe(200);

      const record = await adminCall('GET', `/transactions/${transactionId}`);
      const provider = boot.providers!.provider_a!;
      const sandbox = mesh.sandboxUrls['sandbox-provider-a']!;
      const paid = await fetch(`${sandbox}/v1/payment_intents/${record.body.providerPaymentId}/confirm`, {
        method: 'POST',
        headers: { authorization: `Bearer ${provider.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ payment_method: 'pm_card_visa' }).toString(),
      });
      expect(paid.status).toBe(200);
      await eventually(
        async () => (await api('GET', `${pub}/transactions/${transactionId}/status`)).body.status === 1,
        20_000,
      );

      const final = await adminCall('POST', `/transactions/${transactionId}/recalculate-tax`, {});
      expect(final.status).toBe(409);
      expect(final.body).toMatchObject({
        code: 'TRANSACTION_TAX_FINAL',
        error: expect.stringMatching(/invoice or credit note/),
      });
      expect((await adminCall('GET', `/transactions/${transactionId}/tax`)).body.tax.totalTax).toBe(1736);
    });

    it('charges net + tax when the organization prices net', async () => {
      await taxSettings({ priceMode: 'net' });
      try {
        const id = await newCheckout('tax-net');
        const p = await preview({ country: 'NL' }, id);
        expect(p.body).toMatchObject({ taxIncluded: false, totalNet: 10000, totalTax: 2100, totalGross: 12100 });
        const res = await api('POST', `${pub}/transactions/create`, {
          body: {
            sessionPublicId: id,
            providerId: boot.providers!.provider_a!.id,
            billingAddress: { ...buyer, country: 'NL' },
          },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect((await api('GET', `${pub}/transactions/${res.body.transactionId}/status`)).body.amount).toBe(12100);
        expect((await adminCall('GET', `/transactions/${res.body.transactionId}`)).body.amount).toBe(12100);
      } finally {
        await taxSettings({ priceMode: 'gross' });
      }
    });
  });

  describe('shipping destination (goods and shipping follow it; everything else the billing country)', () => {
    // A German seller with OSS sells a chair, its delivery and a PDF manual (gross prices).
    const shopItems = [
      { name: 'Chair', quantity: 1, unitPrice: 10000, itemType: 'goods' },
      { name: 'Delivery', quantity: 1, unitPrice: 1000, itemType: 'shipping' },
      { name: 'Manual (PDF)', quantity: 1, unitPrice: 2000, itemType: 'digital_service' },
    ];
    const toFrance = { country: 'FR', name: 'Ada Buyer', line1: '12 rue des Lilas', city: 'Lyon', postalCode: '69003' };
    const shopCheckout = async (ref: string, extra: Record<string, unknown> = {}) => {
      const res = await adminCall('POST', `/checkouts/${boot.siteId}/create`, {
        amount: 13000,
        currency: 'EUR',
        externalReference: ref,
        items: shopItems,
        ...extra,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { id: res.body.id as string, sessionPublicId: res.body.sessionPublicId as string };
    };
    const previewWith = (id: string, body: Record<string, unknown>) =>
      api('POST', `${pub}/checkouts/${id}/tax-preview`, { body });
    /** Goods and delivery at the French 20 %, the manual at the German 19 % of the buyer's country. */
    const shippedToFrance = [
      { name: 'Chair', net: 8333, tax: 1667, gross: 10000, taxRate: 20, taxRateCode: 'VAT_FR_STANDARD' },
      { name: 'Delivery', net: 833, tax: 167, gross: 1000, taxRate: 20, taxRateCode: 'VAT_FR_STANDARD' },
      { name: 'Manual (PDF)', net: 1681, tax: 319, gross: 2000, taxRate: 19 },
    ];
    const allGerman = [
      { name: 'Chair', tax: 1597, taxRate: 19 },
      { name: 'Delivery', tax: 160, taxRate: 19 },
      { name: 'Manual (PDF)', tax: 319, taxRate: 19 },
    ];

    beforeAll(async () => {
      await taxSettings({ ossEnabled: true, priceMode: 'gross' });
    });

    it('previews and charges the French rate on goods and shipping for a buyer billed in DE and shipped to FR', async () => {
      const { sessionPublicId } = await shopCheckout('ship-fr');
      const p = await previewWith(sessionPublicId, { billingAddress: { country: 'DE' }, shippingAddress: toFrance });
      expect(p.status, JSON.stringify(p.body)).toBe(200);
      expect(p.body).toMatchObject({
        totalGross: 13000,
        totalTax: 2153,
        lines: shippedToFrance,
        buyer: { type: 'consumer' },
      });
      expect(p.body.taxBreakdown).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ taxRate: 20, taxAmount: 1834 }),
          expect.objectContaining({ taxRate: 19, taxAmount: 319 }),
        ]),
      );

      const res = await api('POST', `${pub}/transactions/create`, {
        body: {
          sessionPublicId,
          providerId: boot.providers!.provider_a!.id,
          billingAddress: { ...buyer, country: 'DE' },
          shippingAddress: toFrance,
        },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const id = res.body.transactionId as string;
      const tax = await adminCall('GET', `/transactions/${id}/tax`);
      expect(tax.status).toBe(200);
      expect(figures(tax.body.tax)).toEqual(figures(p.body));
      expect(tax.body.tax.lines).toMatchObject(
        shippedToFrance.map(({ name, tax: t, taxRate }) => ({ name, tax: t, taxRate })),
      );
      expect(tax.body.input.buyer).toMatchObject({ country: 'DE' });
      expect(tax.body.input.lines.map((l: { shipToCountry?: string }) => l.shipToCountry ?? null)).toEqual([
        'FR',
        'FR',
        null,
      ]);
      const tx = await adminCall('GET', `/transactions/${id}`);
      expect(tx.body).toMatchObject({ amount: 13000, billingAddress: { country: 'DE' }, shippingAddress: toFrance });
    });

    it('without a shipping address taxes as before: everything at the billing country', async () => {
      const { sessionPublicId } = await shopCheckout('ship-none');
      const p = await previewWith(sessionPublicId, { billingAddress: { country: 'DE' } });
      expect(p.status, JSON.stringify(p.body)).toBe(200);
      expect(p.body).toMatchObject({ totalGross: 13000, taxBreakdown: [{ taxRate: 19 }], lines: allGerman });
      expect(p.body.taxBreakdown).toHaveLength(1);
      const res = await api('POST', `${pub}/transactions/create`, {
        body: {
          sessionPublicId,
          providerId: boot.providers!.provider_a!.id,
          billingAddress: { ...buyer, country: 'DE' },
        },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const tax = await adminCall('GET', `/transactions/${res.body.transactionId}/tax`);
      expect(figures(tax.body.tax)).toEqual(figures(p.body));
      expect(tax.body.input.lines.some((l: object) => 'shipToCountry' in l)).toBe(false);
      expect((await adminCall('GET', `/transactions/${res.body.transactionId}`)).body.shippingAddress).toBeNull();
    });

    it("uses the checkout's shipping address unless the buyer gives one; a digital-only checkout does not care", async () => {
      const { id, sessionPublicId } = await shopCheckout('ship-merchant', { shippingAddress: { country: 'fr' } });
      const view = await adminCall('GET', `/checkouts/${id}`);
      expect(view.body.shippingAddress).toEqual({
        country: 'FR',
        name: null,
        line1: null,
        city: null,
        postalCode: null,
      });
      expect((await previewWith(sessionPublicId, { billingAddress: { country: 'DE' } })).body.lines).toMatchObject(
        shippedToFrance,
      );
      expect(
        (await previewWith(sessionPublicId, { billingAddress: { country: 'DE' }, shippingAddress: { country: 'DE' } }))
          .body.lines,
      ).toMatchObject(allGerman);

      const digital = await newCheckout('ship-digital');
      const plain = await previewWith(digital, { billingAddress: { country: 'DE' } });
      const shipped = await previewWith(digital, { billingAddress: { country: 'DE' }, shippingAddress: toFrance });
      expect(shipped.status).toBe(200);
      expect(figures(shipped.body)).toEqual(figures(plain.body));
    });

    it('refuses bad shipping addresses with 400 naming the field, and creates nothing', async () => {
      const checkoutsBefore = (await adminCall('GET', '/checkouts?limit=1')).body.total as number;
      const txBefore = await transactionCount();
      const { sessionPublicId } = await shopCheckout('ship-bad');
      const bad: unknown[] = [
        { country: 'QQ' },
        { country: 'France' },
        {},
        'FR',
        { country: 'FR', postalCode: 'x'.repeat(21) },
        { country: 'FR', name: 'x'.repeat(201) },
      ];
      for (const shippingAddress of bad) {
        const p = await previewWith(sessionPublicId, { billingAddress: { country: 'DE' }, shippingAddress });
        expect(p.status, `preview ${JSON.stringify(shippingAddress)}`).toBe(400);
        expect(p.body.error).toMatch(/shippingAddress/);
        const t = await api('POST', `${pub}/transactions/create`, {
          body: {
            sessionPublicId,
            providerId: boot.providers!.provider_a!.id,
            billingAddress: { ...buyer, country: 'DE' },
            shippingAddress,
          },
        });
        expect(t.status, `transaction ${JSON.stringify(shippingAddress)}`).toBe(400);
        expect(t.body.error).toMatch(/shippingAddress/);
        const b = await api('POST', `${pub}/billing-requests/create`, {
          body: { sessionPublicId, billingAddress: { ...buyer, country: 'DE' }, shippingAddress },
        });
        expect(b.status, `billing request ${JSON.stringify(shippingAddress)}`).toBe(400);
        const c = await adminCall('POST', `/checkouts/${boot.siteId}/create`, {
          amount: 13000,
          currency: 'EUR',
          externalReference: 'ship-bad-2',
          items: shopItems,
          shippingAddress,
        });
        expect(c.status, `checkout ${JSON.stringify(shippingAddress)}`).toBe(400);
        expect(c.body.error).toMatch(/shippingAddress/);
      }
      const unknownField = await adminCall('POST', `/checkouts/${boot.siteId}/create`, {
        amount: 13000,
        currency: 'EUR',
        externalReference: 'ship-bad-3',
        shippingAddress: { country: 'FR', street: 'x' },
      });
      expect(unknownField.status).toBe(400);
      expect(await transactionCount()).toBe(txBefore);
      expect((await adminCall('GET', '/checkouts?limit=1')).body.total).toBe(checkoutsBefore + 1);
    });
  });

  describe('bad input is 400 and changes nothing', () => {
    it('checkout preview', async () => {
      for (const billingAddress of [
        { country: 'QQ' },
        { country: 'Germany' },
        {},
        'DE',
        { country: 'DE', vatId: 'DE<>1' },
        { country: 'DE', postcode: 'x'.repeat(21) },
      ]) {
        const res = await preview(billingAddress);
        expect(res.status, JSON.stringify(billingAddress)).toBe(400);
        expect(res.body.error).toMatch(/billingAddress/);
        expect(res.headers.get('x-request-id')).toBeTruthy();
      }
      expect((await api('POST', `${pub}/checkouts/${sessionId}/tax-preview`, { body: {} })).status).toBe(400);
      expect(
        (await api('POST', `${pub}/checkouts/cs_unknown/tax-preview`, { body: { billingAddress: { country: 'DE' } } }))
          .status,
      ).toBe(404);
    });

    it('invoice preview', async () => {
      const cases: Record<string, unknown>[] = [
        { buyer: { country: 'QQ' } },
        {
          buyer: { country: 'DE' },
          items: [{ description: 'A', quantity: -1, unitPrice: 100, amountType: 'gross', itemType: 'goods' }],
        },
        {
          buyer: { country: 'DE' },
          items: [{ description: 'A', quantity: 1, unitPrice: 1.5, amountType: 'gross', itemType: 'goods' }],
        },
        { buyer: { country: 'DE' }, items: [] },
        { buyer: { country: 'DE' }, items: 'none' },
        { buyer: { country: 'DE' }, currency: 'EURO' },
        { buyer: { country: 'DE' }, date: '01.03.2026' },
        { buyer: { country: 'DE' }, unknown: true },
        {},
      ];
      for (const c of cases) {
        const res = await invoicePreview(c);
        expect(res.status, JSON.stringify(c)).toBe(400);
        expect(res.body.error).toBeTruthy();
      }
      // A draft payload naming a client that does not exist: 404 naming clientId, as creating the draft answers.
      const unknownClient = await invoicePreview({ clientId: 'a'.repeat(24) });
      expect(unknownClient.status, JSON.stringify(unknownClient.body)).toBe(404);
      expect(unknownClient.body.error).toMatch(/clientId/);
      const neither = await invoicePreview({ siteId: boot.siteId });
      expect(neither.status).toBe(400);
      expect(neither.body.error).toMatch(/clientId/);
    });

    it('transaction create and recalculation', async () => {
      const before = await transactionCount();
      const id = await newCheckout('tax-bad');
      const providerId = boot.providers!.provider_a!.id;
      for (const billingAddress of [
        { ...buyer, country: 'QQ' },
        { ...buyer, country: 'DE', vatId: 'DE 12/34' },
        { ...buyer, country: 'DE', vatId: 'X'.repeat(31) },
      ]) {
        const res = await api('POST', `${pub}/transactions/create`, {
          body: { sessionPublicId: id, providerId, billingAddress },
        });
        expect(res.status, JSON.stringify(billingAddress)).toBe(400);
      }
      expect(await transactionCount()).toBe(before);
      expect((await adminCall('POST', `/transactions/${'0'.repeat(24)}/recalculate-tax`, {})).status).toBe(404);
      expect(
        (await adminCall('POST', `/transactions/${'0'.repeat(24)}/recalculate-tax`, { recheckVatId: 'yes' })).status,
      ).toBe(400);
      expect((await adminCall('GET', '/transactions/not-an-id/tax')).status).toBe(400);
    });
  });
});
