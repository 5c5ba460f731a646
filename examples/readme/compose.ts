import { createProxy, McpServer } from 'mcpkit';
import { StdioClientTransport } from 'mcpkit/stdio';
import { connectInMemory } from 'mcpkit/testing';

// Two servers in one process: what `notes` registers appears in `app` as notes_<name>, now and later.
const notes = new McpServer({ name: 'notes', version: '1.0.0' });
notes.tool('add', { description: 'Adds a note' }, () => 'added');
notes.resource('notes://all', { name: 'all notes' }, () => 'buy milk');

const app = new McpServer({ name: 'app', version: '1.0.0' });
app.mount('notes', notes); // the tool notes_add, the resource notes://notes/all

// A proxy: another server (a stdio command, or a URL with `auth`) re-exposed as an McpServer, its tools reshaped.
const example = await createProxy(
  new StdioClientTransport({ command: 'node', args: ['dist/examples/everything/server.js'] }),
  {
    tools: {
      test_simple_text: { name: 'hello', description: 'Says hello' }, // renamed, described anew
      test_error_handling: { hidden: true }, // not offered
      test_sampling: { fixed: { prompt: 'Write a haiku' } }, // gone from the schema, sent on every call
    },
  },
);
app.mount('example', example, { tools: { toggle_feature: { hidden: true } } });

try {
  app.mount('notes', notes); // a name app already offers: refused here, nothing added
} catch (e) {
  console.log((e as Error).message); // Mounting "notes": the tool "notes_add" is already offered by …
}

const { client } = await connectInMemory(app);
console.log((await client.listTools()).map((t) => t.name)); // ['notes_add', 'example_hello', …]
console.log((await client.callTool('example_hello')).content);
await client.close();
await example.close(); // its sessions, then the server behind it (the whole process tree)
