import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * src/postgres (database opening, leader locks, transactions, sequences) is infrastructure: only
 * the composition root (src/main.ts, src/startup/, the projection thread) imports it and passes it to the rooms
 * (DESIGN.md §2). From any depth of src/ or projections/, the import path holds `postgres/`.
 */
const noPostgres = {
  group: ['**/postgres/*'],
  message: 'Only the composition root imports src/postgres: take what it needs as a parameter.',
};

/**
 * src/web is the browser's: it speaks to the service over HTTP only and imports none of its
 * rooms (DESIGN.md §2), nor Node's modules.
 */
const serverRooms = {
  group: [
    '**/domain/*',
    '**/ledger/*',
    '**/commands/*',
    '**/queries/*',
    '**/http/*',
    '**/chain/*',
    '**/auction/*',
    '**/delivery/*',
    '**/postgres/*',
    '**/metrics/*',
    '**/projections/*',
    '**/schemas/*',
    '../../*',
    'node:*',
  ],
  message: 'src/web uses the API over HTTP only: it imports nothing of the server, nor Node.',
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', '.test-data/**', 'dist/**', 'test-output/**'] },
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
            noPostgres,
          ],
        },
      ],
    },
  },
  {
    // The referee judges every solver alike: it may not lean on any solver's own code
    // (cowprotocol/services keeps its winner selection apart from its solvers the same way).
    // The patterns repeat the domain block's, which this block replaces for these files.
    files: ['src/domain/referee/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../solver/*', '**/builtin-solver*', '**/auction/*', '../../auction/*'],
              message: 'The referee imports no solver code.',
            },
            {
              group: [
                '../../ledger/*',
                '../../commands/*',
                '../../queries/*',
                '../../http/*',
                '../../chain/*',
                '../../delivery/*',
                '../../../projections/*',
              ],
              message: 'src/domain imports nothing outside domain.',
            },
            {
              group: ['pg', 'knex', 'koa', '@koa/*', 'ethers'],
              message: 'src/domain is pure: no I/O libraries.',
            },
            noPostgres,
          ],
        },
      ],
    },
  },
  {
    files: ['src/web/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [serverRooms] }] },
  },
  {
    // src/domain has its own block above (a second one would replace its patterns).
    files: [
      'src/ledger/**',
      'src/commands/**',
      'src/queries/**',
      'src/http/**',
      'src/chain/**',
      'src/auction/**',
      'src/delivery/**',
      'projections/**',
    ],
    rules: { 'no-restricted-imports': ['error', { patterns: [noPostgres] }] },
  },
);
