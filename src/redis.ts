// mcpkit/redis: the stores of a cluster of instances on Redis (Node only; ioredis is an optional peer dependency,
// loaded only through this entry).
export { RedisBus } from './redis/bus.js';
export { type RedisCluster, type RedisClusterOptions, redisCluster } from './redis/cluster.js';
export { RedisConnection, type RedisConnectionOptions } from './redis/connection.js';
export { RedisEventStore, type RedisEventStoreOptions } from './redis/event-store.js';
export { RedisRateLimitStore, type RedisRateLimitStoreOptions } from './redis/rate-limit-store.js';
export { RedisSessionStore } from './redis/session-store.js';
export { RedisTaskStore, type RedisTaskStoreOptions } from './redis/task-store.js';
