import { describe, expect, it } from 'vitest';
import { createProviderBody, PROVIDER_CREDENTIAL_SCHEMAS } from './provider-credentials';

/** A credentials object filled from a published schema: every field, or only the required ones. */
function filled(type: string, which: 'required' | 'all'): Record<string, string> {
  const schema = PROVIDER_CREDENTIAL_SCHEMAS.find((s) => s.type === type)!.credentials;
  const names = which === 'all' ? Object.keys(schema.properties) : schema.required;
  return Object.fromEntries(
    names.map((n) => {
      const field = schema.properties[n]!;
      const value = field.enum?.[0] ?? (n === 'apiBaseUrl' ? 'https://api.provider.example' : `value-of-${n}`);
      return [n, value];
    }),
  );
}

describe('published provider credential schemas', () => {
  it('are the shapes POST /providers validates: what they require is enough, what they list is allowed', () => {
    expect(PROVIDER_CREDENTIAL_SCHEMAS.map((s) => s.type)).toEqual([
      'provider_a',
      'provider_b',
      'provider_c',
      'provider_d',
    ]);
    for (const { type } of PROVIDER_CREDENTIAL_SCHEMAS) {
      for (const which of ['required', 'all'] as const) {
        const body = { type, name: 'Cards', credentials: filled(type, which) };
        expect(createProviderBody.safeParse(body).success, `${type} ${which}`).toBe(true);
      }
    }
  });

  it('leave out nothing the API requires and allow nothing it refuses', () => {
    for (const { type, credentials } of PROVIDER_CREDENTIAL_SCHEMAS) {
      for (const missing of credentials.required) {
        const { [missing]: _gone, ...rest } = filled(type, 'all');
        expect(createProviderBody.safeParse({ type, name: 'x', credentials: rest }).success, missing).toBe(false);
      }
      const extra = { ...filled(type, 'all'), unknownField: 'x' };
      expect(createProviderBody.safeParse({ type, name: 'x', credentials: extra }).success).toBe(false);
    }
  });

  it('name the allowed values of a choice and the bounds of a text', () => {
    const c = PROVIDER_CREDENTIAL_SCHEMAS.find((s) => s.type === 'provider_c')!.credentials;
    expect(c.properties.environment).toMatchObject({ type: 'string', enum: ['sandbox', 'live'] });
    expect(c.properties.accessToken).toMatchObject({ type: 'string', minLength: 1, maxLength: 256 });
    expect(c.required).toEqual(['accessToken', 'webhookSecret', 'environment']);
  });
});

describe("the dashboard's provider form hints", () => {
  it("are the schemas' descriptions in English, and every one has its German translation", async () => {
    const en: Record<string, string> = (await import('../../../web/messages/en.json')).default;
    const de: Record<string, string> = (await import('../../../web/messages/de.json')).default;
    for (const { type, credentials } of PROVIDER_CREDENTIAL_SCHEMAS) {
      for (const [field, spec] of Object.entries(credentials.properties)) {
        const key = `providerHint.${type}.${field}`;
        expect(spec.description, key).toBeTruthy();
        expect(en[key], key).toBe(spec.description);
        expect(de[key], key).toBeTruthy();
        expect(de[key], key).not.toBe(spec.description);
      }
    }
  });
});
