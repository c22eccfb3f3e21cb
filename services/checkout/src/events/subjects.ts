export { Subjects as CheckoutEvents } from '@paymesh/contracts';
export type { SiteCreated as SiteCreatedData } from '@paymesh/contracts';
