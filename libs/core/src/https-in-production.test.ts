import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { httpsInProduction } from './https-in-production';

const schema = z
  .object({ NODE_ENV: z.string().optional(), API_URL: z.string(), RATES_URL: z.string() })
  .superRefine(httpsInProduction({ RATES_URL: 'rates must be https', API_URL: 'api must be https' }));

const issues = (env: Record<string, string>) => {
  const parsed = schema.safeParse(env);
  return parsed.success ? [] : parsed.error.issues.map((i) => ({ path: i.path, message: i.message }));
};

describe('httpsInProduction', () => {
  it('refuses each http setting in production with its own message, in the order they are named', () => {
    expect(issues({ NODE_ENV: 'production', API_URL: 'http://a', RATES_URL: 'http://r' })).toEqual([
      { path: ['RATES_URL'], message: 'rates must be https' },
      { path: ['API_URL'], message: 'api must be https' },
    ]);
    expect(issues({ NODE_ENV: 'production', API_URL: 'https://a', RATES_URL: 'http://r' })).toEqual([
      { path: ['RATES_URL'], message: 'rates must be https' },
    ]);
  });

  it('takes https in production and any URL outside production', () => {
    expect(issues({ NODE_ENV: 'production', API_URL: 'https://a', RATES_URL: 'https://r' })).toEqual([]);
    expect(issues({ NODE_ENV: 'development', API_URL: 'http://a', RATES_URL: 'http://r' })).toEqual([]);
    expect(issues({ API_URL: 'http://a', RATES_URL: 'http://r' })).toEqual([]);
  });
});
