import type { TaxDecision, TaxItemType } from '@paymesh/contracts';
import { isGoodsLike, isInEuVatArea } from './eu';

/**
 * Place-of-supply rules of the engine (EU VAT Directive 2006/112/EC), line by line:
 *
 * 1. The place a line goes to is the buyer's country; for `goods` and `shipping` it is the line's
 *    `shipToCountry` when given (the goods' destination).
 * 2. That place outside the EU VAT area (the 27 member states; Northern Ireland XI for goods and
 *    shipping only) -> `export`: 0 %.
 * 3. That place equal to the seller's home country -> `domestic` (consumer) or `domestic_b2b`
 *    (business buyer; normal VAT, no reverse charge): the home country's rate.
 * 4. Another member state, business buyer (a VIES-confirmed VAT ID) -> services and digital
 *    services `reverse_charge` (Art. 44/196), goods and their shipping `intra_community_supply`
 *    (Art. 138): 0 %, the buyer accounts for the VAT in its member state.
 * 5. Another member state, consumer:
 *    - `digital_service`, `goods` (distance sales) and `shipping` (follows the goods) -> the
 *      destination's rate when the seller uses OSS or is above the EUR 10 000 union threshold
 *      (`oss_destination`, Art. 58/33), else the home rate (`below_threshold_origin`, Art. 59c);
 *    - `service` (general B2C services, Art. 45) -> the home rate (`general_service_origin`).
 * 6. A seller established outside the EU VAT area (home country not a member state; XI counts
 *    for goods only) has no union threshold: consumer digital services, goods and shipping go to
 *    the destination (`oss_destination`); general services are supplied where the seller is, so
 *    outside EU VAT (`export`); business buyers reverse charge services, and goods sent into the
 *    EU are an export from the seller's side (import VAT is the importer's).
 */
export interface PlaceOfSupply {
  decision: Exclude<TaxDecision, 'manual_override' | 'seller_not_configured'>;
  /** Member state whose VAT applies (or whose buyer accounts for it); null for exports. */
  taxCountry: string | null;
  /** Whether the seller charges VAT on the line (a rate is looked up). */
  taxable: boolean;
  /** Human-readable explanation. */
  reason: string;
}

export interface PlaceInput {
  homeCountry: string;
  itemType: TaxItemType;
  buyerCountry: string;
  shipToCountry: string | undefined;
  business: boolean;
  ossEnabled: boolean;
  ossThresholdExceeded: boolean;
}

export function placeOfSupply(p: PlaceInput): PlaceOfSupply {
  const goods = isGoodsLike(p.itemType);
  const place = goods ? (p.shipToCountry ?? p.buyerCountry) : p.buyerCountry;
  const what = goods
    ? `goods sent to ${place}`
    : `${p.itemType === 'digital_service' ? 'digital service' : 'service'} to a buyer in ${place}`;
  const taxed = (decision: PlaceOfSupply['decision'], taxCountry: string, reason: string): PlaceOfSupply => ({
    decision,
    taxCountry,
    taxable: true,
    reason,
  });
  const zero = (decision: PlaceOfSupply['decision'], taxCountry: string | null, reason: string): PlaceOfSupply => ({
    decision,
    taxCountry,
    taxable: false,
    reason,
  });

  if (place === p.homeCountry) {
    return p.business
      ? taxed('domestic_b2b', place, `domestic sale in ${place} to a business: ${place} VAT charged, no reverse charge`)
      : taxed('domestic', place, `domestic sale in ${place}: ${place} VAT charged`);
  }
  if (!isInEuVatArea(place, p.itemType)) {
    return zero('export', null, `${what}, outside the EU VAT area: export, no EU VAT`);
  }
  const sellerInEu = isInEuVatArea(p.homeCountry, p.itemType);
  if (p.business) {
    if (!goods)
      return zero(
        'reverse_charge',
        place,
        `${what} with a VIES-confirmed VAT ID: reverse charge, the buyer accounts for ${place} VAT`,
      );
    if (!sellerInEu)
      return zero('export', null, `${what} from outside the EU VAT area: export, import VAT is the buyer's`);
    return zero(
      'intra_community_supply',
      place,
      `${what} for a business with a VIES-confirmed VAT ID: exempt intra-community supply, the buyer accounts for ${place} VAT`,
    );
  }
  if (p.itemType === 'service') {
    if (!sellerInEu)
      return zero(
        'export',
        null,
        `${what}: a general service is supplied where the seller (${p.homeCountry}, outside the EU) is established, no EU VAT`,
      );
    return taxed(
      'general_service_origin',
      p.homeCountry,
      `${what} (consumer): general services are taxed where the seller is established, ${p.homeCountry}`,
    );
  }
  if (!sellerInEu) {
    return taxed(
      'oss_destination',
      place,
      `${what} (consumer) from a seller outside the EU: taxed in ${place}, no union threshold applies`,
    );
  }
  if (p.ossEnabled || p.ossThresholdExceeded) {
    const why = p.ossEnabled ? 'OSS is enabled' : 'the EUR 10 000 union threshold is exceeded';
    return taxed('oss_destination', place, `${what} (consumer): ${why}, taxed in ${place}`);
  }
  return taxed(
    'below_threshold_origin',
    p.homeCountry,
    `${what} (consumer): below the EUR 10 000 union threshold and OSS not enabled, taxed in ${p.homeCountry}`,
  );
}
