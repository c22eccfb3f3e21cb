import { ConflictError } from '@paymesh/core';
import {
  DiscardPolicy,
  NatsError,
  RetentionPolicy,
  StorageType,
  nanos,
  type JetStreamManager,
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

function updatableConfig(namespace: string, domain: string, limits: StreamLimits): Partial<StreamUpdateConfig> {
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
    num_replicas: 1,
    allow_rollup_hdrs: false,
  };
}

/** Full stream configuration for `domain` in mesh `namespace`. */
export function streamConfig(namespace: string, domain: string, limits: StreamLimits): Partial<StreamConfig> {
  return {
    ...updatableConfig(namespace, domain, limits),
    name: streamName(namespace, domain),
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
  };
}

function apiErrorCode(err: unknown): number | undefined {
  return err instanceof NatsError ? err.api_error?.err_code : undefined;
}

/**
 * Creates the stream of `domain`, or updates it to the wanted limits when it exists; idempotent.
 *
 * @throws ConflictError when a stream of that name captures other subjects (another namespace that
 * maps to the same name) or the subjects are already captured by another stream.
 */
export async function ensureStream(
  jsm: JetStreamManager,
  namespace: string,
  domain: string,
  limits: StreamLimits,
): Promise<StreamInfo> {
  const cfg = streamConfig(namespace, domain, limits);
  const name = streamName(namespace, domain);
  const subjects = streamSubjects(namespace, domain);
  try {
    return await jsm.streams.add(cfg);
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
  return jsm.streams.update(name, updatableConfig(namespace, domain, limits));
}
