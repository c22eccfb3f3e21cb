export { eventId, EVENT_ID_VERSION, type EventIdPart } from './event-id';
export { makeEvent, isEventEnvelope, decodeEnvelope, type EventEnvelope, type MakeEventOptions } from './envelope';
export {
  assertNamespace,
  assertEventSubject,
  isEventSubject,
  isSubjectFilter,
  domainOf,
  wireSubject,
  eventSubjectFromWire,
  streamName,
  streamSubjects,
  consumerName,
} from './subjects';
export { DEFAULT_STREAM_LIMITS, type StreamLimits } from './stream';
export { retryDelayMs, type BackoffOptions } from './backoff';
export { PoisonEventError } from './poison';
export type { BusStats, SubjectStats } from './stats';
export type { DeliveryMeta, EventHandler, Subscription } from './subscription';
export {
  Bus,
  type BusConnectOptions,
  type BusHealth,
  type PublishResult,
  type SubscribeOptions,
  type SubscribeBaseOptions,
  type PlainSubscribeOptions,
  type DecodedSubscribeOptions,
  type WatchHandlers,
} from './bus';
export { EventCache } from './event-cache';
export { OutboxRelay, type OutboxPublisher, type OutboxRelayOptions, type RelayHealth } from './relay';
export type { Outbox, OutboxEvent } from './outbox-types';
export { Committer, type CommitScope, type CommitHandoff, type CommitterOptions, type EventTypes } from './commit';
export {
  AUDIT_SUBJECT,
  AuditingStore,
  diffDocuments,
  maskValue,
  type AuditBatch,
  type AuditChange,
  type AuditRecord,
  type AuditHandoff,
  type AuditingStoreOptions,
} from './audit';
