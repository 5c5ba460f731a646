// `npm run cluster`: starts a redis-server, three instances of the everything example server on it and nginx in
// front (round robin, no affinity), prints the endpoints (Streamable HTTP and the legacy HTTP+SSE one, both clustered),
// and stops everything on Ctrl-C. Usage:
//   npm run cluster [-- --instances N] [--port PORT] [--redis redis://host:port]
import process from 'node:process';
import { parseArgs } from 'node:util';
import { Topology } from './topology.js';

const { values } = parseArgs({
  options: { instances: { type: 'string' }, port: { type: 'string' }, redis: { type: 'string' } },
  strict: true,
});
const instances = values.instances === undefined ? 3 : Number(values.instances);
const port = values.port === undefined ? undefined : Number(values.port);
if (!Number.isInteger(instances) || instances < 1 || (port !== undefined && !Number.isInteger(port))) {
  console.error('usage: npm run cluster [-- --instances N] [--port PORT] [--redis redis://host:port]');
  process.exit(2);
}
const topology = await Topology.start({
  instances,
  ...(port === undefined ? {} : { port }),
  ...(values.redis === undefined ? {} : { redisUrl: values.redis }),
});
console.log(
  `mcpkit cluster: ${topology.url} (nginx round robin over ${instances} instances, Redis ${topology.redisUrl})`,
);
console.log(`  legacy HTTP+SSE (2024-11-05): ${topology.sseUrl}`);
for (const [i, m] of topology.instances.entries())
  console.log(`  instance ${i}: ${topology.instanceUrl(i)} (pid ${m.child.pid})`);
console.log('Ctrl-C stops everything.');
const shutdown = () => {
  topology.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
