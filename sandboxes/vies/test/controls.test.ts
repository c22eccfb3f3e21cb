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

describe('sandbox controls', () => {
  it('registers and deregisters a VAT number', async () => {
    const created = await call(sandbox, 'POST', '/_sandbox/vat-numbers', {
      countryCode: 'IE',
      vatNumber: '7112213d',
      name: 'Harbour Lane Ltd',
      address: '1 Quay Street\nGalway',
    });
    expect(created).toEqual({
      status: 201,
      body: { countryCode: 'IE', vatNumber: '7112213D', name: 'Harbour Lane Ltd', address: '1 Quay Street\nGalway' },
    });
    expect((await check(sandbox, { countryCode: 'IE', vatNumber: '7112213D' })).body).toMatchObject({
      valid: true,
      name: 'Harbour Lane Ltd',
    });
    expect((await call(sandbox, 'GET', '/_sandbox/vat-numbers')).body.data).toHaveLength(5);

    expect((await call(sandbox, 'DELETE', '/_sandbox/vat-numbers/IE7112213D')).status).toBe(204);
    expect((await check(sandbox, { countryCode: 'IE', vatNumber: '7112213D' })).body.valid).toBe(false);
    expect((await call(sandbox, 'DELETE', '/_sandbox/vat-numbers/IE7112213D')).status).toBe(404);
  });

  it('rejects malformed control requests with 400', async () => {
    const bad = await call(sandbox, 'POST', '/_sandbox/vat-numbers', {
      countryCode: 'GR',
      vatNumber: '1',
      name: '',
      address: 'x',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^countryCode: /);
    const badOutage = await call(sandbox, 'POST', '/_sandbox/outage', { mode: 'sideways' });
    expect(badOutage.status).toBe(400);
    expect((await call(sandbox, 'POST', '/_sandbox/outage', { mode: 'down', error: 'NOPE' })).status).toBe(400);
  });

  it('down: checks answer the chosen fault; test numbers keep their fixed answers', async () => {
    await call(sandbox, 'POST', '/_sandbox/outage', { mode: 'down' });
    expect(await check(sandbox, { countryCode: 'FR', vatNumber: '47759777570' })).toMatchObject({
      status: 500,
      body: { errorWrappers: [{ error: 'SERVICE_UNAVAILABLE' }] },
    });
    expect((await check(sandbox, { countryCode: 'FR', vatNumber: '100' })).body.valid).toBe(true);
    expect((await call(sandbox, 'GET', `${REST_BASE_PATH}/check-status`)).body.vow.available).toBe(false);

    await call(sandbox, 'POST', '/_sandbox/outage', { mode: 'down', error: 'MS_UNAVAILABLE', countryCodes: ['DE'] });
    expect(await check(sandbox, { countryCode: 'DE', vatNumber: '321571435' })).toMatchObject({
      status: 200,
      body: { actionSucceed: false, errorWrappers: [{ error: 'MS_UNAVAILABLE' }] },
    });
    expect((await check(sandbox, { countryCode: 'FR', vatNumber: '47759777570' })).body.valid).toBe(true);
    const status = (await call(sandbox, 'GET', `${REST_BASE_PATH}/check-status`)).body;
    expect(status.vow.available).toBe(true);
    expect(status.countries).toContainEqual({ countryCode: 'DE', availability: 'Unavailable' });
    expect(status.countries).toContainEqual({ countryCode: 'FR', availability: 'Available' });

    await call(sandbox, 'POST', '/_sandbox/outage', { mode: 'up' });
    expect((await check(sandbox, { countryCode: 'DE', vatNumber: '321571435' })).body.valid).toBe(true);
  });

  it('slow: answers after the delay', async () => {
    await call(sandbox, 'POST', '/_sandbox/outage', { mode: 'slow', delayMs: 400 });
    const started = Date.now();
    expect((await check(sandbox, { countryCode: 'FR', vatNumber: '47759777570' })).body.valid).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect(await call(sandbox, 'GET', '/_sandbox/outage')).toMatchObject({ body: { mode: 'slow', delayMs: 400 } });
  });

  it('logs every check with its outcome and counts them per number', async () => {
    await check(sandbox, { countryCode: 'FR', vatNumber: '47759777570' });
    await check(sandbox, {
      countryCode: 'FR',
      vatNumber: '47759777570',
      requesterMemberStateCode: 'NL',
      requesterNumber: '769350665B01',
    });
    await check(sandbox, { countryCode: 'DE', vatNumber: '408981630' });
    await check(sandbox, { countryCode: 'BE', vatNumber: '300' }, 'check-vat-test-service');
    const all = (await call(sandbox, 'GET', '/_sandbox/requests')).body;
    expect(all.total).toBe(4);
    expect(all.counts).toEqual({ FR47759777570: 2, DE408981630: 1, BE300: 1 });
    expect(all.data.map((r: { outcome: string }) => r.outcome)).toEqual([
      'valid',
      'valid',
      'invalid',
      'SERVICE_UNAVAILABLE',
    ]);
    expect(all.data[1]).toMatchObject({ endpoint: 'check-vat-number', requester: 'NL769350665B01' });
    expect(all.data[3]).toMatchObject({ endpoint: 'check-vat-test-service' });

    const one = (await call(sandbox, 'GET', '/_sandbox/requests?vatId=fr47759777570')).body;
    expect(one).toMatchObject({ total: 2, counts: { FR47759777570: 2 } });

    await call(sandbox, 'POST', '/_sandbox/reset');
    expect((await call(sandbox, 'GET', '/_sandbox/requests')).body).toEqual({ total: 0, counts: {}, data: [] });
  });

  it('answers 404 with a hint outside its routes', async () => {
    const res = await call(sandbox, 'POST', '/check-vat-number', { countryCode: 'FR', vatNumber: '100' });
    expect(res.status).toBe(404);
    expect(res.body.error).toContain(REST_BASE_PATH);
  });
});
