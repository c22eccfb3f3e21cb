import { describe, expect, it } from 'vitest';
import { EurofxrefFormatError, parseEurofxref } from './xml';

/** The shape of the ECB's eurofxref-hist-90d.xml (two days, a few currencies; rates made up). */
const SAMPLE = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
	<gesmes:subject>Reference rates</gesmes:subject>
	<gesmes:Sender>
		<gesmes:name>European Central Bank</gesmes:name>
	</gesmes:Sender>
	<Cube>
		<Cube time="2026-09-30">
			<Cube currency="USD" rate="1.0823"/>
			<Cube currency="JPY" rate="162.51"/>
			<Cube currency="IDR" rate="17512.34"/>
		</Cube>
		<Cube time="2026-10-01">
			<Cube currency="USD" rate="1.0799"/>
		</Cube>
	</Cube>
</gesmes:Envelope>
`;

const envelope = (cubes: string, ns = 'http://www.ecb.int/vocabulary/2002-08-01/eurofxref') =>
  `<?xml version="1.0"?><gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="${ns}"><Cube>${cubes}</Cube></gesmes:Envelope>`;

describe('eurofxref files', () => {
  it('reads every publication day with its rates, newest first, rates as numbers', () => {
    expect(parseEurofxref(SAMPLE)).toEqual([
      { date: '2026-10-01', rates: { USD: 1.0799 } },
      { date: '2026-09-30', rates: { USD: 1.0823, JPY: 162.51, IDR: 17512.34 } },
    ]);
  });

  it('reads a daily file (one day) and a day or a file without rates', () => {
    expect(parseEurofxref(envelope('<Cube time="2026-11-27"><Cube currency="GBP" rate="0.8466"/></Cube>'))).toEqual([
      { date: '2026-11-27', rates: { GBP: 0.8466 } },
    ]);
    expect(parseEurofxref(envelope('<Cube time="2026-11-27"></Cube>'))).toEqual([{ date: '2026-11-27', rates: {} }]);
    expect(parseEurofxref(envelope(''))).toEqual([]);
  });

  it('refuses what is not a eurofxref file', () => {
    const bad = [
      'not xml at all',
      '<html><body>Service Unavailable</body></html>',
      envelope('<Cube time="2026-11-27"><Cube currency="USD" rate="1.08"/>'),
      envelope('<Cube time="2026-11-27"><Cube currency="USD" rate="1.08"/></Cube>', 'urn:other'),
      envelope('<Cube time="2026-02-30"><Cube currency="USD" rate="1.08"/></Cube>'),
      envelope('<Cube time="2026-11-27"><Cube currency="USD" rate="-1.08"/></Cube>'),
      envelope('<Cube time="2026-11-27"><Cube currency="USD" rate="1,08"/></Cube>'),
      envelope('<Cube time="2026-11-27"><Cube currency="usd" rate="1.08"/></Cube>'),
      envelope('<Cube time="2026-11-27"><Cube currency="USD" rate="1.08"/><Cube currency="USD" rate="1.09"/></Cube>'),
      envelope('<Cube time="2026-11-27"></Cube><Cube time="2026-11-27"></Cube>'),
    ];
    for (const xml of bad) expect(() => parseEurofxref(xml), xml).toThrow(EurofxrefFormatError);
  });

  it('does not expand entities a DOCTYPE declares', () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE e [<!ENTITY a "1.08"><!ENTITY b "&a;&a;&a;&a;">]>${envelope('<Cube time="2026-11-27"><Cube currency="USD" rate="&b;"/></Cube>').replace('<?xml version="1.0"?>', '')}`;
    expect(() => parseEurofxref(bomb)).toThrow(/rate must be a positive decimal/);
  });
});
