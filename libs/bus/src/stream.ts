import { ExponentialBackoff, handleWhen, retry } from 'cockatiel';
import { ConflictError, UnavailableError, type Logger } from '@paymesh/core';
import {
  DiscardPolicy,
  NatsError,
  RetentionPolicy,
  StorageType,
  nanos,
  type StreamAPI,
  type StreamConfig,
  type StreamInfo,
  type StreamUpdateConfig,
} from 'nats';
import { streamName, streamSubjects } from './subjects';

/** Retention limits of a domain stream. */
export interface StreamLimits {
  /** Messages older than this are discarded; default 7 days. */
  maxAgeMs: number;
  /** Stream size cap, oldest messages discarded first; default 1 GiB. */
  maxBytes: number;
  /** Largest accepted message; default 1 MiB. */
  maxMsgSize: number;
  /** Window in which a repeated `Nats-Msg-Id` is dropped as a duplicate; default 2 minutes. */
  duplicateWindowMs: number;
}

/** Defaults used for every domain stream unless the bus is given other limits. */
export const DEFAULT_STREAM_LIMITS: Readonly<StreamLimits> = Object.freeze({
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
  maxBytes: 1024 * 1024 * 1024,
  maxMsgSize: 1024 * 1024,
  duplicateWindowMs: 2 * 60 * 1000,
});

/** JetStream error codes this module reacts to. */
const STREAM_NAME_IN_USE = 10058;
const SUBJECTS_OVERLAP = 10065;
/** `replicas > 1 not supported in non-clustered mode`, `insufficient resources`, `no suitable peers for placement`. */
const REPLICAS_UNAVAILABLE = new Set([10074, 10023, 10005]);
/** `insufficient storage resources available`: the server cannot reserve the stream's size cap. */
const STORAGE_UNAVAILABLE = 10047;

/** Most replicas JetStream keeps of a stream. */
export const MAX_STREAM_REPLICAS = 5;

/** What a start does with the replica count of an existing stream; see {@link decideReplicas}. */
export interface ReplicaDecision {
  /** Replica count the stream keeps or gets. */
  replicas: number;
  /** `keep`: as configured; `raise`: fewer than configured, raised; `keep-higher`: more than configured, left alone. */
  action: 'keep' | 'raise' | 'keep-higher';
}

/**
 * The replica count a service start asks for on an existing stream: the configured count, except
 * that a start never lowers a higher count (an operator scaled the stream up, or replicas of
 * another version run with a higher setting); lowering is an operator's deliberate act.
 */
export function decideReplicas(configured: number, actual: number): ReplicaDecision {
  if (actual > configured) return { replicas: actual, action: 'keep-higher' };
  if (actual < configured) return { replicas: configured, action: 'raise' };
  return { replicas: configured, action: 'keep' };
}

/** Throws unless `n` is a replica count JetStream accepts. */
export function assertReplicas(n: number): void {
  if (!Number.isInteger(n) || n < 1 || n > MAX_STREAM_REPLICAS) {
    throw new RangeError(`stream replicas must be an integer from 1 to ${MAX_STREAM_REPLICAS}, got ${n}`);
  }
}

function updatableConfig(
  namespace: string,
  domain: string,
  limits: StreamLimits,
  replicas: number,
): Partial<StreamUpdateConfig> {
  return {
    subjects: streamSubjects(namespace, domain),
    description: `paymesh events of domain "${domain}" in namespace "${namespace}"`,
    max_age: nanos(limits.maxAgeMs),
    max_bytes: limits.maxBytes,
    max_msg_size: limits.maxMsgSize,
    max_msgs: -1,
    max_msgs_per_subject: -1,
    discard: DiscardPolicy.Old,
    duplicate_window: nanos(limits.duplicateWindowMs),
    num_replicas: replicas,
    allow_rollup_hdrs: false,
  };
}

/** Full stream configuration for `domain` in mesh `namespace`, with `replicas` copies (default 1). */
export function streamConfig(
  namespace: string,
  domain: string,
  limits: StreamLimits,
  replicas = 1,
): Partial<StreamConfig> {
  return {
    ...updatableConfig(namespace, domain, limits, replicas),
    name: streamName(namespace, domain),
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
  };
}

function apiErrorCode(err: unknown): number | undefined {
  return err instanceof NatsError ? err.api_error?.err_code : undefined;
}

/** The fields of `wanted` whose value differs from the stream's current configuration. */
function changedFields(current: StreamConfig, wanted: Partial<StreamUpdateConfig>): (keyof StreamUpdateConfig)[] {
  return (Object.keys(wanted) as (keyof StreamUpdateConfig)[]).filter(
    (key) => JSON.stringify(current[key]) !== JSON.stringify(wanted[key]),
  );
}

/** What {@link ensureStream} uses of a JetStreamManager. */
export interface StreamManager {
  streams: Pick<StreamAPI, 'add' | 'info' | 'update'>;
}

/** Options of {@link ensureStream}. */
export interface EnsureStreamOptions {
  /** Replicas of a new stream, and the least an existing one is given (`BUS_STREAM_REPLICAS`); default 1. */
  replicas?: number;
  /** Told when the configured and the actual replica counts differ. */
  logger?: Logger;
}

/**
 * Creates the stream of `domain`, or brings an existing one to the wanted limits; idempotent. An
 * existing stream that already matches is not updated. Its replica count follows
 * {@link decideReplicas}: raised to the configured count, never lowered (a warning names both).
 *
 * @throws ConflictError when a stream of that name captures other subjects (another namespace that
 * maps to the same name) or the subjects are already captured by another stream;
 * UnavailableError (`BUS_STREAM_REPLICAS_UNAVAILABLE`) when NATS cannot place that many replicas,
 * (`BUS_STREAM_STORAGE_UNAVAILABLE`) when it cannot reserve the stream's size cap.
 */
export async function ensureStream(
  jsm: StreamManager,
  namespace: string,
  domain: string,
  limits: StreamLimits,
  opts: EnsureStreamOptions = {},
): Promise<StreamInfo> {
  const configured = opts.replicas ?? 1;
  assertReplicas(configured);
  const name = streamName(namespace, domain);
  const subjects = streamSubjects(namespace, domain);
  const placement = <T>(replicas: number, op: Promise<T>): Promise<T> =>
    op.catch((err: unknown) => {
      const code = apiErrorCode(err);
      if (code === STORAGE_UNAVAILABLE) {
        throw new UnavailableError(
          `NATS cannot reserve ${replicas} x ${limits.maxBytes} bytes for stream ${name} (${err instanceof Error ? err.message : String(err)}): ` +
            `give JetStream more storage (max_file_store), remove streams nobody uses, or lower BUS_STREAM_MAX_BYTES`,
          { code: 'BUS_STREAM_STORAGE_UNAVAILABLE', cause: err },
        );
      }
      if (code === undefined || !REPLICAS_UNAVAILABLE.has(code)) throw err;
      throw new UnavailableError(
        `NATS cannot keep ${replicas} replicas of stream ${name} (${err instanceof Error ? err.message : String(err)}): ` +
          `run JetStream clustered on at least ${replicas} servers, or lower BUS_STREAM_REPLICAS`,
        { code: 'BUS_STREAM_REPLICAS_UNAVAILABLE', cause: err },
      );
    });
  try {
    return await placement(configured, jsm.streams.add(streamConfig(namespace, domain, limits, configured)));
  } catch (err) {
    const code = apiErrorCode(err);
    if (code === SUBJECTS_OVERLAP) {
      throw new ConflictError(`subjects ${subjects.join(', ')} are already captured by another stream`, {
        code: 'BUS_SUBJECTS_OVERLAP',
        cause: err,
      });
    }
    if (code !== STREAM_NAME_IN_USE) throw err;
  }
  const existing = await jsm.streams.info(name);
  const existingSubjects = existing.config.subjects ?? [];
  if (existingSubjects.length !== subjects.length || existingSubjects.some((s, i) => s !== subjects[i])) {
    throw new ConflictError(
      `stream ${name} exists with subjects [${existingSubjects.join(', ')}], expected [${subjects.join(', ')}]`,
      { code: 'BUS_STREAM_CONFLICT' },
    );
  }
  const actual = existing.config.num_replicas;
  const decision = decideReplicas(configured, actual);
  if (decision.action !== 'keep') {
    opts.logger?.warn(
      { stream: name, configuredReplicas: configured, actualReplicas: actual, replicas: decision.replicas },
      decision.action === 'raise'
        ? `stream ${name} has ${actual} replicas, BUS_STREAM_REPLICAS is ${configured}: raising it to ${configured}`
        : `stream ${name} has ${actual} replicas, BUS_STREAM_REPLICAS is ${configured}: keeping ${actual} (a start never lowers replicas)`,
    );
  }
  const wanted = updatableConfig(namespace, domain, limits, decision.replicas);
  if (changedFields(existing.config, wanted).length === 0) return existing;
  return placement(decision.replicas, jsm.streams.update(name, wanted));
}

/**
 * Whether a JetStream API request failed for a moment only: no answer in time (`TIMEOUT`) or no
 * server to answer (`503`), as while a cluster elects its meta leader or is busy.
 */
export function transientJetStreamError(err: unknown): boolean {
  const code = err !== null && typeof err === 'object' && 'code' in err ? String(err.code) : undefined;
  return code === 'TIMEOUT' || code === '503';
}

/**
 * Creates or updates a stream as {@link ensureStream} does, trying again with backoff (up to
 * `attempts` tries in all, about 30 s with the default) while JetStream does not answer: a service
 * that starts while the cluster elects a leader or is loaded waits for it instead of exiting.
 */
export function ensureStreamPatiently(
  jsm: StreamManager,
  namespace: string,
  domain: string,
  limits: StreamLimits,
  opts: EnsureStreamOptions & { attempts?: number; initialDelayMs?: number } = {},
): Promise<StreamInfo> {
  const { attempts = 6, initialDelayMs = 500, ...ensure } = opts;
  const policy = retry(handleWhen(transientJetStreamError), {
    maxAttempts: attempts - 1,
    backoff: new ExponentialBackoff({ initialDelay: initialDelayMs, maxDelay: 8_000 }),
  });
  policy.onRetry((r) =>
    ensure.logger?.warn(
      { domain, delayMs: r.delay, attempt: r.attempt, err: 'error' in r ? r.error : undefined },
      'JetStream did not answer the stream request; trying again',
    ),
  );
  return policy.execute(() => ensureStream(jsm, namespace, domain, limits, ensure));
}
