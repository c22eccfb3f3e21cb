import { z } from 'zod';

/**
 * A buyer's billing address as the gateways answer it (checkout's `BillingAddress`), every field as
 * checkout keeps it. The VAT ID is each answer's own: `.extend({ vatId })` (null when none, or left
 * out when none).
 */
export const billingAddressAnswer = z.object({
  name: z.string(),
  email: z.string(),
  line1: z.string(),
  city: z.string(),
  postalCode: z.string(),
  country: z.string(),
});
