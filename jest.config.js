/**
 * Two projects: every test on one Redis ("single"), and the integration
 * suites that must hold on a Redis Cluster too ("cluster": startRedis() starts
 * three cluster-mode masters; see test/helpers/cluster.ts).
 */
const common = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  rootDir: __dirname,
  roots: ['<rootDir>/test'],
  // responses of test apps that the OpenAPI document does not describe fail their test
  setupFilesAfterEnv: ['<rootDir>/test/helpers/openapiSetup.ts'],
  // the client package is tested from its source (one source of truth, no build needed);
  // its ES-module style `./x.js` imports name the `.ts` files
  moduleNameMapper: {
    '^@relayq/client$': '<rootDir>/packages/client/src/index.ts',
    '^@relayq/client/cli$': '<rootDir>/packages/client/src/cli/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
};

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 30000,
  // the client package's dist/, for the tests that run compiled code as processes
  globalSetup: '<rootDir>/test/helpers/globalSetup.cjs',
  projects: [
    {
      ...common,
      displayName: 'single',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      // the cluster suite starts its own cluster; it runs in the cluster project only
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/integration/cluster/'],
    },
    {
      ...common,
      displayName: 'cluster',
      setupFiles: ['<rootDir>/test/helpers/clusterTopology.ts'],
      testMatch: [
        '<rootDir>/test/integration/smoke.test.ts',
        '<rootDir>/test/integration/{core,accounts,ws,cluster,history}/**/*.test.ts',
        // account limits: per-account keys and scripts across the cluster's slots
        '<rootDir>/test/integration/fairness/limits.test.ts',
        // SQS FIFO queues: groups, dedup ids and sequence numbers on the account's slot
        '<rootDir>/test/integration/sqs/fifo.test.ts',
      ],
    },
  ],
};
