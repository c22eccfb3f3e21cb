// Global setup of the mesh suites: before they start, the namespaces of test meshes that a killed
// run left on the machine's NATS and PostgreSQL are dropped (a finished suite drops its own). A
// namespace counts as left over when its newest stream is older than any run of the suite lasts.
import { dropStaleNamespaces } from '../../deploy/local/namespace.mjs';
import { NATS_URL, PG_URL } from './mesh';

/** Stream names of test meshes: `t` and 8 hex digits (see startTestMesh), upper-cased. */
export const TEST_MESH_STREAM = /^(T[0-9A-F]{8})_/;
const OLDER_THAN_MS = 6 * 60 * 60 * 1000;

export default async function setup(): Promise<void> {
  const dropped = await dropStaleNamespaces(TEST_MESH_STREAM, {
    olderThanMs: OLDER_THAN_MS,
    pgUrl: PG_URL,
    natsUrl: NATS_URL,
  });
  if (dropped.length > 0)
    console.log(`dropped ${dropped.length} test mesh namespace(s) a killed run left: ${dropped.join(', ')}`);
}
