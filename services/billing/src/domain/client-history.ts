import type { ClientFieldChange } from '@paymesh/contracts';
import type { PlainClient } from './client-plain';

/** Field paths of a client as its history names them; secret ones never show their values. */
const FIELDS: ReadonlyArray<{ field: string; secret: boolean; get: (c: PlainClient) => unknown }> = [
  { field: 'name', secret: false, get: (c) => c.name },
  { field: 'email', secret: false, get: (c) => c.email },
  { field: 'phone', secret: false, get: (c) => c.phone },
  { field: 'address', secret: false, get: (c) => c.address },
  { field: 'notes', secret: false, get: (c) => c.notes },
  { field: 'metadata', secret: false, get: (c) => c.metadata },
  { field: 'language', secret: false, get: (c) => c.language },
  { field: 'eInvoiceFormat', secret: false, get: (c) => c.eInvoiceFormat },
  { field: 'taxInfo.taxId', secret: true, get: (c) => c.taxInfo?.taxId ?? null },
  { field: 'taxInfo.taxIdType', secret: false, get: (c) => c.taxInfo?.taxIdType ?? null },
  { field: 'taxInfo.taxCountry', secret: false, get: (c) => c.taxInfo?.taxCountry ?? null },
  {
    field: 'taxInfo.peppolRoutingAddress.schemeId',
    secret: false,
    get: (c) => c.taxInfo?.peppolRoutingAddress?.schemeId ?? null,
  },
  {
    field: 'taxInfo.peppolRoutingAddress.value',
    secret: true,
    get: (c) => c.taxInfo?.peppolRoutingAddress?.value ?? null,
  },
  {
    field: 'taxInfo.peppolRoutingAddress.confirmedByBuyer',
    secret: false,
    get: (c) => c.taxInfo?.peppolRoutingAddress?.confirmedByBuyer ?? null,
  },
];

/** Key-order-independent JSON, so `{a,b}` and `{b,a}` compare equal. */
export function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

/**
 * What changed between two states of a client (null: did not exist). Non-secret fields carry their
 * old and new values; secret ones (tax ID, Peppol address value) only `secret: true`.
 */
export function diffClient(before: PlainClient | null, after: PlainClient | null): ClientFieldChange[] {
  const changes: ClientFieldChange[] = [];
  for (const { field, secret, get } of FIELDS) {
    const old = before ? get(before) : null;
    const next = after ? get(after) : null;
    if (canonical(old) === canonical(next)) continue;
    changes.push(secret ? { field, secret: true } : { field, secret: false, old, new: next });
  }
  return changes;
}
