import type { FastifyRequest } from 'fastify';
import type { checkoutPayments } from '@paymesh/proto';
import { rpc, type Clients } from '../clients';

type PublicCheckout = checkoutPayments.PublicCheckout;

/** Answers asked for during one request, by session and origin; dropped with the request. */
const answers = new WeakMap<FastifyRequest, Map<string, Promise<PublicCheckout>>>();

/**
 * checkout's buyer view of a session (GetPublicCheckout, which also applies the origin and licence
 * rules), asked once per request: the CORS check of `GET /checkouts/:id` and its handler ask the
 * same question, and the handler takes the answer the check got. Only answers are shared: after a
 * failed call (a foreign origin, checkout unavailable) the next asker calls again and sees its own
 * error.
 */
export function publicCheckoutFor(
  req: FastifyRequest,
  clients: Clients,
  sessionPublicId: string,
  browserOrigin: string,
): Promise<PublicCheckout> {
  let asked = answers.get(req);
  if (!asked) {
    asked = new Map();
    answers.set(req, asked);
  }
  const key = `${sessionPublicId}\n${browserOrigin}`;
  const known = asked.get(key);
  if (known) return known;
  const cp = clients.checkoutPayments;
  const answer = rpc<checkoutPayments.GetPublicCheckoutRequest, PublicCheckout>(
    cp,
    cp.getPublicCheckout,
    { sessionPublicId, browserOrigin },
    clients.deadlineMs,
  );
  asked.set(key, answer);
  answer.catch(() => {
    if (asked.get(key) === answer) asked.delete(key);
  });
  return answer;
}
