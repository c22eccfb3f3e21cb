/** Wire shapes of the provider objects the sandbox serves (the subset of fields our platform uses, plus neighbours). */

export type Metadata = Record<string, string>;

export type PaymentIntentStatus =
  | 'requires_payment_method'
  | 'requires_confirmation'
  | 'requires_action'
  | 'processing'
  | 'requires_capture'
  | 'canceled'
  | 'succeeded';

export interface CardDetails {
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  country: string;
  funding: string;
  fingerprint: string;
}

export interface PaymentMethod {
  id: string;
  object: 'payment_method';
  type: 'card';
  card: CardDetails;
  billing_details: { address: null; email: null; name: null; phone: null };
  created: number;
  customer: null;
  livemode: boolean;
  metadata: Metadata;
}

export interface LastPaymentError {
  type: 'card_error';
  code: string;
  decline_code: string;
  message: string;
  doc_url: string;
  charge: string;
  payment_method: PaymentMethod;
}

export interface NextAction {
  type: 'redirect_to_url';
  redirect_to_url: { url: string; return_url: string | null };
}

export interface PaymentIntent {
  id: string;
  object: 'payment_intent';
  allowed_payment_method_types: string[] | null;
  amount: number;
  amount_capturable: number;
  amount_received: number;
  application: null;
  application_fee_amount: null;
  automatic_payment_methods: { enabled: boolean; allow_redirects?: 'always' | 'never' } | null;
  canceled_at: number | null;
  cancellation_reason: string | null;
  capture_method: 'automatic';
  client_secret: string;
  confirmation_method: 'automatic';
  created: number;
  currency: string;
  customer: null;
  description: string | null;
  excluded_payment_method_types: string[] | null;
  last_payment_error: LastPaymentError | null;
  latest_charge: string | null;
  livemode: boolean;
  metadata: Metadata;
  next_action: NextAction | null;
  on_behalf_of: null;
  payment_method: string | null;
  payment_method_options: Record<string, unknown>;
  payment_method_types: string[];
  processing: null;
  receipt_email: string | null;
  setup_future_usage: null;
  shipping: null;
  statement_descriptor: string | null;
  statement_descriptor_suffix: string | null;
  status: PaymentIntentStatus;
  transfer_data: null;
  transfer_group: null;
}

export interface ChargeOutcome {
  network_status: 'approved_by_network' | 'declined_by_network';
  reason: string | null;
  risk_level: 'normal';
  seller_message: string;
  type: 'authorized' | 'issuer_declined';
}

export interface Charge {
  id: string;
  object: 'charge';
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  balance_transaction: null;
  billing_details: PaymentMethod['billing_details'];
  captured: boolean;
  created: number;
  currency: string;
  customer: null;
  description: string | null;
  disputed: boolean;
  failure_code: string | null;
  failure_message: string | null;
  livemode: boolean;
  metadata: Metadata;
  outcome: ChargeOutcome;
  paid: boolean;
  payment_intent: string;
  payment_method: string;
  payment_method_details: { type: 'card'; card: CardDetails };
  receipt_email: string | null;
  refunded: boolean;
  status: 'succeeded' | 'failed';
}

export interface Refund {
  id: string;
  object: 'refund';
  amount: number;
  balance_transaction: null;
  charge: string;
  created: number;
  currency: string;
  metadata: Metadata;
  payment_intent: string;
  reason: string | null;
  receipt_number: null;
  status: 'succeeded';
}

export type DisputeStatus = 'needs_response' | 'won' | 'lost';

export interface Dispute {
  id: string;
  object: 'dispute';
  amount: number;
  balance_transactions: never[];
  charge: string;
  created: number;
  currency: string;
  evidence_details: { due_by: number; has_evidence: boolean; past_due: boolean; submission_count: number };
  is_charge_refundable: boolean;
  livemode: boolean;
  metadata: Metadata;
  payment_intent: string;
  reason: string;
  status: DisputeStatus;
}

export interface WebhookEndpoint {
  id: string;
  object: 'webhook_endpoint';
  api_version: string | null;
  application: null;
  created: number;
  description: string | null;
  enabled_events: string[];
  livemode: boolean;
  metadata: Metadata;
  status: 'enabled' | 'disabled';
  url: string;
}

export interface EventRequest {
  id: string | null;
  idempotency_key: string | null;
}

export type ApiObject = PaymentIntent | Charge | Refund | Dispute | PaymentMethod;

export interface ProviderEvent {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  data: { object: ApiObject; previous_attributes?: Record<string, unknown> };
  livemode: boolean;
  pending_webhooks: number;
  request: EventRequest;
  type: string;
}
