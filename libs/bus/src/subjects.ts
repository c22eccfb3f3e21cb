import { ValidationError } from '@paymesh/core';

/**
 * Naming scheme shared by publishers and subscribers.
 *
 * - Event subject (= envelope `type`): `<domain>.<entity>.<past-verb>`, lower case, e.g.
 *   `payments.transaction.status_changed`. The domain is the owning service's domain
 *   (`[a-z][a-z0-9]*`, no underscore), entity and verb are `[a-z][a-z0-9_]*`.
 * - On the wire every subject is prefixed by the mesh namespace: `<namespace>.<subject>`, so
 *   several meshes can share one NATS server without seeing each other's events.
 * - One stream per domain: `<NAMESPACE>_<DOMAIN>` capturing `<namespace>.<domain>.>`.
 * - Durable consumers: `<NAMESPACE>_<SERVICE>_<DURABLE>` inside the stream of the domain they read.
 */

const NAMESPACE = /^[A-Za-z][A-Za-z0-9_]{0,30}$/;
const DOMAIN = /^[a-z][a-z0-9]{0,31}$/;
const TOKEN = /^[a-z][a-z0-9_]{0,63}$/;
const NAME_PART = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Throws unless `ns` is a valid bus namespace (same rule as the `BUS_NAMESPACE` setting). */
export function assertNamespace(ns: string): void {
  if (!NAMESPACE.test(ns)) {
    throw new ValidationError(`invalid bus namespace "${ns}": expected ${NAMESPACE.source}`, { field: 'namespace' });
  }
}

/** Whether `subject` is a concrete event subject `<domain>.<entity>.<past-verb>`. */
export function isEventSubject(subject: string): boolean {
  const [domain, entity, verb, ...rest] = subject.split('.');
  return (
    rest.length === 0 &&
    domain !== undefined &&
    DOMAIN.test(domain) &&
    entity !== undefined &&
    TOKEN.test(entity) &&
    verb !== undefined &&
    TOKEN.test(verb)
  );
}

/** Throws a ValidationError unless `subject` is a concrete event subject. */
export function assertEventSubject(subject: string): void {
  if (!isEventSubject(subject)) {
    throw new ValidationError(
      `invalid event subject "${subject}": expected <domain>.<entity>.<past-verb> in lower case`,
      { field: 'subject' },
    );
  }
}

/**
 * Whether `filter` is a valid subscription filter: a concrete domain followed by event tokens or
 * wildcards, e.g. `payments.>`, `payments.transaction.*`, `payments.*.refunded`.
 */
export function isSubjectFilter(filter: string): boolean {
  const [domain, ...rest] = filter.split('.');
  if (domain === undefined || !DOMAIN.test(domain) || rest.length === 0 || rest.length > 2) return false;
  return rest.every((token, i) => {
    if (token === '>') return i === rest.length - 1;
    return token === '*' || TOKEN.test(token);
  });
}

/** The domain (first token) of an event subject or filter. */
export function domainOf(subjectOrFilter: string): string {
  const domain = subjectOrFilter.split('.')[0] ?? '';
  if (!DOMAIN.test(domain)) {
    throw new ValidationError(`invalid domain in "${subjectOrFilter}"`, { field: 'subject' });
  }
  return domain;
}

/** The NATS subject carrying `subject` for the mesh `namespace`. */
export function wireSubject(namespace: string, subject: string): string {
  return `${namespace}.${subject}`;
}

/** The event subject inside a NATS subject of the mesh `namespace` (inverse of {@link wireSubject}). */
export function eventSubjectFromWire(namespace: string, wire: string): string {
  const prefix = `${namespace}.`;
  return wire.startsWith(prefix) ? wire.slice(prefix.length) : wire;
}

/** Upper-cased name token: every character other than A-Z and 0-9 becomes `_`. */
export function nameToken(value: string): string {
  return value.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

/** The stream owning `domain` in the mesh `namespace`, e.g. `PAYMESH_PAYMENTS`. */
export function streamName(namespace: string, domain: string): string {
  return `${nameToken(namespace)}_${nameToken(domain)}`;
}

/** The subjects captured by the stream of `domain`, e.g. `paymesh.payments.>`. */
export function streamSubjects(namespace: string, domain: string): string[] {
  return [`${namespace}.${domain}.>`];
}

/**
 * Durable consumer name, unique per namespace + service + durable, e.g.
 * `PAYMESH_INVOICING_PAYMENT_STATUS`.
 */
export function consumerName(namespace: string, service: string, durable: string): string {
  for (const [field, value] of [
    ['service', service],
    ['durable', durable],
  ] as const) {
    if (!NAME_PART.test(value)) {
      throw new ValidationError(`invalid ${field} name "${value}": expected ${NAME_PART.source}`, { field });
    }
  }
  return `${nameToken(namespace)}_${nameToken(service)}_${nameToken(durable)}`;
}
