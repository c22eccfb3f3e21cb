export declare const PACKAGE_ROOTS: string[];
export declare const EXTRA_PATHS: string[];
export declare const FORBIDDEN_SEGMENTS: string[];
export declare function keptInDist(path: string): boolean;
export interface PlanEntry {
  path: string;
  kind: 'copy' | 'dist';
}
export declare function runtimePlan(root: string): PlanEntry[];
export declare function copyRuntimeTree(root: string, out: string, opts?: { link?: string[] }): void;
