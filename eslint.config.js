// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import graphqlPlugin from '@graphql-eslint/eslint-plugin';

export default tseslint.config(
  // schema/snapshot/: the released public schema as graphql-js prints it (npm run schema:snapshot).
  {
    ignores: [
      'node_modules/',
      'dist/',
      'coverage/',
      'src/generated/',
      'schema/snapshot/',
      '.docs-test-*/',
    ],
  },
  {
    files: ['**/*.{js,mjs,cjs,ts,mts,cts}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: {
      globals: globals.node,
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Only src/config/ (and the simulator/test harness) reads process.env.',
        },
      ],
    },
  },
  {
    // The explorer's browser code (bundled by scripts/build-explorer.ts): TSX, browser globals.
    files: ['explorer/**/*.{ts,tsx}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { globals: globals.browser },
  },
  {
    // The warm-up script hands a start of Weft the caller's PATH, HOME and NODE_COMPILE_CACHE only.
    files: [
      'src/config/**',
      'src/simulator/**',
      'test/**',
      '.ci/**',
      'vitest.config.ts',
      'scripts/warm-compile-cache.ts',
    ],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    // The SDL (local and the subgraph snapshots): every type, field, argument, input field, enum
    // value and directive is described, so the explorer and generated clients document themselves.
    files: ['schema/**/*.graphql'],
    languageOptions: { parser: graphqlPlugin.parser },
    plugins: { '@graphql-eslint': graphqlPlugin },
    rules: {
      '@graphql-eslint/require-description': [
        'error',
        {
          types: true,
          DirectiveDefinition: true,
          FieldDefinition: true,
          InputValueDefinition: true,
          EnumValueDefinition: true,
          // The root types are described once, in base.graphql; each domain file adds fields.
          ignoredSelectors: [
            '[type=ObjectTypeDefinition][name.value=/^(Query|Mutation|Subscription)$/][description=undefined]',
          ],
        },
      ],
    },
  },
  {
    // Tests read JSON responses of any shape.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
