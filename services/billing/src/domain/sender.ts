import { randomBytes } from 'node:crypto';
import { senderDomainOf } from '@paymesh/contracts';

/** Where a sender address stands: set and not yet checked, proven by its DNS record, or not found at the last check. */
export type SenderState = 'pending' | 'verified' | 'failed';

/** The merchant's own `From` address of document e-mails and its verification (invoicing settings, `documents.sender`). */
export interface SenderVerification {
  email: string;
  /** Random, new for every address set: the TXT record must carry it. */
  token: string;
  state: SenderState;
  /** The last check's time; null until checked. */
  checkedAt: string | null;
  /** When the record was first found for this address; null while not verified. */
  verifiedAt: string | null;
  /** Why the last check failed; null otherwise. */
  reason: string | null;
}

/** The DNS record a merchant publishes to prove its sender address. */
export interface SenderDnsRecord {
  type: 'TXT';
  name: string;
  value: string;
}

/** Label in front of the merchant's domain that carries the token (an RFC 8552 attribute leaf). */
export const SENDER_RECORD_LABEL = '_paymesh-sender';

export function senderDnsRecord(v: Pick<SenderVerification, 'email' | 'token'>): SenderDnsRecord {
  return { type: 'TXT', name: `${SENDER_RECORD_LABEL}.${senderDomainOf(v.email)}`, value: `paymesh-sender=${v.token}` };
}

/** A new sender address: pending, with a new token. */
export function newSender(email: string, token: string = randomBytes(16).toString('hex')): SenderVerification {
  return { email, token, state: 'pending', checkedAt: null, verifiedAt: null, reason: null };
}

/**
 * What a settings write does to the sender: the same address (its domain compared case-blind, as
 * stored) keeps its verification, so repeating the write changes nothing; another address starts
 * over (pending, a new token); null removes it.
 */
export function nextSender(
  current: SenderVerification | null,
  email: string | null,
  token?: string,
): SenderVerification | null {
  if (email === null) return null;
  if (current && current.email === email) return current;
  return newSender(email, token);
}

/** The TXT records DNS answered for the record's name (none: why). */
export type TxtAnswer = { values: string[]; reason: string };

/**
 * The outcome of a check against DNS's answer: verified when one TXT record is the expected value
 * (white space around it ignored), failed otherwise, saying what was found. A record that was
 * removed makes a verified sender fail again; verifiedAt stays the first success's.
 */
export function checkedSender(current: SenderVerification, answer: TxtAnswer, now: string): SenderVerification {
  const record = senderDnsRecord(current);
  const found = answer.values.some((v) => v.trim() === record.value);
  if (found) {
    return {
      ...current,
      state: 'verified',
      checkedAt: now,
      verifiedAt: current.state === 'verified' && current.verifiedAt ? current.verifiedAt : now,
      reason: null,
    };
  }
  const reason =
    answer.values.length === 0
      ? `${answer.reason || 'no TXT record'}: publish TXT ${record.name} "${record.value}"`
      : `no TXT record ${record.name} carries "${record.value}" (found ${answer.values.length} other)`;
  return { ...current, state: 'failed', checkedAt: now, verifiedAt: null, reason };
}

/** The `From` address document e-mails use: the merchant's only while verified, else null (the platform's). */
export function verifiedSenderEmail(sender: SenderVerification | null | undefined): string | null {
  return sender?.state === 'verified' ? sender.email : null;
}
