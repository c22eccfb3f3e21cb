import { clientCreate, type ClientCreate } from '@paymesh/contracts';
import { createHash } from 'node:crypto';
import { assertValidTaxInfo, newPlainClient } from './client-plain';
import { emailKeyOf } from './client';

/** Billing details of a paying buyer as checkout stores them (absent parts are empty strings). */
export interface BuyerDetails {
  name: string;
  email: string;
  line1: string;
  city: string;
  postalCode: string;
  country: string;
  vatId: string;
}

/**
 * The client record for a buyer known only by a transaction's billing details, or null when they
 * do not make an invoice buyer (no valid e-mail, no country). Name (else the e-mail), e-mail, the
 * postal address when complete, the country as tax country when the address is not, and the VAT ID
 * when it is one of that country (a VAT ID that fails the client rules is left out, not refused:
 * the buyer typed it at checkout and the invoice is taxed from the transaction anyway).
 */
export function buyerClientInput(b: BuyerDetails): ClientCreate | null {
  const email = b.email.trim();
  const country = b.country.trim().toUpperCase();
  const base = clientCreate.safeParse({ name: (b.name.trim() || email).slice(0, 200), email });
  if (!base.success || !/^[A-Z]{2}$/.test(country)) return null;
  const address = clientCreate.shape.address.safeParse({
    street: b.line1,
    city: b.city,
    postalCode: b.postalCode,
    country,
  });
  const input: ClientCreate = {
    ...base.data,
    ...(address.success && address.data ? { address: address.data } : { taxInfo: { taxCountry: country } }),
  };
  const vatId = b.vatId.trim();
  if (!vatId) return input;
  const withVat: ClientCreate = {
    ...input,
    taxInfo: { taxId: { plaintext: vatId }, taxIdType: 'vat', taxCountry: country },
  };
  if (!clientCreate.safeParse(withVat).success) return input;
  try {
    assertValidTaxInfo(newPlainClient(withVat).taxInfo);
    return withVat;
  } catch {
    return input;
  }
}

/**
 * The id of the client created for a buyer e-mail: derived from organization, mode and the
 * matching form of the e-mail, so concurrent automatic invoices of one new buyer create one client
 * (the second insert meets the first one's id).
 */
export function buyerClientId(organizationId: string, mode: string, email: string): string {
  return createHash('sha256')
    .update(`buyer-client\n${organizationId}\n${mode}\n${emailKeyOf(email)}`)
    .digest('hex')
    .slice(0, 24);
}
