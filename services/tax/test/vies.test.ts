import { randomBytes } from 'node:crypto';
import { waitFor } from '../../../test/support/kit';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createLogger, ManualClock, newObjectId, systemClock, type Clock } from '@paymesh/core';
import { createStore, type DroppableStore, TEST_PG_URL } from '@paymesh/store';
import { buildServer, loadSandboxConfig, REST_BASE_PATH } from '@paymesh/sandbox-vies';
import { createVatIdChecker, type ViesCheckDoc } from '../src/app/check-vat-id';
import type { OrgKey } from '../src/app/deps';
import { updateTaxSettings } from './wire';
import type { VatIdChecker } from '../src/app/vat-id-port';
import { collections, VIES_CHECKS } from '../src/store/collections';
import { ViesClient } from '../src/vies/client';

const PG_URL = TEST_PG_URL;
const logger = createLogger({ service: 'tax-test', level: 'silent' });

// Sandbox register (see sandboxes/vies/README.md).
const FR_VALID = 'FR47759777570';
const NL_VALID = 'NL769350665B01';
const DE_VALID_MASKED = 'DE321571435';
const DE_UNREGISTERED = 'DE408981630';

let sandbox: FastifyInstance;
let sandboxUrl: string;
let store: DroppableStore;

beforeAll(async () => {
  const config = loadSandboxConfig({ LOG_LEVEL: 'silent', VIES_SANDBOX_PORT: '0' });
  sandbox = buildServer(config);
  await sandbox.listen({ host: '127.0.0.1', port: 0 });
  sandboxUrl = `http://127.0.0.1:${(sandbox.server.address() as AddressInfo).port}`;
  store = await createStore({ url: PG_URL, database: `tax_vies_test_${randomBytes(5).toString('hex')}` });
  for (const c of collections) await store.ensureCollection(c);
});
afterAll(async () => {
  await sandbox?.close();
  await store?.dropDatabase();
  await store?.close();
});
beforeEach(async () => {
  await control('POST', '/_sandbox/reset');
  await store.collection(VIES_CHECKS).deleteMany({});
});

async function control(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${sandboxUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

/** Checks the sandbox received, per VAT ID. */
async function viesRequests(): Promise<{
  total: number;
  counts: Record<string, number>;
  data: { requester: string | null; outcome: string }[];
}> {
  return control('GET', '/_sandbox/requests');
}

interface Setup {
  checker: VatIdChecker;
  client: ViesClient;
}

/** A checker with its own client (and so its own breakers), talking to the sandbox over HTTP. */
function setup(
  o: { deadlineMs?: number; breakerMs?: number; ttlSeconds?: number; clock?: Clock; baseUrl?: string } = {},
): Setup {
  const client = new ViesClient({
    baseUrl: o.baseUrl ?? `${sandboxUrl}${REST_BASE_PATH}`,
    deadlineMs: o.deadlineMs ?? 2500,
    breakerMs: o.breakerMs ?? 30_000,
    logger,
  });
  const checker = createVatIdChecker({
    store,
    clock: o.clock ?? systemClock,
    logger,
    vies: client,
    cacheTtlSeconds: o.ttlSeconds ?? 86_400,
  });
  return { checker, client };
}

/** An organization whose tax settings name its own VAT ID. */
async function orgWithVatId(vatId: string | null): Promise<OrgKey> {
  const key: OrgKey = { organizationId: newObjectId(), mode: 'live' };
  await updateTaxSettings(
    { store, clock: systemClock, logger, vatIds: setup().checker },
    key,
    JSON.stringify({ vatId }),
  );
  return key;
}

const until = <T>(fn: () => Promise<T | false>) => waitFor(fn, { timeoutMs: 5000, stepMs: 50 });

describe('VAT ID checks against the VIES sandbox', () => {
  it('valid: company data and a consultation number issued to the organization as requester, kept as evidence', async () => {
    const { checker } = setup();
    const org = await orgWithVatId('nl 769350665 b01');
    const check = await checker.check('fr 4775 9777 570', 'vies', org);
    expect(check).toMatchObject({
      vatId: FR_VALID,
      status: 'valid',
      source: 'vies',
      companyName: 'ATELIER LUMIERE SARL',
      address: '12 RUE DES LILAS\n69003 LYON',
      error: null,
    });
    expect(check.consultationNumber).toMatch(/^WAPI[A-Za-z0-9]{12}$/);
    expect(Date.parse(check.checkedAt!)).not.toBeNaN();

    const log = await viesRequests();
    expect(log.total).toBe(1);
    expect(log.data[0]).toMatchObject({ requester: NL_VALID, outcome: 'valid' });

    const evidence = await store.collection<ViesCheckDoc>(VIES_CHECKS).find({ vatId: FR_VALID });
    expect(evidence.items).toHaveLength(1);
    expect(evidence.items[0]).toMatchObject({
      key: `${FR_VALID}|${NL_VALID}`,
      countryCode: 'FR',
      vatNumber: '47759777570',
      requesterVatId: NL_VALID,
      valid: true,
      requestIdentifier: check.consultationNumber,
      name: 'ATELIER LUMIERE SARL',
      checkedAt: check.checkedAt,
    });
    expect(Date.parse(evidence.items[0]!.requestDate)).not.toBeNaN();
  });

  it('a requester VAT ID given directly (settings already read) is sent as is, without reading the settings again', async () => {
    const { checker } = setup();
    const check = await checker.check(FR_VALID, 'vies', { vatId: NL_VALID });
    expect(check).toMatchObject({ status: 'valid', source: 'vies' });
    expect(check.consultationNumber).toMatch(/^WAPI[A-Za-z0-9]{12}$/);
    expect((await viesRequests()).data.map((r) => r.requester)).toEqual([NL_VALID]);
    expect(await checker.check(NL_VALID, 'vies', { vatId: null })).toMatchObject({
      status: 'valid',
      consultationNumber: null,
    });
  });

  it('without a requester (public check or no own VAT ID) there is no consultation number', async () => {
    const { checker } = setup();
    expect(await checker.check(FR_VALID, 'vies')).toMatchObject({ status: 'valid', consultationNumber: null });
    const org = await orgWithVatId(null);
    expect(await checker.check(NL_VALID, 'vies', org)).toMatchObject({
      status: 'valid',
      consultationNumber: null,
      companyName: 'POLDERWERK B.V.',
    });
    expect((await viesRequests()).data.map((r) => r.requester)).toEqual([null, null]);
  });

  it('invalid: VIES does not know the number; withheld names and addresses are null', async () => {
    const { checker } = setup();
    expect(await checker.check(DE_UNREGISTERED, 'vies')).toMatchObject({
      vatId: DE_UNREGISTERED,
      status: 'invalid',
      source: 'vies',
      companyName: null,
      address: null,
      error: null,
    });
    const masked = await checker.check(DE_VALID_MASKED, 'vies');
    expect(masked).toMatchObject({ status: 'valid', companyName: null, address: null });
    const evidence = await store.collection<ViesCheckDoc>(VIES_CHECKS).findOne({ vatId: DE_VALID_MASKED });
    expect(evidence).toMatchObject({ name: '---', address: '---' });
  });

  it('malformed IDs never reach VIES; format mode never asks it', async () => {
    const { checker } = setup();
    expect(await checker.check('DE12345678', 'vies')).toMatchObject({
      vatId: 'DE12345678',
      status: 'malformed',
      source: 'format',
      consultationNumber: null,
    });
    expect(await checker.check('DE321571430', 'vies')).toMatchObject({ status: 'malformed' });
    expect(await checker.check('GR981462794', 'vies')).toMatchObject({ status: 'malformed' });
    expect(await checker.check(DE_UNREGISTERED, 'format')).toMatchObject({
      vatId: DE_UNREGISTERED,
      status: 'well_formed',
      source: 'format',
    });
    expect(await checker.check('DE 12', 'format')).toMatchObject({ status: 'malformed', source: 'format' });
    expect((await viesRequests()).total).toBe(0);
  });

  it('cache: a second check within the TTL does not reach VIES; another requester does', async () => {
    const { checker } = setup();
    const org = await orgWithVatId('ATU31989140');
    const first = await checker.check(FR_VALID, 'vies', org);
    const second = await checker.check('FR 47759777570', 'vies', org);
    expect(second).toEqual({ ...first, source: 'cache' });
    const invalid = await checker.check(DE_UNREGISTERED, 'vies', org);
    expect(await checker.check(DE_UNREGISTERED, 'vies', org)).toEqual({ ...invalid, source: 'cache' });
    expect((await viesRequests()).counts).toEqual({ [FR_VALID]: 1, [DE_UNREGISTERED]: 1 });

    expect(await checker.check(FR_VALID, 'vies')).toMatchObject({ source: 'vies', consultationNumber: null });
    expect((await viesRequests()).counts[FR_VALID]).toBe(2);
  });

  it('cache: answers expire after the TTL; a TTL of 0 always asks VIES', async () => {
    const clock = new ManualClock(new Date());
    const { checker } = setup({ ttlSeconds: 60, clock });
    await checker.check(FR_VALID, 'vies');
    clock.advance(59_000);
    expect((await checker.check(FR_VALID, 'vies')).source).toBe('cache');
    clock.advance(2_000);
    expect((await checker.check(FR_VALID, 'vies')).source).toBe('vies');

    const uncached = setup({ ttlSeconds: 0 }).checker;
    await uncached.check(NL_VALID, 'vies');
    await uncached.check(NL_VALID, 'vies');
    expect((await viesRequests()).counts).toEqual({ [FR_VALID]: 2, [NL_VALID]: 2 });
    expect(await store.collection(VIES_CHECKS).count({ vatId: NL_VALID })).toBe(2);
  });

  it('outage: unverified with the fault after the retries, then at once while the breaker is open; never cached', async () => {
    const { checker } = setup({ breakerMs: 300 });
    await control('POST', '/_sandbox/outage', { mode: 'down' });
    let started = Date.now();
    expect(await checker.check(FR_VALID, 'vies')).toMatchObject({
      vatId: FR_VALID,
      status: 'unverified',
      source: 'vies',
      error: 'SERVICE_UNAVAILABLE',
      consultationNumber: null,
    });
    expect(Date.now() - started).toBeLessThan(2500);
    expect((await viesRequests()).counts[FR_VALID]).toBe(3);

    started = Date.now();
    expect(await checker.check(NL_VALID, 'vies')).toMatchObject({ status: 'unverified', error: 'CIRCUIT_OPEN' });
    expect(Date.now() - started).toBeLessThan(100);
    expect((await viesRequests()).counts[NL_VALID]).toBeUndefined();
    expect(await store.collection(VIES_CHECKS).count({})).toBe(0);

    await control('POST', '/_sandbox/outage', { mode: 'up' });
    const back = await until(async () => {
      const c = await checker.check(FR_VALID, 'vies');
      return c.status === 'valid' ? c : false;
    });
    expect(back.source).toBe('vies');
  });

  it("a member state's outage opens only that member state's breaker", async () => {
    const { checker } = setup();
    await control('POST', '/_sandbox/outage', { mode: 'down', error: 'MS_UNAVAILABLE', countryCodes: ['DE'] });
    expect(await checker.check(DE_VALID_MASKED, 'vies')).toMatchObject({
      status: 'unverified',
      error: 'MS_UNAVAILABLE',
    });
    expect(await checker.check(FR_VALID, 'vies')).toMatchObject({ status: 'valid' });
    expect(await checker.check(DE_UNREGISTERED, 'vies')).toMatchObject({ status: 'unverified', error: 'CIRCUIT_OPEN' });
    expect((await viesRequests()).counts).toEqual({ [DE_VALID_MASKED]: 3, [FR_VALID]: 1 });
  });

  it('faults about the request are not retried and do not open a breaker', async () => {
    const { checker } = setup();
    await control('POST', '/_sandbox/outage', { mode: 'down', error: 'VAT_BLOCKED' });
    expect(await checker.check(FR_VALID, 'vies')).toMatchObject({ status: 'unverified', error: 'VAT_BLOCKED' });
    expect(await checker.check(NL_VALID, 'vies')).toMatchObject({ status: 'unverified', error: 'VAT_BLOCKED' });
    expect((await viesRequests()).counts).toEqual({ [FR_VALID]: 1, [NL_VALID]: 1 });
  });

  it('slow VIES: unverified once the deadline has passed', async () => {
    const { checker } = setup({ deadlineMs: 400 });
    await control('POST', '/_sandbox/outage', { mode: 'slow', delayMs: 3000 });
    const started = Date.now();
    expect(await checker.check(FR_VALID, 'vies')).toMatchObject({ status: 'unverified', error: 'DEADLINE_EXCEEDED' });
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(390);
    expect(took).toBeLessThan(1500);
    // The missed deadline opened the breaker: the next check does not wait.
    const again = Date.now();
    expect(await checker.check(NL_VALID, 'vies')).toMatchObject({ status: 'unverified', error: 'CIRCUIT_OPEN' });
    expect(Date.now() - again).toBeLessThan(100);
  });

  it('an own VAT ID that VIES rejects as requester: the buyer is checked without it', async () => {
    const { checker } = setup();
    const org = await orgWithVatId(DE_UNREGISTERED);
    expect(await checker.check(FR_VALID, 'vies', org)).toMatchObject({
      status: 'valid',
      source: 'vies',
      consultationNumber: null,
    });
    const outcomes = (await viesRequests()).data.map((r) => [r.requester, r.outcome]);
    expect(outcomes).toEqual([
      [DE_UNREGISTERED, 'INVALID_REQUESTER_INFO'],
      [null, 'valid'],
    ]);
  });

  it('VIES unreachable: unverified with NETWORK_ERROR', async () => {
    const { checker } = setup({ baseUrl: `http://127.0.0.1:1${REST_BASE_PATH}` });
    expect(await checker.check(FR_VALID, 'vies')).toMatchObject({ status: 'unverified', error: 'NETWORK_ERROR' });
  });
});
