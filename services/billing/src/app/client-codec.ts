import { secretHint } from '@paymesh/core';
import type { ClientRecord } from '@paymesh/contracts';
import { clientAad, emailKeyOf, type ClientDoc, type StoredTaxInfo } from '../domain/client';
import type { PlainClient } from '../domain/client-plain';
import type { BillingDeps, OrgKey } from './deps';

const TAX_ID = 'taxInfo.taxId';
const PEPPOL_VALUE = 'taxInfo.peppolRoutingAddress.value';
/** Purpose of the tax-ID digest (exact-match search). */
export const TAX_ID_DIGEST = 'billing.client.taxId';

type Secrets = Pick<BillingDeps, 'secrets'>;

/** The client's editable fields with its compliance values decrypted. */
export function openClient(deps: Secrets, key: OrgKey, doc: ClientDoc): PlainClient {
  const tax = doc.taxInfo;
  const open = (field: string, sealed: Parameters<BillingDeps['secrets']['open']>[0]) =>
    deps.secrets.open(sealed, clientAad(key, doc.id, field));
  return {
    name: doc.name,
    email: doc.email,
    phone: doc.phone,
    address: doc.address,
    notes: doc.notes,
    metadata: doc.metadata,
    language: doc.language ?? null,
    eInvoiceFormat: doc.eInvoiceFormat ?? null,
    taxInfo: tax && {
      taxId: tax.taxId && open(TAX_ID, tax.taxId),
      taxIdType: tax.taxIdType,
      taxCountry: tax.taxCountry,
      peppolRoutingAddress: tax.peppolRoutingAddress && {
        schemeId: tax.peppolRoutingAddress.schemeId,
        value: open(PEPPOL_VALUE, tax.peppolRoutingAddress.value),
        confirmedByBuyer: tax.peppolRoutingAddress.confirmedByBuyer,
      },
    },
  };
}

/** The stored form of the editable fields: compliance values sealed to this client, tax ID digested. */
export function sealClient(
  deps: Secrets,
  key: OrgKey,
  clientId: string,
  plain: PlainClient,
): Omit<ClientDoc, 'id' | 'version' | 'organizationId' | 'mode' | 'createdAt' | 'updatedAt'> {
  const tax = plain.taxInfo;
  const seal = (field: string, value: string) => deps.secrets.seal(value, clientAad(key, clientId, field));
  const taxInfo: StoredTaxInfo | null = tax && {
    taxId: tax.taxId ? seal(TAX_ID, tax.taxId) : null,
    taxIdDigest: tax.taxId ? deps.secrets.digest(tax.taxId, TAX_ID_DIGEST) : null,
    taxIdType: tax.taxIdType,
    taxCountry: tax.taxCountry,
    peppolRoutingAddress: tax.peppolRoutingAddress && {
      schemeId: tax.peppolRoutingAddress.schemeId,
      value: seal(PEPPOL_VALUE, tax.peppolRoutingAddress.value),
      confirmedByBuyer: tax.peppolRoutingAddress.confirmedByBuyer,
    },
  };
  return {
    name: plain.name,
    email: plain.email,
    emailKey: plain.email ? emailKeyOf(plain.email) : null,
    phone: plain.phone,
    address: plain.address,
    taxInfo,
    notes: plain.notes,
    metadata: plain.metadata,
    language: plain.language,
    eInvoiceFormat: plain.eInvoiceFormat,
  };
}

/** A new client of the organization, `plain` sealed to its id, created `now`. */
export function newClientDoc(
  deps: Secrets,
  key: OrgKey,
  id: string,
  plain: PlainClient,
  now: string,
): Omit<ClientDoc, 'version'> {
  return {
    id,
    organizationId: key.organizationId,
    mode: key.mode,
    ...sealClient(deps, key, id, plain),
    createdAt: now,
    updatedAt: now,
  };
}

/** Last 4 characters of a compliance value; shorter values are not shown at all. */
export function maskSecret(value: string): string {
  return value.length > 6 ? secretHint(value) : '…';
}

const secretView = (value: string, include: boolean) =>
  include ? { masked: maskSecret(value), plaintext: value } : { masked: maskSecret(value) };

/** The Admin API record; compliance values in plaintext only when `includeTaxInfo`. */
export function clientView(doc: ClientDoc, plain: PlainClient, includeTaxInfo: boolean): ClientRecord {
  const tax = plain.taxInfo;
  return {
    id: doc.id,
    name: plain.name,
    email: plain.email,
    phone: plain.phone,
    address: plain.address,
    taxInfo: tax && {
      taxId: tax.taxId === null ? null : secretView(tax.taxId, includeTaxInfo),
      taxIdType: tax.taxIdType,
      taxCountry: tax.taxCountry,
      peppolRoutingAddress: tax.peppolRoutingAddress && {
        schemeId: tax.peppolRoutingAddress.schemeId,
        value: secretView(tax.peppolRoutingAddress.value, includeTaxInfo),
        confirmedByBuyer: tax.peppolRoutingAddress.confirmedByBuyer,
      },
    },
    notes: plain.notes,
    metadata: plain.metadata,
    language: plain.language,
    eInvoiceFormat: plain.eInvoiceFormat,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

/** Reads a stored client as the Admin API shows it. */
export function viewOf(deps: Secrets, key: OrgKey, doc: ClientDoc, includeTaxInfo: boolean): ClientRecord {
  return clientView(doc, openClient(deps, key, doc), includeTaxInfo);
}
