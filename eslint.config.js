// ESLint (flat config): JavaScript's and typescript-eslint's recommended rules, lines of at most 120 characters,
// and Prettier (npm run format) for the rest of the layout, so the two never disagree.
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/',
      'openapi/',
      'test/fixtures/',
      'sdk/src/schema.ts',
      // Generated from the copybooks (npm run records:types); a test keeps it current.
      'src/backend/copybooks/records.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    plugins: { '@stylistic': stylistic },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@stylistic/max-len': ['error', { code: 120, ignoreUrls: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // A double cast defeats the type checker: each one says why, on the line before it.
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSAsExpression > TSAsExpression[typeAnnotation.type="TSUnknownKeyword"]',
          message: '`as unknown as` needs an eslint-disable-next-line comment that says why the types cannot meet.',
        },
      ],
    },
  },
);
