import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, ErrorCode, UnavailableError, UnprocessableError, ValidationError } from '@paymesh/core';
import type { CalculateTaxRequest, TaxCalculation } from '@paymesh/contracts';
import { createCheckout } from '../src/app/create-checkout';
import { createTransaction } from '../src/app/create-transaction';
import { createManualTransaction } from '../src/app/create-manual-transaction';
import { previewCheckoutTax } from '../src/app/preview-checkout-tax';
import { getTransactionTax } from '../src/app/transaction-tax';
import { recalculateTransactionTax } from '../src/app/recalculate-transaction-tax';
import { updateSite } from '../src/app/update-site';
import { applyTransition } from '../src/app/transition';
import type { CheckoutDoc } from '../src/domain/checkout';
import type { TransactionDoc } from '../src/domain/transaction';
import { TRANSACTIONS } from '../src/store/collections';
import type { ProviderInfo } from '../src/app/payments-port';
import { openHarness, type Harness } from './harness';
import { taxedLine } from '../../../libs/contracts/test/tax-kit';

const billing = {
  name: 'Ada Buyer',
  email: 'ada@example.com',
  country: 'NL',
  postalCode: '1011 AB',
  vatId: 'nl 769350665 b01',
};

/**
 * The tax service's answer for these tests: every line at `percent`, in the price mode the request
 * asks for (else `orgPriceMode`). Checkout's part is what it sends and what it does with the
 * answer; the engine itself is tested in the tax service and end to end in the mesh suite.
 */
function answer(
  req: CalculateTaxRequest,
  percent: number,
  orgPriceMode: 'gross' | 'net',
  calculatedAt = '2026-03-01T12:00:00.000Z',
): TaxCalculation {
  const priceMode = req.priceMode ?? orgPriceMode;
  const lines = req.lines.map((l, index) =>
    taxedLine(
      l,
      index,
      {
        taxRate: percent,
        taxRateCode: 'VAT_NL_STANDARD',
        taxCountry: 'NL',
        rateType: 'standard',
        decision: 'oss_destination',
        reason: 'test',
      },
      priceMode,
    ),
  );
  const sum = (k: 'net' | 'tax' | 'gross') => lines.reduce((a, l) => a + l[k], 0);
  const check = req.vatIdCheck ?? {
    vatId: req.buyer.vatId ?? null,
    status: req.buyer.vatId ? ('well_formed' as const) : ('not_given' as const),
    source: req.buyer.vatId ? ('format' as const) : null,
    checkedAt: calculatedAt,
    consultationNumber: null,
    companyName: null,
    address: null,
    error: null,
  };
  return {
    currency: req.currency,
    taxIncluded: priceMode === 'gross',
    totalNet: sum('net'),
    totalTax: sum('tax'),
    totalGross: sum('gross'),
    taxBreakdown: [
      { taxRate: percent, taxRateCode: 'VAT_NL_STANDARD', taxableBase: sum('net'), taxAmount: sum('tax') },
    ],
    lines,
    buyer: {
      country: req.buyer.country,
      postcode: req.buyer.postcode ?? null,
      type: 'consumer',
      vatIdValidation: req.vatIdValidation,
      vatIdCheck: check,
      vatIdTreatment: 'test',
    },
    seller: { homeCountry: 'DE', ossEnabled: true, ossThresholdExceeded: false },
    settings: { priceMode, rounding: { level: 'per_line', method: 'half_up' } },
    date: req.date ?? '2026-03-01',
    calculatedAt,
    engineVersion: 'test',
  };
}

describe('tax of checkouts and transactions on PostgreSQL', () => {
  let h: Harness;
  let org: { organizationId: string; siteId: string };
  let provider: ProviderInfo;
  let percent: number;
  let orgPriceMode: 'gross' | 'net';

  beforeAll(async () => {
    h = await openHarness();
    org = await h.site();
    provider = h.payments.addProvider({ organizationId: org.organizationId, type: 'provider_a' });
  });
  afterAll(async () => h?.close());
  beforeEach(() => {
    percent = 21;
    orgPriceMode = 'gross';
    h.tax.calculateCalls = [];
    h.tax.unavailable = false;
    h.tax.onCalculate = async (req) => answer(req, percent, orgPriceMode);
  });

  const checkout = (extra: Record<string, unknown> = {}): Promise<CheckoutDoc> =>
    h.checkout(org, { amount: 10000, externalReference: 'order-9', ...extra });
  const item = { name: 'Pro plan', quantity: 1, unitPrice: 10000, itemType: 'digital_service' };
  const pay = (c: CheckoutDoc, address: Record<string, string> = billing) =>
    createTransaction(h.deps, {
      sessionPublicId: c.sessionPublicId,
      providerId: provider.id,
      billingAddress: address,
      browserOrigin: '',
    });
  const preview = (c: CheckoutDoc, billingAddress: Record<string, string> | undefined) =>
    previewCheckoutTax(h.deps, { sessionPublicId: c.sessionPublicId, browserOrigin: '', billingAddress });
  const stored = async (id: string) => (await h.store.collection<TransactionDoc>(TRANSACTIONS).get(id))!;
  const down = () => {
    h.tax.onCalculate = async () => {
      throw new UnavailableError('tax is down');
    };
  };

  describe('preview', () => {
    it('sends the items with their vatRate as an override and answers what transaction create will charge', async () => {
      const c = await checkout({
        items: [
          { ...item, unitPrice: 7000 },
          { name: 'Setup', quantity: 1, unitPrice: 3000, vatRate: 9, itemType: 'service' },
        ],
      });
      const calc = await preview(c, { country: 'nl', postcode: '1011 AB', vatId: 'NL 769350665 B01' });
      expect(h.tax.calculateCalls).toEqual([
        {
          organizationId: org.organizationId,
          mode: 'live',
          currency: 'EUR',
          vatIdValidation: 'format',
          buyer: { country: 'NL', postcode: '1011 AB', vatId: 'NL769350665B01' },
          lines: [
            { name: 'Pro plan', quantity: 1, unitPrice: 7000, itemType: 'digital_service' },
            { name: 'Setup', quantity: 1, unitPrice: 3000, itemType: 'service', taxRate: 9 },
          ],
        },
      ]);
      expect(calc.totalGross).toBe(10000);
      const tx = (await pay(c)).transaction;
      expect(tx.amount).toBe(calc.totalGross);
    });

    it('uses vies only while the organization allows it, as the public view shows it', async () => {
      const c = await checkout();
      await updateSite(h.deps, {
        organizationId: org.organizationId,
        mode: 'live',
        id: org.siteId,
        vatIdValidation: 'vies',
      });
      try {
        await preview(c, { country: 'FR', vatId: 'FR47759777570' });
        h.tax.allowVies(org.organizationId);
        await preview(c, { country: 'FR', vatId: 'FR47759777570' });
        expect(h.tax.calculateCalls.map((r) => r.vatIdValidation)).toEqual(['format', 'vies']);
      } finally {
        h.tax.viesOrgs.clear();
        await updateSite(h.deps, {
          organizationId: org.organizationId,
          mode: 'live',
          id: org.siteId,
          vatIdValidation: 'format',
        });
      }
    });

    it('is 503 TAX_UNAVAILABLE while the tax service cannot answer', async () => {
      const c = await checkout();
      down();
      await expect(preview(c, { country: 'DE' })).rejects.toMatchObject({
        kind: 'unavailable',
        code: ErrorCode.TAX_UNAVAILABLE,
      });
    });

    it('refuses a bad address before asking the tax service', async () => {
      const c = await checkout();
      await expect(preview(c, undefined)).rejects.toThrow(/billingAddress\.country is required/);
      await expect(preview(c, { country: 'QQ' })).rejects.toThrow(ValidationError);
      await expect(preview(c, { country: 'DE', vatId: 'DE<script>' })).rejects.toThrow(/billingAddress\.vatId/);
      expect(h.tax.calculateCalls).toHaveLength(0);
    });

    it('passes the tax service validation errors through as 400', async () => {
      const c = await checkout();
      h.tax.onCalculate = async () => {
        throw new ValidationError('buyer.country: "XK" is not an ISO 3166-1 alpha-2 country code', {
          field: 'buyer.country',
        });
      };
      await expect(preview(c, { country: 'DE' })).rejects.toThrow(ValidationError);
    });
  });

  describe('transaction create', () => {
    it('charges net + tax for net-priced items and stores the tax with its pinned input', async () => {
      orgPriceMode = 'net';
      const c = await checkout({ items: [item] });
      const res = await pay(c);
      expect(res.transaction.amount).toBe(12100);
      expect(h.payments.createCalls.find((x) => x.transactionId === res.transaction.id)?.amount).toBe(12100);
      const doc = await stored(res.transaction.id);
      expect(doc.tax).toMatchObject({ totalNet: 10000, totalTax: 2100, totalGross: 12100, taxIncluded: false });
      expect(doc.taxInput).toMatchObject({
        date: '2026-03-01',
        priceMode: 'net',
        buyer: { country: 'NL', postcode: '1011 AB', vatId: 'NL769350665B01' },
      });
      expect(doc.taxInput?.vatIdCheck).toEqual(doc.tax?.buyer.vatIdCheck);
      expect(doc.billingAddress?.vatId).toBe('NL769350665B01');
      const view = await getTransactionTax(h.deps, { organizationId: org.organizationId, mode: 'live', id: doc.id });
      expect(view).toEqual({ transactionId: doc.id, status: 'computed', tax: doc.tax, input: doc.taxInput });
    });

    it('goes on without tax during an outage when the charge is the amount anyway', async () => {
      down();
      const c = await checkout();
      const res = await pay(c);
      expect(res.transaction.amount).toBe(10000);
      const doc = await stored(res.transaction.id);
      expect(doc.tax).toBeNull();
      expect(doc.taxInput).toMatchObject({ priceMode: 'gross', lines: [{ name: 'Order order-9', unitPrice: 10000 }] });
      expect(doc.taxInput).not.toHaveProperty('vatIdCheck');
      const view = await getTransactionTax(h.deps, { organizationId: org.organizationId, mode: 'live', id: doc.id });
      expect(view.status).toBe('not_computed');
    });

    it('refuses items whose charge may depend on the tax during an outage, storing nothing', async () => {
      const fresh = await openHarness();
      try {
        const o = await fresh.site();
        const p = fresh.payments.addProvider({ organizationId: o.organizationId, type: 'provider_a' });
        fresh.tax.onCalculate = async () => {
          throw new UnavailableError('tax is down');
        };
        const c = await createCheckout(fresh.deps, {
          ...o,
          mode: 'live',
          amount: 10000,
          currency: 'EUR',
          externalReference: 'x',
          items: [item],
        });
        const attempt = () =>
          createTransaction(fresh.deps, {
            sessionPublicId: c.sessionPublicId,
            providerId: p.id,
            billingAddress: billing,
            browserOrigin: '',
          });
        await expect(attempt()).rejects.toMatchObject({ kind: 'unavailable', code: ErrorCode.TAX_UNAVAILABLE });
        expect(await fresh.store.collection(TRANSACTIONS).count({ checkoutId: c.id })).toBe(0);
        expect(fresh.payments.createCalls).toHaveLength(0);
        // Once a calculation told this process the organization prices gross, an outage no longer blocks it.
        fresh.tax.onCalculate = async (req) => answer(req, 21, 'gross');
        await previewCheckoutTax(fresh.deps, {
          sessionPublicId: c.sessionPublicId,
          browserOrigin: '',
          billingAddress: { country: 'NL' },
        });
        fresh.tax.onCalculate = async () => {
          throw new UnavailableError('tax is down');
        };
        const res = await attempt();
        expect(res.transaction).toMatchObject({ amount: 10000, tax: null });
      } finally {
        await fresh.close();
      }
    });
  });

  describe('shipping address', () => {
    const goods = [
      { name: 'Chair', quantity: 1, unitPrice: 8000, itemType: 'goods' },
      { name: 'Delivery', quantity: 1, unitPrice: 1000, itemType: 'shipping' },
      { name: 'Manual (PDF)', quantity: 1, unitPrice: 1000, itemType: 'digital_service' },
    ];
    const destinations = (req: CalculateTaxRequest | undefined) => req?.lines.map((l) => l.shipToCountry ?? null);

    it("taxes goods and shipping lines where the buyer's address sends them, else where the checkout's does", async () => {
      const c = await checkout({ items: goods, shippingAddress: { country: 'at', city: 'Wien' } });
      expect(c.shippingAddress).toEqual({ country: 'AT', name: null, line1: null, city: 'Wien', postalCode: null });
      await preview(c, { country: 'DE' });
      await previewCheckoutTax(h.deps, {
        sessionPublicId: c.sessionPublicId,
        browserOrigin: '',
        billingAddress: { country: 'DE' },
        shippingAddress: { country: 'FR' },
      });
      expect(h.tax.calculateCalls.map(destinations)).toEqual([
        ['AT', 'AT', null],
        ['FR', 'FR', null],
      ]);
      expect(h.tax.calculateCalls.map((r) => r.buyer.country)).toEqual(['DE', 'DE']);

      const res = await createTransaction(h.deps, {
        sessionPublicId: c.sessionPublicId,
        providerId: provider.id,
        billingAddress: { ...billing, country: 'DE', vatId: '' },
        shippingAddress: {
          country: 'FR',
          name: 'Ada Buyer',
          line1: '12 rue des Lilas',
          city: 'Lyon',
          postalCode: '69003',
        },
        browserOrigin: '',
      });
      const doc = await stored(res.transaction.id);
      expect(doc.shippingAddress).toEqual({
        country: 'FR',
        name: 'Ada Buyer',
        line1: '12 rue des Lilas',
        city: 'Lyon',
        postalCode: '69003',
      });
      expect(destinations(doc.taxInput ?? undefined)).toEqual(['FR', 'FR', null]);
      expect(doc.taxInput?.buyer.country).toBe('DE');
    });

    it("stores the checkout's address with a transaction whose buyer gave none, and nothing without either", async () => {
      const shipped = await checkout({ items: goods, shippingAddress: { country: 'FR' } });
      const withCheckouts = await stored((await pay(shipped)).transaction.id);
      expect(withCheckouts.shippingAddress).toEqual({
        country: 'FR',
        name: null,
        line1: null,
        city: null,
        postalCode: null,
      });
      expect(destinations(withCheckouts.taxInput ?? undefined)).toEqual(['FR', 'FR', null]);

      const plain = await checkout({ items: goods });
      expect(plain.shippingAddress).toBeNull();
      const without = await stored((await pay(plain)).transaction.id);
      expect(without.shippingAddress).toBeNull();
      expect(destinations(without.taxInput ?? undefined)).toEqual([null, null, null]);
    });

    it('refuses a bad shipping address before anything is asked or stored', async () => {
      await expect(checkout({ shippingAddress: { country: 'QQ' } })).rejects.toThrow(/shippingAddress\.country/);
      const c = await checkout({ items: goods });
      const attempt = (shippingAddress: Record<string, string>) =>
        createTransaction(h.deps, {
          sessionPublicId: c.sessionPublicId,
          providerId: provider.id,
          billingAddress: billing,
          shippingAddress,
          browserOrigin: '',
        });
      await expect(attempt({ country: '' })).rejects.toThrow(/shippingAddress\.country is required/);
      await expect(attempt({ country: 'FR', line1: 'x'.repeat(201) })).rejects.toThrow(/shippingAddress\.line1/);
      await expect(
        previewCheckoutTax(h.deps, {
          sessionPublicId: c.sessionPublicId,
          browserOrigin: '',
          billingAddress: { country: 'DE' },
          shippingAddress: { country: 'France' },
        }),
      ).rejects.toThrow(/shippingAddress\.country/);
      expect(h.tax.calculateCalls).toHaveLength(0);
      expect(await h.store.collection(TRANSACTIONS).count({ checkoutId: c.id })).toBe(0);
    });
  });

  describe('recalculation', () => {
    const ref = (id: string) => ({ organizationId: org.organizationId, mode: 'live' as const, id });

    it("recomputes with the stored VAT ID check and today's date, keeping the previous answer", async () => {
      const c = await checkout();
      const tx = (await pay(c)).transaction;
      const before = await stored(tx.id);
      h.clock.advance(86_400_000);
      h.tax.calculateCalls = [];
      h.tax.onCalculate = async (req) => answer(req, 21, 'gross', h.clock.now().toISOString());
      const view = await recalculateTransactionTax(h.deps, ref(tx.id), { recheckVatId: false });
      expect(h.tax.calculateCalls[0]).toMatchObject({ date: '2026-03-02', vatIdCheck: before.taxInput?.vatIdCheck });
      expect(view.tax?.date).toBe('2026-03-02');
      const after = await stored(tx.id);
      expect(after.taxHistory).toEqual([
        { tax: before.tax, input: before.taxInput, replacedAt: h.clock.now().toISOString(), requestId: null },
      ]);
      // The same answer again writes nothing.
      await recalculateTransactionTax(h.deps, ref(tx.id), { recheckVatId: false });
      expect((await stored(tx.id)).version).toBe(after.version);
      // recheckVatId leaves the check to the tax service.
      await recalculateTransactionTax(h.deps, ref(tx.id), { recheckVatId: true });
      expect(h.tax.calculateCalls.at(-1)).not.toHaveProperty('vatIdCheck');
    });

    it('fills in the tax of a transaction created during an outage', async () => {
      down();
      const c = await checkout();
      const tx = (await pay(c)).transaction;
      h.tax.onCalculate = async (req) => answer(req, 21, 'gross');
      const view = await recalculateTransactionTax(h.deps, ref(tx.id), { recheckVatId: false });
      expect(view).toMatchObject({ status: 'computed', tax: { totalGross: 10000, totalTax: 1736 } });
    });

    it('refuses a new total that would change the charge, changing nothing', async () => {
      orgPriceMode = 'net';
      const c = await checkout({ items: [item] });
      const tx = (await pay(c)).transaction;
      percent = 9;
      await expect(recalculateTransactionTax(h.deps, ref(tx.id), { recheckVatId: false })).rejects.toMatchObject({
        code: ErrorCode.TAX_CHANGES_AMOUNT,
      });
      expect((await stored(tx.id)).tax?.totalTax).toBe(2100);
    });

    it('is refused on final transactions and without a tax input', async () => {
      const c = await checkout();
      const tx = (await pay(c)).transaction;
      await applyTransition(h.deps, tx.id, () => ({
        trigger: { kind: 'provider_outcome', outcome: 'succeeded' },
        providerEventId: `evt_${tx.id}`,
      }));
      const err = await recalculateTransactionTax(h.deps, ref(tx.id), { recheckVatId: false }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConflictError);
      expect(err).toMatchObject({ code: ErrorCode.TRANSACTION_TAX_FINAL });
      const manual = await createManualTransaction(h.deps, {
        ...org,
        mode: 'live',
        amount: 500,
        currency: 'EUR',
        externalReference: 'm-1',
        status: -1,
        reason: 'phone order',
      });
      expect(await getTransactionTax(h.deps, ref(manual.id))).toMatchObject({
        status: 'not_computed',
        tax: null,
        input: null,
      });
      await expect(recalculateTransactionTax(h.deps, ref(manual.id), { recheckVatId: false })).rejects.toThrow(
        UnprocessableError,
      );
    });
  });
});
