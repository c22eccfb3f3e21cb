import { describe, expect, it } from 'vitest';
import { DomainError } from '@paymesh/core';
import { taxCalculation, type TaxLineInput, type VatIdCheck } from '@paymesh/contracts';
import { calculateTax, type EngineContext, type EngineInput, type EngineRate, type EngineRule } from './engine';
import { DEFAULT_RATES } from './default-rates';
import { DEFAULT_RULES } from './default-rules';
import { defaultTaxSettings, type TaxSettings } from './tax-settings';
import { vatIdNotGiven } from '../../../../libs/contracts/test/tax-kit';

// Every expectation below is computed by hand in its comment (gross: tax = G·r/(1+r) rounded,
// net = G - tax; net: tax = N·r rounded), never by the engine.

const RATES: EngineRate[] = DEFAULT_RATES.map((r, i) => ({
  ...r,
  id: `r${String(i).padStart(4, '0')}`,
  categories: [...r.categories],
}));
const RULES: EngineRule[] = DEFAULT_RULES.map((r, i) => ({ ...r, id: `u${String(i).padStart(4, '0')}` }));

const check = vatIdNotGiven;
const VIES_VALID = (vatId: string): VatIdCheck =>
  check({
    vatId,
    status: 'valid',
    source: 'vies',
    checkedAt: '2026-11-24T10:00:00.000Z',
    consultationNumber: 'WAPIAAAAZ1',
  });

interface Case {
  name: string;
  home?: string | null;
  oss?: boolean;
  exceeded?: boolean;
  priceMode?: 'gross' | 'net';
  rounding?: TaxSettings['rounding'];
  date?: string;
  buyer?: string;
  mode?: EngineInput['vatIdValidation'];
  vat?: VatIdCheck;
  lines: Partial<TaxLineInput>[];
  expect: {
    tax: number[];
    net?: number[];
    code?: string | string[];
    decision?: string | string[];
    rate?: number | number[];
    taxCountry?: string | null;
    buyerType?: 'consumer' | 'business';
    treatment?: RegExp;
    reason?: RegExp;
    taxIncluded?: boolean;
  };
}

function run(
  c: Pick<Case, 'home' | 'oss' | 'exceeded' | 'priceMode' | 'rounding' | 'date' | 'buyer' | 'mode' | 'vat' | 'lines'>,
  rates: EngineRate[] = RATES,
  rules: EngineRule[] = RULES,
) {
  const settings: TaxSettings = {
    ...defaultTaxSettings(),
    homeCountry: c.home === undefined ? 'DE' : c.home,
    ossEnabled: c.oss ?? false,
    priceMode: c.priceMode ?? 'gross',
    rounding: c.rounding ?? { level: 'per_line', method: 'half_up' },
  };
  const ctx: EngineContext = {
    settings,
    ossThresholdExceeded: c.exceeded ?? false,
    rates,
    rules,
    now: new Date('2026-11-24T12:00:00.000Z'),
  };
  const input: EngineInput = {
    date: c.date ?? '2026-11-24',
    currency: 'EUR',
    priceMode: c.priceMode ?? 'gross',
    lines: c.lines.map((l) => ({ name: 'item', quantity: 1, unitPrice: 10000, itemType: 'digital_service', ...l })),
    buyer: { country: c.buyer ?? 'DE', postcode: null },
    vatIdValidation: c.mode ?? 'vies',
    vatIdCheck: c.vat ?? check(),
  };
  return calculateTax(input, ctx);
}

const all = <T>(v: T | T[], n: number): T[] => (Array.isArray(v) ? v : Array.from({ length: n }, () => v));

const CASES: Case[] = [
  // --- the "Done when" figures (home DE, 100.00 EUR gross digital service) ---
  // 10000·19/119 = 1596.64 -> 1597; net 8403
  {
    name: 'DE consumer 19 %',
    lines: [{}],
    expect: {
      tax: [1597],
      net: [8403],
      code: 'VAT_DE_STANDARD',
      decision: 'domestic',
      rate: 19,
      taxCountry: 'DE',
      buyerType: 'consumer',
    },
  },
  // 10000·21/121 = 1735.54 -> 1736; net 8264
  {
    name: 'NL consumer, OSS enabled: 21 %',
    oss: true,
    buyer: 'NL',
    lines: [{}],
    expect: {
      tax: [1736],
      net: [8264],
      code: 'VAT_NL_STANDARD',
      decision: 'oss_destination',
      rate: 21,
      taxCountry: 'NL',
    },
  },
  {
    name: 'NL consumer, below threshold, no OSS: DE 19 %',
    buyer: 'NL',
    lines: [{}],
    expect: { tax: [1597], code: 'VAT_DE_STANDARD', decision: 'below_threshold_origin', rate: 19, taxCountry: 'DE' },
  },
  {
    name: 'NL consumer, threshold exceeded without OSS: 21 %',
    exceeded: true,
    buyer: 'NL',
    lines: [{}],
    expect: { tax: [1736], decision: 'oss_destination', reason: /threshold is exceeded/ },
  },
  {
    name: 'FR business, VIES valid: reverse charge',
    buyer: 'FR',
    vat: VIES_VALID('FR40303265045'),
    lines: [{}],
    expect: {
      tax: [0],
      net: [10000],
      code: 'REVERSE_CHARGE',
      decision: 'reverse_charge',
      rate: 0,
      taxCountry: 'FR',
      buyerType: 'business',
      treatment: /VIES confirmed VAT ID FR40303265045 \(consultation WAPIAAAAZ1\)/,
    },
  },
  {
    name: 'US buyer: export',
    buyer: 'US',
    lines: [{}],
    expect: { tax: [0], net: [10000], code: 'EXPORT', decision: 'export', taxCountry: null },
  },
  {
    name: 'FR VAT ID, VIES unavailable: consumer',
    buyer: 'FR',
    vat: check({ vatId: 'FR40303265045', status: 'unverified', source: null, error: 'TIMEOUT' }),
    lines: [{}],
    expect: {
      tax: [1597],
      decision: 'below_threshold_origin',
      buyerType: 'consumer',
      treatment: /^VAT ID FR40303265045 not checked: VIES unavailable \(TIMEOUT\); VAT charged as for a consumer$/,
    },
  },
  {
    name: 'FR VAT ID unverified with OSS: FR 20 %',
    oss: true,
    buyer: 'FR',
    vat: check({ vatId: 'FR40303265045', status: 'unverified', error: 'SERVICE_UNAVAILABLE' }),
    lines: [{}],
    expect: { tax: [1667], code: 'VAT_FR_STANDARD', buyerType: 'consumer' },
  }, // 10000/6 = 1666.67
  // --- buyer type per validation mode ---
  {
    name: 'format mode, well-formed ID: consumer',
    mode: 'format',
    oss: true,
    buyer: 'FR',
    vat: check({ vatId: 'FR40303265045', status: 'well_formed', source: 'format' }),
    lines: [{}],
    expect: {
      tax: [1667],
      decision: 'oss_destination',
      buyerType: 'consumer',
      treatment: /^format mode: VAT ID FR40303265045 is well-formed and recorded/,
    },
  },
  {
    name: 'format mode with a valid answer still a consumer',
    mode: 'format',
    buyer: 'FR',
    vat: VIES_VALID('FR40303265045'),
    lines: [{}],
    expect: { tax: [1597], buyerType: 'consumer', treatment: /only a VIES check/ },
  },
  {
    name: 'mode none, ID given: consumer',
    mode: 'none',
    buyer: 'AT',
    vat: check({ vatId: 'ATU12345678', status: 'not_checked' }),
    lines: [{}],
    expect: { tax: [1597], buyerType: 'consumer', treatment: /validation is off/ },
  },
  {
    name: 'VIES invalid: consumer',
    oss: true,
    buyer: 'AT',
    vat: check({ vatId: 'ATU00000000', status: 'invalid', source: 'vies' }),
    lines: [{}],
    expect: { tax: [1667], code: 'VAT_AT_STANDARD', buyerType: 'consumer', treatment: /not valid/ },
  }, // 20 %: 1666.67
  {
    name: 'malformed ID: consumer',
    buyer: 'BE',
    vat: check({ vatId: 'BE12', status: 'malformed', source: 'format' }),
    lines: [{}],
    expect: { tax: [1597], buyerType: 'consumer', treatment: /malformed/ },
  },
  {
    name: 'cached VIES answer counts',
    buyer: 'IT',
    vat: check({ vatId: 'IT00743110157', status: 'valid', source: 'cache', checkedAt: '2026-11-20T08:00:00.000Z' }),
    lines: [{}],
    expect: { tax: [0], code: 'REVERSE_CHARGE', buyerType: 'business', treatment: /cached VIES answer of 2026-11-20/ },
  },
  // --- place of supply by item type ---
  {
    name: 'DE business domestic: normal VAT',
    vat: VIES_VALID('DE129273398'),
    lines: [{}],
    expect: { tax: [1597], decision: 'domestic_b2b', buyerType: 'business', code: 'VAT_DE_STANDARD' },
  },
  {
    name: 'FR business goods: intra-community supply',
    buyer: 'FR',
    vat: VIES_VALID('FR40303265045'),
    lines: [{ itemType: 'goods' }, { itemType: 'shipping', unitPrice: 500 }],
    expect: {
      tax: [0, 0],
      net: [10000, 500],
      code: 'INTRA_COMMUNITY_SUPPLY',
      decision: 'intra_community_supply',
      taxCountry: 'FR',
    },
  },
  {
    name: 'FR business general service: reverse charge',
    buyer: 'FR',
    vat: VIES_VALID('FR40303265045'),
    lines: [{ itemType: 'service' }],
    expect: { tax: [0], code: 'REVERSE_CHARGE' },
  },
  {
    name: 'FR consumer general service: origin even with OSS',
    oss: true,
    buyer: 'FR',
    lines: [{ itemType: 'service' }],
    expect: { tax: [1597], code: 'VAT_DE_STANDARD', decision: 'general_service_origin', taxCountry: 'DE' },
  },
  {
    name: 'FR consumer goods with OSS: FR 20 %',
    oss: true,
    buyer: 'FR',
    lines: [{ itemType: 'goods' }, { itemType: 'shipping', unitPrice: 590 }],
    expect: { tax: [1667, 98], code: 'VAT_FR_STANDARD', decision: 'oss_destination' },
  }, // 590/6 = 98.33
  {
    name: 'FR consumer goods below threshold: DE 19 %',
    buyer: 'FR',
    lines: [{ itemType: 'goods' }],
    expect: { tax: [1597], decision: 'below_threshold_origin', taxCountry: 'DE' },
  },
  {
    name: 'goods to a DE buyer shipped to AT (OSS): AT 20 %',
    oss: true,
    lines: [{ itemType: 'goods', shipToCountry: 'AT' }],
    expect: { tax: [1667], code: 'VAT_AT_STANDARD', taxCountry: 'AT' },
  },
  {
    name: 'goods to an FR buyer shipped to CH: export',
    oss: true,
    buyer: 'FR',
    lines: [{ itemType: 'goods', shipToCountry: 'CH' }],
    expect: { tax: [0], code: 'EXPORT' },
  },
  {
    name: 'goods to a US buyer shipped to DE: domestic',
    buyer: 'US',
    lines: [{ itemType: 'goods', shipToCountry: 'DE' }],
    expect: { tax: [1597], decision: 'domestic' },
  },
  {
    name: 'XI consumer goods with OSS: 20 %',
    oss: true,
    buyer: 'XI',
    lines: [{ itemType: 'goods' }],
    expect: { tax: [1667], code: 'VAT_XI_STANDARD', taxCountry: 'XI' },
  },
  {
    name: 'XI digital service: outside EU VAT',
    oss: true,
    buyer: 'XI',
    lines: [{}],
    expect: { tax: [0], code: 'EXPORT' },
  },
  { name: 'GB buyer: export', buyer: 'GB', lines: [{ itemType: 'goods' }], expect: { tax: [0], code: 'EXPORT' } },
  {
    name: 'GR consumer with OSS: 24 %',
    oss: true,
    buyer: 'GR',
    lines: [{}],
    expect: { tax: [1935], code: 'VAT_GR_STANDARD' },
  }, // 10000·24/124 = 1935.48
  {
    name: 'seller without home country',
    home: null,
    buyer: 'FR',
    lines: [{}, { itemType: 'goods', taxRate: 7 }],
    expect: {
      tax: [0, 0],
      net: [10000, 10000],
      code: 'NOT_CONFIGURED',
      decision: 'seller_not_configured',
      taxCountry: null,
      reason: /set homeCountry/,
    },
  },
  // --- rate dates ---
  {
    name: 'FI 2024-08-31: 24 %',
    oss: true,
    buyer: 'FI',
    date: '2024-08-31',
    lines: [{}],
    expect: { tax: [1935], net: [8065], code: 'VAT_FI_STANDARD', rate: 24 },
  }, // 1935.48
  {
    name: 'FI 2024-09-01: 25.5 %',
    oss: true,
    buyer: 'FI',
    date: '2024-09-01',
    lines: [{}],
    expect: { tax: [2032], net: [7968], rate: 25.5 },
  }, // 10000·25.5/125.5 = 2031.87
  {
    name: 'EE 2025-06-30: 22 %',
    oss: true,
    buyer: 'EE',
    date: '2025-06-30',
    lines: [{}],
    expect: { tax: [1803], rate: 22 },
  }, // 10000·22/122 = 1803.28
  {
    name: 'EE 2025-07-01: 24 %',
    oss: true,
    buyer: 'EE',
    date: '2025-07-01',
    lines: [{}],
    expect: { tax: [1935], rate: 24 },
  },
  {
    name: 'EE 2023-12-31: 20 %',
    oss: true,
    buyer: 'EE',
    date: '2023-12-31',
    lines: [{}],
    expect: { tax: [1667], rate: 20 },
  },
  {
    name: 'SK 2024-12-31: 20 %',
    oss: true,
    buyer: 'SK',
    date: '2024-12-31',
    lines: [{}],
    expect: { tax: [1667], rate: 20 },
  }, // 1666.67
  {
    name: 'SK 2025-01-01: 23 %',
    oss: true,
    buyer: 'SK',
    date: '2025-01-01',
    lines: [{}],
    expect: { tax: [1870], rate: 23 },
  }, // 10000·23/123 = 1869.92
  {
    name: 'RO 2025-07-31: 19 %',
    oss: true,
    buyer: 'RO',
    date: '2025-07-31',
    lines: [{}],
    expect: { tax: [1597], code: 'VAT_RO_STANDARD', rate: 19 },
  },
  {
    name: 'RO 2025-08-01: 21 %',
    oss: true,
    buyer: 'RO',
    date: '2025-08-01',
    lines: [{}],
    expect: { tax: [1736], rate: 21 },
  },
  {
    name: 'LU 2023-12-31: 16 %',
    oss: true,
    buyer: 'LU',
    date: '2023-12-31',
    priceMode: 'net',
    lines: [{}],
    expect: { tax: [1600], rate: 16 },
  },
  {
    name: 'LU 2024-01-01: 17 %',
    oss: true,
    buyer: 'LU',
    date: '2024-01-01',
    priceMode: 'net',
    lines: [{}],
    expect: { tax: [1700], rate: 17 },
  },
  {
    name: 'home FI, domestic 2024-08-31 vs below-threshold NL',
    home: 'FI',
    buyer: 'NL',
    date: '2024-08-31',
    lines: [{}],
    expect: { tax: [1935], code: 'VAT_FI_STANDARD', decision: 'below_threshold_origin' },
  },
  // --- net price mode ---
  { name: 'net: DE 19 %', priceMode: 'net', lines: [{}], expect: { tax: [1900], net: [10000], taxIncluded: false } },
  {
    name: 'net: FI 25.5 % of 9999',
    priceMode: 'net',
    oss: true,
    buyer: 'FI',
    lines: [{ unitPrice: 9999 }],
    expect: { tax: [2550], net: [9999] },
  }, // 2549.745 -> 2550
  {
    name: 'net: quantity 3 × 333 at 21 %',
    priceMode: 'net',
    oss: true,
    buyer: 'NL',
    lines: [{ quantity: 3, unitPrice: 333 }],
    expect: { tax: [210], net: [999] },
  }, // 209.79
  // --- categories and rules ---
  {
    name: 'FR books: 5.5 %',
    priceMode: 'net',
    oss: true,
    buyer: 'FR',
    lines: [{ itemType: 'goods', category: 'books' }],
    expect: { tax: [550], code: 'VAT_FR_REDUCED_5_5', rate: 5.5 },
  },
  {
    name: 'FR newspapers: reduced rule finds the 2.1 % super-reduced',
    priceMode: 'net',
    oss: true,
    buyer: 'FR',
    lines: [{ itemType: 'goods', category: 'newspapers' }],
    expect: { tax: [210], code: 'VAT_FR_SUPER_REDUCED', rate: 2.1 },
  },
  {
    name: 'DE medicines: no reduced rate, standard',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'medicines' }],
    expect: {
      tax: [1900],
      code: 'VAT_DE_STANDARD',
      reason: /asks for a reduced rate for category medicines, but DE has none on 2026-11-24/,
    },
  },
  {
    name: 'DE books: 7 %',
    lines: [{ itemType: 'goods', category: 'books' }],
    expect: { tax: [654], code: 'VAT_DE_REDUCED', rate: 7 },
  }, // 10000·7/107 = 654.21
  {
    name: 'DE restaurant 2025-12-31: 19 %',
    date: '2025-12-31',
    lines: [{ itemType: 'service', category: 'restaurant' }],
    expect: { tax: [1597], code: 'VAT_DE_STANDARD' },
  },
  {
    name: 'DE restaurant 2026-01-01: 7 %',
    date: '2026-01-01',
    lines: [{ itemType: 'service', category: 'restaurant' }],
    expect: { tax: [654], code: 'VAT_DE_REDUCED' },
  },
  {
    name: 'IE books: zero-rated',
    oss: true,
    buyer: 'IE',
    lines: [{ itemType: 'goods', category: 'books' }],
    expect: { tax: [0], code: 'VAT_IE_ZERO', rate: 0 },
  },
  {
    name: 'IE ebooks: no preferential rate listed, 23 %',
    oss: true,
    buyer: 'IE',
    priceMode: 'net',
    lines: [{ category: 'ebooks' }],
    expect: { tax: [2300], code: 'VAT_IE_STANDARD' },
  },
  {
    name: 'CZ food 2023-12-31: 15 %',
    oss: true,
    buyer: 'CZ',
    date: '2023-12-31',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'food' }],
    expect: { tax: [1500], code: 'VAT_CZ_REDUCED_15' },
  },
  {
    name: 'CZ food 2024-01-01: 12 %',
    oss: true,
    buyer: 'CZ',
    date: '2024-01-01',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'food' }],
    expect: { tax: [1200], code: 'VAT_CZ_REDUCED_12' },
  },
  {
    name: 'FI food 2025-12-31: 14 %',
    oss: true,
    buyer: 'FI',
    date: '2025-12-31',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'food' }],
    expect: { tax: [1400], code: 'VAT_FI_REDUCED_14' },
  },
  {
    name: 'FI food 2026-01-01: 13.5 %',
    oss: true,
    buyer: 'FI',
    date: '2026-01-01',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'food' }],
    expect: { tax: [1350], code: 'VAT_FI_REDUCED_13_5' },
  },
  {
    name: 'FI medicines 2024-12-31: 10 %',
    oss: true,
    buyer: 'FI',
    date: '2024-12-31',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'medicines' }],
    expect: { tax: [1000], code: 'VAT_FI_REDUCED_10' },
  },
  {
    name: 'FI medicines 2025-01-01: 14 %',
    oss: true,
    buyer: 'FI',
    date: '2025-01-01',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'medicines' }],
    expect: { tax: [1400], code: 'VAT_FI_REDUCED_14' },
  },
  {
    name: 'RO books 2025-07-31: 5 %',
    oss: true,
    buyer: 'RO',
    date: '2025-07-31',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'books' }],
    expect: { tax: [500], code: 'VAT_RO_REDUCED_5' },
  },
  {
    name: 'RO books 2025-08-01: 11 %',
    oss: true,
    buyer: 'RO',
    date: '2025-08-01',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'books' }],
    expect: { tax: [1100], code: 'VAT_RO_REDUCED_11' },
  },
  {
    name: 'SK books 2025-01-01: 5 %',
    oss: true,
    buyer: 'SK',
    date: '2025-01-01',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'books' }],
    expect: { tax: [500], code: 'VAT_SK_REDUCED_5' },
  },
  {
    name: 'PL food 2024-03-31: 0 %, 2024-04-01 would be 5 %',
    oss: true,
    buyer: 'PL',
    date: '2024-03-31',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'food' }],
    expect: { tax: [0], code: 'VAT_PL_ZERO' },
  },
  {
    name: 'PL food 2024-04-01: 5 %',
    oss: true,
    buyer: 'PL',
    date: '2024-04-01',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'food' }],
    expect: { tax: [500], code: 'VAT_PL_REDUCED_5' },
  },
  {
    name: 'LU books: 3 % super-reduced',
    oss: true,
    buyer: 'LU',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'books' }],
    expect: { tax: [300], code: 'VAT_LU_SUPER_REDUCED', rate: 3 },
  },
  {
    name: 'ES medicines: 4 % super-reduced',
    oss: true,
    buyer: 'ES',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'medicines' }],
    expect: { tax: [400], code: 'VAT_ES_SUPER_REDUCED' },
  },
  {
    name: 'category without a rule: standard',
    oss: true,
    buyer: 'SE',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'software' }],
    expect: { tax: [2500], code: 'VAT_SE_STANDARD' },
  },
  {
    name: 'books under reverse charge stay 0',
    buyer: 'FR',
    vat: VIES_VALID('FR40303265045'),
    lines: [{ itemType: 'goods', category: 'books' }],
    expect: { tax: [0], code: 'INTRA_COMMUNITY_SUPPLY' },
  },
  // --- dated reduced-rate changes (net 100.00, OSS on) ---
  {
    name: 'FI books 2024-12-31: 10 %',
    oss: true,
    buyer: 'FI',
    date: '2024-12-31',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'books' }],
    expect: { tax: [1000], code: 'VAT_FI_REDUCED_10' },
  },
  {
    name: 'FI books 2025-01-01: 14 %',
    oss: true,
    buyer: 'FI',
    date: '2025-01-01',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'books' }],
    expect: { tax: [1400], code: 'VAT_FI_REDUCED_14' },
  },
  {
    name: 'FI newspapers 2026: still 10 %',
    oss: true,
    buyer: 'FI',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'newspapers' }],
    expect: { tax: [1000], code: 'VAT_FI_REDUCED_10' },
  },
  {
    name: 'BE accommodation 2026-02-28: 6 %',
    oss: true,
    buyer: 'BE',
    date: '2026-02-28',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'accommodation' }],
    expect: { tax: [600], code: 'VAT_BE_REDUCED_6' },
  },
  {
    name: 'BE accommodation 2026-03-01: 12 %',
    oss: true,
    buyer: 'BE',
    date: '2026-03-01',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'accommodation' }],
    expect: { tax: [1200], code: 'VAT_BE_REDUCED_12' },
  },
  {
    name: 'LT books 2025-12-31: 9 %',
    oss: true,
    buyer: 'LT',
    date: '2025-12-31',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'books' }],
    expect: { tax: [900], code: 'VAT_LT_REDUCED_9' },
  },
  {
    name: 'LT books 2026-01-01: 5 %',
    oss: true,
    buyer: 'LT',
    date: '2026-01-01',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'books' }],
    expect: { tax: [500], code: 'VAT_LT_REDUCED_5' },
  },
  {
    name: 'LT accommodation 2026-01-01: 12 %',
    oss: true,
    buyer: 'LT',
    date: '2026-01-01',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'accommodation' }],
    expect: { tax: [1200], code: 'VAT_LT_REDUCED_12' },
  },
  {
    name: 'CZ books 2024: zero-rated',
    oss: true,
    buyer: 'CZ',
    date: '2024-06-01',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'books' }],
    expect: { tax: [0], code: 'VAT_CZ_ZERO' },
  },
  {
    name: 'IE restaurant 2026-06-30: 13.5 %',
    oss: true,
    buyer: 'IE',
    date: '2026-06-30',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'restaurant' }],
    expect: { tax: [1350], code: 'VAT_IE_REDUCED_13_5' },
  },
  {
    name: 'IE restaurant 2026-07-01: 9 %',
    oss: true,
    buyer: 'IE',
    date: '2026-07-01',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'restaurant' }],
    expect: { tax: [900], code: 'VAT_IE_REDUCED_9' },
  },
  {
    name: 'NL accommodation 2025-12-31: 9 %',
    oss: true,
    buyer: 'NL',
    date: '2025-12-31',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'accommodation' }],
    expect: { tax: [900], code: 'VAT_NL_REDUCED_9' },
  },
  {
    name: 'NL accommodation 2026-01-01: 21 % with the reason',
    oss: true,
    buyer: 'NL',
    date: '2026-01-01',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'accommodation' }],
    expect: { tax: [2100], code: 'VAT_NL_STANDARD', reason: /but NL has none on 2026-01-01/ },
  },
  {
    name: 'SE food 2026-03-31: 12 %',
    oss: true,
    buyer: 'SE',
    date: '2026-03-31',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'food' }],
    expect: { tax: [1200], code: 'VAT_SE_REDUCED_12' },
  },
  {
    name: 'SE food 2026-04-01: 6 %',
    oss: true,
    buyer: 'SE',
    date: '2026-04-01',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'food' }],
    expect: { tax: [600], code: 'VAT_SE_REDUCED_6' },
  },
  {
    name: 'EE accommodation 2024-12-31: 9 %',
    oss: true,
    buyer: 'EE',
    date: '2024-12-31',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'accommodation' }],
    expect: { tax: [900], code: 'VAT_EE_REDUCED_9' },
  },
  {
    name: 'EE accommodation 2025-01-01: 13 %',
    oss: true,
    buyer: 'EE',
    date: '2025-01-01',
    priceMode: 'net',
    lines: [{ itemType: 'goods', category: 'accommodation' }],
    expect: { tax: [1300], code: 'VAT_EE_REDUCED_13' },
  },
  // --- manual override ---
  {
    name: 'manual 7 % on a domestic line',
    lines: [{ taxRate: 7 }],
    expect: {
      tax: [654],
      code: 'MANUAL',
      decision: 'manual_override',
      rate: 7,
      taxCountry: 'DE',
      reason: /manual rate 7 %/,
    },
  },
  {
    name: 'manual 0 % on a domestic line',
    lines: [{ taxRate: 0 }],
    expect: { tax: [0], net: [10000], code: 'MANUAL' },
  },
  {
    name: 'manual 10 % on an OSS line, net',
    oss: true,
    buyer: 'FR',
    priceMode: 'net',
    lines: [{ taxRate: 10 }],
    expect: { tax: [1000], code: 'MANUAL', taxCountry: 'FR' },
  },
  {
    name: 'manual rate cannot tax an export',
    buyer: 'US',
    lines: [{ taxRate: 19 }],
    expect: { tax: [0], code: 'EXPORT', decision: 'export', reason: /manual rate 19 % is not applied/ },
  },
  {
    name: 'manual rate cannot tax a reverse charge',
    buyer: 'FR',
    vat: VIES_VALID('FR40303265045'),
    lines: [{ taxRate: 19 }],
    expect: { tax: [0], code: 'REVERSE_CHARGE' },
  },
  // --- rounding ---
  // 150·0.19 = 28.5: half_up 29, half_even 28; 50·0.19 = 9.5: both 10; 250·0.19 = 47.5: both 48
  {
    name: 'half_up on .5',
    priceMode: 'net',
    lines: [{ unitPrice: 150 }, { unitPrice: 50 }, { unitPrice: 250 }],
    expect: { tax: [29, 10, 48] },
  },
  {
    name: 'half_even on .5',
    priceMode: 'net',
    rounding: { level: 'per_line', method: 'half_even' },
    lines: [{ unitPrice: 150 }, { unitPrice: 50 }, { unitPrice: 250 }],
    expect: { tax: [28, 10, 48] },
  },
  {
    name: 'half_up symmetric for negatives',
    priceMode: 'net',
    lines: [{ unitPrice: -150 }, { unitPrice: -50 }],
    expect: { tax: [-29, -10], net: [-150, -50] },
  },
  {
    name: 'half_even for negatives',
    priceMode: 'net',
    rounding: { level: 'per_line', method: 'half_even' },
    lines: [{ unitPrice: -150 }, { unitPrice: -250 }],
    expect: { tax: [-28, -48] },
  },
  // 3 × 13 net at 19 %: per line 2.47 -> 2 each = 6; per document 39·0.19 = 7.41 -> 7, spread [3,2,2]
  {
    name: 'per_line net 3 × 13',
    priceMode: 'net',
    lines: [{ unitPrice: 13 }, { unitPrice: 13 }, { unitPrice: 13 }],
    expect: { tax: [2, 2, 2] },
  },
  {
    name: 'per_document net 3 × 13',
    priceMode: 'net',
    rounding: { level: 'per_document', method: 'half_up' },
    lines: [{ unitPrice: 13 }, { unitPrice: 13 }, { unitPrice: 13 }],
    expect: { tax: [3, 2, 2], net: [13, 13, 13] },
  },
  // 3 × 1000 gross: per line 159.66 -> 160 each = 480; per document 3000·19/119 = 478.99 -> 479, spread [160,160,159]
  {
    name: 'per_line gross 3 × 1000',
    lines: [{ unitPrice: 1000 }, { unitPrice: 1000 }, { unitPrice: 1000 }],
    expect: { tax: [160, 160, 160], net: [840, 840, 840] },
  },
  {
    name: 'per_document gross 3 × 1000',
    rounding: { level: 'per_document', method: 'half_up' },
    lines: [{ unitPrice: 1000 }, { unitPrice: 1000 }, { unitPrice: 1000 }],
    expect: { tax: [160, 160, 159], net: [840, 840, 841] },
  },
  // 1 + 1 + 1 net at 19 %: each 0.19 -> 0; per document 0.57 -> 1, on the first line
  {
    name: 'per_document lifts a cent lost per line',
    priceMode: 'net',
    rounding: { level: 'per_document', method: 'half_even' },
    lines: [{ unitPrice: 1 }, { unitPrice: 1 }, { unitPrice: 1 }],
    expect: { tax: [1, 0, 0] },
  },
  // per_document half_even: 50 + 100 net = 150 -> 28.5 -> 28; exact 9.5 + 19 = floors 9 + 19 = 28
  {
    name: 'per_document half_even on a .5 group',
    priceMode: 'net',
    rounding: { level: 'per_document', method: 'half_even' },
    lines: [{ unitPrice: 50 }, { unitPrice: 100 }],
    expect: { tax: [9, 19] },
  },
  {
    name: 'per_document half_up on a .5 group',
    priceMode: 'net',
    rounding: { level: 'per_document', method: 'half_up' },
    lines: [{ unitPrice: 50 }, { unitPrice: 100 }],
    expect: { tax: [10, 19] },
  },
  // groups by rate: 7 % books 13 + 13 net (0.91 each -> 1.82 -> 2: [1,1]), 19 % 13 (2.47 -> 2)
  {
    name: 'per_document groups per rate code',
    priceMode: 'net',
    rounding: { level: 'per_document', method: 'half_up' },
    lines: [{ unitPrice: 13, category: 'books' }, { unitPrice: 13 }, { unitPrice: 13, category: 'books' }],
    expect: { tax: [1, 2, 1], code: ['VAT_DE_REDUCED', 'VAT_DE_STANDARD', 'VAT_DE_REDUCED'] },
  },
  // --- discounts and credits ---
  // 10000 gross -> 1597; -1000 gross: -159.66 -> -160, net -840
  { name: 'discount line', lines: [{}, { unitPrice: -1000 }], expect: { tax: [1597, -160], net: [8403, -840] } },
  { name: 'credit: negative total', lines: [{ unitPrice: -10000 }], expect: { tax: [-1597], net: [-8403] } },
  // per_document: 10000 - 1000 = 9000 gross: 9000·19/119 = 1436.97 -> 1437; floors 1596 + (-160) = 1436, +1 to line 0 (.64 > .34)
  {
    name: 'per_document discount',
    rounding: { level: 'per_document', method: 'half_up' },
    lines: [{}, { unitPrice: -1000 }],
    expect: { tax: [1597, -160] },
  },
  // --- amount type per line ---
  // price mode net, line gross 11900: 11900·19/119 = 1900 exactly
  {
    name: 'gross line in a net calculation',
    priceMode: 'net',
    lines: [{}, { unitPrice: 11900, amountType: 'gross' }],
    expect: { tax: [1900, 1900], net: [10000, 10000], taxIncluded: false },
  },
  {
    name: 'net lines in a gross calculation',
    lines: [{ amountType: 'net' }],
    expect: { tax: [1900], net: [10000], taxIncluded: false },
  },
  {
    name: 'every line gross: tax included',
    priceMode: 'net',
    lines: [{ amountType: 'gross' }],
    expect: { tax: [1597], taxIncluded: true },
  },
  // mixed per_document: net 13 (2.47) + gross 13 (13·19/119 = 2.0756): sum 4.5456 -> 5; floors 2 + 2, +1 to the net line
  {
    name: 'per_document mixed gross and net lines of one rate',
    priceMode: 'net',
    rounding: { level: 'per_document', method: 'half_up' },
    lines: [{ unitPrice: 13 }, { unitPrice: 13, amountType: 'gross' }],
    expect: { tax: [3, 2], net: [13, 11] },
  },
];

describe('calculateTax: table', () => {
  it('has at least 80 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(80);
  });

  for (const c of CASES) {
    it(c.name, () => {
      const out = run(c);
      expect(taxCalculation.parse(out)).toEqual(out);
      const n = c.lines.length;
      expect(out.lines.map((l) => l.tax)).toEqual(c.expect.tax);
      if (c.expect.net) expect(out.lines.map((l) => l.net)).toEqual(c.expect.net);
      if (c.expect.code !== undefined) expect(out.lines.map((l) => l.taxRateCode)).toEqual(all(c.expect.code, n));
      if (c.expect.decision !== undefined) expect(out.lines.map((l) => l.decision)).toEqual(all(c.expect.decision, n));
      if (c.expect.rate !== undefined) expect(out.lines.map((l) => l.taxRate)).toEqual(all(c.expect.rate, n));
      if (c.expect.taxCountry !== undefined)
        expect(out.lines.map((l) => l.taxCountry)).toEqual(all(c.expect.taxCountry, n));
      if (c.expect.buyerType) expect(out.buyer.type).toBe(c.expect.buyerType);
      if (c.expect.treatment) expect(out.buyer.vatIdTreatment).toMatch(c.expect.treatment);
      if (c.expect.reason) for (const l of out.lines) expect(l.reason).toMatch(c.expect.reason);
      if (c.expect.taxIncluded !== undefined) expect(out.taxIncluded).toBe(c.expect.taxIncluded);
      // totals are the sums of the lines, gross = net + tax everywhere
      const sum = (k: 'net' | 'tax' | 'gross') => out.lines.reduce((a, l) => a + l[k], 0);
      expect(out.totalTax).toBe(c.expect.tax.reduce((a, b) => a + b, 0));
      expect([out.totalNet, out.totalTax, out.totalGross]).toEqual([sum('net'), sum('tax'), sum('gross')]);
      expect(out.totalGross).toBe(out.totalNet + out.totalTax);
      for (const l of out.lines) expect(l.gross).toBe(l.net + l.tax);
      expect(out.taxBreakdown.reduce((a, e) => a + e.taxAmount, 0)).toBe(out.totalTax);
      expect(out.taxBreakdown.reduce((a, e) => a + e.taxableBase, 0)).toBe(out.totalNet);
    });
  }
});

describe('calculateTax: evidence', () => {
  it('names the rate version, the rule and the settings used', () => {
    const out = run({ buyer: 'NL', oss: true, lines: [{ itemType: 'goods', category: 'books' }] });
    const line = out.lines[0]!;
    const rate = RATES.find((r) => r.code === 'VAT_NL_REDUCED_9' && r.validFrom === '2026-01-01')!;
    const rule = RULES.find((r) => r.category === 'books')!;
    expect(line).toMatchObject({
      rateId: rate.id,
      rateVersion: 'VAT_NL_REDUCED_9@2026-01-01',
      ruleId: rule.id,
      rateType: 'reduced',
      taxCountry: 'NL',
      category: 'books',
    });
    expect(out).toMatchObject({
      currency: 'EUR',
      date: '2026-11-24',
      calculatedAt: '2026-11-24T12:00:00.000Z',
      seller: { homeCountry: 'DE', ossEnabled: true, ossThresholdExceeded: false },
      settings: { priceMode: 'gross', rounding: { level: 'per_line', method: 'half_up' } },
    });
    expect(out.engineVersion).toMatch(/\d+\.\d+\.\d+/);
  });

  it('synthetic codes carry no rate id', () => {
    const out = run({ buyer: 'US', lines: [{}] });
    expect(out.lines[0]).toMatchObject({ rateId: null, rateVersion: null, ruleId: null, rateType: null });
  });

  it('groups the breakdown by rate and code', () => {
    // DE: 10000 gross 19 % (1597 / 8403), 10000 gross books 7 % (654 / 9346), 5000 gross 19 % (798.32 -> 798 / 4202)
    const out = run({ lines: [{}, { category: 'books' }, { unitPrice: 5000 }] });
    expect(out.taxBreakdown).toEqual([
      { taxRate: 19, taxRateCode: 'VAT_DE_STANDARD', taxableBase: 12605, taxAmount: 2395 },
      { taxRate: 7, taxRateCode: 'VAT_DE_REDUCED', taxableBase: 9346, taxAmount: 654 },
    ]);
  });
});

describe('calculateTax: rules and missing rates', () => {
  const id = (n: number) => n.toString(16).padStart(24, '0');

  it('refuses a taxable line without a standard rate (422 TAX_RATE_MISSING)', () => {
    const rates = RATES.filter((r) => r.country !== 'FR');
    try {
      run({ buyer: 'FR', oss: true, lines: [{}] }, rates);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).code).toBe('TAX_RATE_MISSING');
      expect((err as DomainError).httpStatus).toBe(422);
      expect((err as Error).message).toBe('no standard VAT rate for FR on 2026-11-24');
    }
    // an export needs no rate
    expect(run({ buyer: 'US', lines: [{}] }, []).totalTax).toBe(0);
  });

  it('the most specific rule wins: country > category > item type; ties by priority then id', () => {
    const rules: EngineRule[] = [
      { id: id(1), itemType: null, category: null, country: null, rateType: 'standard', priority: 0 },
      { id: id(2), itemType: 'goods', category: null, country: null, rateType: 'zero', priority: 100 },
      { id: id(3), itemType: null, category: 'books', country: null, rateType: 'reduced', priority: 0 },
      { id: id(4), itemType: null, category: null, country: 'DE', rateType: 'standard', priority: -5 },
      { id: id(5), itemType: null, category: 'food', country: null, rateType: 'reduced', priority: 0 },
      { id: id(6), itemType: null, category: 'food', country: null, rateType: 'zero', priority: 1 },
      { id: id(8), itemType: 'service', category: null, country: null, rateType: 'zero', priority: 0 },
      { id: id(7), itemType: 'service', category: null, country: null, rateType: 'reduced', priority: 0 },
    ];
    const lines: Partial<TaxLineInput>[] = [
      { itemType: 'goods', category: 'books' }, // category beats item type: reduced 20 % -> AT 10 % of 10000 net = 1000
      { itemType: 'goods' }, // item type rule: zero
      { itemType: 'goods', category: 'food' }, // food: zero (priority 1) over reduced
      { itemType: 'service' }, // service: general service origin DE: the DE country rule (standard) beats item type
      { itemType: 'digital_service' }, // catch-all standard: AT 20 % = 2000
    ];
    const out = run({ buyer: 'AT', oss: true, priceMode: 'net', lines }, RATES, rules);
    expect(out.lines.map((l) => [l.taxRateCode, l.tax, l.ruleId])).toEqual([
      ['VAT_AT_REDUCED_10', 1000, id(3)],
      ['VAT_AT_ZERO', 0, id(2)],
      ['VAT_AT_ZERO', 0, id(6)],
      ['VAT_DE_STANDARD', 1900, id(4)],
      ['VAT_AT_STANDARD', 2000, id(1)],
    ]);
    // equal specificity and priority: the lower id wins (7 before 8)
    const svc = run(
      { buyer: 'FR', oss: true, priceMode: 'net', lines: [{ itemType: 'service' }] },
      RATES,
      rules.filter((r) => r.id !== id(4)),
    );
    expect(svc.lines[0]).toMatchObject({ ruleId: id(7), taxRateCode: 'VAT_DE_STANDARD' });
    expect(svc.lines[0]!.reason).toMatch(/asks for a reduced rate, but DE has none/);
  });

  it('no rule at all means standard', () => {
    const out = run({ priceMode: 'net', lines: [{ category: 'books' }] }, RATES, []);
    expect(out.lines[0]).toMatchObject({ taxRateCode: 'VAT_DE_STANDARD', tax: 1900, ruleId: null });
  });

  it('a super_reduced rule falls back to the reduced rate listing the category', () => {
    const rules: EngineRule[] = [
      { id: id(1), itemType: null, category: 'books', country: null, rateType: 'super_reduced', priority: 0 },
    ];
    const out = run({ priceMode: 'net', lines: [{ category: 'books' }] }, RATES, rules);
    expect(out.lines[0]).toMatchObject({ taxRateCode: 'VAT_DE_REDUCED', tax: 700 });
  });

  it('a merchant rate without categories is the general rate of its type', () => {
    const rates: EngineRate[] = [
      ...RATES,
      {
        id: id(99),
        code: 'VAT_DK_REDUCED_CUSTOM',
        country: 'DK',
        rateType: 'reduced',
        percent: 12.5,
        categories: [],
        validFrom: '2026-01-01',
        validTo: null,
      },
    ];
    const out = run({ buyer: 'DK', oss: true, priceMode: 'net', lines: [{ category: 'culture' }] }, rates);
    expect(out.lines[0]).toMatchObject({
      taxRateCode: 'VAT_DK_REDUCED_CUSTOM',
      tax: 1250,
      rateVersion: 'VAT_DK_REDUCED_CUSTOM@2026-01-01',
    });
  });

  it('refuses amounts beyond the safe integer range with a 400', () => {
    expect(() => run({ lines: [{ quantity: 1_000_000, unitPrice: 999_999_999_999 }] })).toThrow(/exceeds/);
  });
});
