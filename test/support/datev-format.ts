import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';

/**
 * A checker of DATEV EXTF files written from the format's published field rules, independent of
 * the exporter's code: the facts of ../shared/standards/README.md (header of 31 fields starting
 * `"EXTF";700;21;"Buchungsstapel";13;`, consultant and client numbers, fiscal-year start, account
 * length, date range; semicolons, CRLF, decimal comma, `Belegdatum` DDMM, Windows-1252, at most
 * 99,999 postings per file; master data is category 16) and the field table of the format
 * description (developer.datev.de "Buchungsstapel" and "Debitoren/Kreditoren", header version
 * 700): 125 posting columns in format version 13, 254 master data columns in format version 5,
 * and the lengths and patterns below. It returns every violation found, so a test can show them.
 */

export interface ExtfFile {
  header: string[];
  columns: string[];
  rows: string[][];
}

/** Bytes that Windows-1252 leaves undefined. */
const UNDEFINED_1252 = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);

/** Splits a file into its header, column names and rows, checking encoding and line ends. */
export function readExtf(bytes: Buffer, problems: string[], name: string): ExtfFile {
  for (const b of bytes) {
    if (UNDEFINED_1252.has(b)) {
      problems.push(`${name}: byte 0x${b.toString(16)} is not a Windows-1252 character`);
      break;
    }
  }
  if (bytes.includes(0xc3) && /Ã[\u0080-\u00bf]/.test(iconv.decode(bytes, 'win1252')))
    problems.push(`${name}: looks like UTF-8 read as Windows-1252`);
  const text = iconv.decode(bytes, 'win1252');
  if (!text.endsWith('\r\n')) problems.push(`${name}: the last line does not end with CRLF`);
  if (/[^\r]\n/.test(text)) problems.push(`${name}: a line ends with LF only`);
  let records: string[][] = [];
  try {
    records = parse(text, { delimiter: ';', quote: '"', record_delimiter: '\r\n', relax_column_count: true });
  } catch (err) {
    problems.push(`${name}: not readable as semicolon-separated CRLF records: ${(err as Error).message}`);
  }
  const [header, columns, ...rows] = records;
  return { header: header ?? [], columns: columns ?? [], rows };
}

/** The raw (still quoted) fields of each line, to check which fields are written as text. */
export function rawFields(bytes: Buffer): string[][] {
  const text = iconv.decode(bytes, 'win1252');
  return text
    .split('\r\n')
    .filter((l) => l.length > 0)
    .map((l) => {
      const out: string[] = [];
      let cur = '';
      let quoted = false;
      for (const ch of l) {
        if (ch === '"') quoted = !quoted;
        if (ch === ';' && !quoted) {
          out.push(cur);
          cur = '';
        } else cur += ch;
      }
      out.push(cur);
      return out;
    });
}

const isDate = (y: number, m: number, d: number) => {
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
};
const yyyymmdd = (s: string) =>
  /^\d{8}$/.test(s) && isDate(Number(s.slice(0, 4)), Number(s.slice(4, 6)), Number(s.slice(6, 8)));

export interface HeaderFacts {
  category: number;
  formatName: string;
  formatVersion: number;
  consultantNumber: number;
  clientNumber: number;
  fiscalYearStart: string;
  accountLength: number;
  from?: string;
  to?: string;
}

/** Header line rules; returns the facts read. */
export function checkHeader(h: string[], raw: string[], problems: string[], name: string): HeaderFacts {
  const p = (m: string) => problems.push(`${name} header: ${m}`);
  if (h.length !== 31) p(`${h.length} fields, not 31`);
  if (h[0] !== 'EXTF' || raw[0] !== '"EXTF"') p(`format mark ${raw[0]}, not "EXTF"`);
  if (h[1] !== '700') p(`header version ${h[1]}, not 700`);
  const category = Number(h[2]);
  const formatName = h[3] ?? '';
  const formatVersion = Number(h[4]);
  if (category === 21) {
    if (formatName !== 'Buchungsstapel') p(`format name ${formatName} for category 21`);
    if (formatVersion !== 13) p(`format version ${formatVersion}, not 13`);
  } else if (category === 16) {
    if (formatName !== 'Debitoren/Kreditoren') p(`format name ${formatName} for category 16`);
    if (formatVersion !== 5) p(`format version ${formatVersion}, not 5`);
  } else p(`data category ${h[2]}`);
  if (!/^\d{17}$/.test(h[5] ?? '') || !yyyymmdd((h[5] ?? '').slice(0, 8)))
    p(`creation time ${h[5]} is not YYYYMMDDHHMMSSFFF`);
  if ((h[7] ?? '').length > 2) p(`origin ${h[7]} longer than 2`);
  const consultantNumber = Number(h[10]);
  if (!/^\d{4,7}$/.test(h[10] ?? '') || consultantNumber < 1001) p(`consultant number ${h[10]}`);
  const clientNumber = Number(h[11]);
  if (!/^\d{1,5}$/.test(h[11] ?? '') || clientNumber < 1) p(`client number ${h[11]}`);
  if (!yyyymmdd(h[12] ?? '')) p(`fiscal-year start ${h[12]} is not YYYYMMDD`);
  const accountLength = Number(h[13]);
  if (!/^\d$/.test(h[13] ?? '') || accountLength < 4 || accountLength > 8) p(`account length ${h[13]}`);
  const facts: HeaderFacts = {
    category,
    formatName,
    formatVersion,
    consultantNumber,
    clientNumber,
    fiscalYearStart: h[12] ?? '',
    accountLength,
  };
  if (category === 21) {
    const [from, to] = [h[14] ?? '', h[15] ?? ''];
    if (!yyyymmdd(from) || !yyyymmdd(to)) p(`date range ${from}-${to} is not YYYYMMDD`);
    if (from > to) p(`date from ${from} after date to ${to}`);
    const start = h[12] ?? '';
    const nextStart = `${Number(start.slice(0, 4)) + 1}${start.slice(4)}`;
    if (from < start || to >= nextStart) p(`range ${from}-${to} is not inside the fiscal year from ${start}`);
    if ((h[16] ?? '').length > 30) p(`label longer than 30`);
    if (!['', '1', '2'].includes(h[18] ?? '')) p(`Buchungstyp ${h[18]}`);
    if (!['', '0', '1'].includes(h[20] ?? '')) p(`Festschreibung ${h[20]}`);
    if (!/^[A-Z]{3}$/.test(h[21] ?? '')) p(`currency ${h[21]}`);
    if (!['', '03', '04'].includes(h[26] ?? '')) p(`chart ${h[26]}`);
    facts.from = from;
    facts.to = to;
  }
  return facts;
}

const TEXT = (raw: string) => raw === '' || /^".*"$/s.test(raw);

/** Posting rules of a Buchungsstapel file (format version 13). */
export function checkPostings(bytes: Buffer, name: string): { problems: string[]; file: ExtfFile; facts: HeaderFacts } {
  const problems: string[] = [];
  const file = readExtf(bytes, problems, name);
  const raw = rawFields(bytes);
  const facts = checkHeader(file.header, raw[0] ?? [], problems, name);
  if (file.columns.length !== 125) problems.push(`${name}: ${file.columns.length} column names, not 125`);
  const expectAt: [number, string][] = [
    [1, 'Umsatz (ohne Soll/Haben-Kz)'],
    [2, 'Soll/Haben-Kennzeichen'],
    [7, 'Konto'],
    [8, 'Gegenkonto (ohne BU-Schlüssel)'],
    [9, 'BU-Schlüssel'],
    [10, 'Belegdatum'],
    [11, 'Belegfeld 1'],
    [14, 'Buchungstext'],
  ];
  for (const [at, n] of expectAt)
    if (file.columns[at - 1] !== n) problems.push(`${name}: column ${at} is ${file.columns[at - 1]}, not ${n}`);
  if (file.rows.length > 99_999) problems.push(`${name}: ${file.rows.length} postings, more than 99,999`);
  const year = Number(facts.from?.slice(0, 4));
  const fromY = facts.from ?? '';
  const toY = facts.to ?? '';
  file.rows.forEach((r, i) => {
    const rawRow = raw[i + 2] ?? [];
    const p = (m: string) => problems.push(`${name} row ${i + 3}: ${m}`);
    if (r.length !== 125) p(`${r.length} fields, not 125`);
    const [amount, side, currency, , , , account, contra, bu, date, doc1, doc2, , text] = r;
    if (!/^\d{1,10},\d{2}$/.test(amount ?? '') || /^0+,00$/.test(amount ?? '')) p(`Umsatz ${amount}`);
    if (side !== 'S' && side !== 'H') p(`Soll/Haben ${side}`);
    if (!/^[A-Z]{3}$/.test(currency ?? '')) p(`WKZ ${currency}`);
    if (!/^\d{1,9}$/.test(account ?? '')) p(`Konto ${account}`);
    if (!/^\d{1,9}$/.test(contra ?? '')) p(`Gegenkonto ${contra}`);
    if (!/^(\d{1,4})?$/.test(bu ?? '')) p(`BU-Schlüssel ${bu}`);
    if (!/^\d{4}$/.test(date ?? '')) p(`Belegdatum ${date} is not DDMM`);
    else {
      const d = Number(date!.slice(0, 2));
      const m = Number(date!.slice(2, 4));
      // The year of a DDMM date is the one of the range it lies in.
      const full = `${year}${date!.slice(2, 4)}${date!.slice(0, 2)}`;
      const full2 = `${year + 1}${date!.slice(2, 4)}${date!.slice(0, 2)}`;
      if (!isDate(year, m, d) && !isDate(year + 1, m, d)) p(`Belegdatum ${date} is no date`);
      else if (!(full >= fromY && full <= toY) && !(full2 >= fromY && full2 <= toY))
        p(`Belegdatum ${date} outside ${fromY}-${toY}`);
    }
    if (!doc1 || doc1.length > 36 || !/^[A-Za-z0-9$&%*+\-/]+$/.test(doc1)) p(`Belegfeld 1 "${doc1}"`);
    if ((doc2 ?? '').length > 12) p(`Belegfeld 2 "${doc2}" longer than 12`);
    if ((text ?? '').length > 60) p(`Buchungstext longer than 60`);
    for (const at of [2, 3, 11, 12, 14]) if (!TEXT(rawRow[at - 1] ?? '')) p(`field ${at} is not written as text`);
    for (const at of [1, 7, 8, 10]) if ((rawRow[at - 1] ?? '').startsWith('"')) p(`field ${at} is quoted`);
    const eu = r[39] ?? '';
    if (eu.length > 15 || (eu && !/^[A-Z]{2}[0-9A-Z+*]{0,13}$/.test(eu))) p(`EU-Land u. UStID ${eu}`);
    const euRate = r[40] ?? '';
    if (euRate && !/^\d{1,2},\d{2}$/.test(euRate)) p(`EU-Steuersatz ${euRate}`);
    if ((r[102] ?? '').length > 36) p(`Buchungs GUID longer than 36`);
    if (!['', '0', '1'].includes(r[113] ?? '')) p(`Festschreibung ${r[113]}`);
    const service = r[114] ?? '';
    if (
      service &&
      !(
        /^\d{8}$/.test(service) &&
        isDate(Number(service.slice(4)), Number(service.slice(2, 4)), Number(service.slice(0, 2)))
      )
    )
      p(`Leistungsdatum ${service} is not DDMMYYYY`);
  });
  return { problems, file, facts };
}

/** Master data rules of a Debitoren/Kreditoren file (format version 5). */
export function checkDebtors(bytes: Buffer, name: string): { problems: string[]; file: ExtfFile; facts: HeaderFacts } {
  const problems: string[] = [];
  const file = readExtf(bytes, problems, name);
  const raw = rawFields(bytes);
  const facts = checkHeader(file.header, raw[0] ?? [], problems, name);
  if (facts.category !== 16) problems.push(`${name}: category ${facts.category}, not 16`);
  if (file.columns.length !== 254) problems.push(`${name}: ${file.columns.length} column names, not 254`);
  if (file.columns[0] !== 'Konto') problems.push(`${name}: first column ${file.columns[0]}`);
  const len = facts.accountLength;
  const limits: [number, string, number][] = [
    [2, 'Name (Adressattyp Unternehmen)', 50],
    [6, 'Name (Adressattyp keine Angabe)', 50],
    [8, 'Kurzbezeichnung', 15],
    [9, 'EU-Land', 2],
    [10, 'EU-UStID', 13],
    [16, 'Straße', 36],
    [18, 'Postleitzahl', 10],
    [19, 'Ort', 30],
    [20, 'Land', 2],
    [33, 'E-Mail', 60],
  ];
  for (const [at, n] of limits)
    if (file.columns[at - 1] !== n) problems.push(`${name}: column ${at} is ${file.columns[at - 1]}, not ${n}`);
  file.rows.forEach((r, i) => {
    const p = (m: string) => problems.push(`${name} row ${i + 3}: ${m}`);
    if (r.length !== 254) p(`${r.length} fields, not 254`);
    const account = r[0] ?? '';
    if (!new RegExp(`^[1-6]\\d{${len}}$`).test(account))
      p(`Konto ${account} is no debtor account of ${len + 1} digits`);
    for (const [at, n, max] of limits) if ((r[at - 1] ?? '').length > max) p(`${n} longer than ${max}`);
    if (!(r[1] || r[5])) p('no name');
    if (!['', '0', '1', '2'].includes(r[6] ?? '')) p(`Adressattyp ${r[6]}`);
  });
  return { problems, file, facts };
}
