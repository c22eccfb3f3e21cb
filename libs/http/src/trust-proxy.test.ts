import { describe, expect, it } from 'vitest';
import { trustProxySchema } from './rate-limit';

describe('TRUST_PROXY', () => {
  it('trusts no proxy by default and takes true or the proxies\u2019 addresses', () => {
    expect(trustProxySchema.parse(undefined)).toBe(false);
    expect(trustProxySchema.parse('false')).toBe(false);
    expect(trustProxySchema.parse('true')).toBe(true);
    expect(trustProxySchema.parse(' 10.0.0.0/8,127.0.0.1 ')).toBe('10.0.0.0/8,127.0.0.1');
  });
});
