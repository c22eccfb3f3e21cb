import { createHash } from 'node:crypto';
import { ValidationError } from '@paymesh/core';
import type {
  DatevChart,
  DatevRevenueAccount,
  DatevSettingsPatch,
  DatevSettingsView,
  TaxDecision,
} from '@paymesh/contracts';

/**
 * DATEV "DATEV-Format" (EXTF, header version 700): the Buchungsstapel (data category 21, format
 * version 13) and the Debitoren/Kreditoren master data (data category 16, format version 5).
 * Pure rules: chart defaults, which account and tax key a line books to, and how fields are
 * written. Format facts and their sources: docs/datev-gdpdu.md.
 */

export const EXTF_HEADER_VERSION = 700;
export const POSTINGS_CATEGORY = 21;
export const POSTINGS_FORMAT_NAME = 'Buchungsstapel';
export const POSTINGS_FORMAT_VERSION = 13;
export const DEBTORS_CATEGORY = 16;
export const DEBTORS_FORMAT_NAME = 'Debitoren/Kreditoren';
export const DEBTORS_FORMAT_VERSION = 5;
/** Postings DATEV takes in one file; more go into further files of the same zip. */
export const MAX_POSTINGS_PER_FILE = 99_999;
/** Fields of the header line (line 1) of every EXTF file. */
export const HEADER_FIELDS = 31;

const pairs = (art: string, inhalt: string, n: number) =>
  Array.from({ length: n }, (_, i) => [`${art} ${i + 1}`, `${inhalt} ${i + 1}`]).flat();

/** Column names of a Buchungsstapel (format version 13), in order: 125 columns. */
export const POSTING_COLUMNS: readonly string[] = [
  'Umsatz (ohne Soll/Haben-Kz)',
  'Soll/Haben-Kennzeichen',
  'WKZ Umsatz',
  'Kurs',
  'Basis-Umsatz',
  'WKZ Basis-Umsatz',
  'Konto',
  'Gegenkonto (ohne BU-Schlüssel)',
  'BU-Schlüssel',
  'Belegdatum',
  'Belegfeld 1',
  'Belegfeld 2',
  'Skonto',
  'Buchungstext',
  'Postensperre',
  'Diverse Adressnummer',
  'Geschäftspartnerbank',
  'Sachverhalt',
  'Zinssperre',
  'Beleglink',
  ...pairs('Beleginfo - Art', 'Beleginfo - Inhalt', 8),
  'KOST1 - Kostenstelle',
  'KOST2 - Kostenstelle',
  'Kost-Menge',
  'EU-Land u. UStID (Bestimmung)',
  'EU-Steuersatz (Bestimmung)',
  'Abw. Versteuerungsart',
  'Sachverhalt L+L',
  'Funktionsergänzung L+L',
  'BU 49 Hauptfunktionstyp',
  'BU 49 Hauptfunktionsnummer',
  'BU 49 Funktionsergänzung',
  ...pairs('Zusatzinformation - Art', 'Zusatzinformation - Inhalt', 20),
  'Stück',
  'Gewicht',
  'Zahlweise',
  'Forderungsart',
  'Veranlagungsjahr',
  'Zugeordnete Fälligkeit',
  'Skontotyp',
  'Auftragsnummer',
  'Buchungstyp',
  'USt-Schlüssel (Anzahlungen)',
  'EU-Land (Anzahlungen)',
  'Sachverhalt L+L (Anzahlungen)',
  'EU-Steuersatz (Anzahlungen)',
  'Erlöskonto (Anzahlungen)',
  'Herkunft-Kz',
  'Buchungs GUID',
  'KOST-Datum',
  'SEPA-Mandatsreferenz',
  'Skontosperre',
  'Gesellschaftername',
  'Beteiligtennummer',
  'Identifikationsnummer',
  'Zeichnernummer',
  'Postensperre bis',
  'Bezeichnung SoBil-Sachverhalt',
  'Kennzeichen SoBil-Buchung',
  'Festschreibung',
  'Leistungsdatum',
  'Datum Zuord. Steuerperiode',
  'Fälligkeit',
  'Generalumkehr (GU)',
  'Steuersatz',
  'Land',
  'Abrechnungsreferenz',
  'BVV-Position',
  'EU-Land u. UStID (Ursprung)',
  'EU-Steuersatz (Ursprung)',
  'Abw. Skontokonto',
];

/** 1-based position of a named column (a typo in a name fails at start-up, not in a file). */
function at(columns: readonly string[], name: string): number {
  const i = columns.indexOf(name);
  if (i < 0) throw new Error(`no DATEV column ${name}`);
  return i + 1;
}

/** Positions of the posting columns this exporter fills. */
export const P = {
  amount: at(POSTING_COLUMNS, 'Umsatz (ohne Soll/Haben-Kz)'),
  side: at(POSTING_COLUMNS, 'Soll/Haben-Kennzeichen'),
  currency: at(POSTING_COLUMNS, 'WKZ Umsatz'),
  account: at(POSTING_COLUMNS, 'Konto'),
  contra: at(POSTING_COLUMNS, 'Gegenkonto (ohne BU-Schlüssel)'),
  buKey: at(POSTING_COLUMNS, 'BU-Schlüssel'),
  date: at(POSTING_COLUMNS, 'Belegdatum'),
  document1: at(POSTING_COLUMNS, 'Belegfeld 1'),
  document2: at(POSTING_COLUMNS, 'Belegfeld 2'),
  text: at(POSTING_COLUMNS, 'Buchungstext'),
  euCountryVatId: at(POSTING_COLUMNS, 'EU-Land u. UStID (Bestimmung)'),
  euRate: at(POSTING_COLUMNS, 'EU-Steuersatz (Bestimmung)'),
  guid: at(POSTING_COLUMNS, 'Buchungs GUID'),
  lock: at(POSTING_COLUMNS, 'Festschreibung'),
  serviceDate: at(POSTING_COLUMNS, 'Leistungsdatum'),
} as const;

const bank = (n: number) => [
  `Bankleitzahl ${n}`,
  `Bankbezeichnung ${n}`,
  `Bank-Kontonummer ${n}`,
  `Länderkennzeichen ${n}`,
  `IBAN-Nr. ${n}`,
  `IBAN${n} korrekt`,
  `SWIFT-Code ${n}`,
  `Abw. Kontoinhaber ${n}`,
  `Kennz. Hauptbankverb. ${n}`,
  `Bankverb ${n} Gültig von`,
  `Bankverb ${n} Gültig bis`,
];
const numbered = (name: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${name} ${from + i}`);
/** The postal address fields of a debtor, the same for its main and its invoice address. */
const POSTAL_ADDRESS = [
  'Adressart',
  'Straße',
  'Postfach',
  'Postleitzahl',
  'Ort',
  'Land',
  'Versandzusatz',
  'Adresszusatz',
];
const invoiceAddress = (names: string[]) => names.map((n) => `${n} (Rechnungsadresse)`);

/** Column names of the Debitoren/Kreditoren master data (format version 5), in order: 254 columns. */
export const DEBTOR_COLUMNS: readonly string[] = [
  'Konto',
  'Name (Adressattyp Unternehmen)',
  'Unternehmensgegenstand',
  'Name (Adressattyp natürl. Person)',
  'Vorname (Adressattyp natürl. Person)',
  'Name (Adressattyp keine Angabe)',
  'Adressattyp',
  'Kurzbezeichnung',
  'EU-Land',
  'EU-UStID',
  'Anrede',
  'Titel/Akad. Grad',
  'Adelstitel',
  'Namensvorsatz',
  ...POSTAL_ADDRESS,
  'Abweichende Anrede',
  'Abw. Zustellbezeichnung 1',
  'Abw. Zustellbezeichnung 2',
  'Kennz. Korrespondenzadresse',
  'Adresse Gültig von',
  'Adresse Gültig bis',
  'Telefon',
  'Bemerkung (Telefon)',
  'Telefon GL',
  'Bemerkung (Telefon GL)',
  'E-Mail',
  'Bemerkung (E-Mail)',
  'Internet',
  'Bemerkung (Internet)',
  'Fax',
  'Bemerkung (Fax)',
  'Sonstige',
  'Bemerkung (Sonstige)',
  ...[1, 2, 3, 4, 5].flatMap(bank),
  'Leerfeld',
  'Briefanrede',
  'Grußformel',
  'Kundennummer',
  'Steuernummer',
  'Sprache',
  'Ansprechpartner',
  'Vertreter',
  'Sachbearbeiter',
  'Diverse-Konto',
  'Ausgabeziel',
  'Währungssteuerung',
  'Kreditlimit (Debitor)',
  'Zahlungsbedingung',
  'Fälligkeit in Tagen (Debitor)',
  'Skonto in Prozent (Debitor)',
  'Kreditoren-Ziel 1 Tg.',
  'Kreditoren-Skonto 1 %',
  'Kreditoren-Ziel 2 Tg.',
  'Kreditoren-Skonto 2 %',
  'Kreditoren-Ziel 3 Brutto Tg.',
  'Kreditoren-Ziel 4 Tg.',
  'Kreditoren-Skonto 4 %',
  'Kreditoren-Ziel 5 Tg.',
  'Kreditoren-Skonto 5 %',
  'Mahnung',
  'Kontoauszug',
  ...numbered('Mahntext', 1, 3),
  'Kontoauszugstext',
  'Mahnlimit Betrag',
  'Mahnlimit %',
  'Zinsberechnung',
  ...numbered('Mahnzinssatz', 1, 3),
  'Lastschrift',
  'Verfahren',
  'Mandantenbank',
  'Zahlungsträger',
  ...numbered('Indiv. Feld', 1, 15),
  ...invoiceAddress([
    'Abweichende Anrede',
    ...POSTAL_ADDRESS,
    'Abw. Zustellbezeichnung 1',
    'Abw. Zustellbezeichnung 2',
    'Adresse Gültig von',
    'Adresse Gültig bis',
  ]),
  ...[6, 7, 8, 9, 10].flatMap(bank),
  'Nummer Fremdsystem',
  'Insolvent',
  ...numbered('Mandatsreferenz', 1, 10),
  'Verknüpftes OPOS-Konto',
  'Mahnsperre bis',
  'Lastschriftsperre bis',
  'Zahlungssperre bis',
  'Gebührenberechnung',
  ...numbered('Mahngebühr', 1, 3),
  'Pauschalenberechnung',
  ...numbered('Verzugspauschale', 1, 3),
  'Alternativer Suchname',
  'Status',
  'Anschrift manuell geändert (Korrespondenzadresse)',
  'Anschrift individuell (Korrespondenzadresse)',
  'Anschrift manuell geändert (Rechnungsadresse)',
  'Anschrift individuell (Rechnungsadresse)',
  'Fristberechnung bei Debitor',
  ...numbered('Mahnfrist', 1, 3),
  'Letzte Frist',
];

/** Positions of the master data columns this exporter fills. */
export const D = {
  account: at(DEBTOR_COLUMNS, 'Konto'),
  companyName: at(DEBTOR_COLUMNS, 'Name (Adressattyp Unternehmen)'),
  unspecifiedName: at(DEBTOR_COLUMNS, 'Name (Adressattyp keine Angabe)'),
  addresseeType: at(DEBTOR_COLUMNS, 'Adressattyp'),
  shortName: at(DEBTOR_COLUMNS, 'Kurzbezeichnung'),
  euCountry: at(DEBTOR_COLUMNS, 'EU-Land'),
  euVatId: at(DEBTOR_COLUMNS, 'EU-UStID'),
  addressKind: at(DEBTOR_COLUMNS, 'Adressart'),
  street: at(DEBTOR_COLUMNS, 'Straße'),
  postalCode: at(DEBTOR_COLUMNS, 'Postleitzahl'),
  city: at(DEBTOR_COLUMNS, 'Ort'),
  country: at(DEBTOR_COLUMNS, 'Land'),
  email: at(DEBTOR_COLUMNS, 'E-Mail'),
  foreignNumber: at(DEBTOR_COLUMNS, 'Nummer Fremdsystem'),
} as const;

// ---------------------------------------------------------------------------------------------
// Charts and settings

const ra = (account: number, buKey: string | null = null): DatevRevenueAccount => ({ account, buKey });

/**
 * The defaults of a chart. Revenue at 19 % and 7 %, intra-Community supplies, exports and
 * reverse-charge services go to the chart's automatic accounts (the account implies the tax, so
 * no key is posted with them); OSS sales go to the general revenue account with the key for sales
 * taxable in another member state, the country and rate in the EU columns. Clearing: Geldtransit.
 */
export function chartDefaults(chart: DatevChart, accountLength = 4): DatevSettingsView {
  const skr03 = chart === 'SKR03';
  const debtorBase = 10 ** accountLength;
  return {
    consultantNumber: null,
    clientNumber: null,
    chart,
    fiscalYearStartMonth: 1,
    accountLength,
    lockPostings: false,
    revenue: {
      domestic: { '19': ra(skr03 ? 8400 : 4400), '7': ra(skr03 ? 8300 : 4300) },
      domesticOther: ra(skr03 ? 8200 : 4200),
      reverseCharge: ra(skr03 ? 8336 : 4336),
      intraCommunitySupply: ra(skr03 ? 8125 : 4125),
      export: ra(skr03 ? 8120 : 4120),
      oss: {},
      ossDefault: ra(skr03 ? 8200 : 4200, '44'),
    },
    debtors: { mode: 'per_client', collectiveAccount: debtorBase, firstAccount: debtorBase + 1, clients: {} },
    clearing: { default: skr03 ? 1360 : 1460, byProvider: {} },
  };
}

/** The DATEV settings as stored: the merchant's patches merged, without defaults. */
export type StoredDatevSettings = DatevSettingsPatch;

/** Settings in effect: the stored values over the defaults of the stored chart. */
export function effectiveDatev(stored: StoredDatevSettings | undefined): DatevSettingsView {
  const s = stored ?? {};
  const d = chartDefaults(s.chart ?? 'SKR03', s.accountLength ?? 4);
  return {
    consultantNumber: s.consultantNumber ?? null,
    clientNumber: s.clientNumber ?? null,
    chart: d.chart,
    fiscalYearStartMonth: s.fiscalYearStartMonth ?? d.fiscalYearStartMonth,
    accountLength: d.accountLength,
    lockPostings: s.lockPostings ?? false,
    revenue: {
      ...d.revenue,
      ...s.revenue,
      domestic: { ...d.revenue.domestic, ...s.revenue?.domestic },
      oss: { ...s.revenue?.oss },
    },
    debtors: { ...d.debtors, ...s.debtors, clients: { ...s.debtors?.clients } },
    clearing: { ...d.clearing, ...s.clearing, byProvider: { ...s.clearing?.byProvider } },
  };
}

const digits = (n: number) => String(n).length;

function invalid(field: string, message: string): ValidationError {
  return new ValidationError(`datev.${field}: ${message}`, { field: `datev.${field}` });
}

/** Checks accounts against the account length: G/L accounts fit it, debtor accounts have one digit more (first digit 1 to 6). */
export function checkDatevAccounts(v: DatevSettingsView): void {
  const len = v.accountLength;
  const gl = (field: string, account: number) => {
    if (digits(account) > len) throw invalid(field, `${account} is longer than the account length ${len}`);
  };
  const debtor = (field: string, account: number) => {
    if (digits(account) !== len + 1 || account < 10 ** len || account >= 7 * 10 ** len)
      throw invalid(
        field,
        `${account} is not a debtor account: debtor accounts have ${len + 1} digits from ${10 ** len} to ${7 * 10 ** len - 1}`,
      );
  };
  const r = v.revenue;
  for (const [rate, a] of Object.entries(r.domestic)) gl(`revenue.domestic.${rate}`, a.account);
  for (const [c, a] of Object.entries(r.oss)) gl(`revenue.oss.${c}`, a.account);
  for (const f of ['domesticOther', 'reverseCharge', 'intraCommunitySupply', 'export', 'ossDefault'] as const)
    gl(`revenue.${f}`, r[f].account);
  gl('clearing.default', v.clearing.default);
  for (const [p, a] of Object.entries(v.clearing.byProvider)) gl(`clearing.byProvider.${p}`, a);
  debtor('debtors.collectiveAccount', v.debtors.collectiveAccount);
  debtor('debtors.firstAccount', v.debtors.firstAccount);
  for (const [c, a] of Object.entries(v.debtors.clients)) debtor(`debtors.clients.${c}`, a);
}

/** Merges a DATEV patch into the stored settings (groups field by field, maps whole) and checks the result. */
export function applyDatevPatch(
  current: StoredDatevSettings | undefined,
  patch: DatevSettingsPatch,
): StoredDatevSettings {
  const cur = current ?? {};
  const next: StoredDatevSettings = { ...cur, ...patch };
  if (patch.revenue) next.revenue = { ...cur.revenue, ...patch.revenue };
  if (patch.debtors) next.debtors = { ...cur.debtors, ...patch.debtors };
  if (patch.clearing) next.clearing = { ...cur.clearing, ...patch.clearing };
  checkDatevAccounts(effectiveDatev(next));
  return next;
}

// ---------------------------------------------------------------------------------------------
// Accounts of a line

/** What a line of a document needs to find its revenue account. */
export interface TaxedLine {
  decision: TaxDecision;
  taxRate: number;
  taxCountry: string | null;
  gross: number;
}

/** How a line is taxed, for the account and the EU columns. */
export type Treatment = 'domestic' | 'oss' | 'reverse_charge' | 'intra_community_supply' | 'export';

const TREATMENT_OF: Record<TaxDecision, Treatment> = {
  domestic: 'domestic',
  domestic_b2b: 'domestic',
  below_threshold_origin: 'domestic',
  general_service_origin: 'domestic',
  manual_override: 'domestic',
  seller_not_configured: 'domestic',
  oss_destination: 'oss',
  reverse_charge: 'reverse_charge',
  intra_community_supply: 'intra_community_supply',
  export: 'export',
};

export function treatmentOf(decision: TaxDecision): Treatment {
  return TREATMENT_OF[decision];
}

/** A rate as a map key: `19`, `7`, `5.5`. */
export function rateKey(rate: number): string {
  return String(Math.round(rate * 100) / 100);
}

export function revenueAccountOf(v: DatevSettingsView, t: Treatment, rate: number, country: string | null) {
  const r = v.revenue;
  switch (t) {
    case 'domestic':
      return r.domestic[rateKey(rate)] ?? r.domesticOther;
    case 'oss':
      return (country && r.oss[country]) || r.ossDefault;
    case 'reverse_charge':
      return r.reverseCharge;
    case 'intra_community_supply':
      return r.intraCommunitySupply;
    case 'export':
      return r.export;
  }
}

/** One revenue group of a document: lines with the same treatment, rate and country, summed. */
export interface RevenueGroup {
  treatment: Treatment;
  rate: number;
  country: string | null;
  gross: number;
}

/** Groups a document's lines by treatment, rate and country, in order of first appearance; zero groups dropped. */
export function revenueGroups(lines: readonly TaxedLine[]): RevenueGroup[] {
  const groups = new Map<string, RevenueGroup>();
  for (const l of lines) {
    const treatment = treatmentOf(l.decision);
    const country = treatment === 'oss' ? l.taxCountry : null;
    const k = `${treatment}|${rateKey(l.taxRate)}|${country ?? ''}`;
    const g = groups.get(k);
    if (g) g.gross += l.gross;
    else groups.set(k, { treatment, rate: l.taxRate, country, gross: l.gross });
  }
  return [...groups.values()].filter((g) => g.gross !== 0);
}

// ---------------------------------------------------------------------------------------------
// Field formats

const fractionDigits = new Map<string, number>();

/** Minor-unit exponent of a currency (2 for EUR, 0 for JPY). */
export function exponentOf(currency: string): number {
  let n = fractionDigits.get(currency);
  if (n === undefined) {
    try {
      n = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      n = 2;
    }
    fractionDigits.set(currency, n);
  }
  return n;
}

/** An amount in minor units as DATEV writes it: no sign, decimal comma, no thousands separator, two decimals. */
export function amountField(minor: number, currency: string): string {
  const e = exponentOf(currency);
  const abs = Math.abs(minor);
  const units = Math.floor(abs / 10 ** e);
  const frac = abs - units * 10 ** e;
  // Two decimals whatever the currency's exponent (DATEV's amount field has two).
  const cents = e >= 2 ? Math.round(frac / 10 ** (e - 2)) : frac * 10 ** (2 - e);
  return `${units},${String(cents).padStart(2, '0')}`;
}

/** A rate in percent with two decimals and a comma (`19,00`). */
export function rateField(rate: number): string {
  return rate.toFixed(2).replace('.', ',');
}

/** `YYYY-MM-DD` -> `DDMM` (Belegdatum). */
export function ddmm(isoDate: string): string {
  return `${isoDate.slice(8, 10)}${isoDate.slice(5, 7)}`;
}

/** `YYYY-MM-DD` -> `DDMMYYYY` (dates of other posting fields). */
export function ddmmyyyy(isoDate: string): string {
  return `${isoDate.slice(8, 10)}${isoDate.slice(5, 7)}${isoDate.slice(0, 4)}`;
}

/** `YYYY-MM-DD` -> `YYYYMMDD` (header dates). */
export function yyyymmdd(isoDate: string): string {
  return isoDate.replaceAll('-', '');
}

/** A text field: quoted, quotes doubled, line breaks and control characters as spaces, cut to `max` characters. */
export function textField(value: string | null | undefined, max: number): string {
  if (value === null || value === undefined || value === '') return '""';
  // eslint-disable-next-line no-control-regex
  const clean = value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return `"${[...clean].slice(0, max).join('').replaceAll('"', '""')}"`;
}

/** Belegfeld 1 takes letters, digits and `$ & % * + - /` (at most 36); anything else becomes `-`. */
export function documentField(number: string): string {
  return textField(number.replace(/[^A-Za-z0-9$&%*+\-/]/g, '-'), 36);
}

/** A deterministic GUID of a posting (Buchungs GUID): DATEV can tell a posting imported twice. */
export function postingGuid(key: string): string {
  const h = createHash('sha256').update(key).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

// ---------------------------------------------------------------------------------------------
// Fiscal years

/** The fiscal year containing `date` (`YYYY-MM-DD`): its first and last day. */
export function fiscalYearOf(date: string, startMonth: number): { start: string; end: string } {
  const y = Number(date.slice(0, 4));
  const m = Number(date.slice(5, 7));
  const startYear = m >= startMonth ? y : y - 1;
  return fiscalYearStarting(startYear, startMonth);
}

/** The fiscal year that begins in `year`. */
export function fiscalYearStarting(year: number, startMonth: number): { start: string; end: string } {
  const start = `${year}-${String(startMonth).padStart(2, '0')}-01`;
  const endDay = new Date(Date.UTC(year + 1, startMonth - 1, 1) - 86_400_000).toISOString().slice(0, 10);
  return { start, end: endDay };
}

// ---------------------------------------------------------------------------------------------
// Lines

/** What the header line of a file says. */
export interface HeaderParams {
  category: typeof POSTINGS_CATEGORY | typeof DEBTORS_CATEGORY;
  createdAt: Date;
  consultantNumber: number;
  clientNumber: number;
  fiscalYearStart: string;
  accountLength: number;
  from: string;
  to: string;
  label: string;
  lock: boolean;
  chart: DatevChart;
}

/** `YYYYMMDDHHMMSSFFF` in UTC. */
function stamp(d: Date): string {
  return d.toISOString().replace(/[-:TZ.]/g, '');
}

/** The 31 fields of an EXTF header line. */
export function headerFields(h: HeaderParams): string[] {
  const postings = h.category === POSTINGS_CATEGORY;
  const f: string[] = [
    '"EXTF"',
    String(EXTF_HEADER_VERSION),
    String(h.category),
    textField(postings ? POSTINGS_FORMAT_NAME : DEBTORS_FORMAT_NAME, 40),
    String(postings ? POSTINGS_FORMAT_VERSION : DEBTORS_FORMAT_VERSION),
    stamp(h.createdAt),
    '',
    '"RE"',
    textField('Paymesh', 25),
    '""',
    String(h.consultantNumber),
    String(h.clientNumber),
    yyyymmdd(h.fiscalYearStart),
    String(h.accountLength),
    postings ? yyyymmdd(h.from) : '',
    postings ? yyyymmdd(h.to) : '',
    postings ? textField(h.label, 30) : '""',
    '""',
    postings ? '1' : '',
    postings ? '0' : '',
    postings ? (h.lock ? '1' : '0') : '',
    postings ? '"EUR"' : '""',
    '',
    '""',
    '',
    '',
    textField(h.chart.slice(3), 2),
    '',
    '',
    '""',
    '""',
  ];
  return f;
}

/** A posting as the exporter builds it. */
export interface Posting {
  /** Identity across exports: `inv:<id>:<n>`, `cn:<id>:<n>`, `pay:<invoice>:<transaction>`, `rev:<invoice>:<event>`. */
  key: string;
  /** Minor units, positive. */
  amount: number;
  side: 'S' | 'H';
  currency: string;
  account: number;
  contra: number;
  buKey: string | null;
  date: string;
  document1: string;
  /** Due date (`YYYY-MM-DD`) written into Belegfeld 2 as DDMMYY. */
  dueDate?: string | null;
  text: string;
  euCountryVatId?: string | null;
  euRate?: number | null;
  serviceDate?: string | null;
  lock: boolean;
}

/** The 125 fields of a posting row. */
export function postingFields(p: Posting): string[] {
  const row: string[] = new Array<string>(POSTING_COLUMNS.length).fill('');
  const set = (at: number, v: string) => {
    row[at - 1] = v;
  };
  set(P.amount, amountField(p.amount, p.currency));
  set(P.side, `"${p.side}"`);
  set(P.currency, textField(p.currency, 3));
  set(P.account, String(p.account));
  set(P.contra, String(p.contra));
  set(P.buKey, p.buKey ? textField(p.buKey, 4) : '""');
  set(P.date, ddmm(p.date));
  set(P.document1, documentField(p.document1));
  set(P.document2, p.dueDate ? textField(`${ddmm(p.dueDate)}${p.dueDate.slice(2, 4)}`, 12) : '""');
  set(P.text, textField(p.text, 60));
  if (p.euCountryVatId) set(P.euCountryVatId, textField(p.euCountryVatId, 15));
  if (p.euRate !== null && p.euRate !== undefined) set(P.euRate, rateField(p.euRate));
  set(P.guid, textField(postingGuid(p.key), 36));
  set(P.lock, p.lock ? '1' : '0');
  if (p.serviceDate) set(P.serviceDate, ddmmyyyy(p.serviceDate));
  return row;
}

/** A debtor of the master data file. */
export interface Debtor {
  account: number;
  name: string;
  /** Companies (a VAT ID is known) go under the company name; others under "no details". */
  company: boolean;
  vatId: string | null;
  street: string | null;
  postalCode: string | null;
  city: string | null;
  country: string | null;
  email: string | null;
  clientId: string | null;
}

/** The 254 fields of a master data row. */
export function debtorFields(d: Debtor): string[] {
  const row: string[] = new Array<string>(DEBTOR_COLUMNS.length).fill('');
  const set = (at: number, v: string) => {
    row[at - 1] = v;
  };
  set(D.account, String(d.account));
  if (d.company) set(D.companyName, textField(d.name, 50));
  else set(D.unspecifiedName, textField(d.name, 50));
  set(D.addresseeType, d.company ? '"2"' : '"0"');
  set(D.shortName, textField(d.name, 15));
  const vat = d.vatId?.replace(/[\s.-]/g, '').toUpperCase() ?? '';
  if (/^[A-Z]{2}[0-9A-Z+*]{2,13}$/.test(vat)) {
    set(D.euCountry, textField(vat.slice(0, 2), 2));
    set(D.euVatId, textField(vat.slice(2), 13));
  }
  if (d.street || d.city || d.postalCode) set(D.addressKind, '"STR"');
  set(D.street, textField(d.street, 36));
  set(D.postalCode, textField(d.postalCode, 10));
  set(D.city, textField(d.city, 30));
  set(D.country, textField(d.country, 2));
  set(D.email, textField(d.email, 60));
  if (d.clientId) set(D.foreignNumber, textField(d.clientId.slice(-15), 15));
  return row;
}

/** One line of a file: fields joined with semicolons, CRLF at the end. */
export function line(fields: readonly string[]): string {
  return `${fields.join(';')}\r\n`;
}
