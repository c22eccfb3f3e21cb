import { taxRpc } from '@paymesh/contracts';
import type { z } from 'zod';
import type { AdminDeps } from '../../app/deps';
import type { OrgScope } from '../route-table';
import { callJson, type EnvelopeArgs } from './json-rpc';

type TaxRpc = typeof taxRpc;

/** Calls one of the tax service's JSON RPCs (`taxRpc`). */
export function taxJson<K extends keyof TaxRpc & string>(
  deps: AdminDeps,
  org: OrgScope,
  method: K,
  args: EnvelopeArgs<TaxRpc[K]>,
): Promise<z.output<TaxRpc[K]['answer']>> {
  return callJson(deps, 'tax', deps.clients.tax, taxRpc, org, method, args);
}
