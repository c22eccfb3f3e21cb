import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, UnavailableError } from '@paymesh/core';
import { createDomain, deleteDomain, getDomain, listDomains } from '../src/app/domains';
import { verifyDomainCname } from '../src/app/verify-domain';
import { lookupDnsTxt } from '../src/app/lookup-txt';
import { createSite } from '../src/app/create-site';
import { deleteSite } from '../src/app/delete-site';
import { resolveBuyerHost } from '../src/app/resolve-buyer-host';
import { TestDnsServer } from '../../../test/support/dns-server';
import { openTestCheckout, orgId, type TestCheckout } from './helpers';

const TARGET = 'checkout.paymesh.example';

describe('custom domains with a real CNAME lookup against a local DNS server', () => {
  let dns: TestDnsServer;
  let t: TestCheckout;
  const orgA = orgId();
  const orgB = orgId();

  beforeAll(async () => {
    dns = new TestDnsServer();
    t = await openTestCheckout(await dns.start(), TARGET);
  });
  afterAll(async () => {
    await t?.close();
    await dns?.stop();
  });

  it('registers a host name once across all organizations (409 for the second)', async () => {
    const d = await createDomain(t.deps, {
      organizationId: orgA,
      mode: 'live',
      hostname: 'Pay.Unique.Example',
      siteId: null,
    });
    expect(d).toMatchObject({ hostname: 'pay.unique.example', verified: false, siteId: null });
    await expect(
      createDomain(t.deps, { organizationId: orgB, mode: 'live', hostname: 'pay.unique.example.', siteId: null }),
    ).rejects.toMatchObject({
      kind: 'conflict',
      code: 'DOMAIN_ALREADY_REGISTERED',
    });
    await expect(
      createDomain(t.deps, { organizationId: orgA, mode: 'test', hostname: 'pay.unique.example', siteId: null }),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  it('frees the host name on delete; another tenant cannot see or delete it', async () => {
    const d = await createDomain(t.deps, {
      organizationId: orgA,
      mode: 'live',
      hostname: 'free.shop.example',
      siteId: null,
    });
    await expect(getDomain(t.deps, orgB, 'live', d.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(deleteDomain(t.deps, orgB, 'live', d.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await listDomains(t.deps, orgB, 'live', { page: 1, limit: 100, siteId: undefined })).items).toHaveLength(0);
    await deleteDomain(t.deps, orgA, 'live', d.id);
    await expect(getDomain(t.deps, orgA, 'live', d.id)).rejects.toBeInstanceOf(NotFoundError);
    const again = await createDomain(t.deps, {
      organizationId: orgB,
      mode: 'live',
      hostname: 'free.shop.example',
      siteId: null,
    });
    expect(again.organizationId).toBe(orgB);
  });

  it('verifies a domain whose CNAME points at the checkout host, asking the configured server', async () => {
    await createDomain(t.deps, { organizationId: orgA, mode: 'live', hostname: 'pay.good.example', siteId: null });
    dns.zone.set('pay.good.example', { cname: 'Checkout.Paymesh.Example' });
    const check = await verifyDomainCname(t.deps, orgA, 'live', 'PAY.good.example');
    expect(dns.queries).toContain('pay.good.example');
    expect(check).toMatchObject({ verified: true, expectedCname: TARGET, foundCnames: [TARGET], reason: '' });
    expect(check.domain.verifiedAt).toBe(check.checkedAt);
    const stored = await getDomain(t.deps, orgA, 'live', check.domain.id);
    expect(stored).toMatchObject({ verified: true, lastCheckedAt: check.checkedAt });
  });

  it('does not verify a CNAME to another host, and un-verifies a domain that was repointed', async () => {
    await createDomain(t.deps, { organizationId: orgA, mode: 'live', hostname: 'pay.moved.example', siteId: null });
    dns.zone.set('pay.moved.example', { cname: TARGET });
    expect((await verifyDomainCname(t.deps, orgA, 'live', 'pay.moved.example')).verified).toBe(true);
    dns.zone.set('pay.moved.example', { cname: 'checkout.paymesh.example.evil.example' });
    const check = await verifyDomainCname(t.deps, orgA, 'live', 'pay.moved.example');
    expect(check).toMatchObject({ verified: false, foundCnames: ['checkout.paymesh.example.evil.example'] });
    expect(check.reason).toMatch(/expected checkout\.paymesh\.example/);
    expect(await getDomain(t.deps, orgA, 'live', check.domain.id)).toMatchObject({ verified: false, verifiedAt: null });
  });

  it('explains a missing record (NXDOMAIN and a name without CNAME)', async () => {
    await createDomain(t.deps, { organizationId: orgA, mode: 'live', hostname: 'pay.missing.example', siteId: null });
    const nx = await verifyDomainCname(t.deps, orgA, 'live', 'pay.missing.example');
    expect(nx).toMatchObject({ verified: false, foundCnames: [] });
    expect(nx.reason).toMatch(/does not exist/);
    dns.zone.set('pay.missing.example', { a: '192.0.2.10' });
    const nodata = await verifyDomainCname(t.deps, orgA, 'live', 'pay.missing.example');
    expect(nodata.reason).toMatch(/no CNAME record/);
  });

  it('fails with 503 (UnavailableError) and changes nothing when DNS gives no answer', async () => {
    await createDomain(t.deps, { organizationId: orgA, mode: 'live', hostname: 'pay.flaky.example', siteId: null });
    dns.zone.set('pay.flaky.example', { cname: TARGET });
    const ok = await verifyDomainCname(t.deps, orgA, 'live', 'pay.flaky.example');
    dns.zone.set('pay.flaky.example', { servfail: true });
    await expect(verifyDomainCname(t.deps, orgA, 'live', 'pay.flaky.example')).rejects.toBeInstanceOf(UnavailableError);
    expect(await getDomain(t.deps, orgA, 'live', ok.domain.id)).toMatchObject({
      verified: true,
      lastCheckedAt: ok.checkedAt,
    });
  });

  it('answers 404 for a host name the organization has not registered, even if another has', async () => {
    await createDomain(t.deps, { organizationId: orgB, mode: 'live', hostname: 'pay.other.example', siteId: null });
    dns.zone.set('pay.other.example', { cname: TARGET });
    await expect(verifyDomainCname(t.deps, orgA, 'live', 'pay.other.example')).rejects.toBeInstanceOf(NotFoundError);
    await expect(verifyDomainCname(t.deps, orgA, 'live', 'never.registered.example')).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('resolves the host of a buyer page: a verified custom domain alone, else every live site listing it as a frontend domain', async () => {
    const site = (organizationId: string, mode: 'live' | 'test', frontendDomains: string[]) =>
      createSite(t.deps, { organizationId, mode, name: 'Shop', url: 'https://shop.example', frontendDomains });
    await site(orgA, 'live', ['portal.shared.example', 'localhost:5173']);
    await site(orgA, 'test', ['portal.shared.example']);
    expect(await resolveBuyerHost(t.deps, 'Portal.Shared.Example')).toEqual(
      expect.arrayContaining([
        { organizationId: orgA, mode: 'live', source: 'frontend_domain' },
        { organizationId: orgA, mode: 'test', source: 'frontend_domain' },
      ]),
    );
    expect(await resolveBuyerHost(t.deps, 'localhost:5173')).toEqual([
      { organizationId: orgA, mode: 'live', source: 'frontend_domain' },
    ]);
    // Another organization listing the same host: both are named (the caller cannot tell).
    const b = await site(orgB, 'live', ['portal.shared.example']);
    expect(new Set((await resolveBuyerHost(t.deps, 'portal.shared.example')).map((x) => x.organizationId))).toEqual(
      new Set([orgA, orgB]),
    );
    await deleteSite(t.deps, orgB, 'live', b.site.id);
    expect((await resolveBuyerHost(t.deps, 'portal.shared.example')).map((x) => x.organizationId)).not.toContain(orgB);
    // A verified custom domain names its organization alone, whoever lists it as a frontend domain.
    await site(orgB, 'live', ['kunden.verified.example']);
    await createDomain(t.deps, {
      organizationId: orgA,
      mode: 'live',
      hostname: 'kunden.verified.example',
      siteId: null,
    });
    expect((await resolveBuyerHost(t.deps, 'kunden.verified.example')).map((x) => x.organizationId)).toEqual([orgB]);
    dns.zone.set('kunden.verified.example', { cname: TARGET });
    expect((await verifyDomainCname(t.deps, orgA, 'live', 'kunden.verified.example')).verified).toBe(true);
    expect(await resolveBuyerHost(t.deps, 'kunden.verified.example')).toEqual([
      { organizationId: orgA, mode: 'live', source: 'custom_domain' },
    ]);
    for (const junk of ['', 'nowhere.example', 'a b', 'x'.repeat(300), '[bad'])
      expect(await resolveBuyerHost(t.deps, junk), junk).toEqual([]);
  });

  it("looks up a name's TXT records through the same resolvers, explains none, and refuses what is no host name", async () => {
    dns.zone.set('_paymesh-sender.shop.example', { txt: ['paymesh-sender=abc', 'v=other'] });
    expect(await lookupDnsTxt(t.deps, '_paymesh-sender.Shop.Example.')).toEqual({
      hostname: '_paymesh-sender.shop.example',
      values: ['paymesh-sender=abc', 'v=other'],
      reason: '',
    });
    dns.zone.set('_paymesh-sender.cname-only.example', { cname: 'elsewhere.example.' });
    expect(await lookupDnsTxt(t.deps, '_paymesh-sender.cname-only.example')).toMatchObject({ values: [] });
    expect(await lookupDnsTxt(t.deps, '_paymesh-sender.missing.example')).toMatchObject({
      values: [],
      reason: 'the name does not exist in DNS',
    });
    dns.zone.set('_paymesh-sender.flaky.example', { servfail: true });
    await expect(lookupDnsTxt(t.deps, '_paymesh-sender.flaky.example')).rejects.toBeInstanceOf(UnavailableError);
    for (const bad of ['192.0.2.1', 'localhost', ''])
      await expect(lookupDnsTxt(t.deps, bad), bad).rejects.toMatchObject({ kind: 'validation' });
  });
});
