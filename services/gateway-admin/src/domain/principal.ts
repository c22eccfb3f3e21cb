import type { Actor } from '@paymesh/core';
import type { KeyMode } from './api-key';
import type { Role, Scope } from './scopes';

/** Who is calling, resolved from the bearer token. */
export type Principal =
  | {
      kind: 'organization_key';
      keyId: string;
      /** The key's name, for the audit trail. */
      keyName?: string;
      organizationId: string;
      mode: KeyMode;
      role: Role;
      scopes: ReadonlySet<Scope>;
    }
  | {
      kind: 'system_key';
      keyId: string;
      keyName?: string;
      mode: KeyMode;
      role: Role;
      scopes: ReadonlySet<Scope>;
    }
  | {
      /** A dashboard user signed in with WebAuthn, holding a session JWT. */
      kind: 'user';
      userId: string;
      /** The user's e-mail, for the audit trail. */
      email?: string;
      sessionId: string;
      /** The organization the request acts on (route `:orgId`, else the `selectedOrganization` cookie); unset when none was named. */
      organizationId: string | undefined;
      /** Membership role in that organization (Viewer without one; such a principal holds no scopes). */
      role: Role;
      scopes: ReadonlySet<Scope>;
      mode: KeyMode;
    };

/** Rate-limit identity of an authenticated caller: one bucket per API key or per dashboard user. */
export function principalClientId(p: Principal): string {
  return p.kind === 'user' ? `user:${p.userId}` : `key:${p.keyId}`;
}

/** The audit trail's actor of an authenticated caller. */
export function principalActor(p: Principal): Actor {
  if (p.kind === 'user')
    return p.email ? { type: 'user', id: p.userId, name: p.email } : { type: 'user', id: p.userId };
  const type = p.kind === 'organization_key' ? 'api_key' : 'system_key';
  return p.keyName ? { type, id: p.keyId, name: p.keyName } : { type, id: p.keyId };
}
