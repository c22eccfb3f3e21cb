import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newObjectId } from '../../libs/core/src/index';
import { call, makeClient } from '../../libs/grpc/src/index';
import { notificationsIpn } from '../../libs/proto/src/index';
import { TestDnsServer } from '../support/dns-server';
import { MailCatcherClient } from '../support/mail-catcher';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';

const dir = mkdtempSync(join(tmpdir(), 'email-mesh-'));

/** A PDF's text as poppler extracts it, runs of white space as one space. */
function pdfText(bytes: Buffer): string {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, bytes);
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
}

describe('e-mail over SMTP to the mail catcher (mesh)', () => {
  let mesh: TestMesh;
  let catcher: MailCatcherClient;
  let ipn: notificationsIpn.NotificationsIpnServiceClient;
  let organizationId: string;
  let apiKey: string;
  let siteId: string;
  const rpc = { deadlineMs: 5_000, target: 'notifications-ipn' };
  /** The DNS the mesh asks (checkout's resolvers): where a merchant publishes its sender record. */
  const dns = new TestDnsServer();

  beforeAll(async () => {
    const resolver = await dns.start();
    mesh = await startTestMesh({
      env: {
        EMAIL_BACKOFF_BASE_MS: '200',
        EMAIL_POLL_INTERVAL_MS: '100',
        EMAIL_MAX_ATTEMPTS: '3',
        DNS_RESOLVERS: resolver,
      },
    });
    const url = mesh.sandboxUrls['sandbox-mail'];
    if (!url) throw new Error('the mail catcher did not start with the mesh');
    catcher = new MailCatcherClient(url);
    const boot = await mesh.bootstrap();
    organizationId = boot.organizationId;
    apiKey = boot.apiKey;
    siteId = boot.siteId;
    ipn = makeClient(notificationsIpn.NotificationsIpnServiceClient, `127.0.0.1:${mesh.ports['notifications-ipn']}`);
  });

  afterAll(async () => {
    await mesh?.dispose();
    await dns.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers a queued e-mail with its attachment after one refusal, recording both attempts', async () => {
    await catcher.refuse(1);
    const sourceId = newObjectId();
    const to = `buyer-${sourceId}@example.test`;
    const request: notificationsIpn.SendEmailRequest = {
      organizationId,
      testMode: false,
      idempotencyKey: `invoice-${sourceId}-1`,
      sourceKind: 'invoice',
      sourceId,
      to: [to],
      cc: [],
      subject: 'Invoice INV-7 from Mesh Shop',
      text: 'Amount due: 10.00 EUR',
      attachments: [
        { filename: 'invoice-INV-7.html', contentType: 'text/html', content: Buffer.from('<h1>INV-7</h1>') },
      ],
    };
    const sent = await call(ipn, ipn.sendEmail, request, rpc);
    expect(sent.created).toBe(true);
    expect(sent.email).toMatchObject({ state: 'pending', to: [to], sourceKind: 'invoice', sourceId });
    // The same key again: the same e-mail, nothing sent twice.
    const again = await call(ipn, ipn.sendEmail, request, rpc);
    expect(again).toMatchObject({ created: false, email: { id: sent.email?.id } });

    const [message, ...more] = await eventually(async () => {
      const got = await catcher.to(to);
      return got.length > 0 ? got : undefined;
    });
    expect(more).toHaveLength(0);
    expect(message).toMatchObject({ to: [to], subject: 'Invoice INV-7 from Mesh Shop' });
    expect(message?.attachments.map((a) => [a.filename, a.contentType])).toEqual([['invoice-INV-7.html', 'text/html']]);
    if (!message) throw new Error('no message');
    expect((await catcher.attachment(message, 0)).body).toBe('<h1>INV-7</h1>');

    const listed = await eventually(async () => {
      const { items } = await call(
        ipn,
        ipn.listEmails,
        { organizationId, testMode: false, sourceKind: 'invoice', sourceId },
        rpc,
      );
      return items[0]?.state === 'sent' ? items : undefined;
    });
    expect(listed).toHaveLength(1);
    expect(listed[0]?.attempts.map((a) => a.result)).toEqual(['failed', 'sent']);
    expect(listed[0]?.attempts[0]?.error).toContain('451');
  });

  it('refuses a malformed request with INVALID_ARGUMENT and queues nothing', async () => {
    const sourceId = newObjectId();
    await expect(
      call(
        ipn,
        ipn.sendEmail,
        {
          organizationId,
          testMode: false,
          idempotencyKey: 'k',
          sourceKind: 'invoice',
          sourceId,
          to: ['nope'],
          cc: [],
          subject: 's',
          text: 't',
          attachments: [],
        },
        rpc,
      ),
    ).rejects.toMatchObject({ kind: 'validation' });
    const { items } = await call(
      ipn,
      ipn.listEmails,
      { organizationId, testMode: false, sourceKind: 'invoice', sourceId },
      rpc,
    );
    expect(items).toEqual([]);
  });

  describe('invoices and credit notes (Admin API)', () => {
    const adm = (path: string) => `${mesh.adminBaseUrl}${path}`;
    const get = (path: string) => api('GET', adm(path), { token: apiKey });
    const post = (path: string, body?: unknown) => api('POST', adm(path), { token: apiKey, body: body ?? {} });
    const address = { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' };

    async function client(email: string | null): Promise<string> {
      const res = await post('/clients', { name: 'Erika Buyer', ...(email ? { email } : {}), address });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    }
    async function draft(clientId: string): Promise<string> {
      const res = await post('/invoices', {
        siteId,
        clientId,
        currency: 'EUR',
        paymentTermsDays: 14,
        items: [{ description: 'Consulting', quantity: 2, unitPrice: 11900, amountType: 'gross', itemType: 'service' }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    }
    async function issued(clientId: string): Promise<{ id: string; number: string }> {
      const id = await draft(clientId);
      const res = await post(`/invoices/${id}/issue`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { id, number: res.body.number as string };
    }

    beforeAll(async () => {
      const tax = await api('PUT', adm('/organizations/settings/tax'), { token: apiKey, body: { homeCountry: 'DE' } });
      expect(tax.status, JSON.stringify(tax.body)).toBe(200);
      const inv = await api('PUT', adm('/organizations/settings/invoicing'), {
        token: apiKey,
        body: { companyName: 'Mesh Shop GmbH', companyEmail: 'shop@mesh-shop.example' },
      });
      expect(inv.status, JSON.stringify(inv.body)).toBe(200);
    });

    it("e-mails an issued invoice to the client's address with the invoice attached, and records the send until it is sent", async () => {
      const to = `erika-${newObjectId()}@example.test`;
      const invoice = await issued(await client(to));
      const res = await post(`/invoices/${invoice.id}/send-email`, {
        cc: ['books@example.test'],
        message: 'Thank you for your order.',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({
        to: [to],
        cc: ['books@example.test'],
        subject: `Invoice ${invoice.number} from Mesh Shop GmbH`,
        state: 'queued',
      });

      const [message, ...more] = await eventually(async () => {
        const got = await catcher.to(to);
        return got.length > 0 ? got : undefined;
      });
      expect(more).toHaveLength(0);
      if (!message) throw new Error('no message');
      expect(message).toMatchObject({
        to: [to],
        cc: ['books@example.test'],
        subject: `Invoice ${invoice.number} from Mesh Shop GmbH`,
      });
      expect(message.text).toContain('Thank you for your order.');
      expect(message.text).toContain('Amount due: €238.00');
      expect(message.html).toContain('<strong>€238.00</strong>');
      // In the merchant's name; replies go to its company address while no billing address is set.
      expect(message.fromName).toBe('Mesh Shop GmbH');
      expect(message.from).toBe('no-reply@paymesh.localhost');
      expect(message.replyTo).toEqual(['shop@mesh-shop.example']);
      expect(message.attachments.map((a) => [a.filename, a.contentType])).toEqual([
        [`${invoice.number.replace(/[^A-Za-z0-9._-]/g, '_')}.pdf`, 'application/pdf'],
      ]);
      const pdf = await catcher.attachmentBytes(message, 0);
      expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      // The attachment is the invoice's stored PDF, byte for byte.
      const download = await fetch(adm(`/invoices/${invoice.id}/pdf`), {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(download.headers.get('x-document-rendered')).toBe('false');
      expect(Buffer.from(await download.arrayBuffer()).equals(pdf)).toBe(true);

      const recorded = await eventually(async () => {
        const got = (await get(`/invoices/${invoice.id}`)).body;
        return got.emails?.[0]?.state === 'sent' ? got.emails : undefined;
      });
      expect(recorded).toEqual([
        expect.objectContaining({
          emailId: res.body.emailId,
          to: [to],
          state: 'sent',
          detail: expect.stringContaining('250'),
          settledAt: expect.any(String),
        }),
      ]);

      // Sending again is a second e-mail, recorded beside the first.
      const again = await post(`/invoices/${invoice.id}/send-email`, { to: `copy-${to}` });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body.emailId).not.toBe(res.body.emailId);
      await eventually(async () => ((await catcher.to(`copy-${to}`)).length === 1 ? true : undefined));
      expect((await get(`/invoices/${invoice.id}`)).body.emails.map((e: { to: string[] }) => e.to)).toEqual([
        [to],
        [`copy-${to}`],
      ]);
    });

    it('records a send as failed with the last error once every attempt was refused', async () => {
      const to = `refused-${newObjectId()}@example.test`;
      const invoice = await issued(await client(to));
      await catcher.refuse(3);
      const res = await post(`/invoices/${invoice.id}/send-email`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const [send] = await eventually(async () => {
        const got = (await get(`/invoices/${invoice.id}`)).body.emails;
        return got?.[0]?.state === 'failed' ? got : undefined;
      });
      expect(send).toMatchObject({
        emailId: res.body.emailId,
        state: 'failed',
        detail: expect.stringContaining('451'),
        settledAt: expect.any(String),
      });
      expect(await catcher.to(to)).toEqual([]);
    });

    it('refuses a draft with 409 and an invoice without any recipient with 400, sending nothing', async () => {
      const to = `draft-${newObjectId()}@example.test`;
      const id = await draft(await client(to));
      const res = await post(`/invoices/${id}/send-email`);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatch(/draft/);
      expect(res.headers.get('x-request-id')).toBeTruthy();

      const silent = await issued(await client(null));
      const none = await post(`/invoices/${silent.id}/send-email`, {});
      expect(none.status).toBe(400);
      expect(none.body.error).toMatch(/recipient/);
      const bad = await post(`/invoices/${silent.id}/send-email`, { to: 'nope' });
      expect(bad.status).toBe(400);

      expect((await get(`/invoices/${id}`)).body.emails).toBeUndefined();
      expect((await get(`/invoices/${silent.id}`)).body.emails).toBeUndefined();
      expect(await catcher.to(to)).toEqual([]);
    });

    it('e-mails the credit note of a voided invoice to the buyer', async () => {
      const to = `void-${newObjectId()}@example.test`;
      const invoice = await issued(await client(to));
      const voided = await post(`/invoices/${invoice.id}/void`, { reason: 'ordered twice' });
      expect(voided.status, JSON.stringify(voided.body)).toBe(200);
      const creditNoteId = voided.body.creditNoteIds[0] as string;
      const note = (await get(`/credit-notes/${creditNoteId}`)).body;

      const res = await post(`/credit-notes/${creditNoteId}/send-email`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({
        to: [to],
        subject: `Credit note ${note.number} from Mesh Shop GmbH`,
        state: 'queued',
      });
      const [message] = await eventually(async () => {
        const got = await catcher.to(to);
        return got.length > 0 ? got : undefined;
      });
      expect(message?.subject).toBe(`Credit note ${note.number} from Mesh Shop GmbH`);
      expect(message?.text).toContain(`It corrects invoice ${invoice.number}.`);
      expect(message?.attachments.map((a) => [a.filename, a.contentType])).toEqual([
        [`${note.number.replace(/[^A-Za-z0-9._-]/g, '_')}.pdf`, 'application/pdf'],
      ]);
      const emails = await eventually(async () => {
        const got = (await get(`/credit-notes/${creditNoteId}`)).body.emails;
        return got?.[0]?.state === 'sent' ? got : undefined;
      });
      expect(emails).toHaveLength(1);
      expect((await post(`/credit-notes/${'0'.repeat(24)}/send-email`)).status).toBe(404);
    });

    it("writes a German client's invoice and e-mail in German with the XRechnung attached, an English client's in English", async () => {
      const sellerVat = 'DE136695976';
      const tax = await api('PUT', adm('/organizations/settings/tax'), {
        token: apiKey,
        body: { vatId: sellerVat, viesEnabled: false },
      });
      expect(tax.status, JSON.stringify(tax.body)).toBe(200);
      const settings = await api('PUT', adm('/organizations/settings/invoicing'), {
        token: apiKey,
        body: {
          companyAddress: { street: 'Hauptstraße 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
          companyPhone: '+49 30 1234567',
          bankIBAN: { plaintext: 'DE89370400440532013000' },
          eInvoice: { enabled: true, allowedFormats: ['xrechnung', 'zugferd'], emailFormat: 'xrechnung' },
          documents: { replyToEmail: 'buchhaltung@mesh-shop.example' },
        },
      });
      expect(settings.status, JSON.stringify(settings.body)).toBe(200);
      expect(settings.body.documents).toEqual({
        language: 'en',
        supplyDateRule: 'invoice_date',
        replyToEmail: 'buchhaltung@mesh-shop.example',
        senderEmail: null,
        sender: null,
      });
      expect(settings.body.eInvoice.emailFormat).toBe('xrechnung');
      const badLanguage = await post('/clients', { name: 'Client', language: 'xx' });
      expect(badLanguage.status).toBe(400);
      expect(badLanguage.body.error).toMatch(/language/);

      const deTo = `kaeufer-${newObjectId()}@example.test`;
      const deClient = await post('/clients', {
        name: 'Käufer AG',
        email: deTo,
        address,
        language: 'de',
        taxInfo: { taxId: { plaintext: 'DE812345673' }, taxIdType: 'vat', taxCountry: 'DE' },
      });
      expect(deClient.status, JSON.stringify(deClient.body)).toBe(201);
      expect(deClient.body.language).toBe('de');
      const de = await issued(deClient.body.id as string);
      const deInvoice = (await get(`/invoices/${de.id}`)).body;
      const german = (day: string) => day.split('-').reverse().join('.');
      const send = await post(`/invoices/${de.id}/send-email`);
      expect(send.status, JSON.stringify(send.body)).toBe(200);
      expect(send.body.subject).toBe(`Rechnung ${de.number} von Mesh Shop GmbH`);

      const [mail] = await eventually(async () => {
        const got = await catcher.to(deTo);
        return got.length > 0 ? got : undefined;
      });
      if (!mail) throw new Error('no message');
      expect(mail.subject).toBe(`Rechnung ${de.number} von Mesh Shop GmbH`);
      expect(mail.fromName).toBe('Mesh Shop GmbH');
      expect(mail.replyTo).toEqual(['buchhaltung@mesh-shop.example']);
      expect(mail.text).toContain('Guten Tag Käufer AG,');
      expect(mail.text).toContain(`anbei erhalten Sie die Rechnung ${de.number} vom ${german(deInvoice.issueDate)}.`);
      expect(mail.text).toContain('Zu zahlender Betrag: 238,00\u00a0€');
      expect(mail.text).toContain(`Fällig am: ${german(deInvoice.dueDate)}`);
      expect(mail.text).toContain('Die E-Rechnung im Format XRechnung (XML) ist ebenfalls angehängt.');
      expect(mail.html).toContain('<html lang="de">');
      expect(mail.html).toContain('Zu zahlender Betrag');
      expect(mail.html).toContain('238,00\u00a0€');
      const safe = de.number.replace(/[^A-Za-z0-9._-]/g, '_');
      expect(mail.attachments.map((a) => a.contentType)).toEqual(['application/pdf', 'application/xml']);
      expect(mail.attachments[0]?.filename).toBe(`${safe}.pdf`);
      expect(mail.attachments[1]?.filename).toMatch(/\.xml$/);
      const xml = (await catcher.attachment(mail, 1)).body;
      expect(xml).toContain('urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0');
      expect(xml).toContain(`<cbc:ID>${de.number}</cbc:ID>`);

      // Labels are printed in capitals (CSS), values as they are.
      const pdf = pdfText(await catcher.attachmentBytes(mail, 0));
      expect(pdf).toContain('Rechnung');
      expect(pdf).toContain(`RECHNUNGSNUMMER ${de.number}`);
      expect(pdf).toContain(`RECHNUNGSDATUM ${german(deInvoice.issueDate)}`);
      expect(pdf).toContain(`FÄLLIG AM ${german(deInvoice.dueDate)}`);
      expect(pdf).toContain(
        `LEISTUNGSDATUM ${german(deInvoice.issueDate)} (Leistungsdatum entspricht dem Rechnungsdatum)`,
      );
      expect(pdf).toContain(`Zahlbar innerhalb von 14 Tagen bis zum ${german(deInvoice.dueDate)}.`);
      expect(pdf).toContain('Zu zahlender Betrag 238,00 €');
      expect(pdf).toContain('Beschreibung Menge Einzelpreis USt. Netto Brutto');
      expect(pdf).toContain('USt-IdNr.: DE812345673');
      expect(pdf).toContain('Überweisung auf IBAN DE89 3704 0044 0532 0130 00');
      expect(pdf).not.toMatch(/Invoice|Due date|Payable/);

      // Its credit note (void) is written in German too, with the XRechnung credit note beside it.
      const voided = await post(`/invoices/${de.id}/void`, { reason: 'doppelt bestellt' });
      expect(voided.status, JSON.stringify(voided.body)).toBe(200);
      const note = (await get(`/credit-notes/${voided.body.creditNoteIds[0] as string}`)).body;
      const noteSend = await post(`/credit-notes/${note.id as string}/send-email`, { to: `gutschrift-${deTo}` });
      expect(noteSend.status, JSON.stringify(noteSend.body)).toBe(200);
      const [noteMail] = await eventually(async () => {
        const got = await catcher.to(`gutschrift-${deTo}`);
        return got.length > 0 ? got : undefined;
      });
      if (!noteMail) throw new Error('no credit note message');
      expect(noteMail.subject).toBe(`Rechnungskorrektur ${note.number as string} von Mesh Shop GmbH`);
      expect(noteMail.text).toContain(`Sie korrigiert die Rechnung ${de.number}.`);
      expect(noteMail.text).toContain('Gutgeschriebener Betrag: 238,00\u00a0€');
      expect(noteMail.attachments.map((a) => a.contentType)).toEqual(['application/pdf', 'application/xml']);
      const noteXml = (await catcher.attachment(noteMail, 1)).body;
      expect(noteXml).toContain('<CreditNote');
      const notePdf = pdfText(await catcher.attachmentBytes(noteMail, 0));
      expect(notePdf).toContain('Rechnungskorrektur');
      expect(notePdf).toContain(`Die obigen Beträge werden zur Rechnung ${de.number} gutgeschrieben.`);
      expect(notePdf).toContain('Vollständige Stornierung der Rechnung.');
      expect(notePdf).toContain('doppelt bestellt');

      const enTo = `buyer-${newObjectId()}@example.test`;
      const en = await issued(await client(enTo));
      const enInvoice = (await get(`/invoices/${en.id}`)).body;
      expect((await post(`/invoices/${en.id}/send-email`)).status).toBe(200);
      const [enMail] = await eventually(async () => {
        const got = await catcher.to(enTo);
        return got.length > 0 ? got : undefined;
      });
      if (!enMail) throw new Error('no message');
      expect(enMail.subject).toBe(`Invoice ${en.number} from Mesh Shop GmbH`);
      expect(enMail.fromName).toBe('Mesh Shop GmbH');
      expect(enMail.replyTo).toEqual(['buchhaltung@mesh-shop.example']);
      expect(enMail.text).toContain('Amount due: €238.00');
      expect(enMail.html).toContain('<html lang="en">');
      // A consumer (no tax ID) gets no e-invoice by the organization's rule.
      expect(enMail.attachments.map((a) => a.contentType)).toEqual(['application/pdf']);
      const enPdf = pdfText(await catcher.attachmentBytes(enMail, 0));
      expect(enPdf).toContain(`INVOICE NUMBER ${en.number}`);
      expect(enPdf).toContain(`DATE OF SUPPLY ${enInvoice.issueDate} (date of supply = invoice date)`);
      expect(enPdf).toContain(`DUE DATE ${enInvoice.dueDate}`);
      expect(enPdf).toContain(`Payable within 14 days, by ${enInvoice.dueDate}.`);
      expect(enPdf).toContain('Total due €238.00');
      expect(enPdf).not.toMatch(/Rechnung|Zahlbar/);
    });

    it("sends from the merchant's own address once its DNS record is verified, and from the platform's before", async () => {
      const put = (body: unknown) => api('PUT', adm('/organizations/settings/invoicing'), { token: apiKey, body });
      const verify = () => post('/organizations/settings/invoicing/sender/verify');
      async function mailed(): Promise<{ from: string; fromName: string; replyTo: string[]; envelopeFrom: string }> {
        const to = `sender-${newObjectId()}@example.test`;
        const invoice = await issued(await client(to));
        const send = await post(`/invoices/${invoice.id}/send-email`);
        expect(send.status, JSON.stringify(send.body)).toBe(200);
        const [mail] = await eventually(async () => {
          const got = await catcher.to(to);
          return got.length > 0 ? got : undefined;
        });
        if (!mail) throw new Error('no message');
        return { from: mail.from, fromName: mail.fromName, replyTo: mail.replyTo, envelopeFrom: mail.envelope.from };
      }
      const platform = {
        from: 'no-reply@paymesh.localhost',
        fromName: 'Mesh Shop GmbH',
        replyTo: ['buchhaltung@mesh-shop.example'],
        envelopeFrom: 'no-reply@paymesh.localhost',
      };

      // Malformed addresses and addresses at an IP are refused; nothing is stored.
      for (const bad of ['billing', 'billing@192.0.2.1', 'billing@[192.0.2.1]', 'billing@localhost']) {
        const res = await put({ documents: { senderEmail: bad } });
        expect(res.status, bad).toBe(400);
        expect(res.body.error, bad).toMatch(/senderEmail/);
      }
      const none = await verify();
      expect(none.status).toBe(422);
      expect(none.body).toMatchObject({ code: 'SENDER_EMAIL_MISSING' });

      const set = await put({
        documents: { senderEmail: 'billing@ACME.example', replyToEmail: 'buchhaltung@mesh-shop.example' },
      });
      expect(set.status, JSON.stringify(set.body)).toBe(200);
      const sender = set.body.documents.sender;
      expect(set.body.documents.senderEmail).toBe('billing@acme.example');
      expect(sender).toMatchObject({
        email: 'billing@acme.example',
        state: 'pending',
        dnsRecord: {
          type: 'TXT',
          name: '_paymesh-sender.acme.example',
          value: expect.stringMatching(/^paymesh-sender=/),
        },
        checkedAt: null,
        verifiedAt: null,
      });
      // Saving the same address again changes nothing (same record to publish).
      const same = await put({ documents: { senderEmail: 'billing@acme.example' } });
      expect(same.body.documents.sender).toEqual(sender);

      // Before the record exists the check fails, and e-mails keep the platform's address.
      const failed = await verify();
      expect(failed.status, JSON.stringify(failed.body)).toBe(200);
      expect(failed.body).toMatchObject({ state: 'failed', foundValues: [], checkedAt: expect.any(String) });
      expect(failed.body.reason).toContain(sender.dnsRecord.value);
      const shown = await get('/organizations/settings/invoicing');
      expect(shown.body.documents.sender).toMatchObject({ state: 'failed', checkedAt: failed.body.checkedAt });
      expect(await mailed()).toEqual(platform);

      // Published: verified, and invoice e-mails come from the merchant's address, Reply-To unchanged.
      dns.zone.set(sender.dnsRecord.name, {
        txt: ['v=spf1 include:_spf.paymesh.example -all', sender.dnsRecord.value],
      });
      const verified = await verify();
      expect(verified.status, JSON.stringify(verified.body)).toBe(200);
      expect(verified.body).toMatchObject({ state: 'verified', reason: null, verifiedAt: expect.any(String) });
      const again = await verify();
      expect(again.body).toMatchObject({ state: 'verified', verifiedAt: verified.body.verifiedAt });
      expect((await get('/organizations/settings/invoicing')).body.documents.sender.state).toBe('verified');
      expect(await mailed()).toEqual({ ...platform, from: 'billing@acme.example' });

      // Another address starts over: pending with a new record, e-mails from the platform again.
      const changed = await put({ documents: { senderEmail: 'rechnung@acme.example' } });
      expect(changed.body.documents.sender).toMatchObject({ state: 'pending', checkedAt: null });
      expect(changed.body.documents.sender.dnsRecord.value).not.toBe(sender.dnsRecord.value);
      expect(await mailed()).toEqual(platform);
      const cleared = await put({ documents: { senderEmail: null } });
      expect(cleared.body.documents).toMatchObject({ senderEmail: null, sender: null });
    });
  });
});
