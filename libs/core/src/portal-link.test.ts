import { describe, expect, it } from 'vitest';
import { newPortalLinkId, signPortalLink, verifyPortalLink } from './portal-link';

const KEY = 'k'.repeat(40);
const now = new Date('2027-03-01T10:00:00Z');
const claims = {
  organizationId: 'a'.repeat(24),
  mode: 'live' as const,
  email: 'erika@example.test',
  expiresAt: new Date('2027-03-01T10:30:00Z'),
  linkId: newPortalLinkId(),
};

describe('portal magic-link tokens', () => {
  it('verifies what it signed, with every claim', () => {
    const token = signPortalLink(KEY, claims);
    expect(verifyPortalLink(KEY, token, now)).toEqual({ ok: true, claims });
  });

  it('refuses a token past its expiry', () => {
    const token = signPortalLink(KEY, claims);
    expect(verifyPortalLink(KEY, token, new Date('2027-03-01T10:30:00Z'))).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses another key, a changed payload, a changed signature and garbage as malformed', () => {
    const token = signPortalLink(KEY, claims);
    expect(verifyPortalLink('x'.repeat(40), token, now)).toEqual({ ok: false, reason: 'malformed' });
    const [p, payload, sig] = token.split('.') as [string, string, string];
    const other = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), e: 'mallory@example.test' }),
    ).toString('base64url');
    expect(verifyPortalLink(KEY, `${p}.${other}.${sig}`, now)).toEqual({ ok: false, reason: 'malformed' });
    const flipped = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
    expect(verifyPortalLink(KEY, `${p}.${payload}.${flipped}`, now)).toEqual({ ok: false, reason: 'malformed' });
    for (const bad of ['', 'pml1', 'pml1..', 'x.y.z', `${token}.x`, 42, null, 'a'.repeat(5000)]) {
      expect(verifyPortalLink(KEY, bad, now)).toEqual({ ok: false, reason: 'malformed' });
    }
  });
});
