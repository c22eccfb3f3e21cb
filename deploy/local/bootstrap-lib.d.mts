export interface BootstrapResult {
  organizationId: string;
  siteId: string;
  apiKey: string;
  webhookSigningSecret: string;
  adminBaseUrl: string;
  publicBaseUrl: string;
  /** The organization's Admin user (a dashboard member). */
  adminEmail: string;
  /** Where the dashboard is (when the caller named it). */
  dashboardUrl?: string;
  /** The Admin's one-time link to register a passkey and sign in (when the dashboard was named). */
  enrollmentLink?: string;
  /** The Admin's one-time enrollment token (what the link carries). */
  adminEnrollmentToken?: string;
  /** The records created for the provider sandboxes that were running. */
  providers?: {
    provider_a?: { id: string; webhookSecret: string; secretKey: string };
    /** `apiKey` is the sandbox account (for its /_sandbox controls and API). */
    provider_b?: { id: string; apiKey: string };
    /** `accessToken` is the sandbox account; its webhook endpoint is set to the record's URL. */
    provider_c?: { id: string; accessToken: string; webhookSecret: string };
    /** The sandbox app (for its API and /_sandbox controls). */
    provider_d?: { id: string; clientId: string; clientSecret: string };
  };
  [extra: string]: unknown;
}
export function bootstrap(o: {
  adminBaseUrl: string;
  publicBaseUrl: string;
  systemApiKey: string;
  name?: string;
  email?: string;
  mode?: 'live' | 'test';
  /** The dashboard's address (…/app/): the result then carries the Admin's enrollment link. */
  dashboardUrl?: string;
  /** When set (the provider_a sandbox runs), a provider_a record is created and returned under `providers`. */
  providerASandboxUrl?: string;
  /** When set (the provider_b sandbox runs), a provider_b record is created and returned under `providers`. */
  providerBSandboxUrl?: string;
  /** When set (the provider_c sandbox runs), a provider_c record is created and returned under `providers`. */
  providerCSandboxUrl?: string;
  /** When set (the provider_d sandbox runs), a provider_d record is created and returned under `providers`. */
  providerDSandboxUrl?: string;
  extras?: (
    ctx: BootstrapResult & {
      call: (
        method: string,
        url: string,
        token: string,
        body?: unknown,
        headers?: Record<string, string>,
      ) => Promise<unknown>;
    },
  ) => Promise<Record<string, unknown>>;
}): Promise<BootstrapResult>;
/** `pnpm bootstrap`'s `vies` entry: the running VIES sandbox's URLs, registered numbers and test numbers. */
export function viesSandboxInfo(url: string): Promise<{
  sandboxUrl: string;
  restApi: string;
  registered: { vatId: string; name: string }[];
  /** Test number -> `valid`, `invalid` or the fault it answers. */
  testNumbers: Record<string, string>;
  note: string;
}>;
export function mailSandboxInfo(
  url: string,
  smtpPort?: number,
): { webUrl: string; messagesApi: string; smtp?: string; hint: string };

export declare const WALKTHROUGH_TAX_PATCHES: ReadonlyArray<Record<string, unknown>>;
export declare const WALKTHROUGH_INVOICING: {
  enabled: boolean;
  autoGenerateInvoice: boolean;
  companyName: string;
  companyAddress: { street: string; city: string; postalCode: string; country: string };
  companyEmail: string;
  companyPhone: string;
  bankIBAN: { plaintext: string };
  eInvoice: { enabled: boolean; allowedFormats: string[]; strictValidation: boolean };
};
/** Applies the walk-through settings (tax, invoicing, portal) to an organization; answers its portal's address. */
export function applyWalkthrough(o: {
  adminBaseUrl: string;
  publicBaseUrl: string;
  apiKey: string;
  organizationId: string;
}): Promise<{ portalUrl: string }>;
/** The dashboard's enrollment link of a new member (e-mail and token in the fragment). */
export function enrollmentLink(dashboardUrl: string, email: string, token: string): string;
