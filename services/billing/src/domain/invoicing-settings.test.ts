import { describe, expect, it } from 'vitest';
import { ValidationError, type SealedValue } from '@paymesh/core';
import { invoicingSettingsPatch } from '@paymesh/contracts';
import { applyInvoicingPatch, defaultInvoicingSettings, type Sealer } from './invoicing-settings';

/** Reversible fake sealing so tests can see what would be encrypted. */
const seal: Sealer = (plaintext, field) => ({
  kid: 'test',
  iv: field,
  ct: Buffer.from(plaintext).toString('base64url'),
  tag: '',
});
const opened = (v: SealedValue) => Buffer.from(v.ct, 'base64url').toString();
const patch = (body: unknown) => invoicingSettingsPatch.parse(body);

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err.field;
    throw err;
  }
  return undefined;
}

describe('defaultInvoicingSettings', () => {
  it('is disabled with a 336-hour payment link and INV/CN yearly layouts', () => {
    const s = defaultInvoicingSettings();
    expect(s.enabled).toBe(false);
    expect(s.autoPaymentLinkExpiresInHours).toBe(336);
    expect(s.invoiceNumberLayout.prefix).toBe('INV');
    expect(s.creditNoteNumberLayout.prefix).toBe('CN');
    expect(s.bankIBAN).toBeNull();
  });
});

describe('applyInvoicingPatch', () => {
  it('changes only the fields present and merges layout fields', () => {
    const cur = defaultInvoicingSettings();
    const next = applyInvoicingPatch(
      cur,
      patch({ companyName: 'ACME GmbH', invoiceNumberLayout: { prefix: 'RE', sequenceDigits: 6 } }),
      seal,
    );
    expect(next.companyName).toBe('ACME GmbH');
    expect(next.invoiceNumberLayout).toEqual({ ...cur.invoiceNumberLayout, prefix: 'RE', sequenceDigits: 6 });
    expect(next.creditNoteNumberLayout).toEqual(cur.creditNoteNumberLayout);
    expect(cur.companyName).toBeNull();
  });

  it('seals a valid IBAN in electronic format and keeps only a mask in view', () => {
    const next = applyInvoicingPatch(
      defaultInvoicingSettings(),
      patch({ bankIBAN: { plaintext: 'de89 3704 0044 0532 0130 00' } }),
      seal,
    );
    expect(next.bankIBAN?.masked).toBe('DE89 **** **** **** **30 00');
    expect(opened(next.bankIBAN!.sealed)).toBe('DE89370400440532013000');
  });

  it('clears nullable fields with null', () => {
    const withIban = applyInvoicingPatch(
      defaultInvoicingSettings(),
      patch({ bankIBAN: { plaintext: 'DE89370400440532013000' } }),
      seal,
    );
    expect(applyInvoicingPatch(withIban, patch({ bankIBAN: null }), seal).bankIBAN).toBeNull();
  });

  it('rejects a bad IBAN checksum naming bankIBAN.plaintext', () => {
    expect(
      fieldOf(() =>
        applyInvoicingPatch(
          defaultInvoicingSettings(),
          patch({ bankIBAN: { plaintext: 'DE89370400440532013001' } }),
          seal,
        ),
      ),
    ).toBe('bankIBAN.plaintext');
  });

  it('rejects a well-formed but unassigned country code', () => {
    const body = { companyAddress: { street: 'Main 1', city: 'Berlin', postalCode: '10115', country: 'QQ' } };
    expect(fieldOf(() => applyInvoicingPatch(defaultInvoicingSettings(), patch(body), seal))).toBe(
      'companyAddress.country',
    );
  });

  it('seals the seller Peppol routing value and merges eInvoice fields', () => {
    const next = applyInvoicingPatch(
      defaultInvoicingSettings(),
      patch({
        eInvoice: {
          enabled: true,
          allowedFormats: ['peppol', 'peppol'],
          sellerPeppolRoutingAddress: { schemeId: '0088', value: { plaintext: '4000001000005' } },
        },
      }),
      seal,
    );
    expect(next.eInvoice.enabled).toBe(true);
    expect(next.eInvoice.allowedFormats).toEqual(['peppol']);
    expect(next.eInvoice.strictValidation).toBe(true);
    expect(next.eInvoice.sellerPeppolRoutingAddress?.schemeId).toBe('0088');
    expect(opened(next.eInvoice.sellerPeppolRoutingAddress!.value)).toBe('4000001000005');
  });

  it('rejects a layout that would repeat numbers, naming its resetPolicy', () => {
    const body = { invoiceNumberLayout: { periodType: 'none', resetPolicy: 'calendar_year' } };
    expect(fieldOf(() => applyInvoicingPatch(defaultInvoicingSettings(), patch(body), seal))).toBe(
      'invoiceNumberLayout.resetPolicy',
    );
  });

  it('rejects a start number with more digits than the layout has, naming startNumber', () => {
    const body = { invoiceNumberLayout: { sequenceDigits: 3, startNumber: 1000 } };
    expect(fieldOf(() => applyInvoicingPatch(defaultInvoicingSettings(), patch(body), seal))).toBe(
      'invoiceNumberLayout.startNumber',
    );
    const fits = applyInvoicingPatch(
      defaultInvoicingSettings(),
      patch({ invoiceNumberLayout: { sequenceDigits: 3, startNumber: 999 } }),
      seal,
    );
    expect(fits.invoiceNumberLayout.startNumber).toBe(999);
  });

  it('checks a layout as merged with its stored fields', () => {
    const none = applyInvoicingPatch(
      defaultInvoicingSettings(),
      patch({ creditNoteNumberLayout: { periodType: 'none', resetPolicy: 'never' } }),
      seal,
    );
    expect(
      fieldOf(() => applyInvoicingPatch(none, patch({ creditNoteNumberLayout: { resetPolicy: 'fiscal_year' } }), seal)),
    ).toBe('creditNoteNumberLayout.resetPolicy');
  });

  it('rejects invoice and credit note layouts with the same literal parts', () => {
    expect(
      fieldOf(() =>
        applyInvoicingPatch(defaultInvoicingSettings(), patch({ creditNoteNumberLayout: { prefix: 'INV' } }), seal),
      ),
    ).toBe('creditNoteNumberLayout.prefix');
  });
});

describe('invoicingSettingsPatch (shared body schema)', () => {
  const issuePaths = (body: unknown) => {
    const r = invoicingSettingsPatch.safeParse(body);
    return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
  };

  it('rejects wrong types, unknown enums, unknown fields and missing nested fields with their paths', () => {
    expect(issuePaths({ enabled: 'yes' })).toEqual(['enabled']);
    expect(issuePaths({ invoiceNumberLayout: { periodType: 'weekly' } })).toEqual(['invoiceNumberLayout.periodType']);
    expect(issuePaths({ eInvoice: { allowedFormats: ['pdf'] } })).toEqual(['eInvoice.allowedFormats.0']);
    expect(issuePaths({ companyAddress: { street: 'a', city: 'b', country: 'DE' } })).toEqual([
      'companyAddress.postalCode',
    ]);
    expect(issuePaths({ bogus: 1 })).toEqual(['']);
    expect(issuePaths({ autoPaymentLinkExpiresInHours: 3121 })).toEqual(['autoPaymentLinkExpiresInHours']);
    expect(issuePaths({ autoPaymentLinkExpiresInHours: 0 })).toEqual(['autoPaymentLinkExpiresInHours']);
    expect(issuePaths({ invoiceNumberLayout: { sequenceDigits: 13 } })).toEqual(['invoiceNumberLayout.sequenceDigits']);
    expect(issuePaths({ invoiceNumberLayout: { fiscalYearStartMonth: 13 } })).toEqual([
      'invoiceNumberLayout.fiscalYearStartMonth',
    ]);
    expect(issuePaths({ invoiceNumberLayout: { startNumber: 0 } })).toEqual(['invoiceNumberLayout.startNumber']);
    expect(issuePaths({ bankIBAN: {} })).toEqual(['bankIBAN.plaintext']);
  });

  it('accepts every field of the settings table', () => {
    const layout = {
      prefix: 'INV',
      periodType: 'fiscal',
      periodGranularity: 'year_month',
      fiscalYearStartMonth: 4,
      fiscalYearLabelMode: 'start_year',
      periodSeparator: 'none',
      infix: 'X',
      sequenceDigits: 6,
      suffix: 'S',
      resetPolicy: 'fiscal_year',
      startNumber: 100,
    };
    const r = invoicingSettingsPatch.safeParse({
      enabled: true,
      autoGenerateInvoice: true,
      companyName: 'ACME',
      companyEmail: 'billing@acme.example',
      companyAddress: { street: 'Main 1', city: 'Berlin', postalCode: '10115', country: 'de' },
      bankIBAN: { plaintext: 'DE89370400440532013000' },
      eInvoice: {
        enabled: true,
        allowedFormats: ['xrechnung', 'peppol', 'zugferd'],
        strictValidation: false,
        sellerPeppolRoutingAddress: { schemeId: '9930', value: { plaintext: 'DE123456789' } },
      },
      autoPaymentLinkExpiresInHours: 72,
      invoiceNumberLayout: layout,
      creditNoteNumberLayout: { ...layout, prefix: 'CN' },
    });
    expect(r.success).toBe(true);
    expect(r.data?.companyAddress?.country).toBe('DE');
  });
});
