import { Client } from 'pg';
import type { StoreLogger } from '../logger';
import { ident } from './sql';

export interface ListenHandlers {
  /** A notification on the channel. */
  onMessage(payload: string): void;
  /** The LISTEN is in place (first time and after every re-open): from now on nothing is missed. */
  onUp?(): void;
  /** The connection was lost or closed: notifications may be missed until the next `onUp`. */
  onDown?(): void;
}

/**
 * One connection of its own (a pooled one would be handed to others) that LISTENs on every channel
 * added; a lost connection is re-opened after a pause and listens on all of them again.
 */
export class PgListener {
  private readonly channels = new Map<string, ListenHandlers[]>();
  private client: Client | undefined;
  private opening: Promise<Client> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly opts: { url: string; applicationName: string; logger?: StoreLogger }) {}

  /** Listens on `channel` (opening the connection if needed); resolves to a function that stops these handlers. */
  async add(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>> {
    const list = this.channels.get(channel) ?? [];
    const isNew = list.length === 0;
    list.push(handlers);
    this.channels.set(channel, list);
    try {
      const client = await this.connected();
      if (isNew && client === this.client) await client.query(`LISTEN ${ident(channel)}`);
    } catch (err) {
      this.remove(channel, handlers);
      throw err;
    }
    if (this.client) handlers.onUp?.();
    return async () => {
      this.remove(channel, handlers);
      handlers.onDown?.();
      if (this.channels.size === 0) await this.close();
    };
  }

  private remove(channel: string, handlers: ListenHandlers): void {
    const rest = (this.channels.get(channel) ?? []).filter((h) => h !== handlers);
    if (rest.length > 0) this.channels.set(channel, rest);
    else this.channels.delete(channel);
  }

  private connected(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.opening ??= this.open().finally(() => (this.opening = undefined));
    return this.opening;
  }

  private async open(): Promise<Client> {
    this.stopped = false;
    const c = new Client({
      connectionString: this.opts.url,
      application_name: this.opts.applicationName,
      keepAlive: true,
    });
    c.on('notification', (msg) => {
      for (const h of this.channels.get(msg.channel) ?? []) h.onMessage(msg.payload ?? '');
    });
    const lost = (err?: Error) => {
      if (this.client !== c) return;
      this.opts.logger?.warn({ err }, 'listen connection lost; re-opening');
      void c.end().catch(() => undefined);
      this.client = undefined;
      this.each((h) => h.onDown?.());
      this.reopen();
    };
    c.on('error', lost);
    // A connection the server closed without an error is lost too (not when this listener closed it).
    c.on('end', () => lost());
    await c.connect();
    for (const channel of this.channels.keys()) await c.query(`LISTEN ${ident(channel)}`);
    this.client = c;
    return c;
  }

  private reopen(): void {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.connected()
        .then(() => this.each((h) => h.onUp?.()))
        .catch((err: unknown) => {
          this.opts.logger?.warn({ err }, 'could not listen; will retry');
          this.reopen();
        });
    }, 1_000);
    this.retry.unref();
  }

  private each(fn: (h: ListenHandlers) => void): void {
    for (const list of this.channels.values()) for (const h of list) fn(h);
  }

  async close(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    const c = this.client;
    this.client = undefined;
    if (c) this.each((h) => h.onDown?.());
    await c?.end().catch(() => undefined);
  }
}
