import type { Account, WebhookEndpointRecord } from '../domain/account';
import type { DeliveryTarget } from './delivery';

/** Delivery targets that re-read the endpoint (url, secret, status) before every attempt. */
export function deliveryTargets(account: Account, records: readonly WebhookEndpointRecord[]): DeliveryTarget[] {
  return records.map((r) => {
    const endpointId = r.endpoint.id;
    return {
      endpointId,
      resolve: () => {
        const current = account.webhookEndpoints.get(endpointId);
        return (
          current && {
            url: current.endpoint.url,
            secret: current.secret,
            enabled: current.endpoint.status === 'enabled',
          }
        );
      },
    };
  });
}
