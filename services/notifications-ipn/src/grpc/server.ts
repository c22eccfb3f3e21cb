import { modeOf } from '@paymesh/core';
import { notificationsIpn } from '@paymesh/proto';
import { unary, type GrpcServer } from '@paymesh/grpc';
import type { IpnDeps } from '../app/deps';
import type { EmailDeps } from '../app/email-deps';
import { enqueueEmail } from '../app/enqueue-email';
import { listDeliveries } from '../app/list-deliveries';
import { listEmails } from '../app/list-emails';
import { redeliverIpn } from '../app/redeliver';
import { emailToProto } from './email-mapping';
import { INTERRUPTED } from '../domain/delivery';
import type { DeliveryDoc } from '../store/collections';

const SERVICE_VERSION = '0.1.0';

function toProto(d: DeliveryDoc, now: Date): notificationsIpn.IpnDelivery {
  const inFlight = d.inFlightAttempt !== null && d.leaseUntil !== null && d.leaseUntil > now.toISOString();
  return {
    id: d.id,
    transactionId: d.transactionId,
    status: d.status,
    url: d.url,
    state: d.state,
    attempts: d.attempts.map((a) => ({
      number: a.number,
      at: a.at,
      httpStatus: a.httpStatus,
      // The claimed attempt reads "interrupted" until its outcome lands; while its lease runs it is in progress.
      error: inFlight && a.number === d.inFlightAttempt && a.error === INTERRUPTED ? 'in progress' : a.error,
      durationMs: a.durationMs,
      requestedBy: a.requestedBy,
    })),
    lastHttpStatus: d.lastHttpStatus,
    nextAttemptAt: d.nextAttemptAt ?? undefined,
    createdAt: d.createdAt,
    sequence: d.sequence,
    lastError: d.lastError ?? undefined,
    updatedAt: d.updatedAt,
    testMode: d.mode === 'test',
  };
}

export function registerNotificationsIpnService(
  grpc: GrpcServer,
  deps: IpnDeps,
  email: EmailDeps,
  onEmailQueued: () => void = () => undefined,
  onDeliveryDue: (delivery: DeliveryDoc) => void = () => undefined,
): void {
  const { logger } = deps;
  const impl: notificationsIpn.NotificationsIpnServiceServer = {
    describe: unary(logger, 'notifications-ipn/Describe', async () => ({
      service: 'notifications-ipn',
      version: SERVICE_VERSION,
    })),
    listDeliveries: unary(
      logger,
      'notifications-ipn/ListDeliveries',
      async (req: notificationsIpn.ListDeliveriesRequest) => {
        const items = await listDeliveries(deps, req.organizationId, req.transactionId);
        const now = deps.clock.now();
        return { items: items.map((d) => toProto(d, now)) };
      },
    ),
    redeliverIpn: unary(logger, 'notifications-ipn/RedeliverIpn', async (req: notificationsIpn.RedeliverIpnRequest) => {
      const stored = await redeliverIpn(deps, {
        organizationId: req.organizationId,
        siteId: req.siteId,
        transactionId: req.transactionId,
        mode: modeOf(req.testMode),
        status: req.status,
        externalReference: req.externalReference ?? null,
        ipnUrl: req.ipnUrl,
        requestedBy: req.requestedBy,
      });
      onDeliveryDue(stored);
      return { delivery: toProto(stored, deps.clock.now()) };
    }),
    sendEmail: unary(logger, 'notifications-ipn/SendEmail', async (req: notificationsIpn.SendEmailRequest) => {
      const { email: stored, created } = await enqueueEmail(email, {
        organizationId: req.organizationId,
        mode: modeOf(req.testMode),
        idempotencyKey: req.idempotencyKey,
        source: { kind: req.sourceKind, id: req.sourceId },
        to: req.to,
        cc: req.cc,
        subject: req.subject,
        text: req.text,
        html: req.html ?? null,
        replyTo: req.replyTo ?? null,
        fromName: req.fromName ?? null,
        fromAddress: req.fromAddress ?? null,
        attachments: req.attachments.map((a) => ({
          filename: a.filename,
          contentType: a.contentType,
          content: Buffer.from(a.content),
        })),
      });
      if (created) onEmailQueued();
      return { email: emailToProto(stored, email.clock.now()), created };
    }),
    listEmails: unary(logger, 'notifications-ipn/ListEmails', async (req: notificationsIpn.ListEmailsRequest) => {
      const items = await listEmails(email, {
        organizationId: req.organizationId,
        mode: modeOf(req.testMode),
        sourceKind: req.sourceKind,
        sourceId: req.sourceId,
      });
      const now = email.clock.now();
      return { items: items.map((e) => emailToProto(e, now)) };
    }),
  };
  grpc.addService(notificationsIpn.NotificationsIpnServiceService, impl);
}
