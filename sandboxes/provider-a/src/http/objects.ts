import type { FastifyInstance } from 'fastify';
import { createRefund, REFUND_REASONS } from '../domain/refunds';
import { invalidParam, noSuch } from '../errors';
import { type ApiDeps, apiRoute } from './api';
import { expand } from './expand';
import { LIST_PARAMS, paginate } from './list';
import { Params } from './params';

/** Charges, refunds and disputes: read access plus refund creation. */
export function objectRoutes(app: FastifyInstance, deps: ApiDeps): void {
  apiRoute(app, deps, 'GET', '/v1/charges/:id', ({ account, params, query }) => {
    const charge = account.charges.get(params.id);
    if (!charge) throw noSuch('charge', params.id, 'id');
    return expand(account, charge, Params.of(query, []).expand());
  });

  apiRoute(app, deps, 'GET', '/v1/charges', ({ account, query }) => {
    const q = Params.of(query, [...LIST_PARAMS, 'payment_intent']);
    const pi = q.string('payment_intent');
    const items = [...account.charges.values()].filter((c) => !pi || c.payment_intent === pi);
    return expand(account, paginate(items, q, '/v1/charges'), q.expand());
  });

  apiRoute(app, deps, 'POST', '/v1/refunds', ({ account, body, op }) => {
    const p = Params.of(body, ['payment_intent', 'charge', 'amount', 'reason', 'metadata']);
    const expandPaths = p.expand();
    const refund = createRefund(
      account,
      {
        payment_intent: p.string('payment_intent') ?? null,
        charge: p.string('charge') ?? null,
        amount: p.int('amount', { min: 1 }) ?? null,
        reason: p.enumOf('reason', REFUND_REASONS) ?? null,
        metadata: p.newMetadata(),
      },
      op,
    );
    return expand(account, refund, expandPaths);
  });

  apiRoute(app, deps, 'GET', '/v1/refunds/:id', ({ account, params, query }) => {
    const refund = account.refunds.get(params.id);
    if (!refund) throw noSuch('refund', params.id, 'id');
    return expand(account, refund, Params.of(query, []).expand());
  });

  apiRoute(app, deps, 'GET', '/v1/refunds', ({ account, query }) => {
    const q = Params.of(query, [...LIST_PARAMS, 'payment_intent', 'charge']);
    const pi = q.string('payment_intent');
    const ch = q.string('charge');
    const items = [...account.refunds.values()].filter(
      (r) => (!pi || r.payment_intent === pi) && (!ch || r.charge === ch),
    );
    return expand(account, paginate(items, q, '/v1/refunds'), q.expand());
  });

  apiRoute(app, deps, 'GET', '/v1/disputes/:id', ({ account, params, query }) => {
    const dispute = account.disputes.get(params.id);
    if (!dispute) throw noSuch('dispute', params.id, 'dispute');
    return expand(account, dispute, Params.of(query, []).expand());
  });

  apiRoute(app, deps, 'GET', '/v1/disputes', ({ account, query }) => {
    const q = Params.of(query, [...LIST_PARAMS, 'payment_intent', 'charge']);
    const pi = q.string('payment_intent');
    const ch = q.string('charge');
    const items = [...account.disputes.values()].filter(
      (d) => (!pi || d.payment_intent === pi) && (!ch || d.charge === ch),
    );
    return expand(account, paginate(items, q, '/v1/disputes'), q.expand());
  });

  apiRoute(app, deps, 'GET', '/v1/payment_methods/:id', ({ account, params }) => {
    const pm = account.paymentMethods.get(params.id);
    if (!pm) throw noSuch('PaymentMethod', params.id, 'payment_method');
    return pm.method;
  });

  apiRoute(app, deps, 'GET', '/v1/events/:id', ({ account, params }) => {
    const event = account.eventsById.get(params.id);
    if (!event) throw noSuch('event', params.id, 'id');
    return event;
  });

  apiRoute(app, deps, 'GET', '/v1/events', ({ account, query }) => {
    const q = Params.of(query, [...LIST_PARAMS, 'type', 'types']);
    const type = q.string('type');
    const types = q.stringArray('types');
    if (type && types) throw invalidParam('You may only specify one of these parameters: type, types.');
    const matches = (t: string): boolean => {
      if (types) return types.includes(t);
      if (!type) return true;
      return type.endsWith('.*') ? t.startsWith(type.slice(0, -1)) : t === type;
    };
    return paginate(
      account.events.filter((e) => matches(e.type)),
      q,
      '/v1/events',
    );
  });
}
