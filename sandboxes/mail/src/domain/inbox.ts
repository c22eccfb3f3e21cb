import { randomBytes } from 'node:crypto';

/** One attachment of a caught message. */
export interface CaughtAttachment {
  filename: string;
  contentType: string;
  size: number;
  content: Buffer;
}

/** A message as the catcher received and parsed it. */
export interface CaughtMessage {
  id: string;
  receivedAt: string;
  /** SMTP envelope: what the sender said in MAIL FROM / RCPT TO. */
  envelope: { from: string; to: string[] };
  from: string;
  /** Display name of the From header ('' when it has none). */
  fromName: string;
  /** Reply-To addresses. */
  replyTo: string[];
  to: string[];
  cc: string[];
  subject: string;
  messageId: string;
  text: string;
  html: string | null;
  attachments: CaughtAttachment[];
}

export type NewMessage = Omit<CaughtMessage, 'id' | 'receivedAt'>;

/**
 * The caught messages, in memory, newest first, at most `max` of them. Also holds the
 * "refuse the next N messages" switch tests use to make a sender retry.
 */
export class Inbox {
  private messages: CaughtMessage[] = [];
  private refuseNext = 0;

  constructor(
    private readonly max: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  add(m: NewMessage): CaughtMessage {
    const stored: CaughtMessage = { ...m, id: randomBytes(8).toString('hex'), receivedAt: this.now().toISOString() };
    this.messages.unshift(stored);
    if (this.messages.length > this.max) this.messages.length = this.max;
    return stored;
  }

  list(): CaughtMessage[] {
    return [...this.messages];
  }

  get(id: string): CaughtMessage | undefined {
    return this.messages.find((m) => m.id === id);
  }

  /** Forgets every message and the refuse switch. */
  reset(): void {
    this.messages = [];
    this.refuseNext = 0;
  }

  /** The next `count` messages are refused with a temporary SMTP error. */
  refuse(count: number): void {
    this.refuseNext = count;
  }

  /** Whether this message is to be refused (uses up one refusal). */
  takeRefusal(): boolean {
    if (this.refuseNext <= 0) return false;
    this.refuseNext--;
    return true;
  }

  get refusalsLeft(): number {
    return this.refuseNext;
  }
}
