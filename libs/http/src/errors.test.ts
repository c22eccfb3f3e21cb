import { describe, expect, it } from 'vitest';
import { describeIssues, describeValidation } from './errors';

describe('validation messages name the field', () => {
  it('turns zod issues carried by fastify into body.<path>: <message>', () => {
    expect(
      describeValidation(
        [
          { instancePath: '/scopes/0', message: 'unknown scope "nope:read"' },
          { instancePath: '/name', message: 'Required' },
        ],
        'body',
      ),
    ).toBe('body.scopes.0: unknown scope "nope:read"; body.name: Required');
  });

  it('names a property that ajv reports as missing on its parent', () => {
    expect(
      describeValidation(
        [{ instancePath: '', message: "must have required property 'email'", params: { missingProperty: 'email' } }],
        'body',
      ),
    ).toBe("body.email: must have required property 'email'");
  });

  it('falls back to the location for whole-object errors', () => {
    expect(describeValidation([{ instancePath: '', message: 'Expected object, received null' }], 'body')).toBe(
      'body: Expected object, received null',
    );
    expect(describeIssues([{ path: ['limit'], message: 'too big' }], 'querystring')).toBe('querystring.limit: too big');
  });
});
