import type { z, ZodTypeAny } from 'zod';
import type { taxRpc } from '@paymesh/contracts';
import { resource, type AnyRoute, type ResourceDefaults, type ResourceRow } from '../route-table';
import { idParams, noParameters } from './common';
import type { Bodiless, ForwardContext } from './json-rpc';
import { toTax } from './tax-rpc';

type TaxRpc = typeof taxRpc;
type TaxMethod = keyof TaxRpc & string;
/** The tax RPCs whose request may be empty (the record's id at most). */
type NoBodyMethod = Bodiless<TaxRpc>;
type Request<K extends TaxMethod> = z.input<TaxRpc[K]['request']>;
type Answer<K extends TaxMethod> = z.output<TaxRpc[K]['answer']>;

/**
 * The row's response schema takes the RPC's answer, and its body schema gives what the RPC reads;
 * else `response` (or `body`) is refused where the row is written.
 */
type Fits<K extends TaxMethod, R extends ZodTypeAny, B = undefined> = ([Answer<K>] extends [z.input<R>]
  ? unknown
  : { response: never }) &
  (B extends ZodTypeAny ? ([z.output<B>] extends [Request<K>] ? unknown : { body: never }) : unknown);

/** What a row of the book says itself; the method, the input it forwards and the handler come from its kind. */
type Said = Omit<
  ResourceRow<undefined, undefined, undefined, ZodTypeAny | null>,
  'method' | 'handler' | 'operationId' | 'params' | 'query' | 'body' | 'response'
>;
type BookRow<K extends TaxMethod, R extends ZodTypeAny, B = undefined> = Said & {
  operationId: K;
  response: R;
} & Fits<K, R, B>;

/**
 * The rows of a book of tax records (rates, rules), scope `<scopePrefix>:<action>`: each row
 * forwards to the tax RPC named like its operationId, with the input its kind reads (the id in
 * the path, the body, nothing for the whole book), and answers what the RPC answers.
 */
export function taxBook(defaults: ResourceDefaults) {
  const row = resource(defaults);
  /**
   * The row of `def`, of `kind`, its handler the tax forwarder of its operationId that reads what
   * `kind` takes (the row's body is the RPC's request: `Fits` checks it where the row is written).
   */
  function forward<B>(
    def: Said & { operationId: TaxMethod; response: ZodTypeAny | null },
    kind: Pick<AnyRoute, 'method' | 'params' | 'query' | 'body'>,
    handler: (ctx: ForwardContext<{ id: string }, B>) => Promise<unknown>,
  ): AnyRoute {
    const said: Said = def;
    return row({ ...said, operationId: def.operationId, response: def.response, ...kind, handler });
  }
  return {
    /** Any other row of the book (a list whose query the handler maps). */
    row,
    /** GET, the record of the id in the path. */
    get<K extends NoBodyMethod, R extends ZodTypeAny>(def: BookRow<K, R>): AnyRoute {
      return forward(def, { method: 'GET', params: idParams }, toTax.byId(def.operationId));
    },
    /** POST, a new record from the body (201). */
    create<K extends TaxMethod, R extends ZodTypeAny, B extends ZodTypeAny>(
      def: BookRow<K, R, B> & { body: B },
    ): AnyRoute {
      return forward(def, { method: 'POST', body: def.body }, toTax.body(def.operationId));
    },
    /** PUT, the record of the id in the path changed by the body. */
    update<K extends TaxMethod, R extends ZodTypeAny, B extends ZodTypeAny>(
      def: BookRow<K, R, B> & { body: B },
    ): AnyRoute {
      return forward(def, { method: 'PUT', params: idParams, body: def.body }, toTax.byIdBody(def.operationId));
    },
    /** DELETE, the record of the id in the path; 204. */
    remove<K extends NoBodyMethod>(def: Said & { operationId: K; response: null }): AnyRoute {
      return forward(def, { method: 'DELETE', params: idParams }, toTax.byId(def.operationId));
    },
    /** A row on the whole book (a preview, delete all, the defaults): no parameters, no body. */
    wholeBook<K extends NoBodyMethod, R extends ZodTypeAny>(
      def: BookRow<K, R> & { method: 'GET' | 'POST' | 'DELETE' },
    ): AnyRoute {
      return forward(def, { method: def.method, query: noParameters }, toTax.bare(def.operationId));
    },
  };
}
