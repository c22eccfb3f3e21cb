import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { NotFoundError, ValidationError } from '@paymesh/core';
import { siteDeleted, siteSecretRotated } from '@paymesh/contracts';
import { createSite } from '../src/app/create-site';
import { getSite, listSites } from '../src/app/get-site';
import { updateSite } from '../src/app/update-site';
import { deleteSite } from '../src/app/delete-site';
import { rotateSiteSecret } from '../src/app/rotate-site-secret';
import { getSiteSigningSecret } from '../src/app/site-signing-secret';
import { createDomain, getDomain } from '../src/app/domains';
import { openTestCheckout, orgId, type TestCheckout } from './helpers';

describe('sites: update, secret rotation, soft delete', () => {
  let t: TestCheckout;
  const orgA = orgId();
  const orgB = orgId();

  beforeAll(async () => {
    t = await openTestCheckout('127.0.0.1:9');
  });
  afterAll(async () => {
    await t?.close();
  });

  const newSite = (organizationId = orgA) =>
    createSite(t.deps, {
      organizationId,
      mode: 'live',
      name: 'Shop',
      url: 'https://shop.example',
      frontendDomains: ['shop.example'],
    });

  it('updates only the fields given', async () => {
    const { site } = await newSite();
    const updated = await updateSite(t.deps, { organizationId: orgA, mode: 'live', id: site.id, name: '  Renamed ' });
    expect(updated).toMatchObject({ name: 'Renamed', url: 'https://shop.example/', frontendDomains: ['shop.example'] });
    const again = await updateSite(t.deps, {
      organizationId: orgA,
      mode: 'live',
      id: site.id,
      frontendDomains: ['A.example', 'b.example'],
    });
    expect(again).toMatchObject({ name: 'Renamed', frontendDomains: ['a.example', 'b.example'] });
    expect((await getSite(t.deps, orgA, 'live', site.id)).frontendDomains).toEqual(['a.example', 'b.example']);
  });

  it('rejects a bad url naming the field and writes nothing', async () => {
    const { site } = await newSite();
    await expect(
      updateSite(t.deps, { organizationId: orgA, mode: 'live', id: site.id, name: 'X', url: 'ftp://shop.example' }),
    ).rejects.toMatchObject({
      field: 'url',
    });
    expect((await getSite(t.deps, orgA, 'live', site.id)).name).toBe('Shop');
  });

  it('rotates the signing secret: the new one signs, the old one is gone, the event carries no secret', async () => {
    const { site, secret: old } = await newSite();
    const { site: rotated, secret } = await rotateSiteSecret(t.deps, orgA, 'live', site.id);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(secret).not.toBe(old);
    expect(rotated.webhookSecretHint).toBe(`…${secret.slice(-4)}`);
    const current = await getSiteSigningSecret(t.deps, orgA, site.id);
    expect(current).toBe(secret);
    const body = '{"id":"x","status":1}';
    const sig = (k: string) => createHmac('sha256', k).update(`1700000000.${body}`).digest('hex');
    expect(sig(current)).toBe(sig(secret));
    expect(sig(current)).not.toBe(sig(old));
    const pending = await t.store.outbox.pending(1000);
    const ev = pending.find(
      (e) => e.subject === 'checkout.site.secret_rotated' && JSON.stringify(e.payload).includes(site.id),
    );
    expect(ev).toBeDefined();
    const data = siteSecretRotated.parse((ev!.payload as { data: unknown }).data);
    expect(data).toMatchObject({
      organizationId: orgA,
      siteId: site.id,
      mode: 'live',
      secretHint: rotated.webhookSecretHint,
    });
    expect(JSON.stringify(ev!.payload)).not.toContain(secret);
  });

  it('gives every rotation its own event id', async () => {
    const { site } = await newSite();
    await rotateSiteSecret(t.deps, orgA, 'live', site.id);
    await rotateSiteSecret(t.deps, orgA, 'live', site.id);
    const ids = (await t.store.outbox.pending(1000))
      .filter((e) => e.subject === 'checkout.site.secret_rotated' && JSON.stringify(e.payload).includes(site.id))
      .map((e) => e.id);
    expect(new Set(ids).size).toBe(2);
  });

  it('soft-deletes: 404 afterwards, gone from the list, domains released, event queued, past IPN still signable', async () => {
    const { site, secret } = await newSite();
    const domain = await createDomain(t.deps, {
      organizationId: orgA,
      mode: 'live',
      hostname: `pay-${site.id}.shop.example`,
      siteId: site.id,
    });
    await deleteSite(t.deps, orgA, 'live', site.id);
    await expect(getSite(t.deps, orgA, 'live', site.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      updateSite(t.deps, { organizationId: orgA, mode: 'live', id: site.id, name: 'x' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(rotateSiteSecret(t.deps, orgA, 'live', site.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(deleteSite(t.deps, orgA, 'live', site.id)).rejects.toBeInstanceOf(NotFoundError);
    const list = await listSites(t.deps, orgA, 'live', 1, 100);
    expect(list.items.map((s) => s.id)).not.toContain(site.id);
    expect((await getDomain(t.deps, orgA, 'live', domain.id)).siteId).toBeNull();
    const ev = (await t.store.outbox.pending(1000)).find(
      (e) => e.subject === 'checkout.site.deleted' && JSON.stringify(e.payload).includes(site.id),
    );
    expect(siteDeleted.parse((ev!.payload as { data: unknown }).data)).toMatchObject({
      organizationId: orgA,
      siteId: site.id,
    });
    expect(await getSiteSigningSecret(t.deps, orgA, site.id)).toBe(secret);
  });

  it("treats another organization's or mode's site as not found for get, update, rotate and delete", async () => {
    const { site } = await newSite(orgA);
    for (const [org, mode] of [
      [orgB, 'live'],
      [orgA, 'test'],
    ] as const) {
      await expect(getSite(t.deps, org, mode, site.id)).rejects.toBeInstanceOf(NotFoundError);
      await expect(
        updateSite(t.deps, { organizationId: org, mode, id: site.id, name: 'hijack' }),
      ).rejects.toBeInstanceOf(NotFoundError);
      await expect(rotateSiteSecret(t.deps, org, mode, site.id)).rejects.toBeInstanceOf(NotFoundError);
      await expect(deleteSite(t.deps, org, mode, site.id)).rejects.toBeInstanceOf(NotFoundError);
    }
    expect((await getSite(t.deps, orgA, 'live', site.id)).name).toBe('Shop');
  });

  it('rejects a domain bound to a site of another organization', async () => {
    const { site } = await newSite(orgB);
    await expect(
      createDomain(t.deps, { organizationId: orgA, mode: 'live', hostname: 'x.shop.example', siteId: site.id }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      createDomain(t.deps, { organizationId: orgA, mode: 'live', hostname: 'checkout.paymesh.example', siteId: null }),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});
