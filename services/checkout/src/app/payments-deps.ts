import type { IpnPolicy } from '../domain/ipn-target';
import type { CheckoutDoc } from '../domain/checkout';
import type { SiteDoc } from '../domain/site';
import type { CheckoutDeps } from './deps';
import type { PaymentsPort } from './payments-port';
import type { TaxPort } from './tax-port';
import type { PriceModeMemo } from './price-mode-memo';

/** Settings of the money path (from configuration). */
export interface PaymentsSettings {
  checkoutFrontendUrl: string;
  sessionTtlHours: number;
  handoffTtlSeconds: number;
  ipnPolicy: IpnPolicy;
  /** A buyer transaction still pending this long is abandoned and expires; absent: never. */
  transactionAbandonAfterMs?: number | undefined;
}

/**
 * A rule that may refuse checkout creation with a coded 409 (e.g. CHECKOUT_BLOCKED_BY_DISPUTE
 * while a dispute for the same buyer is open). Runs after validation, before anything is stored.
 * The dispute and customer-hold rules (app/buyer-risk.ts) are one.
 */
export interface CheckoutCreationGuard {
  name: string;
  check(input: { site: SiteDoc; checkout: Omit<CheckoutDoc, 'id' | 'version'> }): Promise<void>;
}

/** What the checkout, handoff and transaction use cases need; assembled in main.ts. */
export interface PaymentsDeps extends CheckoutDeps {
  payments: PaymentsPort;
  /** The tax service: settings (asked only when a site wants `vies`) and the tax engine. */
  tax: TaxPort;
  /** Price modes the tax service last reported, for deciding during its outages (see checkout-tax.ts). */
  priceModes: PriceModeMemo;
  settings: PaymentsSettings;
  /** All addresses a host name resolves to (IPN target checks). */
  resolveHost(host: string): Promise<string[]>;
  guards: CheckoutCreationGuard[];
}
