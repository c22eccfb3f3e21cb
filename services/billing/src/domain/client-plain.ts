import { ValidationError } from '@paymesh/core';
import type { ClientCreate, ClientUpdate, DocumentLanguage, PostalAddress } from '@paymesh/contracts';
import { normalizeTaxId, type ClientEInvoiceFormat } from './client';
import { normalizePeppolValue, peppolProblem } from './peppol';
import { hasVatRules, isEuVatIdOf } from './vat-number';

/** A client's tax info with its compliance values in plaintext (in memory only). */
export interface PlainTaxInfo {
  taxId: string | null;
  taxIdType: string | null;
  taxCountry: string | null;
  peppolRoutingAddress: { schemeId: string; value: string; confirmedByBuyer: boolean } | null;
}

/** The editable fields of a client, compliance values in plaintext. */
export interface PlainClient {
  name: string;
  email: string | null;
  phone: string | null;
  address: PostalAddress | null;
  taxInfo: PlainTaxInfo | null;
  notes: string | null;
  metadata: Record<string, string> | null;
  language: DocumentLanguage | null;
  eInvoiceFormat: ClientEInvoiceFormat | null;
}

const EMPTY_TAX: PlainTaxInfo = { taxId: null, taxIdType: null, taxCountry: null, peppolRoutingAddress: null };

function mergeTaxInfo(current: PlainTaxInfo | null, patch: ClientUpdate['taxInfo']): PlainTaxInfo | null {
  if (patch === undefined) return current;
  if (patch === null) return null;
  const base = current ?? EMPTY_TAX;
  const next: PlainTaxInfo = {
    taxId: patch.taxId === undefined ? base.taxId : patch.taxId && normalizeTaxId(patch.taxId.plaintext),
    taxIdType: patch.taxIdType === undefined ? base.taxIdType : patch.taxIdType,
    taxCountry: patch.taxCountry === undefined ? base.taxCountry : patch.taxCountry,
    peppolRoutingAddress:
      patch.peppolRoutingAddress === undefined
        ? base.peppolRoutingAddress
        : patch.peppolRoutingAddress && {
            schemeId: patch.peppolRoutingAddress.schemeId,
            value: normalizePeppolValue(
              patch.peppolRoutingAddress.schemeId,
              patch.peppolRoutingAddress.value.plaintext,
            ),
            confirmedByBuyer: patch.peppolRoutingAddress.confirmedByBuyer,
          },
  };
  const empty = !next.taxId && !next.taxIdType && !next.taxCountry && !next.peppolRoutingAddress;
  return empty ? null : next;
}

/** A new client from its create input. */
export function newPlainClient(input: ClientCreate): PlainClient {
  return applyClientPatch(
    {
      name: input.name,
      email: null,
      phone: null,
      address: null,
      taxInfo: null,
      notes: null,
      metadata: null,
      language: null,
      eInvoiceFormat: null,
    },
    { ...input },
  );
}

/** Merge patch: fields present replace (`null` clears); `taxInfo` merges field by field. */
export function applyClientPatch(current: PlainClient, patch: ClientUpdate): PlainClient {
  const pick = <K extends keyof PlainClient>(k: K): PlainClient[K] =>
    patch[k] === undefined ? current[k] : (patch[k] as PlainClient[K]);
  return {
    name: patch.name ?? current.name,
    email: pick('email'),
    phone: pick('phone'),
    address: pick('address'),
    notes: pick('notes') || null,
    metadata: pick('metadata'),
    language: pick('language'),
    eInvoiceFormat: pick('eInvoiceFormat'),
    taxInfo: mergeTaxInfo(current.taxInfo, patch.taxInfo),
  };
}

/** Throws ValidationError when the tax info breaks a rule (VAT ID format, Peppol scheme rules). */
export function assertValidTaxInfo(tax: PlainTaxInfo | null): void {
  if (!tax) return;
  if (tax.taxId && tax.taxIdType === 'vat') {
    if (!tax.taxCountry)
      throw new ValidationError('a VAT ID needs taxInfo.taxCountry', { field: 'taxInfo.taxCountry' });
    if (hasVatRules(tax.taxCountry) && !isEuVatIdOf(tax.taxId, tax.taxCountry)) {
      throw new ValidationError(`taxInfo.taxId is not a valid VAT ID of ${tax.taxCountry} (format or check digits)`, {
        field: 'taxInfo.taxId',
      });
    }
  }
  if (tax.peppolRoutingAddress) {
    const problem = peppolProblem(tax.peppolRoutingAddress, tax.taxCountry);
    if (problem) throw new ValidationError(problem.message, { field: problem.field });
  }
}
