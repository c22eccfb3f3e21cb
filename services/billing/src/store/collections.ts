import type { CollectionSpec } from '@paymesh/store';

export const SITE_INVOICING = 'site_invoicing_settings';
export const INVOICING_SETTINGS = 'invoicing_settings';
export const PORTAL_SETTINGS = 'portal_settings';
export const CLIENTS = 'clients';
export const CLIENT_HISTORY = 'client_history';
/** `Idempotency-Key`s of client creates: key -> request fingerprint and the client created. */
export const CLIENT_IDEMPOTENCY_KEYS = 'client_idempotency_keys';
/** Fields of the clients' full-text index: name and e-mail words, and the tax ID's keyed digest. */
export const CLIENT_TEXT_FIELDS = ['name', 'email', 'taxInfo.taxIdDigest'];
export const INVOICES = 'invoices';
export const CREDIT_NOTES = 'credit_notes';
/** DATEV exports as recorded (range, counts, digest); `lock` is set while one runs. */
export const DATEV_EXPORTS = 'datev_exports';
/** What DATEV exports delivered: one document per booked document or payment (id from its key). */
export const DATEV_POSTED = 'datev_posted';
/** Data imports run as jobs: one per organization, mode, entity type and file digest. */
export const DATA_IMPORTS = 'data_imports';
/** Debtor accounts handed out to clients, and the last export that booked to each. */
export const DATEV_DEBTORS = 'datev_debtors';
/** The latest validation report per document and e-invoice format. */
export const EINVOICE_REPORTS = 'einvoice_reports';
/** Hash chain of issued documents per organization, mode and number series (append-only; see domain/document-chain). */
export const DOCUMENT_CHAIN = 'document_chain';

/** A list's index: an organization's and mode's documents (narrowed by the `within` fields), newest first, ties by id. */
const newestFirst = (name: string, ...within: string[]) => ({
  name,
  fields: ['organizationId', 'mode', ...within, 'createdAt', 'id'],
  descending: ['createdAt'],
});

export const collections: CollectionSpec[] = [
  {
    name: DOCUMENT_CHAIN,
    indexes: [
      { name: 'document_chain_seq', fields: ['organizationId', 'mode', 'series', 'seq'], unique: true },
      { name: 'document_chain_document', fields: ['organizationId', 'mode', 'documentId'] },
    ],
  },
  {
    name: DATEV_EXPORTS,
    indexes: [
      { name: 'datev_exports_org_mode_created', fields: ['organizationId', 'mode', 'createdAt'] },
      // One running export per organization and mode.
      { name: 'datev_exports_lock', fields: ['lock'], unique: true },
    ],
  },
  {
    name: DATA_IMPORTS,
    indexes: [
      { name: 'data_imports_file', fields: ['organizationId', 'mode', 'entityType', 'digest'], unique: true },
      // Jobs that ended with their file still stored (deleteLeftImportFiles at each start).
      { name: 'data_imports_kept_files', fields: ['fileKept', 'status', 'id'] },
    ],
  },
  { name: DATEV_POSTED, indexes: [{ name: 'datev_posted_export', fields: ['exportId'] }] },
  {
    name: DATEV_DEBTORS,
    indexes: [
      { name: 'datev_debtors_client', fields: ['organizationId', 'mode', 'clientId'], unique: true },
      { name: 'datev_debtors_export', fields: ['organizationId', 'mode', 'lastExportId', 'id'] },
    ],
  },
  {
    name: SITE_INVOICING,
    audit: { resource: 'site_invoicing_settings' },
    indexes: [{ name: 'site_invoicing_org', fields: ['organizationId'] }],
  },
  {
    name: INVOICING_SETTINGS,
    audit: { resource: 'invoicing_settings' },
    // Read for every status change (automatic invoices on or off).
    cached: true,
    indexes: [{ name: 'invoicing_settings_org_mode', fields: ['organizationId', 'mode'], unique: true }],
  },
  {
    name: PORTAL_SETTINGS,
    audit: { resource: 'portal_settings' },
    indexes: [{ name: 'portal_settings_org_mode', fields: ['organizationId', 'mode'], unique: true }],
  },
  {
    name: CLIENTS,
    audit: { resource: 'client' },
    // Sorted by value alone (ISO timestamps bytewise), as the list indexes are built.
    fieldTypes: { createdAt: 'string' },
    indexes: [
      // The clients list (app/read-clients.ts): newest first, ties by id, walked page by page.
      newestFirst('clients_org_mode_created_id'),
      { name: 'clients_org_mode_id', fields: ['organizationId', 'mode', 'id'] },
      { name: 'clients_org_mode_tax_digest', fields: ['organizationId', 'mode', 'taxInfo.taxIdDigest'] },
      // The clients of a buyer e-mail (automatic invoices find or create the buyer's client).
      { name: 'clients_org_mode_email_key_created', fields: ['organizationId', 'mode', 'emailKey', 'createdAt'] },
      // What a CSV import created: file digest and row, so the same file never creates a client twice.
      { name: 'clients_import_key', fields: ['organizationId', 'mode', 'importKey'], unique: true },
    ],
    textIndex: { name: 'clients_text', fields: CLIENT_TEXT_FIELDS },
    // Built over createdAt's text in the default collation, which the lists' bytewise order cannot use.
    dropIndexes: ['clients_org_mode_created', 'clients_org_mode_email_key'],
  },
  {
    name: CLIENT_HISTORY,
    indexes: [{ name: 'client_history_client_at', fields: ['organizationId', 'mode', 'clientId', 'at'] }],
  },
  {
    name: CLIENT_IDEMPOTENCY_KEYS,
    indexes: [{ name: 'client_idempotency_keys_key', fields: ['organizationId', 'mode', 'key'], unique: true }],
  },
  {
    name: INVOICES,
    audit: { resource: 'invoice' },
    // Sorted by value alone (ISO timestamps bytewise), as the list indexes are built.
    fieldTypes: { createdAt: 'string' },
    // Built over createdAt's text in the default collation, which the lists' bytewise order cannot use.
    dropIndexes: ['invoices_org_mode_created'],
    indexes: [
      // The invoices list (app/list-invoices.ts): newest first, ties by id, walked page by page;
      // a client's invoices (client page, portal) by the second one.
      newestFirst('invoices_org_mode_created_id'),
      newestFirst('invoices_org_mode_client_created_id', 'clientId'),
      // One invoice per organization, mode and number; drafts (number null) are not constrained.
      { name: 'invoices_number', fields: ['organizationId', 'mode', 'number'], unique: true },
      // One invoice generated per source transaction, whatever the redeliveries.
      { name: 'invoices_source_transaction', fields: ['organizationId', 'mode', 'sourceTransactionId'], unique: true },
      // One invoice per internal caller's idempotency key (recurring cycles); other invoices have none.
      { name: 'invoices_idempotency_key', fields: ['organizationId', 'mode', 'idempotencyKey'], unique: true },
      { name: 'invoices_org_mode_issue_date', fields: ['organizationId', 'mode', 'issueDate'] },
      // Payments and reversals of a period (DATEV, GDPdU): every one updates its invoice.
      { name: 'invoices_org_mode_updated', fields: ['organizationId', 'mode', 'updatedAt'] },
      // Exports read every invoice of a period in id order (keyset pages).
      { name: 'invoices_org_mode_id', fields: ['organizationId', 'mode', 'id'] },
      // The invoice a completed or refunded transaction is linked to as its payment.
      { name: 'invoices_transaction', fields: ['organizationId', 'mode', 'transactionId'] },
      // Drafts a CSV import created: file digest and first row of the draft.
      { name: 'invoices_import_key', fields: ['organizationId', 'mode', 'importKey'], unique: true },
    ],
  },
  {
    name: CREDIT_NOTES,
    audit: { resource: 'credit_note' },
    fieldTypes: { createdAt: 'string' },
    indexes: [
      // The credit notes list: newest first, ties by id.
      newestFirst('credit_notes_org_mode_created_id'),
      { name: 'credit_notes_number', fields: ['organizationId', 'mode', 'number'], unique: true },
      // One credit note per invoice and source: one void, one per refund or dispute event.
      {
        name: 'credit_notes_invoice_source',
        fields: ['organizationId', 'mode', 'invoiceId', 'sourceKey'],
        unique: true,
      },
      { name: 'credit_notes_org_mode_issue_date', fields: ['organizationId', 'mode', 'issueDate'] },
      { name: 'credit_notes_org_mode_id', fields: ['organizationId', 'mode', 'id'] },
    ],
  },
  {
    name: EINVOICE_REPORTS,
    indexes: [
      {
        name: 'einvoice_reports_document_format',
        fields: ['organizationId', 'mode', 'documentKind', 'documentId', 'format'],
        unique: true,
      },
    ],
  },
];
