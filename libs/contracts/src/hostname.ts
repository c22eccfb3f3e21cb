import { z } from 'zod';

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Whether a lower-case name without a final dot is a fully-qualified DNS host name: at least two
 * labels, letters, digits and inner hyphens only (internationalized names in their xn-- form), and
 * a top label that is not all digits, so no IP address, wildcard or port.
 */
export function isFullyQualifiedHostname(host: string): boolean {
  const labels = host.split('.');
  return (
    host.length > 0 &&
    host.length <= 253 &&
    labels.length >= 2 &&
    labels.every((l) => LABEL.test(l)) &&
    !/^\d+$/.test(labels[labels.length - 1] ?? '')
  );
}

/**
 * An e-mail address sent from (a verified sender): trimmed, its domain lower-cased, and the domain
 * a fully-qualified host name that can carry the DNS records proving it (never an IP literal).
 */
export const senderEmailAddress = z
  .string()
  .trim()
  .max(254)
  .superRefine((value, ctx) => {
    const at = value.lastIndexOf('@');
    const domain = at > 0 ? value.slice(at + 1).toLowerCase() : '';
    if (/^\[.*\]$/.test(domain) || /^[\d.]+$/.test(domain) || domain.includes(':')) {
      ctx.addIssue({
        code: 'custom',
        message: 'the domain must be a host name (e.g. acme.example), not an IP address',
      });
    } else if (!z.string().email().safeParse(value).success || !isFullyQualifiedHostname(domain)) {
      ctx.addIssue({ code: 'custom', message: 'must be an e-mail address at a host name (e.g. billing@acme.example)' });
    }
  })
  .transform((value) => {
    const at = value.lastIndexOf('@');
    return `${value.slice(0, at)}@${value.slice(at + 1).toLowerCase()}`;
  });

/** The domain of an address `senderEmailAddress` accepted. */
export function senderDomainOf(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1);
}
