import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { credentialsSchema, environment, environmentMismatch } from './credential-fields';

describe('credentialsSchema', () => {
  const schema = credentialsSchema({ apiKey: z.string().min(4), environment });

  it('takes the type fields and an optional API origin without a trailing slash', () => {
    expect(schema.parse({ apiKey: 'key_1', environment: 'live' })).toEqual({ apiKey: 'key_1', environment: 'live' });
    expect(schema.parse({ apiKey: 'key_1', environment: 'sandbox', apiBaseUrl: 'http://127.0.0.1:8080/' })).toEqual({
      apiKey: 'key_1',
      environment: 'sandbox',
      apiBaseUrl: 'http://127.0.0.1:8080',
    });
  });

  it('refuses unknown fields, an API origin with a path and an unknown environment', () => {
    expect(schema.safeParse({ apiKey: 'key_1', environment: 'live', extra: 'x' }).success).toBe(false);
    expect(schema.safeParse({ apiKey: 'key_1', environment: 'live', apiBaseUrl: 'https://a.example/v1' }).success).toBe(
      false,
    );
    expect(schema.safeParse({ apiKey: 'key_1', environment: 'test' }).success).toBe(false);
    expect(schema.safeParse({ apiKey: 'k', environment: 'live' }).success).toBe(false);
  });
});

describe('environmentMismatch', () => {
  it('names the environment only when it is not the record mode', () => {
    expect(environmentMismatch({ environment: 'live' }, 'live')).toBeNull();
    expect(environmentMismatch({ environment: 'sandbox' }, 'test')).toBeNull();
    expect(environmentMismatch({ environment: 'sandbox' }, 'live')).toBe('environment');
    expect(environmentMismatch({ environment: 'live' }, 'test')).toBe('environment');
  });
});
