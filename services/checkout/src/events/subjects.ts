/** Events the checkout service publishes (stream of the `checkout` domain). */
export const CheckoutEvents = {
  siteCreated: 'checkout.site.created',
  siteSecretRotated: 'checkout.site.secret_rotated',
} as const;

export interface SiteCreatedData {
  organizationId: string;
  siteId: string;
  mode: 'live' | 'test';
  name: string;
}
