import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';

const BOM = '\uFEFF';
const CLIENT_HEADER =
  'name,email,phone,address.street,address.city,address.postalCode,address.country,taxInfo.taxId,taxInfo.taxIdType,taxInfo.taxCountry,notes';

/** A CSV cell as a spreadsheet writes it (quoted when it must be). */
const q = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const csvOf = (rows: string[][]) => rows.map((r) => r.map(q).join(',')).join('\r\n') + '\r\n';

/** Client rows `n` of them, row i named Client-<tag>-<i>. */
function clientFile(tag: string, n: number): string {
  const lines = [CLIENT_HEADER];
  for (let i = 1; i <= n; i++)
    lines.push(
      `Client-${tag}-${i},c${i}@${tag}.example,+49 30 ${100000 + (i % 900000)},Weg ${i},Berlin,10115,DE,,,,imported row ${i}`,
    );
  return `${lines.join('\n')}\n`;
}

/**
 * CSV import and export over the Admin API with the whole mesh: templates, per-row checks that
 * write nothing, all-or-nothing imports that are idempotent per file, the 50,000-row client file,
 * and streamed exports read back with csv-parse.
 */
describe('data import/export over the Admin API', () => {
  let mesh: TestMesh;
  let A: BootstrapResult;
  let B: BootstrapResult;
  const adm = (path: string) => `${mesh.adminBaseUrl}${path}`;
  const upload = (token: string, path: string, csv: string | Buffer, contentType = 'text/csv') =>
    fetch(adm(path), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
      body: csv,
    }).then(async (res) => ({
      status: res.status,
      headers: res.headers,
      body: (await res.json()) as any,
    }));
  /**
   * A list's exact total: the total of a page past its end (a list counts its matches up to 10,001,
   * or 1,001 for invoices, or to one past the page asked for when that is further; ADR 0086).
   */
  const total = async (token: string, path: string) => {
    const res = await api('GET', adm(`${path}${path.includes('?') ? '&' : '?'}limit=100&page=1000`), { token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.totalIsLowerBound).toBeUndefined();
    return res.body.total as number;
  };
  /** Every item of a list route, page by page. */
  const listAll = async (token: string, path: string) => {
    const items: any[] = [];
    for (let page = 1; ; page++) {
      const res = await api('GET', adm(`${path}${path.includes('?') ? '&' : '?'}limit=100&page=${page}`), { token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      items.push(...res.body.items);
      if (res.body.items.length < 100) return items;
    }
  };
  const exportCsv = async (token: string, body: unknown) => {
    const res = await fetch(adm('/data-import-export/export'), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      text,
      rows: res.status === 200 ? (parse(text, { bom: true, columns: true }) as Record<string, string>[]) : [],
    };
  };

  beforeAll(async () => {
    mesh = await startTestMesh();
    A = await mesh.bootstrap();
    B = await mesh.bootstrap();
  });
  afterAll(async () => {
    await mesh?.dispose();
  });

  it('serves CSV templates whose example rows pass the check, and 400 for an unknown entity type', async () => {
    for (const entity of ['clients', 'invoices', 'tax_rates']) {
      const res = await fetch(adm(`/data-import-export/template/${entity}`), {
        headers: { authorization: `Bearer ${A.apiKey}` },
      });
      expect(res.status, entity).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(res.headers.get('content-disposition')).toBe(`inline; filename="${entity}-import-template.csv"`);
      const rows = parse(await res.text(), { columns: true }) as Record<string, string>[];
      expect(rows, entity).toHaveLength(1);
    }
    const clients = parse(
      await (
        await fetch(adm('/data-import-export/template/clients'), { headers: { authorization: `Bearer ${A.apiKey}` } })
      ).text(),
    ) as string[][];
    expect(clients[0]).toContain('address.country');
    const checked = await upload(A.apiKey, '/data-import-export/import/validate?entityType=clients', csvOf(clients));
    expect(checked.status, JSON.stringify(checked.body)).toBe(200);
    expect(checked.body).toMatchObject({ rows: 1, records: 1, invalidRows: 0, errors: [], created: 0 });

    const unknown = await api('GET', adm('/data-import-export/template/widgets'), { token: A.apiKey });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/entityType/);
    expect(unknown.headers.get('x-request-id')).toBeTruthy();
  });

  it('rejects a client file with one bad row: validate names the row and column, import answers 422 and writes nothing', async () => {
    const before = await total(A.apiKey, '/clients');
    // A byte order mark, a quoted multi-line note (one spreadsheet row) and a bad e-mail on spreadsheet row 4.
    const oneBad = `${BOM}${csvOf([
      ['name', 'email', 'notes'],
      ['Alpha GmbH', 'a@alpha.example', 'line one\nline two'],
      ['Beta SARL', 'b@beta.example', ''],
      ['Gamma BV', 'not-an-email', ''],
      ['Delta AB', 'd@delta.example', ''],
    ])}`;
    const v = await upload(A.apiKey, '/data-import-export/import/validate?entityType=clients', oneBad);
    expect(v.status).toBe(200);
    expect(v.body.invalidRows).toBe(1);
    expect(v.body.errors).toEqual([{ row: 4, field: 'email', error: expect.stringMatching(/email/i) }]);
    expect(await total(A.apiKey, '/clients')).toBe(before);

    const imported = await upload(A.apiKey, '/data-import-export/import?entityType=clients', oneBad);
    expect(imported.status, JSON.stringify(imported.body)).toBe(422);
    expect(imported.body.code).toBe('DATA_IMPORT_INVALID');
    expect(imported.body.error).toMatch(/row 4/);
    expect(imported.body.requestId).toBe(imported.headers.get('x-request-id'));
    expect(imported.body.report.errors).toEqual(v.body.errors);
    expect(await total(A.apiKey, '/clients')).toBe(before);

    // Fixed, the same rows import; the multi-line note survives.
    const fixed = oneBad.replace('not-an-email', 'g@gamma.example');
    const ok = await upload(A.apiKey, '/data-import-export/import?entityType=clients', fixed);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({
      dryRun: false,
      rows: 4,
      records: 4,
      invalidRows: 0,
      created: 4,
      alreadyImported: 0,
    });
    expect(await total(A.apiKey, '/clients')).toBe(before + 4);
    const alpha = (await listAll(A.apiKey, '/clients')).find((c) => c.name === 'Alpha GmbH');
    expect(alpha).toMatchObject({ email: 'a@alpha.example', notes: 'line one\nline two' });
  });

  it('refuses files that are not UTF-8 CSV, too large, or sent as JSON, with 4xx and no write', async () => {
    const before = await total(A.apiKey, '/clients');
    const latin1 = Buffer.concat([Buffer.from('name\n'), Buffer.from([0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72, 0x0a])]);
    const notUtf8 = await upload(A.apiKey, '/data-import-export/import?entityType=clients', latin1);
    expect(notUtf8.status).toBe(400);
    expect(notUtf8.body.error).toMatch(/UTF-8/);

    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 'a');
    const tooBig = await upload(A.apiKey, '/data-import-export/import?entityType=clients', big);
    expect(tooBig.status).toBe(413);
    expect(typeof tooBig.body.error).toBe('string');

    const json = await api('POST', adm('/data-import-export/import?entityType=clients'), {
      token: A.apiKey,
      body: { name: 'x' },
    });
    expect(json.status).toBe(400);
    expect(json.body.error).toMatch(/text\/csv/);

    const noType = await upload(A.apiKey, '/data-import-export/import', 'name\nX\n');
    expect(noType.status).toBe(400);
    const badHeader = await upload(
      A.apiKey,
      '/data-import-export/import/validate?entityType=clients',
      'nom,email\nX,x@y.example\n',
    );
    expect(badHeader.status).toBe(200);
    expect(badHeader.body.errors).toEqual([
      { row: 1, field: 'nom', error: expect.stringMatching(/unknown column/) },
      { row: 1, field: 'name', error: expect.stringMatching(/required column/) },
    ]);
    const unclosed = await upload(
      A.apiKey,
      '/data-import-export/import/validate?entityType=clients',
      'name\n"open quote\n',
    );
    expect(unclosed.status).toBe(400);
    expect(unclosed.body.error).toMatch(/CSV/);
    const tooManyRows = await upload(
      A.apiKey,
      '/data-import-export/import?entityType=clients',
      `name\n${'X\n'.repeat(50_001)}`,
    );
    expect(tooManyRows.status).toBe(400);
    expect(tooManyRows.body.error).toMatch(/more than 50000 data rows/);
    expect(await total(A.apiKey, '/clients')).toBe(before);
  });

  it('imports a 50,000-row client file once: a repeated upload creates nothing, and the export streams every row', async () => {
    const file = clientFile('bulk', 50_000);
    expect(Buffer.byteLength(file)).toBeGreaterThan(4 * 1024 * 1024);
    const before = await total(A.apiKey, '/clients');
    const first = await upload(A.apiKey, '/data-import-export/import?entityType=clients', file);
    expect(first.status, JSON.stringify(first.body).slice(0, 500)).toBe(200);
    expect(first.body).toMatchObject({
      rows: 50_000,
      records: 50_000,
      invalidRows: 0,
      created: 50_000,
      alreadyImported: 0,
    });
    expect(await total(A.apiKey, '/clients')).toBe(before + 50_000);

    const again = await upload(A.apiKey, '/data-import-export/import?entityType=clients', file);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ created: 0, alreadyImported: 50_000 });
    expect(await total(A.apiKey, '/clients')).toBe(before + 50_000);

    const exported = await exportCsv(A.apiKey, { entityType: 'clients' });
    expect(exported.status).toBe(200);
    expect(exported.rows).toHaveLength(before + 50_000);
    const names = new Set(exported.rows.map((r) => r.name));
    for (const i of [1, 25_000, 50_000]) expect(names.has(`Client-bulk-${i}`)).toBe(true);
    // A generous bound for a loaded machine; the figures belong to the benchmark, not here.
  }, 600_000);

  it('a client import cut by a crash of billing half-way completes on re-upload without a duplicate', async () => {
    const C = await mesh.bootstrap();
    const rows = 20_000;
    const file = clientFile('crash', rows);
    const cut = upload(C.apiKey, '/data-import-export/import?entityType=clients', file);
    // Some batches are written: billing dies in the middle of the import.
    await eventually(async () => (await total(C.apiKey, '/clients')) > 0, 300_000, 50);
    await mesh.kill('billing');
    const answer = await cut;
    expect(answer.status).not.toBe(200);
    expect(typeof answer.body.error).toBe('string');
    await mesh.restart('billing', 60_000);
    const written = await total(C.apiKey, '/clients');
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(rows);
    // Whole batches only: a batch is written in one transaction.
    expect(written % 500).toBe(0);

    const resumed = await upload(C.apiKey, '/data-import-export/import?entityType=clients', file);
    expect(resumed.status, JSON.stringify(resumed.body).slice(0, 300)).toBe(200);
    expect(resumed.body).toMatchObject({ created: rows - written, alreadyImported: written });
    expect(await total(C.apiKey, '/clients')).toBe(rows);
  }, 600_000);

  it("imports and exports a client's document language and e-invoice format, refusing the values the clients API refuses", async () => {
    const D = await mesh.bootstrap();
    const file = csvOf([
      ['name', 'language', 'eInvoiceFormat'],
      ['Deutsch GmbH', 'de', 'xrechnung'],
      ['English Ltd', 'en', 'none'],
      ['Default SE', '', ''],
      ['Hybrid AG', 'de', 'zugferd'],
      ['Français SA', 'fr', ''],
      ['Peppol BV', '', 'peppol'],
    ]);
    const v = await upload(D.apiKey, '/data-import-export/import/validate?entityType=clients', file);
    expect(v.status, JSON.stringify(v.body)).toBe(200);
    expect(v.body.errors).toEqual([
      { row: 6, field: 'language', error: expect.any(String) },
      { row: 7, field: 'eInvoiceFormat', error: expect.any(String) },
    ]);
    const refused = await upload(D.apiKey, '/data-import-export/import?entityType=clients', file);
    expect(refused.status).toBe(422);
    expect(await total(D.apiKey, '/clients')).toBe(0);

    const fixed = file.replace('Français SA,fr,', 'Français SA,en,').replace('Peppol BV,,peppol', 'Peppol BV,,');
    const ok = await upload(D.apiKey, '/data-import-export/import?entityType=clients', fixed);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ created: 6, invalidRows: 0 });
    const listed = await listAll(D.apiKey, '/clients');
    const byName = new Map(listed.map((c) => [c.name as string, c]));
    expect(byName.get('Deutsch GmbH')).toMatchObject({ language: 'de', eInvoiceFormat: 'xrechnung' });
    expect(byName.get('English Ltd')).toMatchObject({ language: 'en', eInvoiceFormat: 'none' });
    expect(byName.get('Default SE')).toMatchObject({ language: null, eInvoiceFormat: null });
    expect(byName.get('Hybrid AG')).toMatchObject({ language: 'de', eInvoiceFormat: 'zugferd' });

    const exported = await exportCsv(D.apiKey, { entityType: 'clients' });
    expect(exported.status).toBe(200);
    expect(exported.rows).toHaveLength(6);
    for (const row of exported.rows) {
      const c = byName.get(row.name ?? '');
      expect(row.language, row.name).toBe(c.language ?? '');
      expect(row.eInvoiceFormat, row.name).toBe(c.eInvoiceFormat ?? '');
    }
    // The export's columns import again (the ones the template has), with the same values.
    const E = await mesh.bootstrap();
    const back = csvOf([
      ['name', 'language', 'eInvoiceFormat'],
      ...exported.rows.map((r) => [r.name ?? '', r.language ?? '', r.eInvoiceFormat ?? '']),
    ]);
    const reimported = await upload(E.apiKey, '/data-import-export/import?entityType=clients', back);
    expect(reimported.status, JSON.stringify(reimported.body)).toBe(200);
    const again = await listAll(E.apiKey, '/clients');
    expect(new Set(again.map((c) => `${c.name}|${c.language}|${c.eInvoiceFormat}`))).toEqual(
      new Set(listed.map((c) => `${c.name}|${c.language}|${c.eInvoiceFormat}`)),
    );
  });

  it('exports clients as the API lists them, with formula cells neutralised', async () => {
    const payloads = ['=HYPERLINK("http://evil.example","x")', '+SUM(1,2)', '-2+3', '@cmd', '\tTabbed'];
    for (const name of [...payloads, 'Plain Name']) {
      const res = await api('POST', adm('/clients'), { token: B.apiKey, body: { name, email: null, notes: '=1+1' } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const exported = await exportCsv(B.apiKey, { entityType: 'clients' });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(exported.headers.get('content-disposition')).toMatch(/^inline; filename="clients-\d{4}-\d{2}-\d{2}\.csv"$/);
    const listed = await listAll(B.apiKey, '/clients');
    expect(exported.rows).toHaveLength(listed.length);
    const byId = new Map(exported.rows.map((r) => [r.id, r]));
    for (const c of listed) {
      const row = byId.get(c.id);
      expect(row, c.name).toBeDefined();
      const expected = /^[=+\-@\t\r]/.test(c.name) ? `'${c.name}` : c.name;
      expect(row!.name).toBe(expected);
      expect(row!.notes).toBe("'=1+1");
      expect(row!.email).toBe('');
      expect(row!.createdAt).toBe(c.createdAt);
    }
    expect(byId.size).toBe(listed.length);
    expect(exported.rows.find((r) => r.name?.includes('HYPERLINK'))?.name).toBe(`'${payloads[0]}`);

    // A day range without records: only the header.
    const none = await exportCsv(B.apiKey, { entityType: 'clients', from: '2001-01-01', to: '2001-01-31' });
    expect(none.status).toBe(200);
    expect(none.rows).toEqual([]);
    expect(none.text.replace(BOM, '').split('\r\n')[0] ?? none.text).toMatch(/^id,name,email/);

    const bad = await api('POST', adm('/data-import-export/export'), {
      token: B.apiKey,
      body: { entityType: 'clients', status: 'paid' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/status/);
    const unknown = await api('POST', adm('/data-import-export/export'), {
      token: B.apiKey,
      body: { entityType: 'widgets' },
    });
    expect(unknown.status).toBe(400);
  });

  it('imports tax rates through the tax service, once per file', async () => {
    const csv = csvOf([
      ['code', 'country', 'rateType', 'percent', 'validFrom', 'description'],
      ['IMPORT_FR_STD', 'FR', 'standard', '20', '2031-01-01', 'France, imported'],
      ['IMPORT_NL_RED', 'NL', 'reduced', '9', '2031-01-01', ''],
    ]);
    const bad = await upload(
      B.apiKey,
      '/data-import-export/import/validate?entityType=tax_rates',
      csv.replace(',9,', ',nine,'),
    );
    expect(bad.body.errors).toEqual([{ row: 3, field: 'percent', error: expect.any(String) }]);
    const res = await upload(B.apiKey, '/data-import-export/import?entityType=tax_rates', csv);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ created: 2, alreadyImported: 0 });
    const again = await upload(B.apiKey, '/data-import-export/import?entityType=tax_rates', csv);
    expect(again.body).toMatchObject({ created: 0, alreadyImported: 2 });
    const rates = (await api('GET', adm('/tax-rates?code=IMPORT_FR_STD&limit=100'), { token: B.apiKey })).body.items;
    expect(rates).toHaveLength(1);
    expect(rates[0]).toMatchObject({
      country: 'FR',
      rateType: 'standard',
      percent: 20,
      validFrom: '2031-01-01',
      description: 'France, imported',
    });
  });

  it('imports invoice drafts (one row per line, grouped by reference) and exports invoices and transactions as listed', async () => {
    expect(
      (await api('PUT', adm('/organizations/settings/tax'), { token: B.apiKey, body: { homeCountry: 'DE' } })).status,
    ).toBe(200);
    const client = await api('POST', adm('/clients'), {
      token: B.apiKey,
      body: { name: 'Käufer AG', address: { street: 'Weg 1', city: 'Köln', postalCode: '50667', country: 'DE' } },
    });
    expect(client.status).toBe(201);
    const header = [
      'reference',
      'siteId',
      'clientId',
      'currency',
      'paymentTermsDays',
      'item.description',
      'item.quantity',
      'item.unitPrice',
      'item.amountType',
      'item.itemType',
    ];
    const rows = [
      ['R-1', B.siteId, client.body.id, 'EUR', '14', 'Consulting', '2', '10000', 'net', 'service'],
      ['R-1', '', '', '', '', 'Travel', '1', '2500', 'net', 'service'],
      ['R-2', B.siteId, client.body.id, 'EUR', '', 'Workshop', '1', '50000', 'gross', 'service'],
    ];
    const badLine = await upload(
      B.apiKey,
      '/data-import-export/import/validate?entityType=invoices',
      csvOf([
        header,
        ...rows.slice(0, 1),
        ['R-1', '', '', '', '', 'Travel', '0', '2500', 'net', 'service'],
        ...rows.slice(2),
      ]),
    );
    expect(badLine.body.errors).toEqual([{ row: 3, field: 'item.quantity', error: expect.any(String) }]);
    const unknownClient = await upload(
      B.apiKey,
      '/data-import-export/import/validate?entityType=invoices',
      csvOf([header, ['R-9', B.siteId, 'aaaaaaaaaaaaaaaaaaaaaaaa', 'EUR', '', 'X', '1', '1', 'net', 'service']]),
    );
    expect(unknownClient.body.errors).toEqual([
      { row: 2, field: 'clientId', error: expect.stringMatching(/not found/) },
    ]);

    const before = await total(B.apiKey, '/invoices');
    const res = await upload(B.apiKey, '/data-import-export/import?entityType=invoices', csvOf([header, ...rows]));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ rows: 3, records: 2, created: 2 });
    const again = await upload(B.apiKey, '/data-import-export/import?entityType=invoices', csvOf([header, ...rows]));
    expect(again.body).toMatchObject({ created: 0, alreadyImported: 2 });
    const invoices = await listAll(B.apiKey, '/invoices');
    expect(invoices).toHaveLength(before + 2);
    const r1 = invoices.find((i) => i.items.length === 2);
    expect(r1).toMatchObject({
      status: 'draft',
      paymentTermsDays: 14,
      items: [{ description: 'Consulting', quantity: 2, unitPrice: 10000 }, { description: 'Travel' }],
    });

    const exported = await exportCsv(B.apiKey, { entityType: 'invoices', status: 'draft', siteId: B.siteId });
    expect(exported.status).toBe(200);
    const drafts = invoices.filter((i) => i.status === 'draft' && i.siteId === B.siteId);
    expect(exported.rows.map((r) => r.id).sort()).toEqual(drafts.map((i) => i.id).sort());
    for (const row of exported.rows) {
      const inv = drafts.find((i) => i.id === row.id);
      expect(Number(row.gross)).toBe(inv.totals.gross);
      expect(Number(row.net)).toBe(inv.totals.net);
      expect(Number(row.lines)).toBe(inv.items.length);
    }

    // Transactions live in checkout: the export lists what GET /transactions lists, amounts as numbers.
    for (const amount of [1200, 3400]) {
      const t = await api('POST', adm('/transactions/manual'), {
        token: B.apiKey,
        body: {
          siteId: B.siteId,
          amount,
          currency: 'EUR',
          externalReference: `=SUM(${amount})`,
          status: -1,
          reason: 'wire',
        },
      });
      expect(t.status, JSON.stringify(t.body)).toBe(201);
    }
    const listed = await listAll(B.apiKey, '/transactions');
    const tx = await exportCsv(B.apiKey, { entityType: 'transactions' });
    expect(tx.status).toBe(200);
    expect(tx.rows.map((r) => r.id).sort()).toEqual(listed.map((t) => t.id).sort());
    for (const row of tx.rows) {
      const t = listed.find((l) => l.id === row.id);
      expect(Number(row.amount)).toBe(t.amount);
      expect(Number(row.status)).toBe(t.status);
      expect(row.externalReference).toBe(`'${t.externalReference}`);
    }
    const pending = await exportCsv(B.apiKey, { entityType: 'transactions', status: '-1' });
    expect(pending.rows.length).toBe(listed.filter((t) => t.status === -1).length);

    const credit = await exportCsv(B.apiKey, { entityType: 'credit_notes' });
    expect(credit.status).toBe(200);
    expect(credit.rows).toHaveLength(await total(B.apiKey, '/credit-notes'));
  });
});
