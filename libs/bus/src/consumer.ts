import { ConflictError } from '@paymesh/core';
import {
  AckPolicy,
  DeliverPolicy,
  NatsError,
  ReplayPolicy,
  nanos,
  type ConsumerConfig,
  type ConsumerInfo,
  type JetStreamManager,
} from 'nats';

/** Settings of a durable pull consumer as chosen by {@link Bus.subscribe}. */
export interface DurableConsumerSpec {
  stream: string;
  name: string;
  filters: readonly string[];
  maxDeliver: number;
  ackWaitMs: number;
  maxAckPending: number;
  /** Where a new consumer starts: every stored event, only new ones, or at a stream sequence. */
  deliver: 'all' | 'new' | { startSeq: number };
  description: string;
}

function consumerConfig(spec: DurableConsumerSpec): Partial<ConsumerConfig> {
  const filter: Partial<ConsumerConfig> =
    spec.filters.length === 1 ? { filter_subject: spec.filters[0] } : { filter_subjects: [...spec.filters] };
  return {
    ...filter,
    durable_name: spec.name,
    description: spec.description,
    ack_policy: AckPolicy.Explicit,
    ...deliverConfig(spec.deliver),
    replay_policy: ReplayPolicy.Instant,
    max_deliver: spec.maxDeliver,
    ack_wait: nanos(spec.ackWaitMs),
    max_ack_pending: spec.maxAckPending,
    // 0: the consumer's state has as many replicas as its stream (BUS_STREAM_REPLICAS, or what an
    // operator set on the stream). An existing consumer's count is never changed below.
    num_replicas: 0,
  };
}

function deliverConfig(deliver: DurableConsumerSpec['deliver']): Partial<ConsumerConfig> {
  if (deliver === 'new') return { deliver_policy: DeliverPolicy.New };
  if (deliver === 'all') return { deliver_policy: DeliverPolicy.All };
  return { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: deliver.startSeq };
}

/** Whether a JetStream API call failed because the consumer does not exist. */
function consumerMissing(err: unknown): boolean {
  return err instanceof NatsError && (err.api_error?.err_code === 10014 || err.api_error?.code === 404);
}

/**
 * Where a durable that takes over from `predecessors` (durables of the same stream it replaces)
 * starts when it is created: right after the last message every existing predecessor has
 * acknowledged (the lowest ack floor), so what they all handled is not handed to it again and
 * nothing they had yet to handle is missed. `undefined` when the durable exists already (it keeps
 * its position) or no predecessor exists (a new installation: it starts as asked).
 */
export async function startAfterPredecessors(
  jsm: JetStreamManager,
  stream: string,
  name: string,
  predecessors: readonly string[],
): Promise<number | undefined> {
  const info = async (consumer: string): Promise<ConsumerInfo | undefined> => {
    try {
      return await jsm.consumers.info(stream, consumer);
    } catch (err) {
      if (consumerMissing(err)) return undefined;
      throw err;
    }
  };
  if (await info(name)) return undefined;
  const floors: number[] = [];
  for (const p of predecessors) {
    const found = await info(p);
    if (found) floors.push(found.ack_floor.stream_seq);
  }
  return floors.length === 0 ? undefined : Math.min(...floors) + 1;
}

/**
 * Creates the durable consumer, or brings an existing one to the wanted settings; idempotent.
 *
 * @throws ConflictError when the consumer exists with settings the server will not change.
 */
export async function ensureConsumer(jsm: JetStreamManager, spec: DurableConsumerSpec): Promise<ConsumerInfo> {
  const cfg = consumerConfig(spec);
  try {
    return await jsm.consumers.add(spec.stream, cfg);
  } catch (err) {
    if (!(err instanceof NatsError) || !err.api_error) throw err;
    try {
      return await jsm.consumers.update(spec.stream, spec.name, {
        description: cfg.description,
        max_deliver: cfg.max_deliver,
        ack_wait: cfg.ack_wait,
        max_ack_pending: cfg.max_ack_pending,
        ...(cfg.filter_subject === undefined ? {} : { filter_subject: cfg.filter_subject }),
        ...(cfg.filter_subjects === undefined ? {} : { filter_subjects: cfg.filter_subjects }),
      });
    } catch (updateErr) {
      throw new ConflictError(
        `consumer ${spec.name} on stream ${spec.stream} exists with incompatible settings (${err.message}); ` +
          'delete it or use another durable name',
        { code: 'BUS_CONSUMER_CONFLICT', cause: updateErr },
      );
    }
  }
}
