import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { FILES_PATH } from '../src/server';
import { call, type RunningSandbox, startSandbox } from './helpers';

let sandbox: RunningSandbox;
// Friday 27 November 2026; the 90 publication days before reach back to Monday 27 July.
const NOW = new Date('2026-11-27T15:00:00.000Z');

beforeAll(async () => {
  sandbox = await startSandbox(() => NOW);
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(async () => {
  await call(sandbox, 'POST', '/_sandbox/reset');
});

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'Cube' });

/** The days of a eurofxref file with their rates, as a generic XML parser reads it. */
async function file(
  name: string,
): Promise<{ status: number; type: string | null; days: { time: string; rates: Record<string, string> }[] }> {
  const res = await fetch(`${sandbox.url}${FILES_PATH}/${name}`);
  const text = await res.text();
  if (res.status !== 200) return { status: res.status, type: res.headers.get('content-type'), days: [] };
  expect(XMLValidator.validate(text)).toBe(true);
  const envelope = xml.parse(text)['gesmes:Envelope'];
  expect(envelope).toMatchObject({
    'xmlns:gesmes': 'http://www.gesmes.org/xml/2002-08-01',
    xmlns: 'http://www.ecb.int/vocabulary/2002-08-01/eurofxref',
    'gesmes:subject': 'Reference rates',
  });
  const days = (envelope.Cube[0].Cube ?? []).map(
    (c: { time: string; Cube?: { currency: string; rate: string }[] }) => ({
      time: c.time,
      rates: Object.fromEntries((c.Cube ?? []).map((x) => [x.currency, x.rate])),
    }),
  );
  return { status: res.status, type: res.headers.get('content-type'), days };
}

describe('eurofxref files', () => {
  it('the 90-day file: 90 publication days newest first, no weekends, 1 January or Christmas days', async () => {
    const { status, type, days } = await file('eurofxref-hist-90d.xml');
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/xml/);
    expect(days).toHaveLength(90);
    expect(days[0]!.time).toBe('2026-11-27');
    expect(days.at(-1)!.time).toBe('2026-07-27');
    expect(days.map((d) => d.time)).toEqual([...days.map((d) => d.time)].sort().reverse());
    for (const d of days) expect([0, 6]).not.toContain(new Date(`${d.time}T00:00:00Z`).getUTCDay());
    expect(days.map((d) => d.time)).not.toContain('2026-11-28');
    expect(Object.keys(days[0]!.rates)).toEqual(expect.arrayContaining(['USD', 'JPY', 'GBP', 'CHF']));
    expect(Object.keys(days[0]!.rates)).not.toContain('BGN');
    expect(Number(days[0]!.rates.USD)).toBeGreaterThan(1.06);
    expect(Number(days[0]!.rates.USD)).toBeLessThan(1.1);
  });

  it('rates are deterministic per currency and day, and the daily file is the latest day', async () => {
    const first = await file('eurofxref-hist-90d.xml');
    const again = await file('eurofxref-hist-90d.xml');
    expect(again.days).toEqual(first.days);
    expect(first.days[0]!.rates.USD).not.toBe(first.days[1]!.rates.USD);
    const daily = await file('eurofxref-daily.xml');
    expect(daily.days).toEqual([first.days[0]]);
  });

  it('a year end skips 25 and 26 December and 1 January', async () => {
    const late = await startSandbox(() => new Date('2027-01-05T12:00:00.000Z'));
    try {
      const res = await fetch(`${late.url}${FILES_PATH}/eurofxref-hist-90d.xml`);
      const times = [...(await res.text()).matchAll(/time="([\d-]+)"/g)].map((m) => m[1]);
      expect(times.slice(0, 6)).toEqual([
        '2027-01-05',
        '2027-01-04',
        '2026-12-31',
        '2026-12-30',
        '2026-12-29',
        '2026-12-28',
      ]);
      expect(times).toContain('2026-12-24');
      expect(times).not.toContain('2026-12-25');
    } finally {
      await late.close();
    }
  });
});

describe('sandbox controls', () => {
  it('sets the rates of a day (also one the calendar skips) and withdraws a day', async () => {
    const set = await call(sandbox, 'PUT', '/_sandbox/rates/2026-09-30', { rates: { USD: 1.25 } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ date: '2026-09-30', published: true, rates: { USD: 1.25 } });
    expect(Object.keys(set.body.rates).length).toBeGreaterThan(20);
    const replaced = await call(sandbox, 'PUT', '/_sandbox/rates/2026-11-28', { rates: { USD: 1.5 }, replace: true });
    expect(replaced.body).toEqual({ date: '2026-11-28', published: true, rates: { USD: 1.5 } });

    const hist = await file('eurofxref-hist-90d.xml');
    expect(hist.days[0]).toEqual({ time: '2026-11-28', rates: { USD: '1.5' } });
    expect(hist.days.find((d) => d.time === '2026-09-30')!.rates.USD).toBe('1.25');

    expect((await call(sandbox, 'DELETE', '/_sandbox/rates/2026-11-28')).status).toBe(204);
    expect((await call(sandbox, 'DELETE', '/_sandbox/rates/2026-11-27')).status).toBe(204);
    expect((await call(sandbox, 'GET', '/_sandbox/rates/2026-11-27')).body).toEqual({
      date: '2026-11-27',
      published: false,
      rates: {},
    });
    expect((await file('eurofxref-daily.xml')).days.map((d) => d.time)).toEqual(['2026-11-26']);
  });

  it('outage: the files answer 503 until it is lifted; every fetch is logged', async () => {
    expect((await call(sandbox, 'POST', '/_sandbox/outage', { mode: 'down' })).body).toEqual({ mode: 'down' });
    expect((await file('eurofxref-daily.xml')).status).toBe(503);
    await call(sandbox, 'POST', '/_sandbox/outage', { mode: 'up' });
    expect((await file('eurofxref-hist-90d.xml')).status).toBe(200);
    const log = (await call(sandbox, 'GET', '/_sandbox/requests')).body;
    expect(log.data.map((r: { file: string; status: number }) => [r.file, r.status])).toEqual([
      ['eurofxref-daily.xml', 503],
      ['eurofxref-hist-90d.xml', 200],
    ]);
  });

  it('rejects malformed control requests with 400', async () => {
    expect((await call(sandbox, 'PUT', '/_sandbox/rates/2026-02-30', { rates: { USD: 1 } })).status).toBe(400);
    const bad = await call(sandbox, 'PUT', '/_sandbox/rates/2026-09-30', { rates: { usd: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^body\.rates/);
    expect((await call(sandbox, 'PUT', '/_sandbox/rates/2026-09-30', { rates: { USD: -1 } })).status).toBe(400);
    expect((await call(sandbox, 'POST', '/_sandbox/outage', { mode: 'slow' })).status).toBe(400);
    expect((await call(sandbox, 'GET', '/nope')).status).toBe(404);
  });
});
