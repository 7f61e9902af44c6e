import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', '.test-data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Only src/config.ts reads process.env.' },
      ],
    },
  },
  {
    files: ['src/config.ts', 'test/**', 'scripts/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['src/domain/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '../ledger/*',
                '../commands/*',
                '../queries/*',
                '../http/*',
                '../chain/*',
                '../auction/*',
                '../delivery/*',
                '../../projections/*',
              ],
              message: 'src/domain imports nothing outside domain.',
            },
            {
              group: ['pg', 'knex', 'koa', '@koa/*', 'ethers'],
              message: 'src/domain is pure: no I/O libraries.',
            },
          ],
        },
      ],
    },
  },
);
