import { describe, expect, it } from 'vitest';
import type { EInvoiceDocument, EInvoiceFormat } from '@paymesh/contracts';
import { einvoiceXml } from '../app/render-einvoice';
import { checkEInvoice } from './check';
import { MATRIX } from '../../test/einvoice-fixtures';

const rulesOf = (doc: EInvoiceDocument, format: EInvoiceFormat) => {
  const { xml, specification } = einvoiceXml({ format, document: doc });
  return checkEInvoice(doc, format, xml, specification, new Date())
    .findings.filter((f) => f.severity === 'error')
    .map((f) => f.rule);
};

describe('the in-process e-invoice check', () => {
  it('passes every document of the matrix in every format', () => {
    for (const doc of Object.values(MATRIX))
      for (const f of ['xrechnung', 'peppol', 'zugferd'] as const)
        expect(rulesOf(doc, f), `${doc.number} ${f}`).toEqual([]);
  });

  it('names the official rules a broken document breaks', () => {
    const d = MATRIX.domesticDE;
    expect(rulesOf({ ...d, seller: { ...d.seller, phone: null } }, 'xrechnung')).toEqual(['BR-DE-6']);
    expect(rulesOf({ ...d, seller: { ...d.seller, phone: null } }, 'peppol')).toEqual([]);
    expect(rulesOf({ ...d, seller: { ...d.seller, iban: null } }, 'xrechnung')).toEqual(['BR-DE-1']);
    expect(rulesOf({ ...d, totals: { ...d.totals, gross: d.totals.gross + 1 } }, 'zugferd')).toEqual(['BR-CO-15']);
    expect(rulesOf({ ...d, buyer: { ...d.buyer, endpoint: null } }, 'peppol')).toEqual(['PEPPOL-EN16931-R010']);
    expect(rulesOf({ ...d, seller: { ...d.seller, endpoint: { schemeId: '1234', value: 'x' } } }, 'peppol')).toEqual([
      'PEPPOL-EN16931-CL008',
    ]);
    expect(
      rulesOf({ ...MATRIX.reverseChargeFR, buyer: { ...MATRIX.reverseChargeFR.buyer, vatId: null } }, 'zugferd'),
    ).toEqual(['BR-AE-02']);
    expect(
      rulesOf(
        {
          ...d,
          lines: d.lines.map((l) => ({ ...l, tax: l.tax + 500 })),
          totals: { net: d.totals.net, tax: d.totals.tax + 1000, gross: d.totals.gross + 1000 },
        },
        'peppol',
      ),
    ).toEqual(['BR-CO-17']);
    expect(rulesOf({ ...d, currency: 'KWD' }, 'xrechnung')).toContain('BR-DEC-23');
  });
});
