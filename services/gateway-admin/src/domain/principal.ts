import type { KeyMode } from './api-key';
import type { Role, Scope } from './scopes';

/** Who is calling, resolved from the bearer token. */
export type Principal =
  | {
      kind: 'organization_key';
      keyId: string;
      organizationId: string;
      mode: KeyMode;
      role: Role;
      scopes: ReadonlySet<Scope>;
    }
  | {
      kind: 'system_key';
      keyId: string;
      mode: KeyMode;
      role: Role;
      scopes: ReadonlySet<Scope>;
    }
  | {
      /** A dashboard user signed in with WebAuthn, holding a session JWT. */
      kind: 'user';
      userId: string;
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
