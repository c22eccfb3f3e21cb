import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { checkDebtors, checkPostings } from './datev-format';
import { checkTable, describedTables, xmllintValid } from './gdpdu-format';

/** The format checkers catch what they claim to: each broken file names its fault, a good one passes. */

const header21 =
  '"EXTF";700;21;"Buchungsstapel";13;20260701120000000;;"RE";"x";"";29098;55003;20260101;4;20260601;20260630;"Juni";"";1;0;0;"EUR";;"";;;"03";;;"";""';
const header16 =
  '"EXTF";700;16;"Debitoren/Kreditoren";5;20260701120000000;;"RE";"x";"";29098;55003;20260101;4;;;"";"";;;;"";;"";;;"03";;;"";""';
const cols = (n: number, first: string[]) => [...first, ...Array.from({ length: n - first.length }, (_, i) => `C${i}`)];
const postingCols = cols(125, [
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
]).join(';');

function posting(fields: Record<number, string>): string {
  const row = Array.from({ length: 125 }, () => '');
  const base: Record<number, string> = {
    1: '119,00',
    2: '"S"',
    3: '"EUR"',
    7: '10001',
    8: '8400',
    9: '""',
    10: '1506',
    11: '"RE-2026-1"',
    14: '"Rechnung Müller"',
  };
  for (const [k, v] of Object.entries({ ...base, ...fields })) row[Number(k) - 1] = v;
  return row.join(';');
}

const file = (lines: string[]) => iconv.encode(`${lines.join('\r\n')}\r\n`, 'win1252');

describe('the DATEV checker', () => {
  it('passes a file within the rules', () => {
    expect(checkPostings(file([header21, postingCols, posting({})]), 'f').problems).toEqual([]);
  });

  it.each([
    ['a header of 30 fields', [header21.replace(/;""$/, ''), postingCols, posting({})], /30 fields/],
    ['another format version', [header21.replace(';13;', ';12;'), postingCols, posting({})], /format version 12/],
    ['a row with a column missing', [header21, postingCols, posting({}).replace(/;$/, '')], /124 fields/],
    ['an amount with a point', [header21, postingCols, posting({ 1: '119.00' })], /Umsatz 119\.00/],
    ['a sign in the amount', [header21, postingCols, posting({ 1: '-119,00' })], /Umsatz/],
    ['a date as DD.MM.', [header21, postingCols, posting({ 10: '15.06' })], /not DDMM/],
    ['a date outside the range', [header21, postingCols, posting({ 10: '1507' })], /outside/],
    ['a 37-character document number', [header21, postingCols, posting({ 11: `"${'A'.repeat(37)}"` })], /Belegfeld 1/],
    ['a dot in the document number', [header21, postingCols, posting({ 11: '"RE.1"' })], /Belegfeld 1/],
    ['a 61-character posting text', [header21, postingCols, posting({ 14: `"${'x'.repeat(61)}"` })], /longer than 60/],
    ['a 5-digit tax key', [header21, postingCols, posting({ 9: '"12345"' })], /BU-Schlüssel/],
    [
      'a range across fiscal years',
      [header21.replace('20260630', '20270115'), postingCols, posting({})],
      /fiscal year/,
    ],
  ])('finds %s', (_what, lines, problem) => {
    expect(checkPostings(file(lines), 'f').problems.join('\n')).toMatch(problem);
  });

  it('finds LF line ends and UTF-8 text', () => {
    const lf = Buffer.from(`${header21}\n${postingCols}\n${posting({})}\n`, 'latin1');
    expect(checkPostings(lf, 'f').problems.join('\n')).toMatch(/LF only/);
    const utf8 = Buffer.from(`${[header21, postingCols, posting({})].join('\r\n')}\r\n`, 'utf8');
    expect(checkPostings(utf8, 'f').problems.join('\n')).toMatch(/UTF-8/);
  });

  it('checks master data rows: debtor account length, name lengths', () => {
    const dcols = cols(254, ['Konto', 'Name (Adressattyp Unternehmen)']);
    dcols[5] = 'Name (Adressattyp keine Angabe)';
    dcols[7] = 'Kurzbezeichnung';
    [dcols[8], dcols[9], dcols[15], dcols[17], dcols[18], dcols[19], dcols[32]] = [
      'EU-Land',
      'EU-UStID',
      'Straße',
      'Postleitzahl',
      'Ort',
      'Land',
      'E-Mail',
    ];
    const row = (account: string, name: string) => {
      const r = Array.from({ length: 254 }, () => '');
      r[0] = account;
      r[1] = `"${name}"`;
      return r.join(';');
    };
    expect(checkDebtors(file([header16, dcols.join(';'), row('10001', 'Müller')]), 'd').problems).toEqual([]);
    expect(checkDebtors(file([header16, dcols.join(';'), row('8400', 'Müller')]), 'd').problems.join()).toMatch(
      /no debtor account/,
    );
    expect(checkDebtors(file([header16, dcols.join(';'), row('10001', 'M'.repeat(51))]), 'd').problems.join()).toMatch(
      /longer than 50/,
    );
  });
});

describe('the GDPdU checker', () => {
  const dtd = Buffer.from(
    '<!ELEMENT DataSet (Version, Media+)><!ELEMENT Version (#PCDATA)><!ELEMENT Media (Name, Table+)><!ELEMENT Name (#PCDATA)><!ELEMENT Table (URL, VariableLength)><!ELEMENT URL (#PCDATA)><!ELEMENT VariableLength (VariableColumn+)><!ELEMENT VariableColumn (Name, (Numeric | AlphaNumeric | Date))><!ELEMENT Numeric (Accuracy?)><!ELEMENT Accuracy (#PCDATA)><!ELEMENT AlphaNumeric EMPTY><!ELEMENT Date EMPTY>',
  );
  const xml = (body: string) =>
    Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE DataSet SYSTEM "gdpdu-01-08-2002.dtd">\n<DataSet><Version>1</Version><Media><Name>m</Name>${body}</Media></DataSet>\n`,
    );
  const table =
    '<Table><URL>t.csv</URL><VariableLength><VariableColumn><Name>a</Name><Numeric><Accuracy>2</Accuracy></Numeric></VariableColumn><VariableColumn><Name>d</Name><Date/></VariableColumn></VariableLength></Table>';

  it('validates with xmllint and reports an element the DTD does not allow', () => {
    expect(xmllintValid(xml(table), dtd)).toMatchObject({ ok: true });
    const bad = xmllintValid(xml(table.replace('<URL>t.csv</URL>', '<Url>t.csv</Url>')), dtd);
    expect(bad.ok).toBe(false);
    expect(bad.output).toMatch(/Url/);
  });

  it('reads each table by its description', () => {
    const [t] = describedTables(xml(table));
    expect(checkTable(t!, Buffer.from('1,50;31.12.2026\r\n')).problems).toEqual([]);
    expect(checkTable(t!, Buffer.from('1.50;31.12.2026\r\n')).problems.join()).toMatch(/Numeric/);
    expect(checkTable(t!, Buffer.from('1,50;2026-12-31\r\n')).problems.join()).toMatch(/DD\.MM\.YYYY/);
    expect(checkTable(t!, Buffer.from('1,50;31.02.2026\r\n')).problems.join()).toMatch(/DD\.MM\.YYYY/);
    expect(checkTable(t!, Buffer.from('1,50\r\n')).problems.join()).toMatch(/1 fields, described 2/);
  });
});
