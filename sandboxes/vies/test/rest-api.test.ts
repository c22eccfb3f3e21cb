import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REST_BASE_PATH } from '../src/server';
import { call, check, type RunningSandbox, startSandbox } from './helpers';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(async () => {
  await call(sandbox, 'POST', '/_sandbox/reset');
});

const fault = (code: string) => ({
  actionSucceed: false,
  errorWrappers: [{ error: code, message: expect.any(String) }],
});

describe('the official test numbers', () => {
  const cases: [string, number, unknown][] = [
    ['201', 400, fault('INVALID_INPUT')],
    ['202', 400, fault('INVALID_REQUESTER_INFO')],
    ['300', 500, fault('SERVICE_UNAVAILABLE')],
    ['301', 200, fault('MS_UNAVAILABLE')],
    ['302', 500, fault('TIMEOUT')],
    ['400', 400, fault('VAT_BLOCKED')],
    ['401', 400, fault('IP_BLOCKED')],
    ['500', 500, fault('GLOBAL_MAX_CONCURRENT_REQ')],
    ['501', 500, fault('GLOBAL_MAX_CONCURRENT_REQ_TIME')],
    ['600', 200, fault('MS_MAX_CONCURRENT_REQ')],
    ['601', 200, fault('MS_MAX_CONCURRENT_REQ_TIME')],
  ];

  for (const endpoint of ['check-vat-test-service', 'check-vat-number'] as const) {
    it(`${endpoint}: 100 is valid and 200 invalid`, async () => {
      const valid = await check(sandbox, { countryCode: 'BE', vatNumber: '100' }, endpoint);
      expect(valid.status).toBe(200);
      expect(valid.body).toMatchObject({ countryCode: 'BE', vatNumber: '100', valid: true, requestIdentifier: '' });
      expect(Date.parse(valid.body.requestDate)).not.toBeNaN();
      const invalid = await check(sandbox, { countryCode: 'BE', vatNumber: '200' }, endpoint);
      expect(invalid.body).toMatchObject({ valid: false, name: '---', address: '---' });
    });

    it(`${endpoint}: each fault number answers its fault with its status`, async () => {
      for (const [number, status, body] of cases) {
        const res = await check(sandbox, { countryCode: 'DE', vatNumber: number }, endpoint);
        expect({ number, status: res.status, body: res.body }).toEqual({ number, status, body });
      }
    });
  }

  it('the test service answers SERVICE_UNAVAILABLE for any other number', async () => {
    const res = await check(sandbox, { countryCode: 'FR', vatNumber: '47759777570' }, 'check-vat-test-service');
    expect(res).toEqual({ status: 500, body: fault('SERVICE_UNAVAILABLE') });
  });

  it('a consultation number only when the requester identifies itself', async () => {
    const res = await check(
      sandbox,
      { countryCode: 'BE', vatNumber: '100', requesterMemberStateCode: 'NL', requesterNumber: '769350665B01' },
      'check-vat-test-service',
    );
    expect(res.body.requestIdentifier).toMatch(/^WAPI[A-Za-z0-9]{12}$/);
  });
});

describe('check-vat-number against the register', () => {
  it('knows the seeded companies', async () => {
    const res = await check(sandbox, { countryCode: 'FR', vatNumber: '47759777570' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      valid: true,
      name: 'ATELIER LUMIERE SARL',
      address: '12 RUE DES LILAS\n69003 LYON',
      requestIdentifier: '',
    });
    const nl = await check(sandbox, { countryCode: 'NL', vatNumber: '769350665b01' });
    expect(nl.body).toMatchObject({ valid: true, name: 'POLDERWERK B.V.' });
    const at = await check(sandbox, { countryCode: 'AT', vatNumber: 'U31989140' });
    expect(at.body).toMatchObject({ valid: true, name: 'Alpenblick Handels GmbH' });
  });

  it('masks name and address of German numbers, as Germany does', async () => {
    const res = await check(sandbox, { countryCode: 'DE', vatNumber: '321571435' });
    expect(res.body).toMatchObject({ valid: true, name: '---', address: '---' });
  });

  it('answers valid:false for a number nobody registered', async () => {
    const res = await check(sandbox, { countryCode: 'DE', vatNumber: '408981630' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: false, name: '---', address: '---' });
  });

  it('issues a consultation number to a registered requester and refuses an unknown one', async () => {
    const ok = await check(sandbox, {
      countryCode: 'FR',
      vatNumber: '47759777570',
      requesterMemberStateCode: 'AT',
      requesterNumber: 'U31989140',
    });
    expect(ok.body.requestIdentifier).toMatch(/^WAPI[A-Za-z0-9]{12}$/);
    const again = await check(sandbox, {
      countryCode: 'FR',
      vatNumber: '47759777570',
      requesterMemberStateCode: 'AT',
      requesterNumber: 'U31989140',
    });
    expect(again.body.requestIdentifier).not.toBe(ok.body.requestIdentifier);
    const unknown = await check(sandbox, {
      countryCode: 'FR',
      vatNumber: '47759777570',
      requesterMemberStateCode: 'DE',
      requesterNumber: '408981630',
    });
    expect(unknown).toEqual({ status: 400, body: fault('INVALID_REQUESTER_INFO') });
    const half = await check(sandbox, { countryCode: 'FR', vatNumber: '47759777570', requesterNumber: 'U31989140' });
    expect(half.body).toEqual(fault('INVALID_REQUESTER_INFO'));
  });

  it('answers INVALID_INPUT for a bad country code, number or body', async () => {
    for (const body of [
      { countryCode: 'GR', vatNumber: '981462794' },
      { countryCode: 'US', vatNumber: '123456789' },
      { countryCode: 'de', vatNumber: '321571435' },
      { countryCode: 'DE', vatNumber: '' },
      { countryCode: 'DE', vatNumber: '1234567890123' },
      { countryCode: 'DE', vatNumber: '32157/435' },
      {},
    ]) {
      expect(await check(sandbox, body)).toEqual({ status: 400, body: fault('INVALID_INPUT') });
    }
    const notJson = await call(sandbox, 'POST', `${REST_BASE_PATH}/check-vat-number`, undefined, '{"countryCode":');
    expect(notJson).toEqual({ status: 400, body: fault('INVALID_INPUT') });
  });

  it('reports availability on check-status', async () => {
    const res = await call(sandbox, 'GET', `${REST_BASE_PATH}/check-status`);
    expect(res.body.vow).toEqual({ available: true });
    expect(res.body.countries).toHaveLength(28);
    expect(res.body.countries).toContainEqual({ countryCode: 'EL', availability: 'Available' });
  });
});
