import {
  InterceptingCall,
  type Interceptor,
  type ServiceDefinition,
  type UntypedHandleCall,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';

/** Calls of one method (full path, e.g. `/checkout.v1.CheckoutService/GetSite`). */
export interface GrpcMethodStats {
  made: number;
  served: number;
}

/**
 * The gRPC calls of this process since it started, for benchmarks and the cost budget. Health
 * checks are not counted: probes come from outside the flows being measured.
 */
export interface GrpcStats {
  /** Calls started by clients of {@link makeClient}, whatever their outcome. */
  callsMade: number;
  /** Calls received by the services of a {@link GrpcServer}. */
  callsServed: number;
  /** Calls made that have not ended yet. */
  callsInFlight: number;
  byMethod: Record<string, GrpcMethodStats>;
}

const totals = { callsMade: 0, callsServed: 0, callsInFlight: 0 };
const byMethod = new Map<string, GrpcMethodStats>();

function method(path: string): GrpcMethodStats {
  let m = byMethod.get(path);
  if (!m) {
    m = { made: 0, served: 0 };
    byMethod.set(path, m);
  }
  return m;
}

let serving = 0;

/** Calls this process's services are answering now (a graceful stop waits for them). */
export function grpcCallsServing(): number {
  return serving;
}

/** A copy of this process's gRPC call counters. */
export function grpcStats(): GrpcStats {
  return { ...totals, byMethod: Object.fromEntries([...byMethod].map(([path, m]) => [path, { ...m }])) };
}

/** Client interceptor counting each call when it starts and when its status arrives. */
export const countingInterceptor: Interceptor = (options, nextCall) => {
  totals.callsMade += 1;
  totals.callsInFlight += 1;
  method(options.method_definition.path).made += 1;
  let ended = false;
  return new InterceptingCall(nextCall(options), {
    start(metadata, _listener, next) {
      next(metadata, {
        onReceiveStatus(status, nextStatus) {
          if (!ended) {
            ended = true;
            totals.callsInFlight -= 1;
          }
          nextStatus(status);
        },
      });
    },
  });
};

/**
 * The implementation of `definition` with each handler counting the calls it receives (methods
 * left unimplemented stay so: grpc-js answers them UNIMPLEMENTED).
 */
export function countingImplementation<I extends UntypedServiceImplementation>(
  definition: ServiceDefinition<I>,
  implementation: I,
): I {
  const counted: UntypedServiceImplementation = {};
  for (const [name, attrs] of Object.entries(definition)) {
    // grpc-js also finds a handler under the method's proto name.
    const handler =
      implementation[name] ?? (typeof attrs.originalName === 'string' ? implementation[attrs.originalName] : undefined);
    if (handler === undefined) continue;
    const run = handler as (...args: unknown[]) => void;
    counted[name] = ((...args: unknown[]) => {
      totals.callsServed += 1;
      method(attrs.path).served += 1;
      serving += 1;
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        serving -= 1;
      };
      // The call object is an event emitter: 'cancelled' always, 'finish' when a stream's answer ends.
      const call = args[0] as { once?: (event: string, listener: () => void) => void } | undefined;
      call?.once?.('cancelled', end);
      const answer = args[1];
      if (typeof answer === 'function') {
        // Unary and client-streaming calls answer through their callback.
        args[1] = (...result: unknown[]) => {
          end();
          (answer as (...r: unknown[]) => void)(...result);
        };
      } else call?.once?.('finish', end);
      run.apply(implementation, args);
    }) as UntypedHandleCall;
  }
  return counted as I;
}
