import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { BACKEND_SERVICES, type BackendService } from '../../libs/runtime/src/services';
import { CHART_DIR, ROOT, type Manifest } from './chart';

/** A gRPC call edge `caller->backend`. */
export type Edge = `${string}->${string}`;

/** Every service directory with an entry point. */
export const SERVICE_DIRS = readdirSync(join(ROOT, 'services')).filter((d) =>
  existsSync(join(ROOT, 'services', d, 'src', 'main.ts')),
);

/** The `downstream` list a service's config.ts exports: the backends whose gRPC clients it builds. */
export async function declaredDownstream(service: string): Promise<string[]> {
  const mod = await import(join(ROOT, 'services', service, 'src', 'config.ts'));
  if (!Array.isArray(mod.downstream)) throw new Error(`services/${service}/src/config.ts exports no downstream list`);
  for (const b of mod.downstream)
    if (!(b in BACKEND_SERVICES)) throw new Error(`${service} declares unknown backend ${String(b)}`);
  return [...(mod.downstream as BackendService[])];
}

/** Every caller->backend edge the services declare, sorted. */
export async function declaredEdges(): Promise<Edge[]> {
  const edges: Edge[] = [];
  for (const service of SERVICE_DIRS) for (const b of await declaredDownstream(service)) edges.push(`${service}->${b}`);
  return [...new Set(edges)].sort();
}

/** The chart's `paymesh.downstream` table (templates/_downstream.tpl), read without rendering. */
export function chartDownstreamTable(chartDir = CHART_DIR): Record<string, string[]> {
  const text = readFileSync(join(chartDir, 'templates', '_downstream.tpl'), 'utf8');
  const m = /\{\{-? define "paymesh\.downstream" -?\}\}\n([\s\S]*?)\{\{-? end -?\}\}/.exec(text);
  if (!m) throw new Error('templates/_downstream.tpl defines no paymesh.downstream');
  return parse(m[1]!) ?? {};
}

const componentValues = (peer: any): string[] => {
  const expr = peer?.podSelector?.matchExpressions?.find((e: any) => e.key === 'app.kubernetes.io/component');
  return expr?.values ?? [];
};

/**
 * The gRPC edges rendered NetworkPolicies admit, read from both ends: `ingress` from each backend's
 * rule on its `grpc` port (who may call it), `egress` from each pod's rule towards this release's
 * backend pods (whom it may call). Sorted.
 */
export function policyEdges(manifests: Manifest[]): { ingress: Edge[]; egress: Edge[] } {
  const ingress: Edge[] = [];
  const egress: Edge[] = [];
  for (const policy of manifests.filter((m) => m.kind === 'NetworkPolicy')) {
    const service = policy.metadata.labels?.['app.kubernetes.io/component'];
    if (!service) throw new Error(`NetworkPolicy ${policy.metadata.name} has no component label`);
    for (const rule of policy.spec.ingress ?? []) {
      if (!rule.ports?.some((p: any) => p.port === 'grpc')) continue;
      for (const peer of rule.from ?? [])
        for (const caller of componentValues(peer)) ingress.push(`${caller}->${service}`);
    }
    for (const rule of policy.spec.egress ?? []) {
      for (const peer of rule.to ?? [])
        for (const backend of componentValues(peer)) egress.push(`${service}->${backend}`);
    }
  }
  return { ingress: [...new Set(ingress)].sort(), egress: [...new Set(egress)].sort() };
}

/** What the chart admits beyond the declarations (`extra`) and what it lacks (`missing`). */
export function edgeDiff(admitted: Edge[], declared: Edge[]): { missing: Edge[]; extra: Edge[] } {
  return {
    missing: declared.filter((e) => !admitted.includes(e)),
    extra: admitted.filter((e) => !declared.includes(e)),
  };
}
