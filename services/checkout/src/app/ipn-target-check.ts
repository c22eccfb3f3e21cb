import { isIP } from 'node:net';
import { hostAllowListed, ValidationError } from '@paymesh/core';
import { assertPermittedResolution, hostOf } from '../domain/ipn-target';
import type { PaymentsDeps } from './payments-deps';

/**
 * Resolves the IPN host now and refuses it when any address is not public (nor allow-listed), in
 * every mode. notifications-ipn checks again at delivery (DNS may change). Literals were checked
 * by validateIpnUrl; allow-listed names are trusted as the operator configured them.
 */
export async function checkIpnTargetResolution(deps: PaymentsDeps, ipnUrl: string | null): Promise<void> {
  if (!ipnUrl) return;
  const { allowedTargets } = deps.settings.ipnPolicy;
  const host = hostOf(new URL(ipnUrl));
  if (isIP(host) !== 0 || hostAllowListed(allowedTargets, host)) return;
  let addresses: string[];
  try {
    addresses = await deps.resolveHost(host);
  } catch (err) {
    throw new ValidationError(`ipnUrl host ${host} does not resolve`, { field: 'ipnUrl', cause: err });
  }
  assertPermittedResolution(host, addresses, allowedTargets);
}
