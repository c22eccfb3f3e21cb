import type { AddressInfo } from 'node:net';
import { waitFor } from '../../../test/support/kit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer, FILES_PATH, lastPublicationDays, loadSandboxConfig, seededRate } from '@paymesh/sandbox-ecb';
import { NotFoundError } from '@paymesh/core';
import { findEcbPublication } from '../src/app/find-ecb-publication';
import { getEcbRates } from '../src/app/get-ecb-rates';
import type { EcbRateDoc } from '../src/domain/ecb-rates';
import { EcbFetchError } from '../src/ecb/client';
import { EcbRatesFetcher } from '../src/jobs/ecb-rates-fetcher';
import { ECB_RATES } from '../src/store/collections';
import { openTaxHarness, type TaxHarness } from './harness';

/**
 * The ECB rates job against the ECB sandbox over real HTTP, storing into the machine's PostgreSQL.
 * The sandbox's today is Friday 27 November 2026.
 */
const NOW = '2026-11-27T15:00:00.000Z';

let sandbox: FastifyInstance;
let url: string;
let h: TaxHarness;

beforeAll(async () => {
  sandbox = buildServer(loadSandboxConfig({ LOG_LEVEL: 'silent', ECB_SANDBOX_PORT: '0' }), {
    now: () => new Date(NOW),
  });
  await sandbox.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(sandbox.server.address() as AddressInfo).port}`;
  h = await openTaxHarness();
  h.clock.set(NOW);
});
afterAll(async () => {
  await sandbox?.close();
  await h?.close();
});
beforeEach(async () => {
  await control('POST', '/_sandbox/reset');
  await h.store.collection(ECB_RATES).deleteMany({});
});

async function control(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.status === 204 ? null : res.json();
}

const until = <T>(fn: () => Promise<T | false | null | undefined>) => waitFor(fn, { stepMs: 50 });

const fetcher = (over: { url?: string; intervalMs?: number } = {}) =>
  new EcbRatesFetcher(h.deps, {
    url: over.url ?? `${url}${FILES_PATH}/eurofxref-hist-90d.xml`,
    intervalMs: over.intervalMs ?? 60_000,
    deadlineMs: 5000,
    firstRetryMs: 50,
  });
const stored = () => h.store.collection<EcbRateDoc>(ECB_RATES).find({}, { sort: { date: -1 } });

describe('ECB rates job', () => {
  it('keeps every day of the 90-day file once; fetching again, also by two replicas at once, writes nothing new', async () => {
    const first = await fetcher().fetchOnce();
    expect(first).toMatchObject({ days: 90, inserted: 90, updated: 0, unchanged: 0, latest: '2026-11-27' });
    const docs = (await stored()).items;
    expect(docs.map((d) => d.date)).toEqual(lastPublicationDays('2026-11-27', 90));
    expect(docs[0]).toMatchObject({
      date: '2026-11-27',
      rates: { USD: seededRate('USD', '2026-11-27'), JPY: seededRate('JPY', '2026-11-27') },
      fetchedAt: NOW,
    });
    expect(docs[0]!.source).toMatch(/\/stats\/eurofxref\/eurofxref-hist-90d\.xml$/);

    await h.store.collection(ECB_RATES).deleteMany({ date: { $gte: '2026-11-01' } });
    const [a, b] = await Promise.all([fetcher().fetchOnce(), fetcher().fetchOnce()]);
    expect(a.inserted + b.inserted).toBe(20);
    expect(a.inserted + a.unchanged + a.updated).toBe(90);
    expect((await stored()).items).toHaveLength(90);
    expect(await fetcher().fetchOnce()).toMatchObject({ inserted: 0, updated: 0, unchanged: 90 });
  });

  it('takes a corrected day and the daily file; the stored days answer the OSS rate date', async () => {
    await fetcher().fetchOnce();
    await control('PUT', '/_sandbox/rates/2026-09-30', { rates: { USD: 1.25 } });
    expect(await fetcher().fetchOnce()).toMatchObject({ inserted: 0, updated: 1, unchanged: 89 });
    expect(await findEcbPublication(h.deps, '2026-09-30')).toMatchObject({
      kind: 'published',
      publication: { date: '2026-09-30', rates: { USD: 1.25 } },
    });
    // Saturday 3 October: the next publication is Monday 5 October.
    expect(await findEcbPublication(h.deps, '2026-10-03')).toMatchObject({
      kind: 'published',
      publication: { date: '2026-10-05' },
    });
    // The quarter ending on 31 December: its rate is not out yet.
    expect(await findEcbPublication(h.deps, '2026-12-31')).toEqual({
      kind: 'not_published',
      day: '2026-12-31',
      latest: '2026-11-27',
    });
    // Long before the first day kept.
    expect(await findEcbPublication(h.deps, '2026-03-31')).toMatchObject({ kind: 'not_kept' });

    await control('PUT', '/_sandbox/rates/2026-11-30', { rates: { USD: 1.3 } });
    expect(await fetcher({ url: `${url}${FILES_PATH}/eurofxref-daily.xml` }).fetchOnce()).toMatchObject({
      days: 1,
      inserted: 1,
      latest: '2026-11-30',
    });
  });

  it('the read route answers the publication a day converts at, the latest without a day, and 404 saying why', async () => {
    await expect(getEcbRates(h.deps, {})).rejects.toThrow(NotFoundError);
    await fetcher().fetchOnce();
    expect(await getEcbRates(h.deps, { date: '2026-10-03' })).toMatchObject({
      date: '2026-10-03',
      rateDate: '2026-10-05',
      rates: { USD: seededRate('USD', '2026-10-05') },
      fetchedAt: NOW,
    });
    expect(await getEcbRates(h.deps, {})).toMatchObject({ date: null, rateDate: '2026-11-27' });
    await expect(getEcbRates(h.deps, { date: '2026-12-31' })).rejects.toThrow(
      /ECB reference rate for 2026-12-31 \(or the next publication day\) is not published yet; the latest kept is of 2026-11-27/,
    );
    await expect(getEcbRates(h.deps, { date: '2026-01-30' })).rejects.toThrow(
      /no ECB reference rates are kept for 2026-01-30/,
    );
  });

  it('a failed fetch throws without storing; the running job retries until the ECB answers, and keeps fetching on its interval', async () => {
    await control('POST', '/_sandbox/outage', { mode: 'down' });
    await expect(fetcher().fetchOnce()).rejects.toThrow(EcbFetchError);
    await expect(fetcher().fetchOnce()).rejects.toThrow(/HTTP 503/);
    await expect(
      fetcher({ url: 'http://127.0.0.1:9/stats/eurofxref/eurofxref-hist-90d.xml' }).fetchOnce(),
    ).rejects.toThrow(EcbFetchError);
    await expect(fetcher({ url: `${url}/health` }).fetchOnce()).rejects.toThrow(
      /not well-formed XML|not a eurofxref file/,
    );
    expect((await stored()).items).toHaveLength(0);

    const job = fetcher({ intervalMs: 1000 });
    job.start();
    try {
      // Retries come quickly after failures (50 ms, doubling) while the files are down.
      await until(
        async () =>
          (await control('GET', '/_sandbox/requests')).data.filter((r: { status: number }) => r.status === 503)
            .length >= 4,
      );
      await control('POST', '/_sandbox/outage', { mode: 'up' });
      await until(async () => (await stored()).items.length === 90);
      // The next round (1 s later) sees a new day.
      await control('PUT', '/_sandbox/rates/2026-11-30', { rates: { USD: 1.3 } });
      await until(async () => (await stored()).items[0]?.date === '2026-11-30');
    } finally {
      await job.stop();
    }
  });
});
