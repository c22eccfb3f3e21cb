import { ConflictError, ErrorCode, UnprocessableError } from '@paymesh/core';
import type { SenderCheckView, SenderVerificationView } from '@paymesh/contracts';
import { findOrgSettings } from '@paymesh/store';
import { documentSettingsOf, type InvoicingSettings } from '../domain/invoicing-settings';
import { checkedSender, senderDnsRecord, type SenderVerification, type TxtAnswer } from '../domain/sender';
import { INVOICING_SETTINGS } from '../store/collections';
import type { BillingDeps, OrgKey } from './deps';
import { changeInvoicingSettings } from './invoicing-settings';

/** DNS as the sender check uses it (checkout's resolvers, see `LookupDnsTxt`). */
export interface SenderDnsPort {
  /** The TXT records of a name; throws UnavailableError without a definitive DNS answer. */
  lookupTxt(hostname: string): Promise<TxtAnswer>;
}

export interface SenderDeps extends BillingDeps {
  dns: SenderDnsPort;
}

/** The public view of a stored sender (the token only as the record's value). */
export function senderView(s: SenderVerification): SenderVerificationView {
  return {
    email: s.email,
    state: s.state,
    dnsRecord: senderDnsRecord(s),
    checkedAt: s.checkedAt,
    verifiedAt: s.verifiedAt,
    reason: s.reason,
  };
}

/**
 * `POST /organizations/settings/invoicing/sender/verify`: looks up the sender's TXT record and
 * stores the outcome (verified or failed, with the time). Repeating it gives the same outcome while
 * DNS does not change; a verified sender whose record was removed fails. Without an address: 422
 * SENDER_EMAIL_MISSING; without a definitive DNS answer: 503 and nothing changes; an address changed
 * during the lookup: 409 and the new address stays pending.
 */
export async function verifySender(deps: SenderDeps, key: OrgKey): Promise<SenderCheckView> {
  const doc = await findOrgSettings<InvoicingSettings>(deps.store, INVOICING_SETTINGS, key.organizationId, key.mode);
  const sender = doc ? (documentSettingsOf(doc.settings).sender ?? null) : null;
  if (!sender) {
    throw new UnprocessableError(
      'documents.senderEmail: set a sender address (PUT /organizations/settings/invoicing) before verifying it',
      { code: ErrorCode.SENDER_EMAIL_MISSING, field: 'documents.senderEmail' },
    );
  }
  const record = senderDnsRecord(sender);
  const answer = await deps.dns.lookupTxt(record.name);
  const checked = checkedSender(sender, answer, deps.clock.now().toISOString());
  const saved = await changeInvoicingSettings(deps, key, (current) => {
    const documents = documentSettingsOf(current);
    if (documents.sender?.token !== sender.token)
      throw new ConflictError('documents.senderEmail changed during the check; verify the new address');
    return { ...current, documents: { ...documents, sender: checked } };
  });
  deps.logger.info(
    { organizationId: key.organizationId, mode: key.mode, domain: record.name, state: checked.state },
    'e-mail sender checked',
  );
  const stored = documentSettingsOf(saved.settings).sender ?? checked;
  return { ...senderView(stored), foundValues: answer.values };
}
