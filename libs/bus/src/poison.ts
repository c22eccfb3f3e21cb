/**
 * Thrown by a handler (or raised by the bus for undecodable data) to say the event can never be
 * processed: the message is terminated at once instead of being redelivered.
 */
export class PoisonEventError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PoisonEventError';
  }
}
