import type { Principal } from '../../domain/principal';

/** Who acts, as the backends' audit trails record it (`api_key:<id>`, `system_key:<id>`, `user:<id>`). */
export function actorOf(p: Principal): string {
  if (p.kind === 'user') return `user:${p.userId}`;
  return `${p.kind === 'system_key' ? 'system_key' : 'api_key'}:${p.keyId}`;
}
