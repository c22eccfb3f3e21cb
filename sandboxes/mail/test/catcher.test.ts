import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { createLogger } from '@paymesh/core';
import { buildMailCatcher, type MailCatcher } from '../src/server';

const logger = createLogger({ service: 'sandbox-mail-test', level: 'silent' });
let catcher: MailCatcher;
let web: string;
let smtpPort: number;

const send = (over: Partial<SendMailOptions> = {}) =>
  nodemailer
    .createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true })
    .sendMail({ from: 'billing@shop.test', to: 'buyer@example.test', subject: 'Hello', text: 'Body', ...over });

beforeAll(async () => {
  catcher = buildMailCatcher(
    { logLevel: 'silent', host: '127.0.0.1', port: 0, smtpPort: 0, maxMessages: 3, exitWithParent: false },
    { logger },
  );
  const ports = await catcher.listen();
  web = `http://127.0.0.1:${ports.port}`;
  smtpPort = ports.smtpPort;
});

afterAll(async () => {
  await catcher.close();
});

beforeEach(async () => {
  expect((await fetch(`${web}/_sandbox/reset`, { method: 'POST' })).status).toBe(204);
});

describe('mail catcher', () => {
  it('catches a message over SMTP and serves it on the JSON API with its attachment', async () => {
    await send({
      cc: 'accounts@example.test',
      subject: 'Invoice <1>',
      attachments: [{ filename: 'invoice-1.html', contentType: 'text/html', content: '<p>total</p>' }],
    });
    const { items } = (await (await fetch(`${web}/_sandbox/messages`)).json()) as {
      items: Array<Record<string, unknown>>;
    };
    expect(items).toHaveLength(1);
    const m = items[0] as {
      id: string;
      to: string[];
      cc: string[];
      subject: string;
      text: string;
      envelope: { to: string[] };
      attachments: Array<{ filename: string; contentType: string; url: string }>;
    };
    expect(m).toMatchObject({
      from: 'billing@shop.test',
      to: ['buyer@example.test'],
      cc: ['accounts@example.test'],
      subject: 'Invoice <1>',
    });
    expect(m.envelope.to).toEqual(['buyer@example.test', 'accounts@example.test']);
    expect(m.text.trim()).toBe('Body');
    expect(m.attachments).toEqual([expect.objectContaining({ filename: 'invoice-1.html', contentType: 'text/html' })]);
    const download = await fetch(`${web}${m.attachments[0]?.url}`);
    expect(download.headers.get('content-type')).toContain('text/html');
    expect(await download.text()).toBe('<p>total</p>');

    const page = await (await fetch(`${web}/`)).text();
    expect(page).toContain('Invoice &lt;1&gt;');
    const one = await (await fetch(`${web}/messages/${m.id}`)).text();
    expect(one).toContain('invoice-1.html');
    expect(one).not.toContain('<p>total</p>');
  });

  it('refuses the next message with a temporary error while told to, then accepts again', async () => {
    await fetch(`${web}/_sandbox/refuse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ count: 1 }),
    });
    await expect(send()).rejects.toMatchObject({ responseCode: 451 });
    await send({ subject: 'second' });
    const { items } = (await (await fetch(`${web}/_sandbox/messages`)).json()) as { items: Array<{ subject: string }> };
    expect(items.map((m) => m.subject)).toEqual(['second']);
  });

  it('keeps only the newest messages and answers 404 for an unknown one', async () => {
    for (const subject of ['a', 'b', 'c', 'd']) await send({ subject });
    const { items } = (await (await fetch(`${web}/_sandbox/messages`)).json()) as { items: Array<{ subject: string }> };
    expect(items.map((m) => m.subject)).toEqual(['d', 'c', 'b']);
    expect((await fetch(`${web}/_sandbox/messages/nope`)).status).toBe(404);
    const bad = await fetch(`${web}/_sandbox/refuse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"count":-1}',
    });
    expect(bad.status).toBe(400);
  });
});
