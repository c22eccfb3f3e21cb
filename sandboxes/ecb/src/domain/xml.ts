import { create } from 'xmlbuilder2';

/** Namespaces of the ECB's eurofxref files. */
export const GESMES_NS = 'http://www.gesmes.org/xml/2002-08-01';
export const EUROFXREF_NS = 'http://www.ecb.int/vocabulary/2002-08-01/eurofxref';

export interface Publication {
  /** Publication day `YYYY-MM-DD`. */
  time: string;
  /** Units of the currency per 1 EUR. */
  rates: Record<string, number>;
}

/**
 * The eurofxref document as the ECB serves it: a gesmes:Envelope whose Cube holds one
 * `Cube time=` per publication day (newest first), each with `Cube currency= rate=` per currency.
 */
export function eurofxrefXml(publications: Publication[]): string {
  const envelope = create({ version: '1.0', encoding: 'UTF-8' })
    .ele(GESMES_NS, 'gesmes:Envelope')
    .att('http://www.w3.org/2000/xmlns/', 'xmlns', EUROFXREF_NS);
  envelope.ele(GESMES_NS, 'gesmes:subject').txt('Reference rates');
  envelope.ele(GESMES_NS, 'gesmes:Sender').ele(GESMES_NS, 'gesmes:name').txt('European Central Bank');
  const outer = envelope.ele(EUROFXREF_NS, 'Cube');
  for (const p of publications) {
    const day = outer.ele(EUROFXREF_NS, 'Cube').att('time', p.time);
    for (const [currency, rate] of Object.entries(p.rates))
      day.ele(EUROFXREF_NS, 'Cube').att({ currency, rate: String(rate) });
  }
  return `${envelope.end({ prettyPrint: true })}\n`;
}
