import type { SealedValue, SecretBox } from '@paymesh/core';
import type { InvoiceBuyerView, InvoiceSeller } from '@paymesh/contracts';
import type { StoredBuyer, StoredSeller } from '../domain/invoice';
import type { InvoiceBuyer } from './client-port';
import type { OrgKey } from './deps';

/** Binds a document's sealed compliance values to their tenant, mode and field. */
export function documentAad(key: OrgKey, field: string): string {
  return `billing-document:${key.organizationId}:${key.mode}:${field}`;
}

/** A buyer's fields, its compliance values (tax ID, Peppol routing address value) of type `V`. */
interface BuyerWith<V> {
  clientId: string;
  name: string;
  email: string | null;
  address: StoredBuyer['address'];
  taxId: V | null;
  taxIdType: string | null;
  taxCountry: string | null;
  peppolRoutingAddress: { schemeId: string; value: V } | null;
}

/** The buyer with its compliance values passed through `f` with their AAD (sealing or opening them). */
function mapBuyerSecrets<A, B>(key: OrgKey, b: BuyerWith<A>, f: (value: A, aad: string) => B): BuyerWith<B> {
  return {
    clientId: b.clientId,
    name: b.name,
    email: b.email,
    address: b.address,
    taxId: b.taxId ? f(b.taxId, documentAad(key, 'buyer.taxId')) : null,
    taxIdType: b.taxIdType,
    taxCountry: b.taxCountry,
    peppolRoutingAddress: b.peppolRoutingAddress
      ? {
          schemeId: b.peppolRoutingAddress.schemeId,
          value: f(b.peppolRoutingAddress.value, documentAad(key, 'buyer.peppolRoutingAddress')),
        }
      : null,
  };
}

export function sealBuyer(secrets: SecretBox, key: OrgKey, b: InvoiceBuyer): StoredBuyer {
  return mapBuyerSecrets(key, b, (value: string, aad) => secrets.seal(value, aad));
}

export function openBuyer(secrets: SecretBox, key: OrgKey, b: StoredBuyer): InvoiceBuyerView {
  return mapBuyerSecrets(key, b, (value: SealedValue, aad) => secrets.open(value, aad));
}

export function sellerView(s: StoredSeller): InvoiceSeller {
  const { bankIBANSealed: _sealed, phone: _phone, peppolRoutingAddress: _peppol, ...view } = s;
  return view;
}
