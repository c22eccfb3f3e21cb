import type { RateType } from '@paymesh/contracts';

/**
 * A managed default VAT rate. `validFrom` is inclusive, `validTo` exclusive (null: open). `source`
 * names where the figure comes from (official publication or legal text); every entry has one, and
 * entries whose categories rest on a secondary source say so ("verify").
 */
export interface DefaultTaxRate {
  code: string;
  country: string;
  rateType: RateType;
  percent: number;
  categories: readonly string[];
  validFrom: string;
  validTo: string | null;
  source: string;
  description?: string;
}

/**
 * Category vocabulary of the managed defaults (a line's `category`, a rate's `categories`):
 *
 * | category | meaning |
 * |---|---|
 * | `books` | printed books (and on physical media) |
 * | `ebooks` | books supplied electronically |
 * | `newspapers` | newspapers and periodicals, printed or electronic |
 * | `food` | foodstuffs for human consumption (not restaurant meals, not alcohol) |
 * | `water` | supply of water |
 * | `medicines` | pharmaceutical products for human use |
 * | `passenger_transport` | transport of passengers and their luggage |
 * | `accommodation` | hotel and similar short-term accommodation |
 * | `restaurant` | restaurant and catering services (excluding alcoholic drinks) |
 * | `culture` | admission to cultural events, cinemas, museums |
 * | `children_clothing` | children's clothing and footwear |
 * | `energy` | supply of electricity and gas |
 * | `wine` | wine (Luxembourg's intermediate rate) |
 *
 * A member state's preferential rates are listed only for the categories we could source; a
 * category not listed in a country gets its standard rate (the engine's reason says so). Member
 * states often apply a rate to part of a category only (basic foods, reimbursable medicines):
 * the defaults list the rate that applies to the bulk of it, and merchants add their own rates
 * and rules for finer cases.
 */
export const RATE_CATEGORIES = [
  'books',
  'ebooks',
  'newspapers',
  'food',
  'water',
  'medicines',
  'passenger_transport',
  'accommodation',
  'restaurant',
  'culture',
  'children_clothing',
  'energy',
  'wine',
] as const;

/** Bumped whenever the table changes; replace-defaults reports what it synced against. */
export const DEFAULT_RATES_VERSION = '2026-11-24';

const HIST =
  'EU standard-rate history (EC TEDB from 2017, EC TAXUD booklet "VAT rates applied in the Member States" 2021-06 before), as compiled in vatnode/eu-vat-rates-data data/eu-vat-rates-history.json (MIT)';
const EC = 'EC "VAT rates applied in the Member States of the European Union" / TEDB';

/**
 * Standard, reduced and super-reduced VAT rates of the 27 member states and of Northern Ireland
 * (XI, goods only: the UK's rates), effective-dated from 2024-01-01 at least (open-ended rows start
 * at their last change), with the changes of 2024-2026.
 *
 * One rate a line: `country | code | percent | validFrom | validTo | categories | source`, where the
 * code is the part after `VAT_<country>_` and names the rate type (`STANDARD`, `REDUCED…`,
 * `SUPER_REDUCED`, `ZERO`), `-` stands for an open end or no categories, categories are separated by
 * spaces, and a source may start with {EC} or be {HIST} (the publications above).
 */
const TABLE = `
AT | STANDARD      | 20   | 1984-01-01 | -          | - | {HIST}
AT | REDUCED_10    | 10   | 2024-01-01 | -          | books ebooks newspapers food water medicines passenger_transport accommodation restaurant | {EC}; UStG 1994 § 10 (2) (selected basic foods at 4.9 % from 2026-07-01 are not a category of ours)
AT | REDUCED_13    | 13   | 2024-01-01 | -          | culture | {EC}; UStG 1994 § 10 (3)
BE | STANDARD      | 21   | 1996-01-01 | -          | - | {HIST}
BE | REDUCED_6     | 6    | 2024-01-01 | 2026-03-01 | books ebooks newspapers food water medicines passenger_transport accommodation culture | {EC}; Royal Decree no. 20, table A
BE | REDUCED_6     | 6    | 2026-03-01 | -          | books ebooks newspapers food water medicines passenger_transport culture | {EC}; Royal Decree no. 20, table A as amended from 2026-03-01 (hotel and camping accommodation moved to 12 %, Royal Decree approved 2026-02-13)
BE | REDUCED_12    | 12   | 2024-01-01 | 2026-03-01 | restaurant | {EC}; Royal Decree no. 20, table B
BE | REDUCED_12    | 12   | 2026-03-01 | -          | restaurant accommodation | {EC}; Royal Decree no. 20, table B section IV as amended from 2026-03-01 (accommodation)
BG | STANDARD      | 20   | 1999-01-01 | -          | - | {HIST}
BG | REDUCED_9     | 9    | 2024-01-01 | 2025-01-01 | books accommodation restaurant | {EC}; ZDDS art. 66 (2) (restaurant and catering at 9 % until 2024-12-31, ended by the 2025 budget)
BG | REDUCED_9     | 9    | 2025-01-01 | -          | books accommodation | {EC}; ZDDS art. 66 (2)
CY | STANDARD      | 19   | 2014-01-13 | -          | - | {HIST}
CY | REDUCED_9     | 9    | 2024-01-01 | -          | accommodation restaurant | {EC}; VAT Law 95(I)/2000, Fifth Schedule
CY | REDUCED_5     | 5    | 2024-01-01 | -          | books newspapers food water medicines | {EC}; VAT Law 95(I)/2000, Fifth Schedule
CZ | STANDARD      | 21   | 2013-01-01 | -          | - | {HIST}
CZ | REDUCED_15    | 15   | 2023-01-01 | 2024-01-01 | food passenger_transport | {EC}; ZDPH § 47, annex 2 (before the 2024 consolidation package)
CZ | REDUCED_10    | 10   | 2023-01-01 | 2024-01-01 | newspapers accommodation restaurant culture | {EC}; ZDPH § 47, annex 3 (before the 2024 consolidation package)
CZ | REDUCED_12    | 12   | 2024-01-01 | -          | food water medicines newspapers passenger_transport accommodation restaurant culture | {EC}; ZDPH § 47 as amended by Act 349/2023 (10 % and 15 % merged into 12 %, newspapers moved to it)
CZ | ZERO          | 0    | 2024-01-01 | -          | books ebooks | {EC}; ZDPH as amended by Act 349/2023 (books, including electronic, exempt with right of deduction from 2024-01-01)
DE | STANDARD      | 19   | 2021-01-01 | -          | - | {HIST}
DE | REDUCED       | 7    | 2024-01-01 | 2026-01-01 | books ebooks newspapers food water passenger_transport accommodation culture | UStG § 12 (2) (restaurant meals back at 19 % from 2024-01-01)
DE | REDUCED       | 7    | 2026-01-01 | -          | books ebooks newspapers food water passenger_transport accommodation culture restaurant | UStG § 12 (2) Nr. 15 as amended by the Steueränderungsgesetz 2025 (restaurant and catering food at 7 % from 2026-01-01, drinks excluded)
DK | STANDARD      | 25   | 1992-01-01 | -          | - | {HIST}
EE | STANDARD      | 20   | 2009-07-01 | 2024-01-01 | - | {HIST}
EE | STANDARD      | 22   | 2024-01-01 | 2025-07-01 | - | {HIST}
EE | STANDARD      | 24   | 2025-07-01 | -          | - | {HIST}
EE | REDUCED_9     | 9    | 2024-01-01 | 2025-01-01 | books ebooks medicines accommodation | {EC}; KMS § 15 (2)
EE | REDUCED_9     | 9    | 2025-01-01 | -          | books ebooks newspapers medicines | {EC}; KMS § 15 (2) as amended from 2025-01-01 (press 5 -> 9 %)
EE | REDUCED_5     | 5    | 2024-01-01 | 2025-01-01 | newspapers | {EC}; KMS § 15 (2^1) (press publications at 5 % from 2022-08-01 until 2024-12-31)
EE | REDUCED_13    | 13   | 2025-01-01 | -          | accommodation | {EC}; KMS § 15 (2) as amended from 2025-01-01 (accommodation 9 -> 13 %)
ES | STANDARD      | 21   | 2012-09-01 | -          | - | {HIST}
ES | REDUCED_10    | 10   | 2024-01-01 | -          | food water passenger_transport accommodation restaurant | {EC}; Ley 37/1992 art. 91.uno
ES | SUPER_REDUCED | 4    | 2024-01-01 | -          | books ebooks newspapers medicines | {EC}; Ley 37/1992 art. 91.dos
FI | STANDARD      | 24   | 2013-01-01 | 2024-09-01 | - | {HIST}
FI | STANDARD      | 25.5 | 2024-09-01 | -          | - | {HIST}
FI | REDUCED_14    | 14   | 2024-01-01 | 2025-01-01 | food restaurant | {EC}; AVL 1501/1993 § 85
FI | REDUCED_14    | 14   | 2025-01-01 | 2026-01-01 | books ebooks food restaurant medicines passenger_transport accommodation culture | {EC}; AVL § 85a as amended from 2025-01-01 (books, medicines, passenger transport, accommodation, cultural events moved from 10 % to 14 %)
FI | REDUCED_13_5  | 13.5 | 2026-01-01 | -          | books ebooks food restaurant medicines passenger_transport accommodation culture | AVL as amended from 2026-01-01 (the 14 % rate lowered to 13.5 %, Finnish Tax Administration guidance); FI reduced [10, 13.5] in vatnode/eu-vat-rates-data (TEDB)
FI | REDUCED_10    | 10   | 2024-01-01 | 2025-01-01 | books ebooks newspapers medicines passenger_transport accommodation culture | {EC}; AVL § 85a
FI | REDUCED_10    | 10   | 2025-01-01 | -          | newspapers | {EC}; AVL § 85a as amended from 2025-01-01 (newspapers and periodicals stay at 10 %)
FR | STANDARD      | 20   | 2014-01-01 | -          | - | {HIST}
FR | REDUCED_10    | 10   | 2024-01-01 | -          | passenger_transport accommodation restaurant | {EC}; CGI art. 279
FR | REDUCED_5_5   | 5.5  | 2024-01-01 | -          | books ebooks food water culture | {EC}; CGI art. 278-0 bis
FR | SUPER_REDUCED | 2.1  | 2024-01-01 | -          | newspapers medicines | {EC}; CGI art. 281 quater and 298 septies (reimbursable medicines)
GR | STANDARD      | 24   | 2016-06-01 | -          | - | {HIST}
GR | REDUCED_13    | 13   | 2024-01-01 | -          | food water accommodation restaurant | {EC}; Code of VAT (Law 5144/2024), Annex III
GR | REDUCED_6     | 6    | 2024-01-01 | -          | books ebooks newspapers medicines culture | {EC}; Code of VAT (Law 5144/2024), Annex III
HR | STANDARD      | 25   | 2012-03-01 | -          | - | {HIST}
HR | REDUCED_13    | 13   | 2024-01-01 | -          | water accommodation restaurant | {EC}; Zakon o PDV-u čl. 38 (3)
HR | REDUCED_5     | 5    | 2024-01-01 | -          | books ebooks newspapers medicines | {EC}; Zakon o PDV-u čl. 38 (4)
HU | STANDARD      | 27   | 2012-01-01 | -          | - | {HIST}
HU | REDUCED_18    | 18   | 2024-01-01 | -          | accommodation | {EC}; Áfa tv. annex 3/A
HU | REDUCED_5     | 5    | 2024-01-01 | -          | books ebooks newspapers medicines restaurant | {EC}; Áfa tv. annex 3
IE | STANDARD      | 23   | 2021-03-01 | -          | - | {HIST}
IE | REDUCED_13_5  | 13.5 | 2023-09-01 | 2026-07-01 | accommodation restaurant | {EC}; VATCA 2010 Schedule 3 (hospitality back at 13.5 % from 2023-09-01)
IE | REDUCED_13_5  | 13.5 | 2026-07-01 | -          | accommodation | {EC}; VATCA 2010 Schedule 3 (hotel accommodation stays at 13.5 %)
IE | REDUCED_9     | 9    | 2026-07-01 | -          | restaurant | VATCA 2010 s. 46 (1) (ca) as amended by the Finance Act 2025 (food and catering services at 9 % from 2026-07-01, Budget 2026)
IE | ZERO          | 0    | 2024-01-01 | -          | books food medicines children_clothing | {EC}; VATCA 2010 Schedule 2 (zero-rated goods)
IT | STANDARD      | 22   | 2013-10-01 | -          | - | {HIST}
IT | REDUCED_10    | 10   | 2024-01-01 | -          | food medicines passenger_transport accommodation restaurant | {EC}; DPR 633/1972 Tabella A parte III
IT | SUPER_REDUCED | 4    | 2024-01-01 | -          | books ebooks newspapers | {EC}; DPR 633/1972 Tabella A parte II
LT | STANDARD      | 21   | 2009-09-01 | -          | - | {HIST}
LT | REDUCED_9     | 9    | 2024-01-01 | 2026-01-01 | books ebooks passenger_transport accommodation culture | {EC}; PVM įstatymas art. 19 (2)
LT | REDUCED_12    | 12   | 2026-01-01 | -          | passenger_transport accommodation culture | PVM įstatymas art. 19 as amended by Law XV-287 (the 9 % rate abolished: transport, accommodation, cultural admissions at 12 % from 2026-01-01)
LT | REDUCED_5     | 5    | 2024-01-01 | 2026-01-01 | medicines | {EC}; PVM įstatymas art. 19 (3) (reimbursed medicines)
LT | REDUCED_5     | 5    | 2026-01-01 | -          | books ebooks medicines | PVM įstatymas art. 19 as amended by Law XV-287 (printed and electronic books at 5 % from 2026-01-01)
LU | STANDARD      | 17   | 2015-01-01 | 2023-01-01 | - | {HIST}
LU | STANDARD      | 16   | 2023-01-01 | 2024-01-01 | - | {HIST}
LU | STANDARD      | 17   | 2024-01-01 | -          | - | {HIST}
LU | REDUCED_7     | 7    | 2023-01-01 | 2024-01-01 | energy | {EC}; LTVA art. 40 (temporary cut of 2023)
LU | REDUCED_8     | 8    | 2024-01-01 | -          | energy | {EC}; LTVA art. 40
LU | REDUCED_13    | 13   | 2023-01-01 | 2024-01-01 | wine | {EC}; LTVA art. 40 (temporary cut of 2023)
LU | REDUCED_14    | 14   | 2024-01-01 | -          | wine | {EC}; LTVA art. 40
LU | SUPER_REDUCED | 3    | 2015-01-01 | -          | books ebooks newspapers food water medicines passenger_transport accommodation restaurant culture children_clothing | {EC}; LTVA art. 40, annex B
LV | STANDARD      | 21   | 2012-07-01 | -          | - | {HIST}
LV | REDUCED_12    | 12   | 2024-01-01 | -          | medicines passenger_transport accommodation | {EC}; PVN likums art. 42 (3)
LV | REDUCED_5     | 5    | 2024-01-01 | -          | books ebooks newspapers | {EC}; PVN likums art. 42 (books and press, printed or electronic, at 5 % since 2022; from 2026 only in the languages the law lists)
MT | STANDARD      | 18   | 2004-01-01 | -          | - | {HIST}
MT | REDUCED_7     | 7    | 2024-01-01 | -          | accommodation | {EC}; VAT Act Cap. 406, Eighth Schedule
MT | REDUCED_5     | 5    | 2024-01-01 | -          | books ebooks newspapers culture | {EC}; VAT Act Cap. 406, Eighth Schedule (verify)
NL | STANDARD      | 21   | 2012-10-01 | -          | - | {HIST}
NL | REDUCED_9     | 9    | 2024-01-01 | 2026-01-01 | books ebooks newspapers food water medicines passenger_transport accommodation restaurant culture | {EC}; Wet OB 1968, Tabel I
NL | REDUCED_9     | 9    | 2026-01-01 | -          | books ebooks newspapers food water medicines passenger_transport restaurant culture | {EC}; Wet OB 1968, Tabel I as amended by Belastingplan 2025 (short-stay accommodation except camping at 21 % from 2026-01-01)
PL | STANDARD      | 23   | 2011-01-01 | -          | - | {HIST}
PL | REDUCED_8     | 8    | 2024-01-01 | -          | water medicines passenger_transport accommodation restaurant culture | {EC}; ustawa o VAT art. 41 (2), annex 3
PL | REDUCED_5     | 5    | 2024-01-01 | 2024-04-01 | books ebooks | {EC}; ustawa o VAT art. 41 (2a), annex 10
PL | REDUCED_5     | 5    | 2024-04-01 | -          | books ebooks food | {EC}; ustawa o VAT art. 41 (2a), annex 10 (basic food back at 5 % from 2024-04-01)
PL | ZERO          | 0    | 2024-01-01 | 2024-04-01 | food | {EC}; ustawa o VAT art. 146ef (temporary 0 % on basic food until 2024-03-31)
PT | STANDARD      | 23   | 2011-01-01 | -          | - | {HIST}
PT | REDUCED_13    | 13   | 2024-01-01 | -          | restaurant | {EC}; CIVA Lista II (mainland)
PT | REDUCED_6     | 6    | 2024-01-01 | -          | books ebooks newspapers food water medicines passenger_transport accommodation | {EC}; CIVA Lista I (mainland)
RO | STANDARD      | 19   | 2017-01-01 | 2025-08-01 | - | {HIST}
RO | STANDARD      | 21   | 2025-08-01 | -          | - | {HIST}
RO | REDUCED_9     | 9    | 2024-01-01 | 2025-08-01 | food water medicines accommodation restaurant | {EC}; Codul fiscal art. 291 (2)
RO | REDUCED_5     | 5    | 2024-01-01 | 2025-08-01 | books ebooks newspapers culture | {EC}; Codul fiscal art. 291 (3)
RO | REDUCED_11    | 11   | 2025-08-01 | -          | books ebooks newspapers food water medicines accommodation restaurant | Codul fiscal art. 291 as amended by Law 141/2025 (5 % and 9 % merged into 11 % from 2025-08-01; cinemas and most events moved to 21 %, so culture is not listed)
SE | STANDARD      | 25   | 1990-07-01 | -          | - | {HIST}
SE | REDUCED_12    | 12   | 2024-01-01 | 2026-04-01 | food accommodation restaurant | {EC}; ML (2023:200) 9 kap.
SE | REDUCED_12    | 12   | 2026-04-01 | 2028-01-01 | accommodation restaurant | {EC}; ML (2023:200) 9 kap. (food temporarily at 6 % 2026-04-01 to 2027-12-31, Prop. 2025/26:55)
SE | REDUCED_12    | 12   | 2028-01-01 | -          | food accommodation restaurant | {EC}; ML (2023:200) 9 kap. (food back at 12 % after the temporary cut)
SE | REDUCED_6     | 6    | 2024-01-01 | 2026-04-01 | books ebooks newspapers passenger_transport culture | {EC}; ML (2023:200) 9 kap.
SE | REDUCED_6     | 6    | 2026-04-01 | 2028-01-01 | books ebooks newspapers passenger_transport culture food | {EC}; ML (2023:200) 9 kap. (temporary food cut 2026-04-01 to 2027-12-31, Prop. 2025/26:55)
SE | REDUCED_6     | 6    | 2028-01-01 | -          | books ebooks newspapers passenger_transport culture | {EC}; ML (2023:200) 9 kap.
SI | STANDARD      | 22   | 2013-07-01 | -          | - | {HIST}
SI | REDUCED_9_5   | 9.5  | 2024-01-01 | -          | food water medicines passenger_transport accommodation restaurant | {EC}; ZDDV-1 art. 41, Annex I
SI | REDUCED_5     | 5    | 2024-01-01 | -          | books ebooks newspapers | {EC}; ZDDV-1 art. 41, Annex Ia
SK | STANDARD      | 20   | 2011-01-01 | 2025-01-01 | - | {HIST}
SK | STANDARD      | 23   | 2025-01-01 | -          | - | {HIST}
SK | REDUCED_10    | 10   | 2024-01-01 | 2025-01-01 | books newspapers food medicines accommodation restaurant | {EC}; zákon 222/2004 § 27 (basic food, medicines, books, accommodation, restaurant meals)
SK | REDUCED_5     | 5    | 2025-01-01 | -          | books newspapers food medicines accommodation restaurant | {EC}; zákon 222/2004 § 27 as amended by Act 278/2024 (basic food, medicines, books and periodicals, accommodation, restaurant meals)
SK | REDUCED_19    | 19   | 2025-01-01 | -          | energy | {EC}; zákon 222/2004 § 27 as amended by Act 278/2024 (electricity; also food not at 5 % and non-alcoholic drinks in restaurants)
XI | STANDARD      | 20   | 2021-01-01 | -          | - | UK VATA 1994 s. 2 (20 % since 2011-01-04); Northern Ireland in the EU VAT area for goods under the Protocol / Windsor Framework from 2021-01-01
XI | REDUCED       | 5    | 2021-01-01 | -          | energy | UK VATA 1994 Schedule 7A (domestic fuel and power)
XI | ZERO          | 0    | 2021-01-01 | -          | books newspapers food medicines children_clothing | UK VATA 1994 Schedule 8 (zero-rated goods; medicines on prescription)
`;

const ROW =
  /^([A-Z]{2}) \| ([A-Z0-9_]+) +\| (\d+(?:\.\d+)?) +\| (\d{4}-\d{2}-\d{2}) \| (\d{4}-\d{2}-\d{2}|-) +\| ([a-z_ ]+|-) \| (.+)$/;

function rateType(code: string): RateType {
  if (code === 'STANDARD') return 'standard';
  if (code === 'SUPER_REDUCED') return 'super_reduced';
  if (code === 'ZERO') return 'zero';
  if (code.startsWith('REDUCED')) return 'reduced';
  throw new Error(`default rates: no rate type for code ${code}`);
}

function categoriesOf(field: string): string[] {
  if (field === '-') return [];
  const categories = field.split(' ');
  const unknown = categories.filter((c) => !(RATE_CATEGORIES as readonly string[]).includes(c));
  if (unknown.length > 0) throw new Error(`default rates: unknown categories ${unknown.join(', ')}`);
  return categories;
}

function parseRate(line: string): DefaultTaxRate {
  const match = ROW.exec(line);
  if (match === null) throw new Error(`default rates: malformed row ${line}`);
  const [, country = '', code = '', percent = '', validFrom = '', validTo = '', categories = '', source = ''] = match;
  return {
    code: `VAT_${country}_${code}`,
    country,
    rateType: rateType(code),
    percent: Number(percent),
    categories: categoriesOf(categories),
    validFrom,
    validTo: validTo === '-' ? null : validTo,
    source: source.replace('{EC}', EC).replace('{HIST}', HIST),
  };
}

export const DEFAULT_RATES: readonly DefaultTaxRate[] = TABLE.trim().split('\n').map(parseRate);
