import { z } from 'zod';
import { countryCode, documentLanguage, EMAIL_EINVOICE_FORMATS, postalAddress } from './settings';
import { cappedListPage, listPage } from './list-page';

/**
 * Billing clients (Admin API `/clients`): the people and companies a merchant invoices. The
 * gateway validates HTTP input with these schemas and forwards it as JSON to the billing service,
 * which parses it again and applies its own rules (Peppol schemes, VAT ID check digits).
 *
 * Compliance values (`taxInfo.taxId`, `taxInfo.peppolRoutingAddress.value`) are write-only
 * plaintext in inputs, stored encrypted, and read back masked; their plaintext is returned only
 * when the caller holds `client:execute` (the gateway sets `includeTaxInfo`).
 */

const text = (max: number) => z.string().trim().min(1).max(max);

/** A write-only secret value. */
const secretInput = z.object({ plaintext: text(64) }).strict();

/** Peppol routing address of a client (ICD scheme 9930, 0088 or 0204 and the value). */
export const clientPeppolAddressInput = z
  .object({
    schemeId: z.string().regex(/^\d{4}$/, 'must be a 4-digit ICD scheme identifier (9930, 0088 or 0204)'),
    value: secretInput,
    /**
     * The buyer confirmed this exact address (for 0204: the German public-sector recipient confirmed
     * its Leitweg-ID). Required true for 9930 and 0204; the address is never derived from the tax ID.
     */
    confirmedByBuyer: z.boolean().default(false),
  })
  .strict();
export type ClientPeppolAddressInput = z.infer<typeof clientPeppolAddressInput>;

/** Tax identification of a client; on update each field present replaces that field only. */
export const clientTaxInfoInput = z
  .object({
    taxId: secretInput.nullable(),
    /** Kind of tax ID, e.g. `vat` (VAT IDs are checked against `taxCountry`'s format and check digits). */
    taxIdType: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,31}$/, 'must be a lower-case identifier such as vat')
      .nullable(),
    taxCountry: countryCode.nullable(),
    peppolRoutingAddress: clientPeppolAddressInput.nullable(),
  })
  .strict()
  .partial();
export type ClientTaxInfoInput = z.infer<typeof clientTaxInfoInput>;

/** Free-form key/value pairs for the merchant's own references (at most 20 keys). */
export const clientMetadata = z
  .record(z.string().regex(/^[A-Za-z0-9_.-]{1,40}$/, 'keys are 1-40 letters, digits, _ . -'), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 20, 'at most 20 metadata keys');

const clientFields = {
  /** Company or person name, as invoices show it. */
  name: text(200),
  email: z.string().trim().max(254).email().nullable(),
  phone: z
    .string()
    .trim()
    .regex(/^\+?[0-9 ()./-]{3,40}$/, 'must be a phone number (digits, spaces, + ( ) . / -)')
    .nullable(),
  address: postalAddress.nullable(),
  taxInfo: clientTaxInfoInput.nullable(),
  notes: z.string().trim().max(2000).nullable(),
  metadata: clientMetadata.nullable(),
  /** Language of the client's invoices, credit notes and e-mails; null: the organization's default. */
  language: documentLanguage.nullable(),
  /**
   * E-invoice attached to the client's document e-mails: `xrechnung` (XML beside the PDF), `zugferd`
   * (the PDF with its XML embedded), `none`; null: the organization's `eInvoice.emailFormat` when the
   * client has a tax ID.
   */
  eInvoiceFormat: z.enum([...EMAIL_EINVOICE_FORMATS, 'none']).nullable(),
};

/** Body of `POST /clients`: `name` is required, everything else optional. */
export const clientCreate = z.object(clientFields).partial().required({ name: true }).strict();
export type ClientCreate = z.infer<typeof clientCreate>;

/**
 * Body of `PUT /clients/:id`: a merge patch. Only the fields present change, `null` clears;
 * `address` and `metadata` are replaced whole, `taxInfo` merges field by field.
 */
export const clientUpdate = z.object(clientFields).partial().strict();
export type ClientUpdate = z.infer<typeof clientUpdate>;

/** A compliance value as read: always masked (last 4 characters); plaintext only with the scope. */
export const secretView = z.object({
  masked: z.string(),
  plaintext: z.string().optional(),
});

export const clientTaxInfoView = z.object({
  taxId: secretView.nullable(),
  taxIdType: z.string().nullable(),
  taxCountry: z.string().nullable(),
  peppolRoutingAddress: z
    .object({
      schemeId: z.string(),
      value: secretView,
      confirmedByBuyer: z.boolean(),
    })
    .nullable(),
});
export type ClientTaxInfoView = z.infer<typeof clientTaxInfoView>;

/** A client as the Admin API returns it. */
export const clientRecord = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  address: postalAddress.nullable(),
  taxInfo: clientTaxInfoView.nullable(),
  notes: z.string().nullable(),
  metadata: z.record(z.string()).nullable(),
  language: z.string().nullable(),
  eInvoiceFormat: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ClientRecord = z.infer<typeof clientRecord>;

const paging = {
  page: z.number().int().min(1).max(1_000_000).default(1),
  /** Default 20, at most 100 (larger values are refused, not capped). */
  limit: z.number().int().min(1).max(100).default(20),
};

/** Read options every client RPC accepts: the gateway sets `includeTaxInfo` for `client:execute`. */
const readOptions = { includeTaxInfo: z.boolean().default(false) };

/** Body of `ListClients` (newest first). */
export const clientListQuery = z.object({ ...paging, ...readOptions }).strict();
export type ClientListQuery = z.infer<typeof clientListQuery>;

/** Body of `SearchClients`: full text over name and e-mail, exact match on the tax ID. */
export const clientSearchQuery = z.object({ q: z.string().trim().min(1).max(200), ...paging, ...readOptions }).strict();
export type ClientSearchQuery = z.infer<typeof clientSearchQuery>;

/** Body of `GetClient` and `DeleteClient`. */
export const clientReadOptions = z.object(readOptions).strict();

/** Bodies of `CreateClient` / `UpdateClient`: the input and the read option for the answer. */
/** The `Idempotency-Key` header of a create: 1-255 visible ASCII characters. */
export const idempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, 'must be 1-255 visible ASCII characters');

export const clientCreateRequest = z
  .object({ client: clientCreate, idempotencyKey: idempotencyKey.optional(), ...readOptions })
  .strict();
export const clientUpdateRequest = z.object({ client: clientUpdate, ...readOptions }).strict();

/** Body of `GetClientHistory` (oldest first). */
export const clientHistoryQuery = z.object(paging).strict();

export const clientPage = cappedListPage(clientRecord, '10,001');
export type ClientPage = z.infer<typeof clientPage>;

export const CLIENT_HISTORY_ACTIONS = ['create', 'update', 'delete'] as const;

/** One changed field: old and new values, or only `secret: true` for compliance values. */
export const clientFieldChange = z.object({
  field: z.string(),
  secret: z.boolean(),
  old: z.unknown().optional(),
  new: z.unknown().optional(),
});
export type ClientFieldChange = z.infer<typeof clientFieldChange>;

/** An entry of a client's append-only history. */
export const clientHistoryEntry = z.object({
  id: z.string(),
  clientId: z.string(),
  at: z.string(),
  /** Who acted: `user:<id>`, `api_key:<id>` or `system_key:<id>`. */
  actor: z.string(),
  action: z.enum(CLIENT_HISTORY_ACTIONS),
  changes: z.array(clientFieldChange),
});
export type ClientHistoryEntry = z.infer<typeof clientHistoryEntry>;

export const clientHistoryPage = listPage(clientHistoryEntry);
export type ClientHistoryPage = z.infer<typeof clientHistoryPage>;

/** Answer of `DeleteClient`. */
export const clientDeleted = z.object({ id: z.string(), deleted: z.literal(true) });
