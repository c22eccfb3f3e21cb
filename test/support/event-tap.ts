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
  stop(): void {
    this.sub?.unsubscribe();
  }
}
