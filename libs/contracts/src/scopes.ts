/**
 * API key scope families and their actions, exactly as the interface specification lists them
 * (plus two named in its style). Pure data, imported by gateway-admin (which enforces them) and by
 * the dashboard (which offers them), so both sides name the same scopes.
 */
export const SCOPE_FAMILIES = {
  checkout: ['read', 'create', 'update'],
  transaction: ['read', 'create', 'update', 'delete', 'execute'],
  invoice: ['read', 'create', 'update', 'delete', 'execute'],
  credit_note: ['read', 'execute'],
  client: ['read', 'create', 'update', 'delete', 'execute'],
  site: ['read', 'create', 'update', 'delete'],
  provider: ['read', 'create', 'update', 'delete', 'execute'],
  domain: ['read', 'create', 'delete', 'execute'],
  api_key: ['read', 'create', 'update', 'delete', 'execute'],
  organization: ['read', 'update', 'execute'],
  tax_rule: ['read', 'create', 'update', 'delete'],
  tax_rate: ['read', 'create', 'update', 'delete', 'execute'],
  tax_report: ['read', 'execute'],
  tax_record: ['read', 'execute'],
  data_io: ['read', 'execute'],
  accounting_export: ['read', 'execute'],
  export: ['execute'],
  system: ['read', 'execute'],
  portal: ['create'],
  vies: ['read', 'execute'],
  userprofile: ['read', 'update', 'execute'],
  /** The audit trail (GET /audit-events); not in the spec's list, named in its style (ADR 0071). */
  audit_event: ['read'],
  /** Integrity of issued documents: the chain check (read) and its export (execute) (ADR 0071). */
  document: ['read', 'execute'],
} as const;
