import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { z } from 'zod';

/**
 * The ECB's euro foreign exchange reference-rate files (eurofxref-daily.xml, -hist-90d.xml,
 * -hist.xml): a `gesmes:Envelope` whose `Cube` holds one `Cube time="YYYY-MM-DD"` per publication
 * day with one `Cube currency="USD" rate="1.0823"` per currency (units of the currency per 1 EUR).
 * Wire format only; what the rates mean for a report is in domain/ecb-rates.ts.
 */

export const EUROFXREF_NS = 'http://www.ecb.int/vocabulary/2002-08-01/eurofxref';

/** One publication day of the ECB. */
export interface EcbPublication {
  /** Publication day `YYYY-MM-DD`. */
  date: string;
  /** Units of the currency per 1 EUR, by three-letter code. */
  rates: Record<string, number>;
}

/** The file is not a reference-rate file we can read. */
export class EurofxrefFormatError extends Error {
  override readonly name = 'EurofxrefFormatError';
}

export const GESMES_NS = 'http://www.gesmes.org/xml/2002-08-01';

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseAttributeValue: false,
  parseTagValue: false,
  // Entities are not expanded: nothing in these files needs one, and a DOCTYPE cannot inflate the input.
  processEntities: false,
  isArray: (name) => name === 'Cube',
});

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'time must be a date YYYY-MM-DD')
  .refine((d) => new Date(`${d}T00:00:00.000Z`).toISOString().startsWith(d), 'time must be a date that exists');
const rate = z
  .string()
  .regex(/^\d{1,9}(\.\d{1,9})?$/, 'rate must be a positive decimal')
  .transform(Number)
  .refine((n) => n > 0, 'rate must be above 0');

const currencyCube = z.object({
  '@currency': z.string().regex(/^[A-Z]{3}$/, 'currency must be a three-letter code'),
  '@rate': rate,
});
/** An element with neither attributes nor children reads as an empty string. */
const element = <T extends z.ZodTypeAny>(schema: T) => z.preprocess((v) => (v === '' ? {} : v), schema);
const dayCube = element(z.object({ '@time': day, Cube: z.array(currencyCube).optional() }));
/** The envelope's content; its `Cube` elements are in the default namespace (unprefixed). */
const envelope = z
  .object({
    '@xmlns': z.literal(EUROFXREF_NS, {
      errorMap: () => ({ message: `the default namespace must be ${EUROFXREF_NS}` }),
    }),
    Cube: z
      .array(element(z.object({ Cube: z.array(dayCube).optional() })))
      .length(1, 'the envelope must hold one Cube'),
  })
  .passthrough();

/** The root element: `<p:Envelope xmlns:p="${GESMES_NS}">` whatever the prefix. */
function envelopeOf(doc: Record<string, unknown>): unknown {
  const roots = Object.keys(doc).filter((k) => k !== '?xml' && k !== '!DOCTYPE');
  const name = roots.length === 1 ? (roots[0] ?? '') : '';
  const match = /^(?:([A-Za-z_][\w.-]*):)?Envelope$/.exec(name);
  const root = doc[name];
  if (!match || typeof root !== 'object' || root === null)
    throw new EurofxrefFormatError(
      `not a eurofxref file: the root element must be gesmes:Envelope, not ${name || 'missing'}`,
    );
  const ns = (root as Record<string, unknown>)[match[1] ? `@xmlns:${match[1]}` : '@xmlns'];
  if (ns !== GESMES_NS)
    throw new EurofxrefFormatError(`not a eurofxref file: the Envelope must be in the namespace ${GESMES_NS}`);
  return root;
}

/** Publications of a eurofxref file, newest first; throws EurofxrefFormatError for anything else. */
export function parseEurofxref(xml: string): EcbPublication[] {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new EurofxrefFormatError(`not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  const parsed = envelope.safeParse(envelopeOf(parser.parse(xml) as Record<string, unknown>));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EurofxrefFormatError(
      `not a eurofxref file: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'unexpected shape'}`,
    );
  }
  const byDate = new Map<string, Record<string, number>>();
  for (const cube of parsed.data.Cube[0]?.Cube ?? []) {
    const time = cube['@time'];
    if (byDate.has(time)) throw new EurofxrefFormatError(`not a eurofxref file: ${time} appears twice`);
    const rates: Record<string, number> = {};
    for (const c of cube.Cube ?? []) {
      const currency = c['@currency'];
      if (currency in rates)
        throw new EurofxrefFormatError(`not a eurofxref file: ${currency} appears twice on ${time}`);
      rates[currency] = c['@rate'];
    }
    byDate.set(time, rates);
  }
  return [...byDate].map(([date, rates]) => ({ date, rates })).sort((a, b) => b.date.localeCompare(a.date));
}
