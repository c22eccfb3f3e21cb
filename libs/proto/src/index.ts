// Generated gRPC contracts, one namespace per service package (see proto/).
export * as health from './gen/grpc/health/v1/health';
export * as common from './gen/common/v1/json';
export * as checkout from './gen/checkout/v1/checkout';
export * as paymentsWebhooks from './gen/payments-webhooks/v1/payments-webhooks';
export * as billing from './gen/billing/v1/billing';
export * as tax from './gen/tax/v1/tax';
export * as recurring from './gen/recurring/v1/recurring';
export * as notificationsIpn from './gen/notifications-ipn/v1/notifications-ipn';
export * as documents from './gen/documents/v1/documents';
export * as checkoutPayments from './gen/checkout/v1/payments';
