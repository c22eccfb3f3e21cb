import { z } from 'zod';
import { objectIdString, page, testMode, timestamp } from './common';

export const domain = z.object({
  id: objectIdString,
  hostname: z.string(),
  siteId: objectIdString.nullable(),
  verified: z.boolean(),
  verifiedAt: timestamp.nullable(),
  lastCheckedAt: timestamp.nullable(),
  cnameTarget: z.string().describe('host name the CNAME record must point at'),
  testMode,
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const domainPage = page(domain);

export const cnameCheck = z.object({
  hostname: z.string(),
  verified: z.boolean(),
  expectedCname: z.string(),
  foundCnames: z.array(z.string()),
  reason: z.string().nullable().describe('why the domain is not verified'),
  checkedAt: timestamp,
  domain,
});
