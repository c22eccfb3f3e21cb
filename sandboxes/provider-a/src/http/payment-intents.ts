import type { FastifyInstance } from 'fastify';
import type { Account } from '../domain/account';
import {
  cancelPaymentIntent,
  confirmPaymentIntent,
  createPaymentIntent,
  getPaymentIntent,
  updatePaymentIntent,
  type ConfirmResult,
} from '../domain/payment-intents';
import type { PaymentIntent } from '../domain/types';
import { ApiError, invalidParam } from '../errors';
import { type ApiDeps, apiRoute } from './api';
import { expand } from './expand';
import { LIST_PARAMS, paginate } from './list';
import { Params } from './params';

const CANCELLATION_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'] as const;
const CURRENCY = /^[a-z]{3}$/;
const MAX_AMOUNT = 99_999_999;

export function currencyParam(p: Params, required: boolean): string | undefined {
  const raw = required ? p.requiredString('currency') : p.string('currency');
  if (raw === undefined || raw === null) return undefined;
  const c = raw.toLowerCase();
  if (!CURRENCY.test(c)) throw invalidParam(`Invalid currency: ${raw}.`, 'currency');
  return c;
}

/** A declined confirmation answers 402 with the card error and the updated payment intent, like the provider. */
function declineError(account: Account, result: ConfirmResult, expandPaths: string[]): ApiError {
  const f = result.failure;
  if (!f) throw new Error('a declined confirmation carries its failure');
  return new ApiError(402, {
    type: 'card_error',
    code: f.code,
    decline_code: f.decline_code,
    message: f.message,
    doc_url: f.doc_url,
    charge: f.charge,
    payment_method: f.payment_method,
    payment_intent: expand(account, result.intent, expandPaths),
  });
}

function confirmed(account: Account, result: ConfirmResult, expandPaths: string[]): PaymentIntent {
  if (result.failure) throw declineError(account, result, expandPaths);
  return expand(account, result.intent, expandPaths);
}

export function paymentIntentRoutes(app: FastifyInstance, deps: ApiDeps): void {
  apiRoute(app, deps, 'POST', '/v1/payment_intents', ({ account, body, op }) => {
    const p = Params.of(body, [
      'amount',
      'currency',
      'metadata',
      'description',
      'receipt_email',
      'payment_method_types',
      'allowed_payment_method_types',
      'excluded_payment_method_types',
      'automatic_payment_methods',
      'payment_method',
      'confirm',
      'return_url',
      'statement_descriptor',
      'statement_descriptor_suffix',
      'capture_method',
      'confirmation_method',
    ]);
    const amount = p.requiredInt('amount', { min: 1, max: MAX_AMOUNT });
    const currency = currencyParam(p, true) ?? '';
    const apm = p.nested('automatic_payment_methods', ['enabled', 'allow_redirects']);
    const types = p.stringArray('payment_method_types');
    const allowed = p.stringArray('allowed_payment_method_types');
    const excluded = p.stringArray('excluded_payment_method_types');
    if (types && allowed) {
      throw invalidParam(
        'You may only specify one of these parameters: allowed_payment_method_types, payment_method_types.',
      );
    }
    if (apm && (types || allowed)) {
      throw invalidParam(
        `You may only specify one of these parameters: automatic_payment_methods, ${types ? 'payment_method_types' : 'allowed_payment_method_types'}.`,
      );
    }
    let automatic: PaymentIntent['automatic_payment_methods'] = null;
    if (apm) {
      const enabled = apm.bool('enabled');
      if (enabled === undefined)
        throw invalidParam(
          'Missing required param: automatic_payment_methods[enabled].',
          'automatic_payment_methods[enabled]',
        );
      automatic = {
        enabled,
        ...(enabled
          ? { allow_redirects: apm.enumOf('allow_redirects', ['always', 'never'] as const) ?? 'always' }
          : {}),
      };
    }
    if (p.enumOf('capture_method', ['automatic', 'automatic_async', 'manual'] as const) === 'manual') {
      throw invalidParam(
        'capture_method=manual is not supported by this sandbox; use automatic capture.',
        'capture_method',
      );
    }
    p.enumOf('confirmation_method', ['automatic'] as const);
    const confirm = p.bool('confirm') ?? false;
    const expandPaths = p.expand();
    const rec = createPaymentIntent(
      account,
      {
        amount,
        currency,
        metadata: p.newMetadata(),
        description: p.string('description', { max: 1000 }) ?? null,
        receipt_email: p.email('receipt_email') ?? null,
        payment_method_types: types ?? null,
        allowed_payment_method_types: allowed ?? null,
        excluded_payment_method_types: excluded ?? null,
        automatic_payment_methods: automatic,
        payment_method: p.string('payment_method') ?? null,
        return_url: p.url('return_url') ?? null,
        statement_descriptor: p.string('statement_descriptor', { max: 22 }) ?? null,
        statement_descriptor_suffix: p.string('statement_descriptor_suffix', { max: 22 }) ?? null,
      },
      op,
    );
    if (!confirm) return expand(account, rec.intent, expandPaths);
    return confirmed(account, confirmPaymentIntent(account, rec.intent.id, {}, op), expandPaths);
  });

  apiRoute(app, deps, 'GET', '/v1/payment_intents', ({ account, query }) => {
    const q = Params.of(query, [...LIST_PARAMS]);
    const list = paginate(
      [...account.paymentIntents.values()].map((r) => r.intent),
      q,
      '/v1/payment_intents',
    );
    return expand(account, list, q.expand());
  });

  apiRoute(app, deps, 'GET', '/v1/payment_intents/:id', ({ account, query, params }) => {
    const q = Params.of(query, ['client_secret']);
    return expand(account, getPaymentIntent(account, params.id).intent, q.expand());
  });

  apiRoute(app, deps, 'POST', '/v1/payment_intents/:id', ({ account, body, params }) => {
    const p = Params.of(body, ['amount', 'currency', 'description', 'receipt_email', 'metadata', 'payment_method']);
    const expandPaths = p.expand();
    const intent = updatePaymentIntent(account, params.id, {
      amount: p.int('amount', { min: 1, max: MAX_AMOUNT }),
      currency: currencyParam(p, false),
      description: p.string('description', { max: 1000 }),
      receipt_email: p.email('receipt_email'),
      metadata: p.metadata(),
      payment_method: p.string('payment_method') ?? undefined,
    });
    return expand(account, intent, expandPaths);
  });

  apiRoute(app, deps, 'POST', '/v1/payment_intents/:id/confirm', ({ account, body, params, op }) => {
    const p = Params.of(body, [
      'payment_method',
      'return_url',
      'receipt_email',
      'off_session',
      'use_stripe_sdk',
      'payment_method_types',
      'allowed_payment_method_types',
      'excluded_payment_method_types',
    ]);
    p.bool('off_session');
    p.bool('use_stripe_sdk');
    p.stringArray('payment_method_types');
    p.stringArray('allowed_payment_method_types');
    p.stringArray('excluded_payment_method_types');
    const expandPaths = p.expand();
    const result = confirmPaymentIntent(
      account,
      params.id,
      {
        payment_method: p.string('payment_method'),
        return_url: p.url('return_url'),
        receipt_email: p.email('receipt_email'),
      },
      op,
    );
    return confirmed(account, result, expandPaths);
  });

  apiRoute(app, deps, 'POST', '/v1/payment_intents/:id/cancel', ({ account, body, params, op }) => {
    const p = Params.of(body, ['cancellation_reason']);
    const reason = p.enumOf('cancellation_reason', CANCELLATION_REASONS) ?? null;
    const expandPaths = p.expand();
    return expand(account, cancelPaymentIntent(account, params.id, reason, op), expandPaths);
  });
}
