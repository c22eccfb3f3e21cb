import { z } from 'zod';
import { clientHistoryEntry, clientRecord } from '@paymesh/contracts';
import { page } from './common';

const secretNote =
  'compliance value: `masked` (last 4 characters) always; `plaintext` only for callers holding client:execute';

/** A billing client. */
export const client = clientRecord.extend({
  taxInfo: clientRecord.shape.taxInfo.describe(`tax identification; ${secretNote}`),
});
export const clientPage = page(client);

/** One entry of a client's append-only history. */
export const clientHistoryItem = clientHistoryEntry.extend({
  changes: z
    .array(
      z.object({
        field: z.string().describe('field path, e.g. name or taxInfo.taxId'),
        secret: z.boolean().describe('true for compliance values: their old and new values are never shown'),
        old: z.unknown().optional().describe('value before (non-secret fields)'),
        new: z.unknown().optional().describe('value after (non-secret fields)'),
      }),
    )
    .describe('fields that changed; on create every field set, on delete every field the client had'),
});
export const clientHistoryPage = page(clientHistoryItem);
