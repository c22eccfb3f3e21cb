import { describe, expect, it } from 'vitest';
import type { TaxCalculation } from '@paymesh/contracts';
import type { LineItem } from './checkout';
import { chargedAmount, checkoutTaxRequest, pinnedInput, taxBasisOf } from './tax-basis';

const item = (over: Partial<LineItem> = {}): LineItem => ({
  name: 'Plan',
  description: null,
  quantity: 1,
  unitPrice: 10000,
  vatRate: null,
  itemType: 'digital_service',
  ...over,
});
const checkout = (
  amount: number,
  items: LineItem[],
  refs: { invoiceNumber?: string; externalReference?: string } = { externalReference: 'A-1' },
) => ({
  amount,
  items,
  invoiceNumber: refs.invoiceNumber ?? null,
  externalReference: refs.externalReference ?? null,
});

describe('taxBasisOf', () => {
  it('uses the items when their prices add up to the amount, in the organization price mode', () => {
    const basis = taxBasisOf(
      checkout(12500, [
        item({ quantity: 2, unitPrice: 5000 }),
        item({ name: 'Setup', unitPrice: 2500, vatRate: 7, itemType: null }),
      ]),
    );
    expect(basis.kind).toBe('items');
    expect(basis.priceMode).toBeUndefined();
    expect(basis.lines).toEqual([
      { name: 'Plan', quantity: 2, unitPrice: 5000, itemType: 'digital_service' },
      { name: 'Setup', quantity: 1, unitPrice: 2500, itemType: 'digital_service', taxRate: 7 },
    ]);
  });

  it('counts discount lines and is exact beyond 2^53', () => {
    expect(taxBasisOf(checkout(9000, [item(), item({ name: 'Discount', unitPrice: -1000 })])).kind).toBe('items');
    const big = item({ quantity: 1_000_000, unitPrice: 999_999_999_999 });
    expect(taxBasisOf(checkout(999_999_999_999, [big])).kind).toBe('amount');
  });

  it('falls back to one gross line of the amount when there are no items or they do not add up', () => {
    expect(taxBasisOf(checkout(4990, [], { invoiceNumber: 'RE-7' }))).toEqual({
      kind: 'amount',
      priceMode: 'gross',
      lines: [{ name: 'Invoice RE-7', quantity: 1, unitPrice: 4990, itemType: 'digital_service' }],
    });
    const goods = taxBasisOf(
      checkout(11900, [item({ unitPrice: 10000, itemType: 'goods' }), item({ unitPrice: 500, itemType: 'goods' })]),
    );
    expect(goods.lines).toEqual([{ name: 'Order A-1', quantity: 1, unitPrice: 11900, itemType: 'goods' }]);
    const mixed = taxBasisOf(checkout(1, [item({ itemType: 'goods' }), item({ itemType: 'shipping' })]));
    expect(mixed.lines[0]?.itemType).toBe('digital_service');
  });

  it('rounds an item vatRate to the two decimals the engine takes', () => {
    expect(taxBasisOf(checkout(100, [item({ unitPrice: 100, vatRate: 19.555 })])).lines[0]?.taxRate).toBe(19.56);
  });
});

describe('checkoutTaxRequest', () => {
  it('names the tenant, the buyer and the mode, and leaves out empty parts', () => {
    const doc = { organizationId: 'a'.repeat(24), mode: 'test' as const, currency: 'EUR' };
    const basis = taxBasisOf(checkout(4990, []));
    expect(checkoutTaxRequest(doc, basis, { country: 'NL', postcode: undefined, vatId: undefined }, 'format')).toEqual({
      organizationId: 'a'.repeat(24),
      mode: 'test',
      currency: 'EUR',
      priceMode: 'gross',
      vatIdValidation: 'format',
      buyer: { country: 'NL' },
      lines: basis.lines,
    });
  });
});

describe('checkoutTaxRequest with a shipping destination', () => {
  const doc = { organizationId: 'a'.repeat(24), mode: 'live' as const, currency: 'EUR' };
  const billedInDe = { country: 'DE', postcode: undefined, vatId: undefined };

  it('sends goods and shipping lines to the shipping country and leaves the buyer and other lines alone', () => {
    const basis = taxBasisOf(
      checkout(13000, [
        item({ name: 'Chair', unitPrice: 10000, itemType: 'goods' }),
        item({ name: 'Delivery', unitPrice: 1000, itemType: 'shipping' }),
        item({ name: 'Manual (PDF)', unitPrice: 1000, itemType: 'digital_service' }),
        item({ name: 'Assembly', unitPrice: 1000, itemType: 'service' }),
      ]),
    );
    const req = checkoutTaxRequest(doc, basis, billedInDe, 'format', 'FR');
    expect(req.buyer).toEqual({ country: 'DE' });
    expect(req.lines.map((l) => [l.name, l.shipToCountry])).toEqual([
      ['Chair', 'FR'],
      ['Delivery', 'FR'],
      ['Manual (PDF)', undefined],
      ['Assembly', undefined],
    ]);
    expect(req.lines[2]).not.toHaveProperty('shipToCountry');
    // The basis itself is not changed (it is shared by the preview and the charge).
    expect(basis.lines.every((l) => l.shipToCountry === undefined)).toBe(true);
  });

  it('changes nothing without a destination, for one gross line of the amount, or for services only', () => {
    const goods = taxBasisOf(checkout(10000, [item({ itemType: 'goods' })]));
    expect(checkoutTaxRequest(doc, goods, billedInDe, 'format')).toEqual(
      checkoutTaxRequest(doc, goods, billedInDe, 'format', undefined),
    );
    expect(checkoutTaxRequest(doc, goods, billedInDe, 'format').lines).toEqual([
      { name: 'Plan', quantity: 1, unitPrice: 10000, itemType: 'goods' },
    ]);
    for (const basis of [
      taxBasisOf(checkout(4990, [])),
      taxBasisOf(checkout(2000, [item({ unitPrice: 1000 }), item({ unitPrice: 1000, itemType: 'service' })])),
    ]) {
      expect(checkoutTaxRequest(doc, basis, billedInDe, 'format', 'FR')).toEqual(
        checkoutTaxRequest(doc, basis, billedInDe, 'format'),
      );
    }
  });

  it('sends a gross amount line of goods only (items that do not add up) to the shipping country', () => {
    const basis = taxBasisOf(checkout(11900, [item({ unitPrice: 10000, itemType: 'goods' })]));
    expect(basis.kind).toBe('amount');
    expect(checkoutTaxRequest(doc, basis, billedInDe, 'format', 'FR').lines).toEqual([
      { name: 'Order A-1', quantity: 1, unitPrice: 11900, itemType: 'goods', shipToCountry: 'FR' },
    ]);
  });
});

const calc = (over: Partial<TaxCalculation>): TaxCalculation =>
  ({
    taxIncluded: true,
    totalGross: 10000,
    date: '2026-03-01',
    settings: { priceMode: 'gross' },
    buyer: { vatIdCheck: { status: 'not_given' } },
    ...over,
  }) as TaxCalculation;

describe('chargedAmount', () => {
  it('charges net + tax for net-priced items and the amount otherwise', () => {
    const items = taxBasisOf(checkout(10000, [item()]));
    expect(chargedAmount({ amount: 10000 }, items, calc({ taxIncluded: false, totalGross: 11900 }))).toBe(11900);
    expect(chargedAmount({ amount: 10000 }, items, calc({ taxIncluded: true }))).toBe(10000);
    expect(chargedAmount({ amount: 10000 }, items, null)).toBe(10000);
    expect(
      chargedAmount({ amount: 4990 }, taxBasisOf(checkout(4990, [])), calc({ taxIncluded: false, totalGross: 5938 })),
    ).toBe(4990);
  });
});

describe('pinnedInput', () => {
  it('pins the tax point, price mode and VAT ID check that were used', () => {
    const doc = { organizationId: 'a'.repeat(24), mode: 'live' as const, currency: 'EUR' };
    const req = checkoutTaxRequest(
      doc,
      taxBasisOf(checkout(10000, [item()])),
      { country: 'DE', postcode: '10115', vatId: 'DE123' },
      'format',
    );
    const used = calc({
      date: '2026-02-27',
      settings: { priceMode: 'net', rounding: { level: 'per_line', method: 'half_up' } },
    });
    expect(pinnedInput(req, used)).toEqual({
      ...req,
      date: '2026-02-27',
      priceMode: 'net',
      vatIdCheck: used.buyer.vatIdCheck,
    });
  });
});
