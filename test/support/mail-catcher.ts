/** Reads the mesh's mail catcher (sandboxes/mail) over its JSON API. */
export interface CaughtMessage {
  id: string;
  receivedAt: string;
  envelope: { from: string; to: string[] };
  from: string;
  fromName: string;
  replyTo: string[];
  to: string[];
  cc: string[];
  subject: string;
  messageId: string;
  text: string;
  html: string | null;
  attachments: Array<{ filename: string; contentType: string; size: number; url: string }>;
}

export class MailCatcherClient {
  constructor(readonly baseUrl: string) {}

  async messages(): Promise<CaughtMessage[]> {
    const res = await fetch(`${this.baseUrl}/_sandbox/messages`);
    if (!res.ok) throw new Error(`mail catcher: ${res.status}`);
    return ((await res.json()) as { items: CaughtMessage[] }).items;
  }

  /** The messages sent to `address` (SMTP envelope), newest first. */
  async to(address: string): Promise<CaughtMessage[]> {
    return (await this.messages()).filter((m) => m.envelope.to.includes(address));
  }

  async attachment(m: CaughtMessage, index: number): Promise<{ contentType: string; body: string }> {
    const a = m.attachments[index];
    if (!a) throw new Error(`message ${m.id} has no attachment ${index}`);
    const res = await fetch(`${this.baseUrl}${a.url}`);
    return { contentType: res.headers.get('content-type') ?? '', body: await res.text() };
  }

  /** An attachment's bytes as received (binary attachments such as PDFs). */
  async attachmentBytes(m: CaughtMessage, index: number): Promise<Buffer> {
    const a = m.attachments[index];
    if (!a) throw new Error(`message ${m.id} has no attachment ${index}`);
    const res = await fetch(`${this.baseUrl}${a.url}`);
    if (!res.ok) throw new Error(`mail catcher attachment: ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  }

  /** The next `count` messages are refused with 451 (the sender retries). */
  async refuse(count: number): Promise<void> {
    const res = await fetch(`${this.baseUrl}/_sandbox/refuse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ count }),
    });
    if (!res.ok) throw new Error(`mail catcher refuse: ${res.status}`);
  }
}
