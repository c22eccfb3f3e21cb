import '@paymesh/telemetry/register';
import { Committer, EventCache } from '@paymesh/bus';
import { Subjects, type EventMap } from '@paymesh/contracts';
import { describeAllowList, systemClock } from '@paymesh/core';
import { downstreamAddr, runBackendService } from '@paymesh/runtime';
import { config } from './config';
import type { IpnDeps } from './app/deps';
import type { EmailDeps } from './app/email-deps';
import { processEmail, type EmailProcessResult } from './app/process-email';
import { sendClaimed } from './app/process-delivery';
import { CheckoutSigningSecrets } from './delivery/checkout-secrets';
import { HttpIpnSender } from './delivery/http-sender';
import { DeliveryScheduler, DueWorkScheduler, inDeliveryContext } from './delivery/scheduler';
import { SmtpEmailSender } from './delivery/smtp-sender';
import { startConsumers } from './events/consumers';
import { registerNotificationsIpnService } from './grpc/server';
import { collections, EMAILS, type EmailDoc } from './store/collections';

void runBackendService({
  name: 'notifications-ipn',
  config,
  collections,
  async setup({ grpc, logger, bus, store, relay }) {
    const secretCache = new EventCache('site-signing-secrets');
    await secretCache.watch(bus, [Subjects.siteSecretRotated, Subjects.siteDeleted]);
    const secrets = new CheckoutSigningSecrets(
      downstreamAddr(config, 'checkout'),
      config.GRPC_DEADLINE_MS,
      secretCache,
    );
    const sender = new HttpIpnSender({ timeoutMs: config.IPN_TIMEOUT_MS, allowedTargets: config.IPN_ALLOWED_TARGETS });
    const deps: IpnDeps = {
      store,
      logger,
      clock: systemClock,
      secrets,
      sender,
      timing: {
        backoffBaseMs: config.IPN_BACKOFF_BASE_MS,
        timeoutMs: config.IPN_TIMEOUT_MS,
        leaseMarginMs: 5_000,
        waitFloorMs: 1_000,
      },
    };
    const smtp = config.SMTP_HOST
      ? new SmtpEmailSender({
          host: config.SMTP_HOST,
          port: config.SMTP_PORT,
          secure: config.SMTP_SECURE,
          user: config.SMTP_USER,
          pass: config.SMTP_PASS,
          from: config.MAIL_FROM,
          timeoutMs: config.EMAIL_TIMEOUT_MS,
        })
      : null;
    const emailDeps: EmailDeps = {
      store,
      outbox: new Committer<EventMap>({ store, relay }),
      logger,
      clock: systemClock,
      sender: smtp,
      timing: {
        maxAttempts: config.EMAIL_MAX_ATTEMPTS,
        backoffBaseMs: config.EMAIL_BACKOFF_BASE_MS,
        timeoutMs: config.EMAIL_TIMEOUT_MS,
        leaseMarginMs: 5_000,
      },
      messageIdDomain: 'paymesh.localhost',
    };
    const scheduler = new DeliveryScheduler(deps, {
      pollIntervalMs: config.IPN_POLL_INTERVAL_MS,
      concurrency: config.IPN_CONCURRENCY,
    });
    const emailScheduler = new DueWorkScheduler<EmailDoc, EmailProcessResult>(
      emailDeps,
      { pollIntervalMs: config.EMAIL_POLL_INTERVAL_MS, concurrency: config.EMAIL_CONCURRENCY },
      { name: 'email', collection: EMAILS, process: (id, known) => processEmail(emailDeps, id, known) },
    );
    registerNotificationsIpnService(
      grpc,
      deps,
      emailDeps,
      () => emailScheduler.wake(),
      (delivery) => scheduler.offer(delivery),
    );
    const subs = await startConsumers(bus, deps, (delivery) => scheduler.offer(delivery), {
      reserve: (id) => scheduler.reserve(id),
      deps,
      // The first attempt runs in its delivery's request context, like the scheduler's attempts.
      send: (id, secret, plan, stored) =>
        inDeliveryContext(stored.delivery, () => sendClaimed(deps, id, secret, plan, stored)),
    });
    scheduler.start();
    if (smtp) emailScheduler.start();
    logger.info(
      {
        backoffBaseMs: config.IPN_BACKOFF_BASE_MS,
        timeoutMs: config.IPN_TIMEOUT_MS,
        allowedTargets: describeAllowList(config.IPN_ALLOWED_TARGETS),
      },
      'IPN delivery scheduler started',
    );
    logger.info(
      smtp
        ? {
            smtpHost: config.SMTP_HOST,
            smtpPort: config.SMTP_PORT,
            secure: config.SMTP_SECURE,
            maxAttempts: config.EMAIL_MAX_ATTEMPTS,
          }
        : {},
      smtp ? 'e-mail outbox started' : 'no SMTP server configured (SMTP_HOST): e-mail is refused',
    );
    return async () => {
      await Promise.all(subs.map((s) => s.stop()));
      await Promise.all([scheduler.stop(), emailScheduler.stop()]);
      await sender.close();
      await smtp?.close();
      secrets.close();
    };
  },
});
