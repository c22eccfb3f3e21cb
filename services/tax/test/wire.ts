/**
 * The tax use cases as their gRPC edge calls them: the JSON merge patch is decoded with the
 * contract's schema by the one decoder first, so a test can hand over the wire's JSON.
 */
import { decodeJson } from '@paymesh/core';
import { taxSettingsPatch } from '@paymesh/contracts';
import type { OrgKey, TaxDeps } from '../src/app/deps';
import * as settings from '../src/app/tax-settings';

export async function updateTaxSettings(deps: TaxDeps, key: OrgKey, json: string) {
  return settings.updateTaxSettings(deps, key, decodeJson(taxSettingsPatch, json));
}
