import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { API_VERSION } from './api-version';

describe('API_VERSION', () => {
  it('matches the version pinned by the installed SDK', () => {
    expect(API_VERSION).toBe(Stripe.API_VERSION);
  });
});
