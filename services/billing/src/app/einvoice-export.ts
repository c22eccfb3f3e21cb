import {
  ConflictError,
  ErrorCode,
  ForbiddenError,
  NotFoundError,
  UnprocessableError,
  type SealedValue,
  requireObjectId,
} from '@paymesh/core';
import { recordFileOnce } from './document-chain';
import {
  EINVOICE_FORMATS,
  type EInvoiceReadinessView,
  type EInvoiceFormat,
  type EInvoiceRequest,
  type EInvoiceReport,
  type EInvoiceReportEntry,
  type EInvoiceReportList,
} from '@paymesh/contracts';
import type { StoredDoc } from '@paymesh/store';
import {
  einvoiceDocumentOf,
  einvoiceFileName,
  einvoiceReadiness,
  sellerReadiness,
  type EInvoiceSeller,
  type EInvoiceSource,
} from '../domain/einvoice';
import type { InvoicingSettings } from '../domain/invoicing-settings';
import type { DocumentPrint, StoredSeller } from '../domain/invoice';
import { printOf } from './document-view';
import { EINVOICE_REPORTS } from '../store/collections';
import type { OrgKey } from './deps';
import type { InvoiceDeps } from './invoice-deps';
import { openBuyer } from './invoice-sealing';
import { loadCreditNote, loadInvoice } from './invoice-view';
import { getInvoicingSettings, settingsAad } from './invoicing-settings';

/** A stored validation report: the latest per document and format. */
interface EInvoiceReportDoc extends StoredDoc, Omit<EInvoiceReportEntry, 'documentId'> {
  organizationId: string;
  mode: 'live' | 'test';
  documentId: string;
  updatedAt: string;
}

export interface EInvoiceFile {
  content: Buffer;
  contentType: string;
  fileName: string;
}

/** 403 EINVOICE_DISABLED / EINVOICE_FORMAT_NOT_ALLOWED from the organization's settings (spec error table). */
export function enforceEInvoiceSettings(settings: InvoicingSettings, format: EInvoiceFormat): void {
  if (!settings.eInvoice.enabled) {
    throw new ForbiddenError('e-invoice generation is disabled in the invoicing settings (eInvoice.enabled)', {
      code: ErrorCode.EINVOICE_DISABLED,
    });
  }
  if (!settings.eInvoice.allowedFormats.includes(format)) {
    throw new ForbiddenError(`e-invoice format ${format} is not in the invoicing settings' eInvoice.allowedFormats`, {
      code: ErrorCode.EINVOICE_FORMAT_NOT_ALLOWED,
    });
  }
}

/**
 * The seller of an issued document: identity (name, address, VAT ID) as frozen in its snapshot;
 * payment and contact data (IBAN, e-mail, telephone, Peppol routing address) from the snapshot,
 * else from the current settings (documents issued before the merchant set them).
 */
function sellerOf(deps: InvoiceDeps, key: OrgKey, s: StoredSeller, settings: InvoicingSettings): EInvoiceSeller {
  const open = (sealed: SealedValue, field: string) => deps.secrets.open(sealed, settingsAad(key, field));
  const ibanSealed = s.bankIBANSealed ?? settings.bankIBAN?.sealed ?? null;
  const peppol = s.peppolRoutingAddress ?? settings.eInvoice.sellerPeppolRoutingAddress;
  return {
    companyName: s.companyName,
    address: s.address,
    vatId: s.vatId,
    email: s.email ?? settings.companyEmail,
    phone: s.phone ?? settings.companyPhone ?? null,
    iban: ibanSealed ? open(ibanSealed, 'bankIBAN') : null,
    peppolRoutingAddress: peppol
      ? { schemeId: peppol.schemeId, value: open(peppol.value, 'eInvoice.sellerPeppolRoutingAddress') }
      : null,
  };
}

/** 422 EINVOICE_READINESS_FAILED naming every missing value. */
function readinessFailure(problems: { field: string; message: string }[], format: EInvoiceFormat): UnprocessableError {
  const list = problems.map((p) => `${p.field} (${p.message})`).join('; ');
  return new UnprocessableError(`the ${format} e-invoice cannot be generated; missing: ${list}`, {
    code: ErrorCode.EINVOICE_READINESS_FAILED,
    field: problems[0]?.field,
  });
}

/** The stored validation report's document: kind, id and snapshot version. */
type ReportTarget = { documentKind: 'invoice' | 'credit_note'; documentId: string; snapshotVersion: string };

async function storeReport(
  deps: InvoiceDeps,
  key: OrgKey,
  target: ReportTarget,
  report: EInvoiceReport,
  outcome: 'delivered' | 'refused',
): Promise<void> {
  const coll = deps.store.collection<EInvoiceReportDoc>(EINVOICE_REPORTS);
  const filter = {
    organizationId: key.organizationId,
    mode: key.mode,
    documentKind: target.documentKind,
    documentId: target.documentId,
    format: report.format,
  };
  const next = {
    ...filter,
    ...report,
    snapshotVersion: target.snapshotVersion,
    outcome,
    updatedAt: deps.clock.now().toISOString(),
  };
  // Latest report wins; two generations at once differ only in checkedAt.
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await coll.findOne(filter);
    if (existing) {
      await coll.update(existing.id, () => next, 3, existing);
      return;
    }
    try {
      await coll.insert(next);
      return;
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
    }
  }
}

/**
 * Builds, validates and answers the e-invoice of a source. strictValidation on: a report with errors
 * refuses the download (422 EINVOICE_READINESS_FAILED naming the failed rules); off: the XML is
 * delivered and the report kept as a warning. The report is stored either way.
 */
async function produce(
  deps: InvoiceDeps,
  key: OrgKey,
  settings: InvoicingSettings,
  src: EInvoiceSource,
  target: ReportTarget,
  request: EInvoiceRequest,
  print: DocumentPrint,
): Promise<EInvoiceFile> {
  const problems = einvoiceReadiness(src, request.format);
  if (problems.length > 0) throw readinessFailure(problems, request.format);
  const out = await deps.documents.renderEInvoice(key, {
    format: request.format,
    output: request.output,
    document: einvoiceDocumentOf(src),
    print,
  });
  const refused = !out.report.valid && settings.eInvoice.strictValidation;
  await storeReport(deps, key, target, out.report, refused ? 'refused' : 'delivered');
  if (refused) {
    const rules = out.report.findings
      .filter((f) => f.severity === 'error')
      .map((f) => `${f.rule}${f.field ? ` ${f.field}` : ''}: ${f.message}`);
    throw new UnprocessableError(`the ${request.format} e-invoice failed validation: ${rules.join('; ')}`, {
      code: ErrorCode.EINVOICE_READINESS_FAILED,
    });
  }
  // The first e-invoice file of each format and snapshot joins the document's chain.
  await recordFileOnce(deps.store, key, {
    series: target.documentKind,
    type: 'einvoice',
    documentId: target.documentId,
    number: src.number,
    content: {
      bytes: Buffer.from(out.content),
      format: `${request.format}/${request.output}@${target.snapshotVersion}`,
    },
    at: deps.clock.now().toISOString(),
  });
  if (!out.report.valid)
    deps.logger.warn(
      { documentId: target.documentId, format: request.format, errors: out.report.errors },
      'e-invoice delivered with validation errors (strictValidation off)',
    );
  return {
    content: out.content,
    contentType: out.contentType,
    fileName: einvoiceFileName(src.number, request.format, request.output),
  };
}

/** The invoicing settings, which must allow the e-invoice format (403 EINVOICE_DISABLED / EINVOICE_FORMAT_NOT_ALLOWED). */
async function einvoiceSettings(deps: InvoiceDeps, key: OrgKey, format: EInvoiceFormat): Promise<InvoicingSettings> {
  const settings = (await getInvoicingSettings(deps, key)).settings;
  enforceEInvoiceSettings(settings, format);
  return settings;
}

/** `GET /invoices/:id/xml`, `/xml/peppol`, `/pdf/zugferd`: an issued invoice as an e-invoice. */
export async function renderInvoiceEInvoice(
  deps: InvoiceDeps,
  key: OrgKey,
  id: string,
  request: EInvoiceRequest,
): Promise<EInvoiceFile> {
  const invoice = await loadInvoice(deps, key, id);
  const settings = await einvoiceSettings(deps, key, request.format);
  const snap = invoice.snapshot;
  if (invoice.status === 'draft' || !snap || !invoice.number) {
    throw new ConflictError(
      `invoice ${id} is a draft: issue it before asking for an e-invoice (drafts have only a pro forma PDF)`,
      { code: ErrorCode.INVOICE_NOT_ISSUED },
    );
  }
  return produce(
    deps,
    key,
    settings,
    {
      kind: 'invoice',
      number: snap.number,
      issueDate: snap.issueDate,
      dueDate: snap.dueDate,
      paymentTermsDays: invoice.paymentTermsDays,
      servicePeriod: snap.servicePeriod,
      currency: snap.currency,
      seller: sellerOf(deps, key, snap.seller, settings),
      buyer: openBuyer(deps.secrets, key, snap.buyer),
      taxCalculation: snap.taxCalculation,
      totals: snap.totals,
      precedingInvoice: null,
      reason: null,
    },
    { documentKind: 'invoice', documentId: id, snapshotVersion: `c${invoice.corrections.length}` },
    request,
    snap.print ?? printOf(settings, null),
  );
}

/** A credit note as an e-invoice (UBL CreditNote / CII 381). */
export async function renderCreditNoteEInvoice(
  deps: InvoiceDeps,
  key: OrgKey,
  id: string,
  request: EInvoiceRequest,
): Promise<EInvoiceFile> {
  const note = await loadCreditNote(deps, key, id);
  const settings = await einvoiceSettings(deps, key, request.format);
  const invoice = await loadInvoice(deps, key, note.invoiceId).catch((err: unknown) => {
    if (err instanceof NotFoundError) return null;
    throw err;
  });
  return produce(
    deps,
    key,
    settings,
    {
      kind: 'credit_note',
      number: note.number,
      issueDate: note.issueDate,
      dueDate: null,
      paymentTermsDays: null,
      servicePeriod: invoice?.snapshot?.servicePeriod ?? null,
      currency: note.currency,
      seller: sellerOf(deps, key, note.seller, settings),
      buyer: openBuyer(deps.secrets, key, note.buyer),
      taxCalculation: note.taxCalculation,
      totals: note.totals,
      precedingInvoice: { number: note.invoiceNumber, issueDate: invoice?.issueDate ?? null },
      reason: note.reason,
    },
    { documentKind: 'credit_note', documentId: id, snapshotVersion: 'c0' },
    request,
    invoice?.snapshot?.print ?? printOf(settings, null),
  );
}

/** Stored validation reports of an invoice or credit note (the document must exist), one per format. */
export async function listEInvoiceReports(
  deps: InvoiceDeps,
  key: OrgKey,
  kind: 'invoice' | 'credit_note',
  id: string,
): Promise<EInvoiceReportList> {
  requireObjectId(id, 'id');
  if (kind === 'invoice') await loadInvoice(deps, key, id);
  else await loadCreditNote(deps, key, id);
  const page = await deps.store
    .collection<EInvoiceReportDoc>(EINVOICE_REPORTS)
    .find({ organizationId: key.organizationId, mode: key.mode, documentKind: kind, documentId: id }, { limit: 10 });
  const items = page.items
    .map(({ id: _id, version: _v, organizationId: _o, mode: _m, updatedAt: _u, ...entry }) => entry)
    .sort((a, b) => a.format.localeCompare(b.format));
  return { documentId: id, items };
}

/**
 * Each e-invoice format and what it needs of the seller that the current settings lack (an
 * invoice's rules, {@link sellerReadiness}), plus the home country without which no VAT category is
 * decided: the merchant sees which missing field blocks which format before issuing.
 */
export async function getEInvoiceReadiness(deps: InvoiceDeps, key: OrgKey): Promise<EInvoiceReadinessView> {
  const [{ settings }, tax] = await Promise.all([getInvoicingSettings(deps, key), deps.tax.settings(key)]);
  const seller = {
    companyName: settings.companyName,
    address: settings.companyAddress,
    email: settings.companyEmail,
    phone: settings.companyPhone ?? null,
    vatId: tax.vatId,
    iban: settings.bankIBAN,
    peppolRoutingAddress: settings.eInvoice.sellerPeppolRoutingAddress,
  };
  return {
    formats: EINVOICE_FORMATS.map((format) => {
      const missing = sellerReadiness(seller, format, 'invoice');
      if (!tax.homeCountry)
        missing.push({ field: 'tax.homeCountry', message: 'seller home country (without it no VAT is calculated)' });
      return {
        format,
        allowed: settings.eInvoice.enabled && settings.eInvoice.allowedFormats.includes(format),
        ready: missing.length === 0,
        missing,
      };
    }),
  };
}
