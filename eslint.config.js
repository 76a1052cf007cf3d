// ESLint (flat config): JavaScript's and typescript-eslint's recommended rules and lines of at most 120 characters;
// Prettier (npm run format) lays out the rest, so the two never disagree.
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
      'records/test/fixtures/',
      'records/dist/',
      'sdk/dist/',
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
      // A message, test name or pattern stays on one line, where grep finds it; Prettier breaks the code around it.
      '@stylistic/max-len': [
        'error',
        { code: 120, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true },
      ],
      '@typescript-eslint/no-unused-expressions': ['error', { allowTernary: true }],
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
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    files: ['test/**', 'records/test/**'],
    rules: {
      // Tests walk JSON documents by path, and match generated code whose indentation is the point.
      '@typescript-eslint/no-explicit-any': 'off',
      'no-regex-spaces': 'off',
    },
  },
);
