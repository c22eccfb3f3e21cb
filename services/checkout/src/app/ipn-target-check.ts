import { isIP } from 'node:net';
import { ValidationError } from '@paymesh/core';
import { assertPublicResolution, hostOf } from '../domain/ipn-target';
import type { PaymentsDeps } from './payments-deps';

/**
 * With private targets refused (production), resolves the IPN host now and refuses it when any
 * address is not public. notifications-ipn checks again at delivery (DNS may change).
 */
export async function checkIpnTargetResolution(deps: PaymentsDeps, ipnUrl: string | null): Promise<void> {
  if (!ipnUrl || !deps.settings.ipnPolicy.refusePrivateTargets) return;
  const host = hostOf(new URL(ipnUrl));
  if (isIP(host) !== 0) return;
  let addresses: string[];
  try {
    addresses = await deps.resolveHost(host);
  } catch (err) {
    throw new ValidationError(`ipnUrl host ${host} does not resolve`, { field: 'ipnUrl', cause: err });
  }
  assertPublicResolution(host, addresses);
}
