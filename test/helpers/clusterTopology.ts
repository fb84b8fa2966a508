/** setupFiles of the jest "cluster" project: startRedis() then starts a Redis Cluster. */
process.env.RELAYQ_TEST_TOPOLOGY = 'cluster';
