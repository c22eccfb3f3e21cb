import { createHash } from 'node:crypto';
import type { SealedValue, SecretBox } from '@paymesh/core';
import type { DocumentLine, DocumentView, InvoiceItem, PostalAddress, TaxCalculation } from '@paymesh/contracts';
import { textsOf } from '../domain/messages';
import {
  proformaNumberOf,
  type DocumentPrint,
  type CreditNoteDoc,
  type InvoiceDoc,
  type StoredBuyer,
  type StoredSeller,
} from '../domain/invoice';
import { zonedDay } from '../domain/numbering';
import type { InvoiceBuyer } from './client-port';
import type { OrgKey } from './deps';
import { openBuyer } from './invoice-sealing';
import { settingsAad } from './invoicing-settings';
import type { SiteBranding } from './invoice-deps';
import { documentSettingsOf, type InvoicingSettings } from '../domain/invoicing-settings';
import { addDays } from './issue-invoice';

/**
 * The DocumentView a PDF is rendered from (pure but for opening sealed values): an issued invoice
 * from its frozen snapshot (buyer as corrected), a draft as pro forma from its tax preview, a credit
 * note from its own frozen parties and amounts. The IBAN is printed in full (the sealed value).
 */

/** How a document is printed: the client's language, else the organization's; the organization's date-of-supply rule. */
export function printOf(
  settings: Pick<InvoicingSettings, 'documents'>,
  clientLanguage: DocumentPrint['language'] | null | undefined,
): DocumentPrint {
  const docs = documentSettingsOf(settings);
  return { language: clientLanguage ?? docs.language, supplyDateRule: docs.supplyDateRule };
}

/** A view and the snapshot version its stored PDF is kept under. */
export interface VersionedView {
  view: DocumentView;
  /** Changes whenever something printed changes (see {@link snapshotVersionOf}). */
  snapshotVersion: string;
}

interface Seller {
  name: string | null;
  address: PostalAddress | null;
  email: string | null;
  vatId: string | null;
  ibanSealed: SealedValue | null;
}

interface Buyer {
  name: string;
  address: PostalAddress | null;
  email: string | null;
  taxId: string | null;
}

function openIban(secrets: SecretBox, key: OrgKey, sealed: SealedValue | null): string | null {
  // The snapshot keeps the settings' sealed value as it was at issue: it opens with the settings' binding.
  return sealed ? secrets.open(sealed, settingsAad(key, 'bankIBAN')) : null;
}

function sellerParty(secrets: SecretBox, key: OrgKey, s: Seller, withIban: boolean): DocumentView['seller'] {
  return {
    name: (s.name ?? '').slice(0, 200),
    address: s.address,
    email: s.email,
    vatId: s.vatId,
    iban: withIban ? openIban(secrets, key, s.ibanSealed) : null,
  };
}

function buyerParty(b: Buyer): DocumentView['buyer'] {
  return { name: b.name.slice(0, 200) || '—', address: b.address, email: b.email, vatId: b.taxId };
}

function storedSeller(s: StoredSeller): Seller {
  return { name: s.companyName, address: s.address, email: s.email, vatId: s.vatId, ibanSealed: s.bankIBANSealed };
}

function openedBuyer(secrets: SecretBox, key: OrgKey, b: StoredBuyer): Buyer {
  const open = openBuyer(secrets, key, b);
  return { name: open.name, address: open.address, email: open.email, taxId: open.taxId };
}

/** Lines as printed: the engine's amounts, the merchant's full description. */
function linesOf(calc: TaxCalculation | null, items: InvoiceItem[]): DocumentLine[] {
  if (calc && calc.lines.length > 0) {
    return calc.lines.map((l) => ({
      description: (items[l.index]?.description ?? l.name).slice(0, 500),
      quantity: l.quantity,
      unitPrice: l.unitPrice,
      net: l.net,
      tax: l.tax,
      gross: l.gross,
      taxRate: l.taxRate,
      decision: l.decision,
    }));
  }
  // A draft without a tax preview: amounts as entered, untaxed.
  return items.map((i) => {
    const amount = i.quantity * i.unitPrice;
    return {
      description: i.description,
      quantity: i.quantity,
      unitPrice: i.unitPrice,
      net: amount,
      tax: 0,
      gross: amount,
      taxRate: 0,
      decision: null,
    };
  });
}

function amountsOf(
  calc: TaxCalculation | null,
  items: InvoiceItem[],
): Pick<DocumentView, 'lines' | 'taxBreakdown' | 'totals'> {
  const lines = linesOf(calc, items);
  if (calc)
    return {
      lines,
      taxBreakdown: calc.taxBreakdown,
      totals: { net: calc.totalNet, tax: calc.totalTax, gross: calc.totalGross },
    };
  const gross = lines.reduce((n, l) => n + l.gross, 0);
  return { lines, taxBreakdown: [], totals: { net: gross, tax: 0, gross } };
}

function brandingOf(site: SiteBranding | null): DocumentView['branding'] {
  return site ? { name: site.name.slice(0, 200) || null, primaryColor: site.primaryColor } : null;
}

function remarksOf(...parts: Array<string | null | undefined>): string | null {
  const text = parts.filter((p): p is string => !!p && p.trim() !== '').join('\n\n');
  return text === '' ? null : text.slice(0, 4000);
}

/**
 * What a view says about its language and date of supply. English with the default rule adds
 * nothing, so documents of clients without a language print (and are stored) exactly as before.
 */
function printed(print: DocumentPrint | null): Pick<DocumentView, 'language' | 'supplyDateRule'> {
  if (!print) return {};
  return {
    ...(print.language !== 'en' ? { language: print.language } : {}),
    ...(print.supplyDateRule !== 'invoice_date' ? { supplyDateRule: print.supplyDateRule } : {}),
  };
}

/**
 * The snapshot version of a view: `<prefix>-<hash>`, the hash over the whole view, so the stored
 * PDF is rendered again exactly when something printed changed (a correction, a void, notes, the
 * site's branding, a draft's edit) and never otherwise. The prefix says what it is a version of.
 */
export function snapshotVersionOf(prefix: string, view: DocumentView): string {
  const hash = createHash('sha256').update(JSON.stringify(view)).digest('base64url').slice(0, 22);
  return `${prefix}-${hash}`.slice(0, 64);
}

/** An issued (or paid, or void) invoice as printed from its snapshot. */
export function issuedInvoiceView(
  secrets: SecretBox,
  key: OrgKey,
  doc: InvoiceDoc,
  site: SiteBranding | null,
  /** The settings' sealed IBAN, printed when the snapshot has none (set after the invoice was issued). */
  currentIbanSealed: SealedValue | null = null,
  /** How to print an invoice issued before its snapshot froze that (the current settings). */
  currentPrint: DocumentPrint | null = null,
): VersionedView {
  const snap = doc.snapshot;
  if (!snap) throw new Error(`invoice ${doc.id} has no snapshot`);
  const print = snap.print ?? currentPrint;
  const texts = textsOf(print?.language);
  const voidNotice =
    doc.status === 'void'
      ? texts.t('remark.void', {
          date: texts.date((doc.voidedAt ?? '').slice(0, 10)),
          reason: doc.voidReason ? ` (${doc.voidReason})` : '',
        })
      : null;
  const view: DocumentView = {
    kind: 'invoice',
    number: snap.number,
    issueDate: snap.issueDate,
    dueDate: snap.dueDate,
    servicePeriod: snap.servicePeriod,
    ...printed(print),
    currency: snap.currency,
    seller: sellerParty(
      secrets,
      key,
      { ...storedSeller(snap.seller), ibanSealed: snap.seller.bankIBANSealed ?? currentIbanSealed },
      doc.status !== 'void',
    ),
    buyer: buyerParty(openedBuyer(secrets, key, snap.buyer)),
    ...amountsOf(snap.taxCalculation, snap.lines),
    paymentTermsDays: doc.paymentTermsDays,
    invoiceNumber: null,
    remarks: remarksOf(voidNotice, doc.notes),
    branding: brandingOf(site),
  };
  // Issue time and corrections name the snapshot; the hash covers what else is printed.
  return { view, snapshotVersion: snapshotVersionOf(`i${Date.parse(snap.issuedAt)}c${doc.corrections.length}`, view) };
}

/** What a draft's pro forma needs beyond the draft: the seller as the settings say today, the client, today. */
export interface ProformaContext {
  settings: InvoicingSettings;
  sellerVatId: string | null;
  buyer: InvoiceBuyer;
  now: Date;
  site: SiteBranding | null;
}

/** A draft as its pro forma: number `PROFORMA-…`, the tax preview, dated today unless the draft names its issue date. */
export function proformaView(
  secrets: SecretBox,
  key: OrgKey,
  doc: Pick<
    InvoiceDoc,
    | 'id'
    | 'version'
    | 'issueDate'
    | 'dueDate'
    | 'paymentTermsDays'
    | 'servicePeriod'
    | 'currency'
    | 'taxCalculation'
    | 'items'
    | 'notes'
  >,
  ctx: ProformaContext,
): VersionedView {
  const { settings } = ctx;
  const issueDate = doc.issueDate ?? zonedDay(ctx.now, settings.timeZone ?? 'UTC');
  const dueDate = doc.dueDate ?? (doc.paymentTermsDays !== null ? addDays(issueDate, doc.paymentTermsDays) : null);
  const seller: Seller = {
    name: settings.companyName,
    address: settings.companyAddress,
    email: settings.companyEmail,
    vatId: ctx.sellerVatId,
    ibanSealed: settings.bankIBAN?.sealed ?? null,
  };
  const view: DocumentView = {
    kind: 'proforma',
    number: proformaNumberOf(doc.id),
    issueDate,
    dueDate,
    servicePeriod: doc.servicePeriod,
    ...printed(printOf(settings, ctx.buyer.language)),
    currency: doc.currency,
    seller: sellerParty(secrets, key, seller, true),
    buyer: buyerParty({
      name: ctx.buyer.name,
      address: ctx.buyer.address,
      email: ctx.buyer.email,
      taxId: ctx.buyer.taxId,
    }),
    ...amountsOf(doc.taxCalculation, doc.items),
    paymentTermsDays: doc.paymentTermsDays,
    invoiceNumber: null,
    remarks: remarksOf(doc.notes),
    branding: brandingOf(ctx.site),
  };
  return { view, snapshotVersion: snapshotVersionOf(`d${doc.version}`, view) };
}

/** A credit note as printed: its own frozen seller, buyer and credited amounts, in the language of the invoice it corrects. */
export function creditNoteDocumentView(
  secrets: SecretBox,
  key: OrgKey,
  doc: CreditNoteDoc,
  site: SiteBranding | null,
  print: DocumentPrint | null = null,
): VersionedView {
  const texts = textsOf(print?.language);
  const view: DocumentView = {
    kind: 'credit_note',
    number: doc.number,
    issueDate: doc.issueDate,
    dueDate: null,
    servicePeriod: null,
    ...(print && print.language !== 'en' ? { language: print.language } : {}),
    currency: doc.currency,
    seller: sellerParty(secrets, key, storedSeller(doc.seller), false),
    buyer: buyerParty(openedBuyer(secrets, key, doc.buyer)),
    ...amountsOf(doc.taxCalculation, doc.lines),
    paymentTermsDays: null,
    invoiceNumber: doc.invoiceNumber,
    remarks: remarksOf(texts.t(`remark.credit.${doc.kind}`), doc.reason),
    branding: brandingOf(site),
  };
  return { view, snapshotVersion: snapshotVersionOf('cn', view) };
}
