import type { Client, ClientInput } from './invoicing';

/** The client form's state and the API body it makes (pure: unit-tested without a browser). */

export const PEPPOL_SCHEMES = ['', '9930', '0088', '0204'] as const;
export type PeppolScheme = (typeof PEPPOL_SCHEMES)[number];
const isScheme = (v: string): v is PeppolScheme => (PEPPOL_SCHEMES as readonly string[]).includes(v);

export interface ClientFormState {
  name: string;
  email: string;
  phone: string;
  street: string;
  postalCode: string;
  city: string;
  country: string;
  taxCountry: string;
  taxIdType: '' | 'vat';
  taxId: string;
  peppolScheme: PeppolScheme;
  peppolValue: string;
  peppolConfirmed: boolean;
  language: '' | 'en' | 'de';
  eInvoiceFormat: '' | 'xrechnung' | 'zugferd' | 'none';
  notes: string;
}

export function formOf(c: Client | undefined): ClientFormState {
  const tax = c?.taxInfo;
  const scheme = tax?.peppolRoutingAddress?.schemeId ?? '';
  const language = c?.language;
  const format = c?.eInvoiceFormat;
  return {
    name: c?.name ?? '',
    email: c?.email ?? '',
    phone: c?.phone ?? '',
    street: c?.address?.street ?? '',
    postalCode: c?.address?.postalCode ?? '',
    city: c?.address?.city ?? '',
    country: c?.address?.country ?? '',
    taxCountry: tax?.taxCountry ?? '',
    taxIdType: tax?.taxIdType === 'vat' ? 'vat' : '',
    taxId: tax?.taxId?.plaintext ?? '',
    peppolScheme: isScheme(scheme) ? scheme : '',
    peppolValue: tax?.peppolRoutingAddress?.value.plaintext ?? '',
    peppolConfirmed: tax?.peppolRoutingAddress?.confirmedByBuyer ?? false,
    language: language === 'en' || language === 'de' ? language : '',
    eInvoiceFormat: format === 'xrechnung' || format === 'zugferd' || format === 'none' ? format : '',
    notes: c?.notes ?? '',
  };
}

/**
 * The body of a create or an edit (merge patch): cleared fields as null; compliance values (tax
 * ID, Peppol address) only when typed, so a masked value this member cannot read stays as stored.
 */
export function bodyOf(f: ClientFormState, before: ClientFormState | undefined): ClientInput {
  const text = (v: string) => v.trim() || null;
  const hasAddress = [f.street, f.postalCode, f.city, f.country].some((v) => v.trim() !== '');
  const taxId = f.taxId.trim();
  const peppolChanged =
    !before ||
    f.peppolScheme !== before.peppolScheme ||
    f.peppolValue !== before.peppolValue ||
    f.peppolConfirmed !== before.peppolConfirmed;
  return {
    name: f.name.trim(),
    email: text(f.email),
    phone: text(f.phone),
    address: hasAddress
      ? {
          street: f.street.trim(),
          postalCode: f.postalCode.trim(),
          city: f.city.trim(),
          country: f.country.trim().toUpperCase(),
        }
      : null,
    taxInfo: {
      taxCountry: f.taxCountry.trim().toUpperCase() || null,
      taxIdType: f.taxIdType || null,
      ...(taxId !== (before?.taxId ?? '') ? { taxId: taxId ? { plaintext: taxId } : null } : {}),
      ...(peppolChanged && (f.peppolValue.trim() || !before)
        ? {
            peppolRoutingAddress: f.peppolScheme
              ? {
                  schemeId: f.peppolScheme,
                  value: { plaintext: f.peppolValue.trim() },
                  confirmedByBuyer: f.peppolConfirmed,
                }
              : null,
          }
        : peppolChanged && !f.peppolScheme
          ? { peppolRoutingAddress: null }
          : {}),
    },
    notes: text(f.notes),
    language: f.language || null,
    eInvoiceFormat: f.eInvoiceFormat || null,
  };
}
