import type { tax } from '@paymesh/proto';
import type { ZodType, ZodTypeDef } from 'zod';
import type { AdminDeps } from '../../app/deps';
import type { OrgScope } from '../route-table';
import { callJsonRpc, type JsonCall } from './json-rpc';

type TaxJsonMethod = keyof {
  [
    K in keyof tax.TaxServiceClient as tax.TaxServiceClient[K] extends (
      req: tax.TaxJsonRequest,
      ...rest: never[]
    ) => unknown
      ? K
      : never
  ]: true;
};

/** Calls one of the tax service's JSON-carrying RPCs (see callJsonRpc). */
export function taxJson<T>(
  deps: AdminDeps,
  org: OrgScope,
  method: TaxJsonMethod,
  answer: ZodType<T, ZodTypeDef, unknown>,
  request: JsonCall = {},
): Promise<T> {
  const client = deps.clients.tax;
  return callJsonRpc(deps, 'tax', client, client[method], org, answer, { id: request.id, body: request.body });
}
