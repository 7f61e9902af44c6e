import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * src/postgres (database opening, leader locks, transactions, sequences) is infrastructure: only
 * the composition root (src/main.ts, src/startup/, the projection and auction threads) imports it and passes it to the rooms
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
    '**/subscriptions/*',
    '**/bytes/*',
    '**/net/*',
    '**/startup/*',
    '**/projection-thread/*',
    '**/auction-thread/*',
    '**/threads/*',
    '**/config/*',
    '**/postgres/*',
    '**/metrics/*',
    '**/projections/*',
    '**/schemas/*',
    '../../*',
    'node:*',
  ],
  message: 'src/web uses the API over HTTP only: it imports nothing of the server, nor Node.',
};

/** keccak-256 has one way in (src/bytes/keccak.ts), so its speed and its digests are pinned once. */
const keccakThroughBytes = {
  group: ['js-sha3'],
  message: 'Hash with src/bytes/keccak.ts: it is the one place js-sha3 is used.',
};

/**
 * The rooms but src/domain, src/bytes and src/net, as a file one folder below src/ names them:
 * src/bytes (hex, keccak) and src/net (which IP addresses are public) are leaves every room may
 * use, so they import none of these; src/subscriptions imports none but itself.
 */
const otherRooms = [
  '../ledger/*',
  '../commands/*',
  '../queries/*',
  '../http/*',
  '../chain/*',
  '../auction/*',
  '../delivery/*',
  '../subscriptions/*',
  '../startup/*',
  '../projection-thread/*',
  '../auction-thread/*',
  '../threads/*',
  '../metrics/*',
  '../../projections/*',
];

/** src/'s own files (config.ts, logger.ts, …), from a room's top folder: the composition's. */
const srcFiles = '../*.js';

/** The I/O libraries a pure room (src/domain, src/subscriptions) may not import. */
const pure = (room) => ({
  group: ['pg', 'knex', 'koa', '@koa/*', 'ethers'],
  message: `${room} is pure: no I/O libraries.`,
});

/** What src/domain may not import, as a file `depth` folders below src/ names it. */
const domainOutside = (depth) => [
  {
    group: [...otherRooms, '../net/*'].map((pattern) => '../'.repeat(depth - 1) + pattern),
    message: 'src/domain imports nothing outside domain but src/bytes.',
  },
  pure('src/domain'),
  noPostgres,
  keccakThroughBytes,
];

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
      'no-restricted-imports': ['error', { patterns: domainOutside(1) }],
    },
  },
  {
    // The referee judges every solver alike: it may not lean on any solver's own code
    // (cowprotocol/services keeps its winner selection apart from its solvers the same way).
    // This block replaces the domain block for these files, so it takes its patterns too.
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
            ...domainOutside(2),
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
    // The rooms with blocks of their own (domain, subscriptions, bytes, net) are left out: a second block would
    // replace their patterns.
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
    rules: { 'no-restricted-imports': ['error', { patterns: [noPostgres, keccakThroughBytes] }] },
  },
  {
    // Notification subscriptions' rules (signing, authorisation, channels, the account's
    // subscriptions, destination verification): pure, as the domain is, on the domain's events.
    files: ['src/subscriptions/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [...otherRooms.filter((room) => room !== '../subscriptions/*'), srcFiles],
              message: 'src/subscriptions imports only the domain, src/bytes and src/net.',
            },
            pure('src/subscriptions'),
            noPostgres,
            keccakThroughBytes,
          ],
        },
      ],
    },
  },
  {
    files: ['src/bytes/**'],
    rules: {
      // The TypeScript rule, for `allowTypeImports`: the domain's types, never its code.
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../domain/*'],
              allowTypeImports: true,
              message: 'src/bytes takes nothing from the domain but its types.',
            },
            {
              group: [...otherRooms, srcFiles, '../net/*', '../postgres/*'],
              message: 'src/bytes is a leaf: it imports no other room.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/net/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [...otherRooms, srcFiles, '../domain/*', '../bytes/*', '../postgres/*'],
              message: 'src/net is a leaf: it imports no other room.',
            },
            keccakThroughBytes,
          ],
        },
      ],
    },
  },
  {
    // Everything the rooms above leave out: the composition root, scripts and tests.
    files: [
      'src/*.ts',
      'src/startup/**',
      'src/projection-thread/**',
      'src/auction-thread/**',
      'src/threads/**',
      'src/metrics/**',
      'scripts/**',
      'test/**',
    ],
    rules: { 'no-restricted-imports': ['error', { patterns: [keccakThroughBytes] }] },
  },
);
