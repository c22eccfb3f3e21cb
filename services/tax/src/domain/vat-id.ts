import {
  austria,
  belgium,
  bulgaria,
  checkVAT,
  croatia,
  cyprus,
  czechRepublic,
  denmark,
  estonia,
  finland,
  france,
  germany,
  greece,
  hungary,
  ireland,
  italy,
  latvia,
  lithuania,
  luxembourg,
  malta,
  netherlands,
  poland,
  portugal,
  romania,
  slovakiaRepublic,
  slovenia,
  spain,
  sweden,
  unitedKingdom,
  type Country,
} from 'jsvat-next';

/**
 * VAT ID rules by VIES prefix: the 27 member states (Greece is `EL`) and Northern Ireland (`XI`,
 * VIES-registered for trade in goods; the rules are the UK's, 9 digits with the UK check digits).
 * Format and check-digit rules come from jsvat-next.
 */
const RULES: Readonly<Record<string, Country>> = {
  AT: austria,
  BE: belgium,
  BG: bulgaria,
  CY: cyprus,
  CZ: czechRepublic,
  DE: germany,
  DK: denmark,
  EE: estonia,
  EL: greece,
  ES: spain,
  FI: finland,
  FR: france,
  HR: croatia,
  HU: hungary,
  IE: ireland,
  IT: italy,
  LT: lithuania,
  LU: luxembourg,
  LV: latvia,
  MT: malta,
  NL: netherlands,
  PL: poland,
  PT: portugal,
  RO: romania,
  SE: sweden,
  SI: slovenia,
  SK: slovakiaRepublic,
  XI: unitedKingdom,
};

/** What follows each prefix, for error messages (the library's regular expressions, in words). */
const SHAPES: Readonly<Record<string, string>> = {
  AT: 'U and 8 digits',
  BE: '10 digits starting with 0 or 1',
  BG: '9 or 10 digits',
  CY: '8 digits and a letter',
  CZ: '8 to 10 digits',
  DE: '9 digits',
  DK: '8 digits',
  EE: '9 digits starting with 10',
  EL: '9 digits',
  ES: 'a letter or digit, 7 digits and a letter or digit',
  FI: '8 digits',
  FR: '2 letters or digits and 9 digits',
  HR: '11 digits',
  HU: '8 digits',
  IE: '7 digits and one or two letters (or the older digit, letter, 5 digits, letter)',
  IT: '11 digits',
  LT: '9 or 12 digits',
  LU: '8 digits',
  LV: '11 digits',
  MT: '8 digits',
  NL: '9 digits, B and 2 digits',
  PL: '10 digits',
  PT: '9 digits',
  RO: '2 to 10 digits',
  SE: '12 digits ending in 01',
  SI: '8 digits',
  SK: '10 digits',
  XI: '9 digits',
};

/** VIES prefixes (member states as VIES writes them, and XI). */
export const VAT_PREFIXES: readonly string[] = Object.keys(RULES);

/** A well-formed VAT ID: the VIES prefix, the number after it, and both together without separators. */
export interface VatId {
  countryCode: string;
  number: string;
  vatId: string;
}

export type MalformedReason = 'empty' | 'characters' | 'unknown_prefix' | 'format' | 'checksum';

export interface MalformedVatId {
  reason: MalformedReason;
  /** One sentence for the buyer, naming the expected format where there is one. */
  message: string;
  /** The prefix, when it was one of the VIES prefixes. */
  countryCode: string | null;
}

export type ParsedVatId = ({ ok: true } & VatId) | ({ ok: false } & MalformedVatId);

const ALLOWED = /^[A-Za-z0-9+* .-]+$/;
const SEPARATORS = /[ .-]/g;
const MAX_RAW = 40;

const malformed = (reason: MalformedReason, message: string, countryCode: string | null = null): ParsedVatId => ({
  ok: false,
  reason,
  message,
  countryCode,
});

/** How a VAT ID of this prefix looks, e.g. `DE followed by 9 digits`. */
export function vatIdFormat(prefix: string): string | null {
  const shape = SHAPES[prefix];
  return shape ? `${prefix} followed by ${shape}` : null;
}

/**
 * Normalizes and checks a VAT ID: upper case, without spaces, dots and dashes; the prefix must be
 * a VIES one and the rest must have that member state's format and check digits.
 */
export function parseVatId(raw: string): ParsedVatId {
  const trimmed = raw.trim();
  if (trimmed === '') return malformed('empty', 'A VAT ID is required.');
  if (trimmed.length > MAX_RAW || !ALLOWED.test(trimmed)) {
    return malformed(
      'characters',
      'A VAT ID may contain only letters, digits, spaces, dots and dashes (and + or * in older Irish numbers).',
    );
  }
  const compact = trimmed.replace(SEPARATORS, '').toUpperCase();
  const prefix = compact.slice(0, 2);
  const country = RULES[prefix];
  if (!country) return malformed('unknown_prefix', unknownPrefixMessage(prefix));
  const result = checkVAT(compact, [country]);
  if (!result.isValidFormat) return malformed('format', `A ${prefix} VAT ID is ${vatIdFormat(prefix)}.`, prefix);
  if (!result.isValid)
    return malformed('checksum', `${compact} is not a valid ${prefix} VAT ID: its check digits do not match.`, prefix);
  return { ok: true, countryCode: prefix, number: compact.slice(2), vatId: compact };
}

function unknownPrefixMessage(prefix: string): string {
  if (prefix === 'GR') return 'Greek VAT IDs start with EL, not GR.';
  if (prefix === 'GB') return 'UK VAT IDs (GB) cannot be checked in VIES; only Northern Ireland traders (XI) can.';
  if (!/^[A-Z]{2}$/.test(prefix)) return 'A VAT ID starts with the two-letter country prefix, such as DE, FR or EL.';
  return `${prefix} is not an EU VAT prefix; VAT IDs start with a member state prefix (EL for Greece) or XI for Northern Ireland.`;
}
