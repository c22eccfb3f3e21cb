import type { SecretBox } from '@paymesh/core';
import type { InvoiceBuyerView, InvoiceSeller } from '@paymesh/contracts';
import type { StoredBuyer, StoredSeller } from '../domain/invoice';
import type { InvoiceBuyer } from './client-port';
import type { OrgKey } from './deps';

/** Binds a document's sealed compliance values to their tenant, mode and field. */
export function documentAad(key: OrgKey, field: string): string {
  return `billing-document:${key.organizationId}:${key.mode}:${field}`;
}

export function sealBuyer(secrets: SecretBox, key: OrgKey, b: InvoiceBuyer): StoredBuyer {
  return {
    clientId: b.clientId,
    name: b.name,
    email: b.email,
    address: b.address,
    taxId: b.taxId ? secrets.seal(b.taxId, documentAad(key, 'buyer.taxId')) : null,
    taxIdType: b.taxIdType,
    taxCountry: b.taxCountry,
    peppolRoutingAddress: b.peppolRoutingAddress
      ? {
          schemeId: b.peppolRoutingAddress.schemeId,
          value: secrets.seal(b.peppolRoutingAddress.value, documentAad(key, 'buyer.peppolRoutingAddress')),
        }
      : null,
  };
}

export function openBuyer(secrets: SecretBox, key: OrgKey, b: StoredBuyer): InvoiceBuyerView {
  return {
    clientId: b.clientId,
    name: b.name,
    email: b.email,
    address: b.address,
    taxId: b.taxId ? secrets.open(b.taxId, documentAad(key, 'buyer.taxId')) : null,
    taxIdType: b.taxIdType,
    taxCountry: b.taxCountry,
    peppolRoutingAddress: b.peppolRoutingAddress
      ? {
          schemeId: b.peppolRoutingAddress.schemeId,
          value: secrets.open(b.peppolRoutingAddress.value, documentAad(key, 'buyer.peppolRoutingAddress')),
        }
      : null,
  };
}

export function sellerView(s: StoredSeller): InvoiceSeller {
  const { bankIBANSealed: _sealed, phone: _phone, peppolRoutingAddress: _peppol, ...view } = s;
  return view;
}
