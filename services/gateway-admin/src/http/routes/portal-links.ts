import { z } from 'zod';
import {
  DomainError,
  ErrorCode,
  ForbiddenError,
  newPortalLinkId,
  signPortalLink,
  UnprocessableError,
} from '@paymesh/core';
import { email } from '@paymesh/http';
import { magicLinkRefusal, magicLinkTtlMinutes, type MagicLinkRefusal } from '../../domain/portal-link';
import { portalMagicLink } from '../responses/organization';
import { resource } from '../route-table';
import { orgRpc } from './common';
import { billingJson } from './billing-rpc';
import { recurringJson } from './recurring-rpc';

const organizationSettings = resource({ tag: 'Organization settings', scopePrefix: 'portal' });

const magicLinkBody = z
  .object({
    email: email.describe('the buyer; matched trimmed and case-insensitively'),
    ttlMinutes: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .describe('may only shorten the system default; larger values are capped'),
  })
  .strict();

const REFUSALS: Readonly<Record<MagicLinkRefusal, () => DomainError>> = {
  system_portal: () =>
    new ForbiddenError('the customer portal is turned off for this deployment (PORTAL_ENABLED)', {
      code: ErrorCode.PORTAL_DISABLED,
    }),
  system_magic_links: () =>
    new ForbiddenError('portal magic links are turned off for this deployment (PORTAL_MAGIC_LINKS_ENABLED)', {
      code: ErrorCode.PORTAL_MAGIC_LINKS_DISABLED,
    }),
  organization_portal: () =>
    new ForbiddenError(
      'the customer portal is turned off for this organization (PUT /organizations/settings/portal enabled)',
      { code: ErrorCode.PORTAL_DISABLED },
    ),
  organization_magic_links: () =>
    new ForbiddenError(
      'portal magic links are turned off for this organization (PUT /organizations/settings/portal magicLinksEnabled)',
      { code: ErrorCode.PORTAL_MAGIC_LINKS_DISABLED },
    ),
  nothing_visible: () =>
    new UnprocessableError(
      'this e-mail has no portal-visible invoice, credit note or recurring subscription in the organization',
      { code: ErrorCode.PORTAL_NOTHING_VISIBLE, field: 'email' },
    ),
};

export const portalLinkRoutes = [
  organizationSettings({
    method: 'POST',
    path: '/organizations/settings/portal/magic-links',
    operationId: 'createPortalMagicLink',
    response: portalMagicLink,
    errors: [422],
    summary:
      'A single-use sign-in link to the customer portal for a buyer e-mail (trusted server-side use only). Needs the portal and magic links on for the deployment (403 PORTAL_DISABLED / PORTAL_MAGIC_LINKS_DISABLED) and the organization, and the e-mail to have a portal-visible invoice, credit note or subscription there (422 PORTAL_NOTHING_VISIBLE)',
    body: magicLinkBody,
    async handler({ deps, org, body }) {
      const p = deps.portal;
      const buyer = body.email.toLowerCase();
      const systemPortal = p?.enabled ?? false;
      const systemMagicLinks = p?.magicLinksEnabled ?? false;
      const first = magicLinkRefusal({
        systemPortal,
        systemMagicLinks,
        organizationPortal: true,
        organizationMagicLinks: true,
        visibleItems: 1,
      });
      if (first || !p) throw REFUSALS[first ?? 'system_portal']();
      const settings = await orgRpc(deps, org, 'billing', (c) => c.getPortalSettings, {});
      const orgSwitches = { organizationPortal: settings.enabled, organizationMagicLinks: settings.magicLinksEnabled };
      const beforeCount = magicLinkRefusal({ systemPortal, systemMagicLinks, ...orgSwitches, visibleItems: 1 });
      if (beforeCount) throw REFUSALS[beforeCount]();
      const [documents, subscriptions] = await Promise.all([
        billingJson(deps, org, 'countPortalDocuments', { email: buyer }).then((a) => a.count),
        recurringJson(deps, org, 'countPortalSubscriptions', { email: buyer }).then((a) => Math.max(a.count, 0)),
      ]);
      const refusal = magicLinkRefusal({
        systemPortal,
        systemMagicLinks,
        ...orgSwitches,
        visibleItems: documents + subscriptions,
      });
      if (refusal) throw REFUSALS[refusal]();
      const ttlMinutes = magicLinkTtlMinutes(body.ttlMinutes, p.defaultTtlMinutes, p.maxTtlMinutes);
      const expiresAt = new Date(deps.clock.now().getTime() + ttlMinutes * 60_000);
      const linkId = newPortalLinkId();
      const token = signPortalLink(p.linkKey, {
        organizationId: org.organizationId,
        mode: org.mode,
        email: buyer,
        expiresAt,
        linkId,
      });
      deps.logger.info(
        { organizationId: org.organizationId, mode: org.mode, linkId, ttlMinutes },
        'portal magic link created',
      );
      return {
        url: `${p.publicUrl}/magic-link#token=${token}`,
        expiresAt: new Date(Math.floor(expiresAt.getTime() / 1000) * 1000).toISOString(),
        ttlMinutes,
      };
    },
  }),
];
