import { z } from 'zod';
import { ROLES } from '../../domain/scopes';
import { objectIdString } from './common';

export const signInStarted = z.object({
  flow: z.enum(['registration', 'authentication']),
  challengeId: objectIdString.describe('give it back to authenticate-complete'),
  options: z
    .object({ challenge: z.string() })
    .passthrough()
    .describe(
      'WebAuthn PublicKeyCredentialCreationOptionsJSON (registration) or PublicKeyCredentialRequestOptionsJSON (authentication)',
    ),
});

export const accessToken = z.object({
  accessToken: z.string().describe('dashboard JWT'),
  tokenType: z.literal('Bearer'),
  expiresIn: z.number().int().describe('seconds'),
});

const user = z.object({ id: objectIdString, email: z.string(), name: z.string() });
const organizationRole = z.object({ id: objectIdString, name: z.string(), role: z.enum(ROLES) });

export const signedIn = accessToken.extend({ user, organizations: z.array(organizationRole) });

export const loginCheck = z.object({
  authenticated: z.literal(true),
  user,
  organizations: z.array(organizationRole),
  selectedOrganization: objectIdString
    .nullable()
    .describe("the selectedOrganization cookie's organization when the user belongs to it"),
  role: z.enum(ROLES).nullable(),
});
