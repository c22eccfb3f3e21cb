import { headers as natsHeaders, type MsgHdrs } from 'nats';

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/;

/** Whether `name` may be sent as an application header (NATS reserves the `Nats-` prefix). */
function isApplicationHeader(name: string): boolean {
  return HEADER_NAME.test(name) && !name.toLowerCase().startsWith('nats-');
}

/**
 * NATS headers from a plain map. Entries with an invalid or reserved (`Nats-*`) name, or a value
 * containing CR/LF, are dropped rather than failing the publish.
 */
export function toNatsHeaders(record: Readonly<Record<string, string>>): MsgHdrs {
  const out = natsHeaders();
  for (const [name, value] of Object.entries(record)) {
    if (!isApplicationHeader(name) || typeof value !== 'string' || /[\r\n]/.test(value)) continue;
    out.set(name, value);
  }
  return out;
}

/** Plain map from NATS headers: names lower-cased, first value of each, empty values dropped. */
export function fromNatsHeaders(hdrs: MsgHdrs | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!hdrs) return out;
  for (const name of hdrs.keys()) {
    const value = hdrs.get(name);
    if (value !== '') out[name.toLowerCase()] = value;
  }
  return out;
}

/** OpenTelemetry messaging attributes of a publish (`send`) or a consumed event (`process`). */
export function messagingAttributes(subject: string, operation: 'send' | 'process'): Record<string, string> {
  return { 'messaging.system': 'nats', 'messaging.destination.name': subject, 'messaging.operation.type': operation };
}
