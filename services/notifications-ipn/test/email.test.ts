import { randomBytes } from 'node:crypto';
import { waitFor } from '../../../test/support/kit';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { Committer } from '@paymesh/bus';
import { Subjects, type EventMap } from '@paymesh/contracts';
import { createLogger, newObjectId, systemClock } from '@paymesh/core';
import { createStore, dropStoreDatabase, type DroppableStore, TEST_PG_URL } from '@paymesh/store';
import type { EmailDeps } from '../src/app/email-deps';
import { enqueueEmail } from '../src/app/enqueue-email';
import { listEmails } from '../src/app/list-emails';
import { processEmail, type EmailProcessResult } from '../src/app/process-email';
import { DueWorkScheduler } from '../src/delivery/scheduler';
import { SmtpEmailSender } from '../src/delivery/smtp-sender';
import { collections, EMAILS, type EmailDoc } from '../src/store/collections';

const PG_URL = TEST_PG_URL;
const database = `email_test_${randomBytes(5).toString('hex')}`;
const ORG = newObjectId();
const logger = createLogger({ service: 'notifications-email-test', level: 'silent' });
const timing = { maxAttempts: 3, backoffBaseMs: 100, timeoutMs: 2_000, leaseMarginMs: 200 };

/** A real SMTP server: keeps what it accepts; refuses the next `refuse` messages with `refuseCode`. */
const received: ParsedMail[] = [];
/** The envelope sender (MAIL FROM) of each accepted message, by Message-ID. */
const envelopeFrom = new Map<string, string>();
let refuse = 0;
let refuseCode = 451;
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, session, callback) {
    simpleParser(stream).then((mail) => {
      if (refuse > 0) {
        refuse--;
        callback(Object.assign(new Error('try again later'), { responseCode: refuseCode }));
        return;
      }
      received.push(mail);
      const from = session.envelope.mailFrom;
      if (mail.messageId) envelopeFrom.set(mail.messageId, from ? from.address : '');
      callback();
    }, callback);
  },
});

let store: DroppableStore;
let deps: EmailDeps;
const schedulers: Array<DueWorkScheduler<EmailDoc, EmailProcessResult>> = [];

function startScheduler(): void {
  const s = new DueWorkScheduler<EmailDoc, EmailProcessResult>(
    deps,
    { pollIntervalMs: 50, concurrency: 2 },
    {
      name: 'email',
      collection: EMAILS,
      process: (id, known) => processEmail(deps, id, known),
    },
  );
  schedulers.push(s);
  s.start();
}

const request = (over: Record<string, unknown> = {}) => ({
  organizationId: ORG,
  mode: 'live',
  idempotencyKey: `key-${newObjectId()}`,
  source: { kind: 'invoice', id: newObjectId() },
  to: ['buyer@example.test'],
  cc: [],
  subject: 'Invoice INV-1 from Shop',
  text: 'Amount due: 12.50 EUR',
  html: null,
  replyTo: null,
  attachments: [{ filename: 'invoice-INV-1.html', contentType: 'text/html', content: Buffer.from('<h1>INV-1</h1>') }],
  ...over,
});

const settled = (id: string) =>
  waitFor(async () => {
    const e = await store.collection<EmailDoc>(EMAILS).get(id);
    return e && e.state !== 'pending' ? e : undefined;
  });

async function outboxSubjects(emailId: string): Promise<string[]> {
  const events = await store.outbox.pending(1000);
  return events
    .filter((e) => (e.payload as { data?: { emailId?: string } }).data?.emailId === emailId)
    .map((e) => e.subject);
}

beforeAll(async () => {
  store = await createStore({ url: PG_URL, database });
  for (const c of collections) await store.ensureCollection(c);
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  deps = {
    store,
    outbox: new Committer<EventMap>({ store }),
    logger,
    clock: systemClock,
    sender: new SmtpEmailSender({
      host: '127.0.0.1',
      port,
      secure: false,
      from: 'Shop <billing@shop.test>',
      timeoutMs: timing.timeoutMs,
    }),
    timing,
    messageIdDomain: 'paymesh.test',
  };
});

afterEach(async () => {
  await Promise.all(schedulers.splice(0).map((s) => s.stop()));
  refuse = 0;
  refuseCode = 451;
});

afterAll(async () => {
  await deps.sender?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await store.close();
  await dropStoreDatabase({ url: PG_URL, database });
});

describe('e-mail outbox over SMTP (PostgreSQL + smtp-server)', () => {
  it('retries after the server refuses the first attempt, then delivers recipient, subject and attachment', async () => {
    refuse = 1;
    startScheduler();
    const req = request({ cc: ['accounts@example.test'] });
    const { email, created } = await enqueueEmail(deps, req);
    expect(created).toBe(true);
    const done = await settled(email.id);
    expect(done.state).toBe('sent');
    expect(done.attempts.map((a) => a.result)).toEqual(['failed', 'sent']);
    expect(done.attempts[0]?.error).toContain('451');
    expect(done.attempts[1]?.smtpResponse).toMatch(/^250/);

    const mail = received.find((m) => m.messageId === `<${email.id}@paymesh.test>`);
    expect(mail).toBeDefined();
    expect(mail?.subject).toBe('Invoice INV-1 from Shop');
    expect(mail?.from?.value[0]?.address).toBe('billing@shop.test');
    const to = Array.isArray(mail?.to) ? mail.to : [mail?.to];
    expect(to.flatMap((a) => a?.value.map((v) => v.address))).toEqual(['buyer@example.test']);
    expect(mail?.text?.trim()).toBe('Amount due: 12.50 EUR');
    expect(mail?.attachments.map((a) => [a.filename, a.contentType, a.content.toString()])).toEqual([
      ['invoice-INV-1.html', 'text/html', '<h1>INV-1</h1>'],
    ]);

    expect(await outboxSubjects(email.id)).toEqual([Subjects.emailDelivered]);
    const listed = await listEmails(deps, {
      organizationId: ORG,
      mode: 'live',
      sourceKind: 'invoice',
      sourceId: req.source.id,
    });
    expect(listed.map((e) => e.id)).toEqual([email.id]);
    expect(
      await listEmails(deps, {
        organizationId: newObjectId(),
        mode: 'live',
        sourceKind: 'invoice',
        sourceId: req.source.id,
      }),
    ).toEqual([]);
  });

  it('fails at once on a permanent refusal and after the last temporary one, announcing the failure', async () => {
    refuse = 1;
    refuseCode = 550;
    startScheduler();
    const permanent = await enqueueEmail(deps, request());
    const p = await settled(permanent.email.id);
    expect(p).toMatchObject({ state: 'failed' });
    expect(p.attempts).toHaveLength(1);
    expect(await outboxSubjects(permanent.email.id)).toEqual([Subjects.emailFailed]);

    refuse = 3;
    refuseCode = 421;
    const temporary = await enqueueEmail(deps, request());
    const t = await settled(temporary.email.id);
    expect(t.state).toBe('failed');
    expect(t.attempts.map((a) => a.result)).toEqual(['failed', 'failed', 'failed']);
    expect(t.lastError).toContain('421');
  });

  it('is idempotent by the caller key: the same message once, another message refused', async () => {
    const req = request();
    const first = await enqueueEmail(deps, req);
    const again = await enqueueEmail(deps, req);
    expect(again).toMatchObject({ created: false, email: { id: first.email.id } });
    await expect(enqueueEmail(deps, { ...req, subject: 'Other' })).rejects.toMatchObject({
      code: 'EMAIL_KEY_REUSED',
      kind: 'conflict',
    });
    // In the other data mode the key is another key.
    expect((await enqueueEmail(deps, { ...req, mode: 'test' })).created).toBe(true);
    const before = received.length;
    startScheduler();
    await settled(first.email.id);
    expect(received.length - before).toBeGreaterThanOrEqual(1);
    expect(received.filter((m) => m.messageId === `<${first.email.id}@paymesh.test>`)).toHaveLength(1);
  });

  it("writes a verified merchant address into From under the merchant's name, bounces still to MAIL_FROM", async () => {
    startScheduler();
    const req = request({ fromName: 'ACME GmbH', fromAddress: 'billing@acme.example', replyTo: 'books@acme.example' });
    const { email } = await enqueueEmail(deps, req);
    expect((await settled(email.id)).state).toBe('sent');
    const messageId = `<${email.id}@paymesh.test>`;
    const mail = received.find((m) => m.messageId === messageId);
    expect(mail?.from?.value).toEqual([{ name: 'ACME GmbH', address: 'billing@acme.example' }]);
    expect(mail?.replyTo?.value.map((v) => v.address)).toEqual(['books@acme.example']);
    expect(envelopeFrom.get(messageId)).toBe('billing@shop.test');
    // The address is part of the message: the same key with another From is another message.
    await expect(enqueueEmail(deps, { ...req, fromAddress: null })).rejects.toMatchObject({
      code: 'EMAIL_KEY_REUSED',
    });
    expect((await enqueueEmail(deps, req)).created).toBe(false);
  });

  it('refuses bad input with a validation error and stores nothing', async () => {
    const count = async () => (await store.collection<EmailDoc>(EMAILS).find({})).items.length;
    const n = await count();
    for (const bad of [
      request({ to: [] }),
      request({ to: ['not-an-address'] }),
      request({ fromAddress: 'billing@acme.example\r\nBcc: x@example.test' }),
      request({ subject: 'line\r\nBcc: x@example.test' }),
      request({ attachments: [{ filename: '../x', contentType: 'text/html', content: Buffer.from('x') }] }),
      request({
        attachments: [
          { filename: 'big.bin', contentType: 'application/octet-stream', content: Buffer.alloc(2 * 1024 * 1024 + 1) },
        ],
      }),
      request({ source: { kind: 'order', id: newObjectId() } }),
    ]) {
      await expect(enqueueEmail(deps, bad)).rejects.toMatchObject({ kind: 'validation' });
    }
    expect(await count()).toBe(n);
    await expect(enqueueEmail({ ...deps, sender: null }, request())).rejects.toMatchObject({
      code: 'EMAIL_NOT_CONFIGURED',
    });
  });
});
