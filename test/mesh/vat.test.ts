import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tax } from '@paymesh/proto';
import { call, makeClient } from '@paymesh/grpc';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';
import { viesSandboxInfo, type BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';

// The VIES sandbox's register (sandboxes/vies/README.md).
const FR_VALID = 'FR47759777570';
const NL_VALID = 'NL769350665B01';
const DE_UNREGISTERED = 'DE408981630';
/** Well-formed, never checked before the outage. */
const DE_NOT_ASKED = 'DE652666949';

/**
 * The public VAT routes end to end: Main Backend -> tax service -> VIES sandbox over HTTP, with
 * the sandbox's controls for outages and its request log to see what reached VIES.
 */
describe('VAT: /vat/validate and /vat/eu-country against the VIES sandbox', () => {
  let mesh: TestMesh;
  let pub: string;
  let vies: string;
  let boot: BootstrapResult;

  const validate = (vatId: unknown) => api('POST', `${pub}/vat/validate`, { body: { vatId } });
  const control = (method: string, path: string, body?: unknown) =>
    api(method, `${vies}${path}`, body === undefined ? {} : { body });
  const viesCount = async (vatId: string): Promise<number> =>
    (await control('GET', `/_sandbox/requests?vatId=${vatId}`)).body.total;

  beforeAll(async () => {
    // A short breaker so the suite sees VIES come back after the outage.
    mesh = await startTestMesh({ env: { VIES_BREAKER_SECONDS: '1' } });
    pub = mesh.publicBaseUrl;
    vies = mesh.sandboxUrls['sandbox-vies']!;
    boot = await mesh.bootstrap();
  });
  afterAll(async () => {
    await mesh?.dispose();
  });

  it('the tax service talks to the sandbox the supervisor started; bootstrap tells newcomers what to try', async () => {
    expect(vies).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(mesh.env.VIES_SANDBOX_URL).toBe(vies);
    const info = await viesSandboxInfo(vies);
    expect(info.restApi).toBe(`${vies}/taxation_customs/vies/rest-api`);
    expect(info.registered.map((r) => r.vatId)).toEqual(expect.arrayContaining([FR_VALID, NL_VALID]));
    expect(info.testNumbers).toMatchObject({
      '100': 'valid',
      '200': 'invalid',
      '301': 'MS_UNAVAILABLE',
      '601': 'MS_MAX_CONCURRENT_REQ_TIME',
    });
  });

  it('valid: the spec fields plus the normalized ID; a second check is answered from the cache', async () => {
    const res = await validate('fr 4775 9777 570');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.body).toEqual({
      valid: true,
      companyName: 'ATELIER LUMIERE SARL',
      address: '12 RUE DES LILAS\n69003 LYON',
      vatId: FR_VALID,
      countryCode: 'FR',
      status: 'valid',
      checkedAt: expect.any(String),
      consultationNumber: null,
    });
    const again = await validate(FR_VALID);
    expect(again.body).toEqual(res.body);
    expect(await viesCount(FR_VALID)).toBe(1);
  });

  it('invalid: 200 with valid false', async () => {
    const res = await validate('DE 408 981 630');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      valid: false,
      status: 'invalid',
      companyName: '',
      address: '',
      vatId: DE_UNREGISTERED,
      countryCode: 'DE',
    });
  });

  it('valid with the name and address withheld (Germany): both are the empty string, as strings the spec types them', async () => {
    // The spec's body is only `vatId`; its answer's companyName and address are strings, never null.
    const res = await validate('DE321571435');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      valid: true,
      status: 'valid',
      companyName: '',
      address: '',
      vatId: 'DE321571435',
      countryCode: 'DE',
    });
    expect(typeof res.body.companyName).toBe('string');
    expect(typeof res.body.address).toBe('string');
  });

  it('malformed: 400 naming the member state format, and VIES is not asked', async () => {
    const wrongLength = await validate('DE12345678');
    expect(wrongLength.status).toBe(400);
    expect(wrongLength.body.error).toContain('DE followed by 9 digits');
    expect(wrongLength.headers.get('x-request-id')).toBeTruthy();
    const checksum = await validate('DE408981631');
    expect(checksum.status).toBe(400);
    expect(checksum.body.error).toContain('check digits');
    expect((await validate('GR981462794')).body.error).toContain('EL, not GR');
    for (const bad of [undefined, '', 42, 'x'.repeat(101)]) expect((await validate(bad)).status).toBe(400);
    expect((await api('POST', `${pub}/vat/validate`, { body: [] })).status).toBe(400);
    expect(await viesCount('DE12345678')).toBe(0);
    expect(await viesCount('DE408981631')).toBe(0);
  });

  it('eu-country: member states (Greece with EL), third countries, Northern Ireland, bad codes', async () => {
    const de = await api('GET', `${pub}/vat/eu-country/DE`);
    expect(de.status).toBe(200);
    expect(de.body).toEqual({
      countryCode: 'DE',
      euMember: true,
      euVatAreaForGoods: true,
      vatPrefix: 'DE',
      name: 'Germany',
    });
    expect((await api('GET', `${pub}/vat/eu-country/gr`)).body).toEqual({
      countryCode: 'GR',
      euMember: true,
      euVatAreaForGoods: true,
      vatPrefix: 'EL',
      name: 'Greece',
    });
    expect((await api('GET', `${pub}/vat/eu-country/EL`)).body).toMatchObject({ countryCode: 'GR', vatPrefix: 'EL' });
    expect((await api('GET', `${pub}/vat/eu-country/US`)).body).toEqual({
      countryCode: 'US',
      euMember: false,
      euVatAreaForGoods: false,
      vatPrefix: null,
      name: 'United States of America',
    });
    expect((await api('GET', `${pub}/vat/eu-country/XI`)).body).toEqual({
      countryCode: 'XI',
      euMember: false,
      euVatAreaForGoods: true,
      vatPrefix: 'XI',
      name: 'Northern Ireland',
    });
    for (const bad of ['QQ', 'DEU', '1A', 'D']) {
      const res = await api('GET', `${pub}/vat/eu-country/${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/code/);
    }
  });

  it("the organization's own VAT ID is a tax setting; with it, VIES issues a consultation number", async () => {
    const admin = (method: string, body?: unknown) =>
      api(method, `${mesh.adminBaseUrl}/organizations/settings/tax`, {
        token: boot.apiKey,
        ...(body === undefined ? {} : { body }),
      });
    const bad = await admin('PUT', { vatId: 'NL769350660B01' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('vatId');
    const put = await admin('PUT', { vatId: 'nl 769350665 b01' });
    expect(put.status).toBe(200);
    expect(put.body.vatId).toBe(NL_VALID);
    expect((await admin('GET')).body.vatId).toBe(NL_VALID);

    // The engine checks buyer VAT IDs through the tax service with the organization as requester.
    const client = makeClient(tax.TaxServiceClient, `127.0.0.1:${mesh.ports['tax']}`);
    try {
      const res = await call(
        client,
        client.validateVatId,
        {
          organizationId: boot.organizationId,
          testMode: false,
          id: '',
          bodyJson: JSON.stringify({ vatId: 'ATU31989140' }),
        },
        { deadlineMs: 10_000, target: 'tax' },
      );
      const check = JSON.parse(res.json);
      expect(check).toMatchObject({
        vatId: 'ATU31989140',
        status: 'valid',
        source: 'vies',
        companyName: 'Alpenblick Handels GmbH',
      });
      expect(check.consultationNumber).toMatch(/^WAPI[A-Za-z0-9]{12}$/);
      const log = (await control('GET', '/_sandbox/requests?vatId=ATU31989140')).body.data;
      expect(log).toEqual([expect.objectContaining({ requester: NL_VALID, outcome: 'valid' })]);
    } finally {
      client.close();
    }
    expect((await admin('PUT', { vatId: null })).body.vatId).toBeNull();
  });

  it('VIES down: 503 VIES_UNAVAILABLE telling the buyer to continue, fast; back once VIES is', async () => {
    await control('POST', '/_sandbox/outage', { mode: 'down', error: 'SERVICE_UNAVAILABLE' });
    const started = Date.now();
    const res = await validate(NL_VALID);
    expect(Date.now() - started).toBeLessThan(2500);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'VIES_UNAVAILABLE', requestId: expect.any(String) });
    expect(res.body.error).toContain('continue');
    expect(res.headers.get('x-request-id')).toBe(res.body.requestId);

    // The breaker is open: the next check answers at once without asking VIES.
    const quick = Date.now();
    expect((await validate(DE_NOT_ASKED)).status).toBe(503);
    expect(Date.now() - quick).toBeLessThan(500);
    expect(await viesCount(DE_NOT_ASKED)).toBe(0);
    // Answers VIES gave before the outage still count (cache).
    expect((await validate(DE_UNREGISTERED)).body).toMatchObject({ valid: false, status: 'invalid' });
    // eu-country does not need VIES.
    expect((await api('GET', `${pub}/vat/eu-country/FR`)).status).toBe(200);

    await control('POST', '/_sandbox/outage', { mode: 'up' });
    const back = await eventually(
      async () => {
        const r = await validate(NL_VALID);
        return r.status === 200 ? r : null;
      },
      15_000,
      250,
    );
    expect(back.body).toMatchObject({ valid: true, companyName: 'POLDERWERK B.V.' });
  });
});
