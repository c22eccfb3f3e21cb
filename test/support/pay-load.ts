/** One buyer's payment: checkout, transaction, pay at the provider_a sandbox. */
export interface PayFlow {
  n: number;
  /** Epoch ms the flow was launched. */
  startedAt: number;
  providerId: string;
  transactionId?: string;
  paymentIntentId?: string;
  /** Epoch ms the sandbox answered the pay form with `redirect_status=succeeded` (it captured). */
  capturedAt?: number;
  /** Step at which the flow stopped without a capture, and why. */
  failedStep?: 'checkout' | 'transaction' | 'pay';
  error?: string;
  /** Epoch ms the flow's last step finished. */
  endedAt?: number;
}

export interface PayLoadOptions {
  adminBaseUrl: string;
  publicBaseUrl: string;
  apiKey: string;
  siteId: string;
  ipnUrl: string;
  /** Provider record the next flow pays through (read per flow, so a suite can switch it). */
  providerId: () => string;
  /** Flows launched per second (open loop: the rate does not drop when the mesh slows down). */
  ratePerSecond: number;
  /** Flows in progress at most; a launch due while at the cap is counted as skipped, not queued. */
  maxInFlight: number;
  /** Whole-request timeout of each HTTP call (default 30 s). */
  requestTimeoutMs?: number;
  /** Most flows launched in all; the load stops launching after that many (default: no bound). */
  maxFlows?: number;
}

const BILLING_ADDRESS = {
  name: 'Buyer',
  email: 'buyer@example.com',
  line1: 'Main St 1',
  city: 'Berlin',
  postalCode: '10115',
  country: 'DE',
};

/**
 * A steady, bounded stream of buyers paying through the whole money path. Every flow is recorded
 * with what the buyer saw; faults make steps fail, which is recorded, never retried (a retry would
 * hide when a step failed).
 */
export class PayLoad {
  readonly flows: PayFlow[] = [];
  skipped = 0;
  private inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private launched = 0;
  startedAt = 0;
  stoppedAt = 0;

  constructor(private readonly opts: PayLoadOptions) {}

  start(): void {
    this.startedAt = Date.now();
    // A short tick launches whatever is due, so the rate holds even when a tick comes late.
    this.timer = setInterval(() => this.tick(), 20);
  }

  /** Stops launching and waits for the flows in progress to finish. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.stoppedAt = Date.now();
    await Promise.allSettled([...this.inFlight]);
  }

  private tick(): void {
    const due = Math.floor(((Date.now() - this.startedAt) * this.opts.ratePerSecond) / 1000);
    while (this.launched < due && this.flows.length < (this.opts.maxFlows ?? Infinity)) {
      this.launched += 1;
      if (this.inFlight.size >= this.opts.maxInFlight) {
        this.skipped += 1;
        continue;
      }
      const flow: PayFlow = { n: this.flows.length, startedAt: Date.now(), providerId: this.opts.providerId() };
      this.flows.push(flow);
      const run = this.run(flow).finally(() => {
        flow.endedAt = Date.now();
        this.inFlight.delete(run);
      });
      this.inFlight.add(run);
    }
  }

  private async run(flow: PayFlow): Promise<void> {
    const o = this.opts;
    const timeout = o.requestTimeoutMs ?? 30_000;
    const amount = 1000 + (flow.n % 500);
    const step = async (name: PayFlow['failedStep'], fn: () => Promise<Response>): Promise<Response | undefined> => {
      try {
        const res = await fn();
        if (res.status >= 200 && res.status < 400) return res;
        flow.failedStep = name;
        flow.error = `HTTP ${res.status} ${(await res.text()).slice(0, 200)}`;
      } catch (err) {
        flow.failedStep = name;
        flow.error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      }
      return undefined;
    };
    const json = (body: unknown, token?: string): RequestInit => ({
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeout),
    });

    const checkoutRes = await step('checkout', () =>
      fetch(
        `${o.adminBaseUrl}/checkouts/${o.siteId}/create`,
        json(
          {
            amount,
            currency: 'EUR',
            email: 'buyer@example.com',
            externalReference: `load-${flow.n}`,
            returnUrl: 'https://shop.example/return/{transactionId}',
            cancelUrl: 'https://shop.example/cancel/{transactionId}',
            ipnUrl: o.ipnUrl,
            items: [
              {
                name: 'Item',
                description: 'fault suite',
                quantity: 1,
                unitPrice: amount,
                vatRate: 19,
                itemType: 'digital_service',
              },
            ],
          },
          o.apiKey,
        ),
      ),
    );
    if (!checkoutRes) return;
    const checkout = (await checkoutRes.json()) as { sessionPublicId: string };

    const txRes = await step('transaction', () =>
      fetch(
        `${o.publicBaseUrl}/transactions/create`,
        json({
          sessionPublicId: checkout.sessionPublicId,
          providerId: flow.providerId,
          billingAddress: BILLING_ADDRESS,
        }),
      ),
    );
    if (!txRes) return;
    const tx = (await txRes.json()) as { transactionId: string; redirectUrl: string };
    flow.transactionId = tx.transactionId;
    flow.paymentIntentId = /\/pay\/([^/?]+)/.exec(tx.redirectUrl)?.[1];

    const payRes = await step('pay', () =>
      fetch(tx.redirectUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'outcome=pay',
        redirect: 'manual',
        signal: AbortSignal.timeout(timeout),
      }),
    );
    if (!payRes) return;
    await payRes.body?.cancel();
    const location = payRes.headers.get('location') ?? '';
    if (payRes.status === 303 && new URL(location).searchParams.get('redirect_status') === 'succeeded') {
      flow.capturedAt = Date.now();
    } else {
      flow.failedStep = 'pay';
      flow.error = `pay answered ${payRes.status} ${location}`;
    }
  }
}
