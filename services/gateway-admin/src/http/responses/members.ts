import { z } from 'zod';
import { ROLES } from '../../domain/scopes';
import { objectIdString, page, timestamp } from './common';

export const member = z.object({
  userId: objectIdString,
  membershipId: objectIdString.describe('the membership record: its changes are audit events of resource `membership`'),
  email: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  createdAt: timestamp,
});

export const memberPage = page(member);

export const memberAdded = member.extend({
  enrollmentToken: z.string().optional().describe('one-time WebAuthn enrollment token of a new user; shown once'),
});
