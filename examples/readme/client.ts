import { Client } from 'mcpkit';
import { StdioClientTransport } from 'mcpkit/stdio';

const client = new Client(
  { name: 'my-host', version: '1.0.0' },
  {
    // Declaring a handler declares the capability.
    sampling: async () => ({ role: 'assistant', content: { type: 'text', text: 'Sunny.' }, model: 'stub' }),
    // Log entries at 'info' and above, in both protocol eras (client.setLoggingLevel() changes the threshold).
    onlog: ({ level, data }) => console.error(`[${level}]`, data),
  },
);
await client.connect(new StdioClientTransport({ command: 'node', args: ['dist/examples/readme/server.js'] }));

console.log(
  client.protocolVersion,
  (await client.listTools()).map((t) => t.name),
); // 2026-07-28 [ 'forecast' ]

// Tools. Logs arrive through onlog while the call runs, progress through onprogress.
const result = await client.callTool(
  'forecast',
  { city: 'Oslo', days: 2 },
  { onprogress: ({ progress, total }) => console.error(`progress ${progress}/${total}`) },
);
console.log(result.structuredContent); // { city: 'Oslo', highs: [ 20, 21 ] }, checked against the outputSchema

// A tool that fails does not throw: its result says isError and carries the message for the model.
const failed = await client.callTool('forecast', { city: 'Atlantis' });
console.log(failed.isError, failed.content); // true [ { type: 'text', text: 'No station in Atlantis' } ]
// (Protocol failures do throw: an unknown tool, arguments that do not fit its schema, a timeout.)

// Resources and prompts, with completions for a prompt's arguments.
console.log((await client.listResources()).map((r) => r.uri)); // [ 'weather://stations' ]
const [stations] = (await client.readResource('weather://stations')).contents;
console.log(stations && 'text' in stations ? stations.text.split('\n') : []); // [ 'Oslo', 'Lima', 'Perth' ]
const prompt = await client.getPrompt('plan-trip', { city: 'Lima' });
console.log(prompt.messages[0]?.content); // { type: 'text', text: 'Plan three days in Lima.' }
const completion = await client.complete(
  { type: 'ref/prompt', name: 'plan-trip' },
  { name: 'city', value: 'L' },
);
console.log(completion.values); // [ 'Lima' ]

await client.close(); // ends stdin, then SIGTERM, then SIGKILL: the whole process tree
