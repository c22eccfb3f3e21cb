import { describe, expect, it } from 'vitest';
import type { SealedValue } from '@paymesh/core';
import { invoicingSettingsPatch } from '@paymesh/contracts';
import { applyInvoicingPatch, defaultInvoicingSettings, documentSettingsOf } from './invoicing-settings';
import { checkedSender, newSender, senderDnsRecord, verifiedSenderEmail } from './sender';

const seal = (): SealedValue => ({ kid: 'test', iv: '', ct: '', tag: '' });
const senderEmail = (value: unknown) => invoicingSettingsPatch.safeParse({ documents: { senderEmail: value } });

describe('documents.senderEmail (the merchant’s own From address)', () => {
  it('takes an address at a host name, its domain lower-cased, and refuses IP literals, bare hosts and junk', () => {
    const ok = senderEmail(' Billing@ACME.Example ');
    expect(ok.success && ok.data.documents?.senderEmail).toBe('Billing@acme.example');
    expect(senderEmail(null).success).toBe(true);
    for (const bad of ['billing@192.0.2.1', 'billing@[192.0.2.1]', 'billing@[IPv6:2001:db8::1]']) {
      const r = senderEmail(bad);
      expect(r.success, bad).toBe(false);
      expect(r.error?.issues[0]?.message, bad).toMatch(/host name .*not an IP address/);
    }
    for (const bad of ['billing@localhost', 'billing', '@acme.example', 'a b@acme.example', 'x@acme.123', 42])
      expect(senderEmail(bad).success, String(bad)).toBe(false);
  });

  it('starts pending with a TXT record under _paymesh-sender; the same address again keeps its state, another starts over', () => {
    const set = applyInvoicingPatch(
      defaultInvoicingSettings(),
      invoicingSettingsPatch.parse({ documents: { senderEmail: 'billing@acme.example' } }),
      seal,
    );
    const first = documentSettingsOf(set).sender;
    expect(first).toMatchObject({ email: 'billing@acme.example', state: 'pending', checkedAt: null });
    if (!first) throw new Error('no sender');
    expect(senderDnsRecord(first)).toEqual({
      type: 'TXT',
      name: '_paymesh-sender.acme.example',
      value: `paymesh-sender=${first.token}`,
    });
    expect(first.token).toMatch(/^[0-9a-f]{32}$/);

    const verified = {
      ...set,
      documents: { ...documentSettingsOf(set), sender: { ...first, state: 'verified' as const } },
    };
    const again = applyInvoicingPatch(
      verified,
      invoicingSettingsPatch.parse({ documents: { senderEmail: 'billing@ACME.example', language: 'de' } }),
      seal,
    );
    expect(documentSettingsOf(again).sender).toEqual({ ...first, state: 'verified' });
    expect(documentSettingsOf(again).language).toBe('de');

    const other = applyInvoicingPatch(
      verified,
      invoicingSettingsPatch.parse({ documents: { senderEmail: 'rechnung@acme.example' } }),
      seal,
    );
    const next = documentSettingsOf(other).sender;
    expect(next).toMatchObject({ email: 'rechnung@acme.example', state: 'pending', verifiedAt: null });
    expect(next?.token).not.toBe(first.token);

    // Other document settings leave the sender alone; null removes it.
    const untouched = applyInvoicingPatch(
      verified,
      invoicingSettingsPatch.parse({ documents: { language: 'en' } }),
      seal,
    );
    expect(documentSettingsOf(untouched).sender?.state).toBe('verified');
    const cleared = applyInvoicingPatch(
      verified,
      invoicingSettingsPatch.parse({ documents: { senderEmail: null } }),
      seal,
    );
    expect(documentSettingsOf(cleared).sender).toBeNull();
  });

  it('is verified by the expected TXT value only, keeps its first verification time, and fails again once the record is gone', () => {
    const s = newSender('billing@acme.example', 'abc');
    const failed = checkedSender(
      s,
      { values: [], reason: 'the name does not exist in DNS' },
      '2026-11-28T10:00:00.000Z',
    );
    expect(failed).toMatchObject({ state: 'failed', checkedAt: '2026-11-28T10:00:00.000Z', verifiedAt: null });
    expect(failed.reason).toBe(
      'the name does not exist in DNS: publish TXT _paymesh-sender.acme.example "paymesh-sender=abc"',
    );
    expect(verifiedSenderEmail(failed)).toBeNull();
    expect(checkedSender(s, { values: ['paymesh-sender=other'], reason: '' }, 'T1')).toMatchObject({
      state: 'failed',
      reason: expect.stringContaining('found 1 other'),
    });

    const ok = checkedSender(failed, { values: ['v=spf1 -all', ' paymesh-sender=abc '], reason: '' }, 'T2');
    expect(ok).toMatchObject({ state: 'verified', checkedAt: 'T2', verifiedAt: 'T2', reason: null });
    expect(verifiedSenderEmail(ok)).toBe('billing@acme.example');
    expect(checkedSender(ok, { values: ['paymesh-sender=abc'], reason: '' }, 'T3')).toMatchObject({
      state: 'verified',
      checkedAt: 'T3',
      verifiedAt: 'T2',
    });
    expect(checkedSender(ok, { values: [], reason: 'the name has no TXT record' }, 'T4').state).toBe('failed');
    expect(verifiedSenderEmail(newSender('billing@acme.example'))).toBeNull();
    expect(verifiedSenderEmail(null)).toBeNull();
  });
});
