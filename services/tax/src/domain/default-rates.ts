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

const HIST = 'EU standard-rate history (EC TEDB from 2017, EC TAXUD booklet "VAT rates applied in the Member States" 2021-06 before), as compiled in vatnode/eu-vat-rates-data data/eu-vat-rates-history.json (MIT)';
const EC = 'EC "VAT rates applied in the Member States of the European Union" / TEDB';

type Row = [code: string, rateType: RateType, percent: number, categories: readonly string[], validFrom: string, validTo: string | null, source: string];

function country(cc: string, rows: readonly Row[]): DefaultTaxRate[] {
  return rows.map(([code, rateType, percent, categories, validFrom, validTo, source]) => ({
    code: `VAT_${cc}_${code}`,
    country: cc,
    rateType,
    percent,
    categories,
    validFrom,
    validTo,
    source,
  }));
}

const std = (percent: number, validFrom: string, validTo: string | null = null, source = HIST): Row => ['STANDARD', 'standard', percent, [], validFrom, validTo, source];

/**
 * Standard, reduced and super-reduced VAT rates of the 27 member states and of Northern Ireland
 * (XI, goods only: the UK's rates), effective-dated from 2024-01-01 at least (open-ended rows start
 * at their last change), with the changes of 2024-2026.
 */
export const DEFAULT_RATES: readonly DefaultTaxRate[] = [
  ...country('AT', [
    std(20, '1984-01-01'),
    ['REDUCED_10', 'reduced', 10, ['books', 'ebooks', 'newspapers', 'food', 'water', 'medicines', 'passenger_transport', 'accommodation', 'restaurant'], '2024-01-01', null, `${EC}; UStG 1994 § 10 (2) (selected basic foods at 4.9 % from 2026-07-01 are not a category of ours)`],
    ['REDUCED_13', 'reduced', 13, ['culture'], '2024-01-01', null, `${EC}; UStG 1994 § 10 (3)`],
  ]),
  ...country('BE', [
    std(21, '1996-01-01'),
    ['REDUCED_6', 'reduced', 6, ['books', 'ebooks', 'newspapers', 'food', 'water', 'medicines', 'passenger_transport', 'accommodation', 'culture'], '2024-01-01', '2026-03-01', `${EC}; Royal Decree no. 20, table A`],
    ['REDUCED_6', 'reduced', 6, ['books', 'ebooks', 'newspapers', 'food', 'water', 'medicines', 'passenger_transport', 'culture'], '2026-03-01', null, `${EC}; Royal Decree no. 20, table A as amended from 2026-03-01 (hotel and camping accommodation moved to 12 %, Royal Decree approved 2026-02-13)`],
    ['REDUCED_12', 'reduced', 12, ['restaurant'], '2024-01-01', '2026-03-01', `${EC}; Royal Decree no. 20, table B`],
    ['REDUCED_12', 'reduced', 12, ['restaurant', 'accommodation'], '2026-03-01', null, `${EC}; Royal Decree no. 20, table B section IV as amended from 2026-03-01 (accommodation)`],
  ]),
  ...country('BG', [
    std(20, '1999-01-01'),
    ['REDUCED_9', 'reduced', 9, ['books', 'accommodation', 'restaurant'], '2024-01-01', '2025-01-01', `${EC}; ZDDS art. 66 (2) (restaurant and catering at 9 % until 2024-12-31, ended by the 2025 budget)`],
    ['REDUCED_9', 'reduced', 9, ['books', 'accommodation'], '2025-01-01', null, `${EC}; ZDDS art. 66 (2)`],
  ]),
  ...country('CY', [
    std(19, '2014-01-13'),
    ['REDUCED_9', 'reduced', 9, ['accommodation', 'restaurant'], '2024-01-01', null, `${EC}; VAT Law 95(I)/2000, Fifth Schedule`],
    ['REDUCED_5', 'reduced', 5, ['books', 'newspapers', 'food', 'water', 'medicines'], '2024-01-01', null, `${EC}; VAT Law 95(I)/2000, Fifth Schedule`],
  ]),
  ...country('CZ', [
    std(21, '2013-01-01'),
    ['REDUCED_15', 'reduced', 15, ['food', 'passenger_transport'], '2023-01-01', '2024-01-01', `${EC}; ZDPH § 47, annex 2 (before the 2024 consolidation package)`],
    ['REDUCED_10', 'reduced', 10, ['newspapers', 'accommodation', 'restaurant', 'culture'], '2023-01-01', '2024-01-01', `${EC}; ZDPH § 47, annex 3 (before the 2024 consolidation package)`],
    ['REDUCED_12', 'reduced', 12, ['food', 'water', 'medicines', 'newspapers', 'passenger_transport', 'accommodation', 'restaurant', 'culture'], '2024-01-01', null, `${EC}; ZDPH § 47 as amended by Act 349/2023 (10 % and 15 % merged into 12 %, newspapers moved to it)`],
    ['ZERO', 'zero', 0, ['books', 'ebooks'], '2024-01-01', null, `${EC}; ZDPH as amended by Act 349/2023 (books, including electronic, exempt with right of deduction from 2024-01-01)`],
  ]),
  ...country('DE', [
    std(19, '2021-01-01'),
    ['REDUCED', 'reduced', 7, ['books', 'ebooks', 'newspapers', 'food', 'water', 'passenger_transport', 'accommodation', 'culture'], '2024-01-01', '2026-01-01', 'UStG § 12 (2) (restaurant meals back at 19 % from 2024-01-01)'],
    ['REDUCED', 'reduced', 7, ['books', 'ebooks', 'newspapers', 'food', 'water', 'passenger_transport', 'accommodation', 'culture', 'restaurant'], '2026-01-01', null, 'UStG § 12 (2) Nr. 15 as amended by the Steueränderungsgesetz 2025 (restaurant and catering food at 7 % from 2026-01-01, drinks excluded)'],
  ]),
  ...country('DK', [std(25, '1992-01-01')]),
  ...country('EE', [
    std(20, '2009-07-01', '2024-01-01'),
    std(22, '2024-01-01', '2025-07-01'),
    std(24, '2025-07-01'),
    ['REDUCED_9', 'reduced', 9, ['books', 'ebooks', 'medicines', 'accommodation'], '2024-01-01', '2025-01-01', `${EC}; KMS § 15 (2)`],
    ['REDUCED_9', 'reduced', 9, ['books', 'ebooks', 'newspapers', 'medicines'], '2025-01-01', null, `${EC}; KMS § 15 (2) as amended from 2025-01-01 (press 5 -> 9 %)`],
    ['REDUCED_5', 'reduced', 5, ['newspapers'], '2024-01-01', '2025-01-01', `${EC}; KMS § 15 (2^1) (press publications at 5 % from 2022-08-01 until 2024-12-31)`],
    ['REDUCED_13', 'reduced', 13, ['accommodation'], '2025-01-01', null, `${EC}; KMS § 15 (2) as amended from 2025-01-01 (accommodation 9 -> 13 %)`],
  ]),
  ...country('ES', [
    std(21, '2012-09-01'),
    ['REDUCED_10', 'reduced', 10, ['food', 'water', 'passenger_transport', 'accommodation', 'restaurant'], '2024-01-01', null, `${EC}; Ley 37/1992 art. 91.uno`],
    ['SUPER_REDUCED', 'super_reduced', 4, ['books', 'ebooks', 'newspapers', 'medicines'], '2024-01-01', null, `${EC}; Ley 37/1992 art. 91.dos`],
  ]),
  ...country('FI', [
    std(24, '2013-01-01', '2024-09-01'),
    std(25.5, '2024-09-01'),
    ['REDUCED_14', 'reduced', 14, ['food', 'restaurant'], '2024-01-01', '2025-01-01', `${EC}; AVL 1501/1993 § 85`],
    ['REDUCED_14', 'reduced', 14, ['books', 'ebooks', 'food', 'restaurant', 'medicines', 'passenger_transport', 'accommodation', 'culture'], '2025-01-01', '2026-01-01', `${EC}; AVL § 85a as amended from 2025-01-01 (books, medicines, passenger transport, accommodation, cultural events moved from 10 % to 14 %)`],
    ['REDUCED_13_5', 'reduced', 13.5, ['books', 'ebooks', 'food', 'restaurant', 'medicines', 'passenger_transport', 'accommodation', 'culture'], '2026-01-01', null, 'AVL as amended from 2026-01-01 (the 14 % rate lowered to 13.5 %, Finnish Tax Administration guidance); FI reduced [10, 13.5] in vatnode/eu-vat-rates-data (TEDB)'],
    ['REDUCED_10', 'reduced', 10, ['books', 'ebooks', 'newspapers', 'medicines', 'passenger_transport', 'accommodation', 'culture'], '2024-01-01', '2025-01-01', `${EC}; AVL § 85a`],
    ['REDUCED_10', 'reduced', 10, ['newspapers'], '2025-01-01', null, `${EC}; AVL § 85a as amended from 2025-01-01 (newspapers and periodicals stay at 10 %)`],
  ]),
  ...country('FR', [
    std(20, '2014-01-01'),
    ['REDUCED_10', 'reduced', 10, ['passenger_transport', 'accommodation', 'restaurant'], '2024-01-01', null, `${EC}; CGI art. 279`],
    ['REDUCED_5_5', 'reduced', 5.5, ['books', 'ebooks', 'food', 'water', 'culture'], '2024-01-01', null, `${EC}; CGI art. 278-0 bis`],
    ['SUPER_REDUCED', 'super_reduced', 2.1, ['newspapers', 'medicines'], '2024-01-01', null, `${EC}; CGI art. 281 quater and 298 septies (reimbursable medicines)`],
  ]),
  ...country('GR', [
    std(24, '2016-06-01'),
    ['REDUCED_13', 'reduced', 13, ['food', 'water', 'accommodation', 'restaurant'], '2024-01-01', null, `${EC}; Code of VAT (Law 5144/2024), Annex III`],
    ['REDUCED_6', 'reduced', 6, ['books', 'ebooks', 'newspapers', 'medicines', 'culture'], '2024-01-01', null, `${EC}; Code of VAT (Law 5144/2024), Annex III`],
  ]),
  ...country('HR', [
    std(25, '2012-03-01'),
    ['REDUCED_13', 'reduced', 13, ['water', 'accommodation', 'restaurant'], '2024-01-01', null, `${EC}; Zakon o PDV-u čl. 38 (3)`],
    ['REDUCED_5', 'reduced', 5, ['books', 'ebooks', 'newspapers', 'medicines'], '2024-01-01', null, `${EC}; Zakon o PDV-u čl. 38 (4)`],
  ]),
  ...country('HU', [
    std(27, '2012-01-01'),
    ['REDUCED_18', 'reduced', 18, ['accommodation'], '2024-01-01', null, `${EC}; Áfa tv. annex 3/A`],
    ['REDUCED_5', 'reduced', 5, ['books', 'ebooks', 'newspapers', 'medicines', 'restaurant'], '2024-01-01', null, `${EC}; Áfa tv. annex 3`],
  ]),
  ...country('IE', [
    std(23, '2021-03-01'),
    ['REDUCED_13_5', 'reduced', 13.5, ['accommodation', 'restaurant'], '2023-09-01', '2026-07-01', `${EC}; VATCA 2010 Schedule 3 (hospitality back at 13.5 % from 2023-09-01)`],
    ['REDUCED_13_5', 'reduced', 13.5, ['accommodation'], '2026-07-01', null, `${EC}; VATCA 2010 Schedule 3 (hotel accommodation stays at 13.5 %)`],
    ['REDUCED_9', 'reduced', 9, ['restaurant'], '2026-07-01', null, 'VATCA 2010 s. 46 (1) (ca) as amended by the Finance Act 2025 (food and catering services at 9 % from 2026-07-01, Budget 2026)'],
    ['ZERO', 'zero', 0, ['books', 'food', 'medicines', 'children_clothing'], '2024-01-01', null, `${EC}; VATCA 2010 Schedule 2 (zero-rated goods)`],
  ]),
  ...country('IT', [
    std(22, '2013-10-01'),
    ['REDUCED_10', 'reduced', 10, ['food', 'medicines', 'passenger_transport', 'accommodation', 'restaurant'], '2024-01-01', null, `${EC}; DPR 633/1972 Tabella A parte III`],
    ['SUPER_REDUCED', 'super_reduced', 4, ['books', 'ebooks', 'newspapers'], '2024-01-01', null, `${EC}; DPR 633/1972 Tabella A parte II`],
  ]),
  ...country('LT', [
    std(21, '2009-09-01'),
    ['REDUCED_9', 'reduced', 9, ['books', 'ebooks', 'passenger_transport', 'accommodation', 'culture'], '2024-01-01', '2026-01-01', `${EC}; PVM įstatymas art. 19 (2)`],
    ['REDUCED_12', 'reduced', 12, ['passenger_transport', 'accommodation', 'culture'], '2026-01-01', null, 'PVM įstatymas art. 19 as amended by Law XV-287 (the 9 % rate abolished: transport, accommodation, cultural admissions at 12 % from 2026-01-01)'],
    ['REDUCED_5', 'reduced', 5, ['medicines'], '2024-01-01', '2026-01-01', `${EC}; PVM įstatymas art. 19 (3) (reimbursed medicines)`],
    ['REDUCED_5', 'reduced', 5, ['books', 'ebooks', 'medicines'], '2026-01-01', null, 'PVM įstatymas art. 19 as amended by Law XV-287 (printed and electronic books at 5 % from 2026-01-01)'],
  ]),
  ...country('LU', [
    std(17, '2015-01-01', '2023-01-01'),
    std(16, '2023-01-01', '2024-01-01'),
    std(17, '2024-01-01'),
    ['REDUCED_7', 'reduced', 7, ['energy'], '2023-01-01', '2024-01-01', `${EC}; LTVA art. 40 (temporary cut of 2023)`],
    ['REDUCED_8', 'reduced', 8, ['energy'], '2024-01-01', null, `${EC}; LTVA art. 40`],
    ['REDUCED_13', 'reduced', 13, ['wine'], '2023-01-01', '2024-01-01', `${EC}; LTVA art. 40 (temporary cut of 2023)`],
    ['REDUCED_14', 'reduced', 14, ['wine'], '2024-01-01', null, `${EC}; LTVA art. 40`],
    ['SUPER_REDUCED', 'super_reduced', 3, ['books', 'ebooks', 'newspapers', 'food', 'water', 'medicines', 'passenger_transport', 'accommodation', 'restaurant', 'culture', 'children_clothing'], '2015-01-01', null, `${EC}; LTVA art. 40, annex B`],
  ]),
  ...country('LV', [
    std(21, '2012-07-01'),
    ['REDUCED_12', 'reduced', 12, ['medicines', 'passenger_transport', 'accommodation'], '2024-01-01', null, `${EC}; PVN likums art. 42 (3)`],
    ['REDUCED_5', 'reduced', 5, ['books', 'ebooks', 'newspapers'], '2024-01-01', null, `${EC}; PVN likums art. 42 (books and press, printed or electronic, at 5 % since 2022; from 2026 only in the languages the law lists)`],
  ]),
  ...country('MT', [
    std(18, '2004-01-01'),
    ['REDUCED_7', 'reduced', 7, ['accommodation'], '2024-01-01', null, `${EC}; VAT Act Cap. 406, Eighth Schedule`],
    ['REDUCED_5', 'reduced', 5, ['books', 'ebooks', 'newspapers', 'culture'], '2024-01-01', null, `${EC}; VAT Act Cap. 406, Eighth Schedule (verify)`],
  ]),
  ...country('NL', [
    std(21, '2012-10-01'),
    ['REDUCED_9', 'reduced', 9, ['books', 'ebooks', 'newspapers', 'food', 'water', 'medicines', 'passenger_transport', 'accommodation', 'restaurant', 'culture'], '2024-01-01', '2026-01-01', `${EC}; Wet OB 1968, Tabel I`],
    ['REDUCED_9', 'reduced', 9, ['books', 'ebooks', 'newspapers', 'food', 'water', 'medicines', 'passenger_transport', 'restaurant', 'culture'], '2026-01-01', null, `${EC}; Wet OB 1968, Tabel I as amended by Belastingplan 2025 (short-stay accommodation except camping at 21 % from 2026-01-01)`],
  ]),
  ...country('PL', [
    std(23, '2011-01-01'),
    ['REDUCED_8', 'reduced', 8, ['water', 'medicines', 'passenger_transport', 'accommodation', 'restaurant', 'culture'], '2024-01-01', null, `${EC}; ustawa o VAT art. 41 (2), annex 3`],
    ['REDUCED_5', 'reduced', 5, ['books', 'ebooks'], '2024-01-01', '2024-04-01', `${EC}; ustawa o VAT art. 41 (2a), annex 10`],
    ['REDUCED_5', 'reduced', 5, ['books', 'ebooks', 'food'], '2024-04-01', null, `${EC}; ustawa o VAT art. 41 (2a), annex 10 (basic food back at 5 % from 2024-04-01)`],
    ['ZERO', 'zero', 0, ['food'], '2024-01-01', '2024-04-01', `${EC}; ustawa o VAT art. 146ef (temporary 0 % on basic food until 2024-03-31)`],
  ]),
  ...country('PT', [
    std(23, '2011-01-01'),
    ['REDUCED_13', 'reduced', 13, ['restaurant'], '2024-01-01', null, `${EC}; CIVA Lista II (mainland)`],
    ['REDUCED_6', 'reduced', 6, ['books', 'ebooks', 'newspapers', 'food', 'water', 'medicines', 'passenger_transport', 'accommodation'], '2024-01-01', null, `${EC}; CIVA Lista I (mainland)`],
  ]),
  ...country('RO', [
    std(19, '2017-01-01', '2025-08-01'),
    std(21, '2025-08-01'),
    ['REDUCED_9', 'reduced', 9, ['food', 'water', 'medicines', 'accommodation', 'restaurant'], '2024-01-01', '2025-08-01', `${EC}; Codul fiscal art. 291 (2)`],
    ['REDUCED_5', 'reduced', 5, ['books', 'ebooks', 'newspapers', 'culture'], '2024-01-01', '2025-08-01', `${EC}; Codul fiscal art. 291 (3)`],
    ['REDUCED_11', 'reduced', 11, ['books', 'ebooks', 'newspapers', 'food', 'water', 'medicines', 'accommodation', 'restaurant'], '2025-08-01', null, 'Codul fiscal art. 291 as amended by Law 141/2025 (5 % and 9 % merged into 11 % from 2025-08-01; cinemas and most events moved to 21 %, so culture is not listed)'],
  ]),
  ...country('SE', [
    std(25, '1990-07-01'),
    ['REDUCED_12', 'reduced', 12, ['food', 'accommodation', 'restaurant'], '2024-01-01', '2026-04-01', `${EC}; ML (2023:200) 9 kap.`],
    ['REDUCED_12', 'reduced', 12, ['accommodation', 'restaurant'], '2026-04-01', '2028-01-01', `${EC}; ML (2023:200) 9 kap. (food temporarily at 6 % 2026-04-01 to 2027-12-31, Prop. 2025/26:55)`],
    ['REDUCED_12', 'reduced', 12, ['food', 'accommodation', 'restaurant'], '2028-01-01', null, `${EC}; ML (2023:200) 9 kap. (food back at 12 % after the temporary cut)`],
    ['REDUCED_6', 'reduced', 6, ['books', 'ebooks', 'newspapers', 'passenger_transport', 'culture'], '2024-01-01', '2026-04-01', `${EC}; ML (2023:200) 9 kap.`],
    ['REDUCED_6', 'reduced', 6, ['books', 'ebooks', 'newspapers', 'passenger_transport', 'culture', 'food'], '2026-04-01', '2028-01-01', `${EC}; ML (2023:200) 9 kap. (temporary food cut 2026-04-01 to 2027-12-31, Prop. 2025/26:55)`],
    ['REDUCED_6', 'reduced', 6, ['books', 'ebooks', 'newspapers', 'passenger_transport', 'culture'], '2028-01-01', null, `${EC}; ML (2023:200) 9 kap.`],
  ]),
  ...country('SI', [
    std(22, '2013-07-01'),
    ['REDUCED_9_5', 'reduced', 9.5, ['food', 'water', 'medicines', 'passenger_transport', 'accommodation', 'restaurant'], '2024-01-01', null, `${EC}; ZDDV-1 art. 41, Annex I`],
    ['REDUCED_5', 'reduced', 5, ['books', 'ebooks', 'newspapers'], '2024-01-01', null, `${EC}; ZDDV-1 art. 41, Annex Ia`],
  ]),
  ...country('SK', [
    std(20, '2011-01-01', '2025-01-01'),
    std(23, '2025-01-01'),
    ['REDUCED_10', 'reduced', 10, ['books', 'newspapers', 'food', 'medicines', 'accommodation', 'restaurant'], '2024-01-01', '2025-01-01', `${EC}; zákon 222/2004 § 27 (basic food, medicines, books, accommodation, restaurant meals)`],
    ['REDUCED_5', 'reduced', 5, ['books', 'newspapers', 'food', 'medicines', 'accommodation', 'restaurant'], '2025-01-01', null, `${EC}; zákon 222/2004 § 27 as amended by Act 278/2024 (basic food, medicines, books and periodicals, accommodation, restaurant meals)`],
    ['REDUCED_19', 'reduced', 19, ['energy'], '2025-01-01', null, `${EC}; zákon 222/2004 § 27 as amended by Act 278/2024 (electricity; also food not at 5 % and non-alcoholic drinks in restaurants)`],
  ]),
  ...country('XI', [
    std(20, '2021-01-01', null, 'UK VATA 1994 s. 2 (20 % since 2011-01-04); Northern Ireland in the EU VAT area for goods under the Protocol / Windsor Framework from 2021-01-01'),
    ['REDUCED', 'reduced', 5, ['energy'], '2021-01-01', null, 'UK VATA 1994 Schedule 7A (domestic fuel and power)'],
    ['ZERO', 'zero', 0, ['books', 'newspapers', 'food', 'medicines', 'children_clothing'], '2021-01-01', null, 'UK VATA 1994 Schedule 8 (zero-rated goods; medicines on prescription)'],
  ]),
];
