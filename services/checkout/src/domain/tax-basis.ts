import type { CalculateTaxRequest, TaxCalculation, TaxItemType, TaxLineInput } from '@paymesh/contracts';
import type { CheckoutDoc, LineItem } from './checkout';
import type { TaxAddress } from './billing-address';
import type { VatIdValidation } from './settings';

/** Item type of items that do not name one (the specification's checkouts sell digital services). */
export const DEFAULT_ITEM_TYPE: TaxItemType = 'digital_service';
const MAX_LINE_NAME = 200;

/**
 * What the tax of a checkout is computed on.
 * - `items`: the items add up to the amount (their prices sum to it: gross prices in gross mode,
 *   net prices in net mode, where the buyer is charged net + tax); the organization's price mode applies.
 * - `amount`: no items, or items that do not add up: one gross line of the amount, so the tax is
 *   the part of what the buyer is charged anyway.
 */
export interface TaxBasis {
  kind: 'items' | 'amount';
  lines: TaxLineInput[];
  /** `gross` for the amount basis; absent: the organization's price mode. */
  priceMode?: 'gross';
}

type CheckoutFacts = Pick<CheckoutDoc, 'items' | 'amount' | 'invoiceNumber' | 'externalReference'>;

/** Sum of quantity × unit price, exact beyond 2^53. */
function itemsTotal(items: readonly LineItem[]): bigint {
  return items.reduce((sum, i) => sum + BigInt(i.quantity) * BigInt(i.unitPrice), 0n);
}

/** The engine takes percentages with at most two decimals; a checkout item's `vatRate` may have more. */
function percentOf(rate: number): number {
  return Math.round(rate * 100) / 100;
}

function itemLine(item: LineItem): TaxLineInput {
  return {
    name: item.name.slice(0, MAX_LINE_NAME),
    quantity: item.quantity,
    unitPrice: item.unitPrice,
    itemType: item.itemType ?? DEFAULT_ITEM_TYPE,
    ...(item.vatRate !== null ? { taxRate: percentOf(item.vatRate) } : {}),
  };
}

/** `Invoice <number>` or `Order <reference>`, as the public view names a checkout without items. */
export function amountLineName(doc: Pick<CheckoutDoc, 'invoiceNumber' | 'externalReference'>): string {
  const name = doc.invoiceNumber ? `Invoice ${doc.invoiceNumber}` : `Order ${doc.externalReference ?? ''}`.trim();
  return name.slice(0, MAX_LINE_NAME);
}

export function taxBasisOf(doc: CheckoutFacts): TaxBasis {
  if (doc.items.length > 0 && itemsTotal(doc.items) === BigInt(doc.amount)) {
    return { kind: 'items', lines: doc.items.map(itemLine) };
  }
  const types = new Set(doc.items.map((i) => i.itemType ?? DEFAULT_ITEM_TYPE));
  const [only] = types;
  const itemType = types.size === 1 && only ? only : DEFAULT_ITEM_TYPE;
  return {
    kind: 'amount',
    priceMode: 'gross',
    lines: [{ name: amountLineName(doc), quantity: 1, unitPrice: doc.amount, itemType }],
  };
}

/** Item types whose place of supply is where they are sent (the engine's goods-like types). */
const SHIPPED: ReadonlySet<TaxItemType> = new Set<TaxItemType>(['goods', 'shipping']);

/**
 * The lines with `shipToCountry` set on goods and shipping lines when a shipping destination is
 * known; digital services and services stay on the buyer's (billing) country.
 */
function shippedLines(lines: TaxLineInput[], shipToCountry: string | undefined): TaxLineInput[] {
  if (!shipToCountry) return lines;
  return lines.map((l) => (SHIPPED.has(l.itemType) ? { ...l, shipToCountry } : l));
}

/**
 * The CalculateTax request of a checkout for a buyer address (the tax point defaults to today at
 * the tax service). `shipToCountry`: the country of the shipping address the payment is taxed with
 * (see shipping-address.ts), the destination of its goods and shipping lines.
 */
export function checkoutTaxRequest(
  doc: Pick<CheckoutDoc, 'organizationId' | 'mode' | 'currency'>,
  basis: TaxBasis,
  buyer: TaxAddress,
  vatIdValidation: VatIdValidation,
  shipToCountry?: string,
): CalculateTaxRequest {
  return {
    organizationId: doc.organizationId,
    mode: doc.mode,
    currency: doc.currency,
    ...(basis.priceMode ? { priceMode: basis.priceMode } : {}),
    vatIdValidation,
    buyer: {
      country: buyer.country,
      ...(buyer.postcode ? { postcode: buyer.postcode } : {}),
      ...(buyer.vatId ? { vatId: buyer.vatId } : {}),
    },
    lines: shippedLines(basis.lines, shipToCountry),
  };
}

/**
 * The input as it was used, kept with a transaction so a recalculation or rebuild is reproducible:
 * the tax point, the price mode and the VAT ID check of the calculation are pinned.
 */
export function pinnedInput(request: CalculateTaxRequest, calc: TaxCalculation): CalculateTaxRequest {
  return { ...request, date: calc.date, priceMode: calc.settings.priceMode, vatIdCheck: calc.buyer.vatIdCheck };
}

/**
 * What the provider charges: the checkout amount, except for items with net prices (the items add
 * up to the amount net of tax), where the buyer pays net + tax, the calculation's total gross.
 */
export function chargedAmount(doc: Pick<CheckoutDoc, 'amount'>, basis: TaxBasis, calc: TaxCalculation | null): number {
  if (basis.kind === 'items' && calc && !calc.taxIncluded) return calc.totalGross;
  return doc.amount;
}
