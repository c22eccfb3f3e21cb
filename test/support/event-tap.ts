import { JSONCodec, type NatsConnection, type Subscription } from 'nats';

/** Collects the envelopes published on one event subject of the mesh. */
export class EventTap {
  readonly events: { id: string; type: string; data: Record<string, unknown> }[] = [];
  private sub: Subscription | undefined;
  constructor(
    private readonly nc: NatsConnection,
    private readonly subject: string,
  ) {}
  start(): this {
    const codec = JSONCodec<{ id: string; type: string; data: Record<string, unknown> }>();
    const sub = this.nc.subscribe(this.subject);
    this.sub = sub;
    void (async () => {
      for await (const m of sub) this.events.push(codec.decode(m.data));
    })();
    return this;
  }
  /**
   * Each event once: a plain subscription sees every publish, also a republish of the same event
   * (at-least-once relays; JetStream drops it by its message id, consumers never see it twice).
   */
  get distinct(): { id: string; type: string; data: Record<string, unknown> }[] {
    const seen = new Set<string>();
    return this.events.filter((e) => !seen.has(e.id) && seen.add(e.id) !== undefined);
  }
  stop(): void {
    this.sub?.unsubscribe();
  }
}
