import type { VatIdCheck } from '@paymesh/contracts';
import type { Clock, Logger } from '@paymesh/core';
import type { DocumentStore, StoredDoc } from '@paymesh/store';
import { parseVatId, type VatId } from '../domain/vat-id';
import { VIES_CHECKS } from '../store/collections';
import type { ViesAnswer, ViesPort } from '../vies/client';
import type { OrgKey } from './deps';
import { getTaxSettings } from './tax-settings';
import type { VatIdChecker } from './vat-id-port';

/** One VIES answer as received, kept as evidence; the newest one within the TTL is the cache. */
export interface ViesCheckDoc extends StoredDoc {
  /** `<vatId>|<requester vatId or empty>` */
  key: string;
  vatId: string;
  countryCode: string;
  vatNumber: string;
  requesterVatId: string | null;
  valid: boolean;
  /** VIES's own time of the check. */
  requestDate: string;
  /** Consultation number, when VIES issued one (a requester was named). */
  requestIdentifier: string | null;
  /** Name and address as VIES sent them (`---` where the member state withholds them). */
  name: string | null;
  address: string | null;
  checkedAt: string;
}

export interface VatIdCheckerDeps {
  store: DocumentStore;
  clock: Clock;
  logger: Logger;
  vies: ViesPort;
  /** How long an answer is reused; 0 = always ask VIES. */
  cacheTtlSeconds: number;
}

/** Name and address for display: withheld (`---`) is as good as none. */
const shown = (s: string | null): string | null => (s === null || /^-+$/.test(s.trim()) ? null : s);

function fromDoc(doc: ViesCheckDoc, source: 'vies' | 'cache'): VatIdCheck {
  return {
    vatId: doc.vatId,
    status: doc.valid ? 'valid' : 'invalid',
    source,
    checkedAt: doc.checkedAt,
    consultationNumber: doc.requestIdentifier,
    companyName: shown(doc.name),
    address: shown(doc.address),
    error: null,
  };
}

const checkOf = (
  vatId: string | null,
  status: VatIdCheck['status'],
  source: VatIdCheck['source'],
  checkedAt: string,
  error: string | null = null,
): VatIdCheck => ({
  vatId,
  status,
  source,
  checkedAt,
  consultationNumber: null,
  companyName: null,
  address: null,
  error,
});

/**
 * The VAT ID checker: format and check digits first (a malformed ID never reaches VIES); in `vies`
 * mode then the cache, then VIES itself. The organization's own VAT ID, when its tax settings have
 * one, is named as the requester so VIES issues a consultation number. Outages, faults and timeouts
 * answer `unverified` with the fault code; nothing here throws for them, and they are not cached.
 */
export function createVatIdChecker(deps: VatIdCheckerDeps): VatIdChecker {
  return {
    async check(raw, mode, requester) {
      const now = deps.clock.now().toISOString();
      const parsed = parseVatId(raw);
      if (!parsed.ok) return checkOf(raw.trim(), 'malformed', 'format', now);
      if (mode === 'format') return checkOf(parsed.vatId, 'well_formed', 'format', now);
      const requesterVatId = !requester
        ? null
        : 'vatId' in requester
          ? requester.vatId
          : await ownVatId(deps, requester);
      return checkWithVies(deps, parsed, requesterVatId, now);
    },
  };
}

async function ownVatId(deps: VatIdCheckerDeps, key: OrgKey): Promise<string | null> {
  try {
    return (await getTaxSettings(deps, key)).settings.vatId;
  } catch (err) {
    deps.logger.warn(
      { err, organizationId: key.organizationId },
      'tax settings unreadable; VIES check without requester',
    );
    return null;
  }
}

async function checkWithVies(
  deps: VatIdCheckerDeps,
  id: VatId,
  requesterVatId: string | null,
  now: string,
): Promise<VatIdCheck> {
  const key = `${id.vatId}|${requesterVatId ?? ''}`;
  const cached = await fromCache(deps, key, now);
  if (cached) return fromDoc(cached, 'cache');

  const requester = requesterVatId === null ? null : parseVatId(requesterVatId);
  const outcome = await deps.vies.check({
    countryCode: id.countryCode,
    vatNumber: id.number,
    ...(requester?.ok ? { requester: { countryCode: requester.countryCode, vatNumber: requester.number } } : {}),
  });
  if (!outcome.ok) {
    // VIES does not know the merchant's own VAT ID: check the buyer's without naming a requester.
    if (outcome.error === 'INVALID_REQUESTER_INFO' && requesterVatId !== null) {
      deps.logger.warn(
        { requesterVatId },
        "VIES rejects the organization's own VAT ID as requester; checking without it",
      );
      return checkWithVies(deps, id, null, now);
    }
    return checkOf(id.vatId, 'unverified', 'vies', now, outcome.error);
  }
  return fromDoc(await keep(deps, key, id, requesterVatId, outcome.answer, now), 'vies');
}

async function fromCache(deps: VatIdCheckerDeps, key: string, now: string): Promise<ViesCheckDoc | null> {
  if (deps.cacheTtlSeconds <= 0) return null;
  const since = new Date(Date.parse(now) - deps.cacheTtlSeconds * 1000).toISOString();
  try {
    return await deps.store
      .collection<ViesCheckDoc>(VIES_CHECKS)
      .findOne({ key, checkedAt: { $gt: since } }, { sort: { checkedAt: -1 } });
  } catch (err) {
    deps.logger.warn({ err }, 'VIES cache unreadable; asking VIES');
    return null;
  }
}

/** Stores the answer as evidence; an unavailable store does not cost the buyer the answer. */
async function keep(
  deps: VatIdCheckerDeps,
  key: string,
  id: VatId,
  requesterVatId: string | null,
  a: ViesAnswer,
  now: string,
): Promise<ViesCheckDoc> {
  const doc: Omit<ViesCheckDoc, 'id' | 'version'> = {
    key,
    vatId: id.vatId,
    countryCode: id.countryCode,
    vatNumber: id.number,
    requesterVatId,
    valid: a.valid,
    requestDate: a.requestDate,
    requestIdentifier: a.requestIdentifier,
    name: a.name,
    address: a.address,
    checkedAt: now,
  };
  try {
    return await deps.store.collection<ViesCheckDoc>(VIES_CHECKS).insert(doc);
  } catch (err) {
    deps.logger.error({ err, vatId: id.vatId }, 'VIES answer not stored as evidence');
    return { ...doc, id: '', version: 0 };
  }
}
