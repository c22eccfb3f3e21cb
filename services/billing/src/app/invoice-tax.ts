import { ErrorCode, UnprocessableError } from '@paymesh/core';
import type { CalculateTaxRequest, InvoiceItem, TaxCalculation } from '@paymesh/contracts';
import type { InvoiceBuyer } from './client-port';
import type { OrgKey } from './deps';
import type { InvoiceDeps, SellerTaxSettings } from './invoice-deps';

/** The country the buyer is taxed in: their tax country, else their address's country. */
export function buyerCountry(buyer: Pick<InvoiceBuyer, 'taxCountry' | 'address'>): string {
  const country = buyer.taxCountry ?? buyer.address?.country ?? null;
  if (!country) {
    throw new UnprocessableError(
      'clientId: the client has neither a tax country nor an address country; add one to the client to tax the invoice',
      {
        code: ErrorCode.INVOICE_BUYER_INCOMPLETE,
        field: 'clientId',
      },
    );
  }
  return country;
}

/**
 * The tax of an invoice's lines for its buyer on the tax point `date`, from the one engine. A VAT ID
 * is checked with VIES when the organization allows it, by format otherwise (CalculateTax applies
 * the same downgrade itself).
 */
export async function invoiceTax(
  deps: InvoiceDeps,
  key: OrgKey,
  input: { buyer: InvoiceBuyer; items: InvoiceItem[]; currency: string; date: string; seller?: SellerTaxSettings },
): Promise<TaxCalculation> {
  const seller = input.seller ?? (await deps.tax.settings(key));
  const country = buyerCountry(input.buyer);
  const vatId =
    input.buyer.taxId && (input.buyer.taxIdType ?? 'vat') === 'vat'
      ? input.buyer.taxId.replace(/[\s.-]/g, '').slice(0, 20)
      : undefined;
  const request: CalculateTaxRequest = {
    organizationId: key.organizationId,
    mode: key.mode,
    currency: input.currency,
    date: input.date,
    vatIdValidation: seller.viesEnabled ? 'vies' : 'format',
    buyer: {
      country,
      ...(input.buyer.address?.postalCode ? { postcode: input.buyer.address.postalCode.slice(0, 20) } : {}),
      ...(vatId ? { vatId } : {}),
    },
    lines: input.items.map((item) => ({
      name: item.description.slice(0, 200),
      quantity: item.quantity,
      unitPrice: item.unitPrice,
      itemType: item.itemType,
      amountType: item.amountType,
      ...(item.category !== undefined ? { category: item.category } : {}),
      ...(item.taxRate !== undefined ? { taxRate: item.taxRate } : {}),
    })),
  };
  return deps.tax.calculate(request);
}
