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
      kind: 'user';
      userId: string;
      organizationId: string | undefined;
      role: Role;
      scopes: ReadonlySet<Scope>;
      mode: KeyMode;
    };
