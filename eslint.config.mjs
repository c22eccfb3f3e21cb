import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const NO_DOUBLE_CAST = {
  selector: 'TSAsExpression > TSAsExpression > TSUnknownKeyword',
  message: 'no `as unknown as` casts; validate at the boundary',
};
const NO_NEVER_CAST = {
  selector: 'TSAsExpression > TSNeverKeyword',
  message: 'no `as never` casts; type the call (RPC maps in @paymesh/contracts) or narrow the value',
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'libs/proto/src/gen/**', '.run/**', 'coverage/**', 'helm/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/ban-ts-comment': 'error',
      // Narrow instead: an index that may be out of range is checked, a regex group is tested.
      '@typescript-eslint/no-non-null-assertion': 'error',
      'no-restricted-syntax': ['error', NO_DOUBLE_CAST, NO_NEVER_CAST],
    },
  },
  {
    // Use cases get typed values: the gRPC edge (grpc/) decodes the wire with the RPC maps.
    files: ['services/*/src/app/**/*.ts', 'services/*/src/domain/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: '@paymesh/grpc', message: 'app/ and domain/ take typed inputs; the gRPC edge lives in grpc/' },
            { name: '@paymesh/proto', message: 'app/ and domain/ never see generated proto types' },
          ],
        },
      ],
    },
  },
  {
    // Browser code of the buyer pages (bundled by services/gateway-public/web/build.mjs).
    files: ['services/gateway-public/web/src/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // The merchant dashboard (bundled by services/gateway-admin/web/build.mjs).
    files: ['services/gateway-admin/web/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/test/**/*.ts', '**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-restricted-syntax': ['error', NO_DOUBLE_CAST],
    },
  },
);
