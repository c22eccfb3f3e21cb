import { defineConfig } from 'vitest/config';

// Three projects: pure unit tests, integration tests against the real servers on this machine
// (PostgreSQL, NATS, Chromium, provider sandboxes), and black-box tests of the whole mesh.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'libs/*/src/**/*.test.ts',
            'services/*/src/**/*.test.ts',
            'sandboxes/*/src/**/*.test.ts',
            'services/*/web/src/**/*.test.ts',
            'test/support/**/*.test.ts',
          ],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: [
            'libs/*/test/**/*.test.ts',
            'services/*/test/**/*.test.ts',
            'sandboxes/*/test/**/*.test.ts',
            'test/deploy/**/*.test.ts',
          ],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'mesh',
          include: ['test/mesh/**/*.test.ts'],
          globalSetup: ['test/support/stale-meshes.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 240_000,
        },
      },
    ],
  },
});
